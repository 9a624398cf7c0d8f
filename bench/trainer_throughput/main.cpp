// trainer_throughput: steady-state training throughput of the CUDA BERT trainer on one GPU
// (forward + backward + fused LAMB per step), in sequences/s and model FLOP utilisation.
//   trainer_throughput --mode padded|packed [--size large] [--rows N] [--steps 20] [--warmup 5] [--no-graph]
//                      [--precision bf16|fp8]
//   trainer_throughput --mode packed --dump-batches FILE   (the batches as JSON, for bench/peers/hf_bert.py)
//   trainer_throughput ... --profile [--profile-steps 3]   (then each op class's time and floor:
//                          a table on stderr, "profile" in the JSON; see profile_report.h)
// Prints one JSON object. MFU = model FLOPs / step time / peak, model FLOPs counted as
// trainer/model/step_costs.h (3 x forward matmul FLOPs over REAL tokens: dense layers, block-diagonal attention, sparse MLM head).
// --precision fp8 (run.precision fp8: the encoder's dense GEMMs in FP8) measures bf16 first, on the
// same batches in the same process, and reports both and fp8_over_bf16 (the goal: >= 1.3).
// Attention runs through cuDNN where the build has it, else our kernels; BERT_CUDA_ATTENTION=auto|cudnn|own
// chooses (trainer/cuda/attention_choice.h), and "attention" in the JSON (and the profile's rows) say which ran.
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "bench/trainer_throughput/bench_batches.h"
#include "bench/trainer_throughput/device_peaks.h"
#include "bench/trainer_throughput/profile_report.h"
#include "bench/bench_main.h"
#include "common/cli_parse.h"
#include "trainer/cuda/attention_choice.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/cuda_model.h"
#include "trainer/cuda/fp8_gemm.h"
#include "trainer/cuda/op_timer.h"
#include "trainer/cuda/train_step.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/model/params.h"
#include "trainer/model/step_costs.h"

namespace {

using bert::data::Batch;

double model_tflop_per_step(const bert::model::BertConfig& c, const Batch& b) {
  return bert::model::step_flop(bert::model::step_costs(c, bert::bench::real_step_shape(b, 0))) / 1e12;
}

// --profile: the device peaks, then `steps` more steps with every op timed (averaged per step).
nlohmann::json run_profile(bert::cuda::CudaTrainStep& trainer, const std::vector<Batch>& batches, int first_step,
                           int steps, bool graph, double timed_step_ms, const bert::model::BertConfig& cfg,
                           int64_t params, bool fp8) {
  using namespace bert;
  const bench::DevicePeaks peaks = bench::measure_device_peaks(trainer.model().stream());
  bench::ProfileInput in;
  in.steps = steps;
  in.graph = graph;
  in.timed_step_ms = timed_step_ms;
  in.gemm_flop_per_s = peaks.gemm_flop_per_s;
  in.copy_bytes_per_s = peaks.copy_bytes_per_s;
  cuda::OpTimer timer;
  for (int i = 0; i < steps; ++i) {
    const Batch& b = batches[static_cast<size_t>(first_step + i) % batches.size()];
    trainer.profile_step(b, static_cast<uint32_t>(first_step + i), timer);
    const cuda::OpTimes t = timer.read();
    model::StepShape shape = bench::real_step_shape(b, params, fp8);
    shape.cudnn_attention = trainer.model().cudnn_attention();
    const model::StepCosts k = model::step_costs(cfg, shape);
    for (size_t j = 0; j < model::kStepOps; ++j) {
      in.ms[j] += t.ms[j] / steps;
      in.spans[j] = t.spans[j];
      in.costs[j].flop += k[j].flop / steps;
      in.costs[j].bytes += k[j].bytes / steps;
    }
    in.gaps_ms += t.gaps_ms / steps;
    in.step_ms += t.total_ms / steps;
  }
  const std::string bad = bench::profile_inconsistency(in);
  if (!bad.empty()) throw cuda::CudaError("profile: " + bad);
  std::cerr << bench::profile_table(in);
  return bench::profile_json(in);
}

// Times warmup + steps optimizer steps (each: the batch's host-to-device copy, ~0.3 MB, and the whole
// step); throughput from the median step time and the mean work per step.
nlohmann::json measure(bert::cuda::CudaTrainStep& trainer, const std::vector<Batch>& batches,
                       const bert::model::BertConfig& cfg, int warmup, int steps) {
  cudaStream_t stream = trainer.model().stream();
  cudaEvent_t e0, e1;
  BERT_CUDA_CHECK(cudaEventCreate(&e0));
  BERT_CUDA_CHECK(cudaEventCreate(&e1));
  std::vector<double> ms;
  double seqs = 0, tflop = 0, loss = 0;
  for (int i = 0; i < warmup + steps; ++i) {
    const Batch& b = batches[static_cast<size_t>(i) % batches.size()];
    BERT_CUDA_CHECK(cudaEventRecord(e0, stream));
    trainer.step(b, static_cast<uint32_t>(i));
    BERT_CUDA_CHECK(cudaEventRecord(e1, stream));
    BERT_CUDA_CHECK(cudaEventSynchronize(e1));
    float t = 0;
    BERT_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
    if (i >= warmup) {
      ms.push_back(t);
      seqs += b.num_sequences;
      tflop += model_tflop_per_step(cfg, b);
    }
    if (i + 1 == warmup + steps) loss = trainer.stats().loss;
  }
  BERT_CUDA_CHECK(cudaEventDestroy(e0));
  BERT_CUDA_CHECK(cudaEventDestroy(e1));
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  double total_ms = 0;
  for (double t : ms) total_ms += t;
  const double seq_per_step = seqs / steps, tflop_per_step = tflop / steps;
  int64_t tokens = 0;
  for (const auto& b : batches) tokens += bert::bench::real_tokens(b);
  return {{"sequences_per_step", seq_per_step},
          {"mean_real_tokens_per_sequence", static_cast<double>(tokens) / (seq_per_step * batches.size())},
          {"step_ms_median", median},
          {"step_ms_min", sorted.front()},
          {"step_ms_mean", total_ms / steps},
          {"seq_per_s", seq_per_step / (median / 1e3)},
          {"model_tflop_per_step", tflop_per_step},
          {"model_tflops", tflop_per_step / (median / 1e3)},
          {"last_loss", loss}};
}

int run(int argc, char** argv) {
  CLI::App app{"CUDA BERT training throughput (one GPU)"};
  std::string mode = "packed", size = "large", dump, precision = "bf16";
  int rows = 0, seq_len = 512, steps = 20, warmup = 5, nbatches = 4;
  double peak = 989.4;
  uint64_t seed = 1;
  bool no_graph = false, profile = false;
  int profile_steps = 3;
  app.add_option("--mode", mode, "padded (full-length seq rows) or packed (MLPerf-like lengths)")
      ->check(CLI::IsMember({"padded", "packed"}));
  app.add_option("--size", size, "tiny | base | large")->check(CLI::IsMember({"tiny", "base", "large"}));
  app.add_option("--rows", rows, "rows (packs) per step; default 48 packed / 56 padded (NVIDIA per-GPU batches)");
  app.add_option("--seq-len", seq_len, "tokens per row")->check(CLI::Range(8, 512));
  app.add_option("--steps", steps, "timed steps")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::Range(0, 1000));
  app.add_option("--batches", nbatches, "distinct batches rotated through")->check(CLI::Range(1, 64));
  app.add_option("--peak-tflops", peak, "dense bf16 peak for MFU (H100/H200 SXM spec: 989.4; fp8 runs too)");
  app.add_option("--seed", seed, "batch and weight seed");
  app.add_option("--precision", precision, "bf16 | fp8 (the encoder's dense GEMMs in FP8; measures bf16 too)")
      ->check(CLI::IsMember({"bf16", "fp8"}));
  app.add_flag("--no-graph", no_graph, "queue every step eagerly instead of replaying a captured CUDA graph");
  app.add_flag("--profile", profile,
               "after the timed steps: each op class's device time per step and its floor (table on stderr, "
               "\"profile\" in the JSON)");
  app.add_option("--profile-steps", profile_steps, "steps averaged by --profile")->check(CLI::Range(1, 100));
  app.add_option("--dump-batches", dump, "write the batches as JSON to this file and exit (no GPU needed)");
  if (auto rc = bert::parse_command_line(app, argc, argv)) return *rc;
  if (rows == 0) rows = mode == "packed" ? 48 : 56;
  if (rows < 1) {
    std::cerr << "trainer_throughput: --rows must be positive\n";
    return 2;
  }

  auto cfg = bert::model::bert_config_for_size(*bert::parse_enum(size, bert::model::kModelSizeNames));
  cfg.max_position = std::max(cfg.max_position, seq_len);
  std::vector<Batch> batches;
  for (int i = 0; i < nbatches; ++i)
    batches.push_back(mode == "packed" ? bert::bench::make_packed_batch(rows, seq_len, cfg.vocab_size, seed + i)
                                       : bert::bench::make_padded_batch(rows, seq_len, cfg.vocab_size, seed + i));
  if (!dump.empty()) {
    nlohmann::json j = {{"mode", mode}, {"size", size}, {"batches", nlohmann::json::array()}};
    for (const auto& b : batches) j["batches"].push_back(bert::bench::batch_json(b));
    std::ofstream f(dump);
    f << j.dump();
    if (!f) {
      std::cerr << "trainer_throughput: cannot write " << dump << "\n";
      return 2;
    }
    return 0;
  }

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  BERT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (precision == "fp8" && !bert::cuda::has_fp8_matrix_units(prop.major, prop.minor)) {
    std::cerr << "trainer_throughput: --precision fp8 needs FP8 matrix units (sm_89, sm_90 and later); " << prop.name
              << " is sm_" << prop.major << prop.minor << "\n";
    return 2;
  }

  const bert::cuda::AttentionChoice attention = bert::cuda::attention_choice_from_env();
  bert::cuda::use_cudnn_attention(attention);  // a user error for cudnn in a build without it
  const auto layout = bert::model::make_param_layout(cfg);
  std::vector<float> params;
  bert::model::init_params(layout, seed, params);
  int max_seqs = 0, max_masked = 0;
  for (const auto& b : batches) {
    max_seqs = std::max(max_seqs, b.num_sequences);
    max_masked = std::max(max_masked, b.num_masked());
  }
  const std::vector<std::string> precisions =
      precision == "fp8" ? std::vector<std::string>{"bf16", "fp8"} : std::vector<std::string>{"bf16"};
  nlohmann::json runs = nlohmann::json::object();
  for (const std::string& p : precisions) {
    bert::cuda::TrainStepOptions opt;
    opt.lamb.schedule.base_lr = 1e-4;
    opt.lamb.schedule.total_steps = 1000000;
    opt.dropout_seed = seed;
    opt.use_graph = !no_graph;
    bert::cuda::CudaModelLimits lim{rows, seq_len, max_seqs, max_masked};
    lim.fp8.enabled = p == "fp8";
    lim.attention = attention;
    bert::cuda::CudaTrainStep trainer(layout, lim, opt);  // one model at a time: Large at 48 packs twice may not fit
    trainer.set_params(params);
    runs[p] = measure(trainer, batches, cfg, warmup, steps);
    runs[p]["cuda_graphs"] = trainer.graph_captured();
    runs[p]["attention"] = trainer.model().cudnn_attention() ? "cudnn" : "own";
    // Peak device memory: every buffer is allocated before the first step (graphs need fixed addresses),
    // so what is in use after the timed steps (total - free, the CUDA context included) is the peak; the
    // PyTorch peer reports the same reading.
    size_t free_bytes = 0, total_bytes = 0;
    BERT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    runs[p]["device_memory_in_use_gib"] = static_cast<double>(total_bytes - free_bytes) / (1ull << 30);
    if (profile && p == precision)
      runs[p]["profile"] = run_profile(trainer, batches, warmup + steps, profile_steps, !no_graph,
                                       runs[p]["step_ms_median"].get<double>(), cfg, static_cast<int64_t>(layout.total),
                                       p == "fp8");
  }
  nlohmann::json out = runs[precision];
  out.update(nlohmann::json{{"bench", "trainer_throughput"}, {"implementation", "bert_cuda"}, {"precision", precision},
                            {"device", prop.name}, {"model", size}, {"mode", mode}, {"rows", rows},
                            {"seq_len", seq_len}, {"steps", steps}, {"warmup", warmup}, {"peak_tflops", peak}});
  out["mfu"] = out["model_tflops"].get<double>() / peak;
  if (precision == "fp8") {
    out["bf16"] = runs["bf16"];
    out["fp8_over_bf16"] = out["seq_per_s"].get<double>() / runs["bf16"]["seq_per_s"].get<double>();
  }
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return bert::bench::bench_main("trainer_throughput", run, argc, argv); }
