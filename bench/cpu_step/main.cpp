// cpu_step: steady-state training throughput of the CPU backend's step (BertCpu forward + backward,
// global gradient norm + clipping, LAMB), the same work CpuBackend::step does on one rank, on the
// batches of bench/trainer_throughput/bench_batches.h (the PyTorch peer reads the same sequences from
// --dump-batches). Prints one JSON object: per-step times, medians, sequences/s, peak RSS.
// GEMM roofline: the GEMM GFLOP of each step (gemm_flops(), every product through gemm()/gemm_on_thread()),
// then, after the timed steps, our gemm() (same precision and threads) timed on the step's dominant
// shapes, best of --gemm-reps (gemm_peak_gflops): gemm_floor_s = GEMM GFLOP per step / that rate, the
// step time if every GEMM ran at it and nothing else took any time; gemm_share = floor / step time.
// Measured in the step: gemm_s, the time inside the products (gemm_thread_seconds(): thread-seconds;
// with more threads each row block of a product counts once per thread),
// so with 1 thread step_s - gemm_s is the time outside them (outside_gemm_s); --gemm-shapes adds the
// last step's time per product shape (calls, seconds, GFLOP/s).
//   --mode dense:  one full-length sequence per row (every token real), the same rows for the peer
//   --mode packed: MLPerf-like lengths (mean ~254 at seq 512) packed up to 3 per row, as our trainer
//                  runs packed data; the dump holds the same sequences one per padded row, as MLPerf's
//                  reference (and the peer) runs them. Throughput is sequences/s either way.
//   cpu_step --size base --seq-len 128 --rows 8 --threads 1 [--mode packed] [--precision bf16] [--steps 3] [--warmup 1] [--gemm-reps 5] [--gemm-shapes]
//   cpu_step ... --dump-batches F   (the batches as JSON, for bench/peers/hf_bert_cpu.py)
#include <omp.h>
#include <sys/resource.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_main.h"
#include "bench/trainer_throughput/bench_batches.h"
#include "common/cli_parse.h"
#include "trainer/cpu/bert_cpu.h"
#include "trainer/cpu/bf16_copy.h"
#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"
#include "trainer/model/config.h"
#include "trainer/model/init.h"
#include "trainer/model/params.h"
#include "trainer/optim/lamb.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// CPU time of the whole process (all threads): on a loaded machine it moves far less than wall time.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Our gemm() on the step's two largest products per layer, C = op(A)·B with fp32 (OpenBLAS) or bf16
// operands as the run: the intermediate dense layer forward (tokens × 4h × h) and its weight
// gradient xᵀ·dy (h × 4h × tokens, A transposed). In bf16 both operands are pre-rounded (registered
// copies), as the weights and the reused activations are in the step: the rate without per-call
// rounding, an upper bound for the floor. Best of `reps` after one untimed call; GFLOP/s per shape.
nlohmann::json calibrate_gemm(int tokens, int hidden, int intermediate, int reps, bert::cpu::MatmulPrecision precision,
                              double* peak_gflops) {
  struct Shape {
    const char* what;
    bool ta;
    int m, n, k;
  };
  const Shape shapes[] = {{"intermediate", false, tokens, intermediate, hidden},
                          {"intermediate dW", true, hidden, intermediate, tokens}};
  std::mt19937 g(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  nlohmann::json out = nlohmann::json::array();
  *peak_gflops = 0;
  for (const Shape& s : shapes) {
    std::vector<float> a(static_cast<size_t>(s.m) * s.k), b(static_cast<size_t>(s.k) * s.n),
        c(static_cast<size_t>(s.m) * s.n);
    for (auto& x : a) x = nd(g);
    for (auto& x : b) x = nd(g);
    bert::cpu::Bf16Copy a16, b16;
    const bert::cpu::ScopedBf16 ra(a16, a.data(), a.size(), precision), rb(b16, b.data(), b.size(), precision);
    const int lda = s.ta ? s.m : s.k;
    double best = 1e30;
    for (int r = 0; r <= reps; ++r) {
      const auto t0 = Clock::now();
      bert::cpu::gemm(s.ta, false, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), s.n, 0.0f, c.data(), s.n, precision);
      if (r > 0) best = std::min(best, seconds(t0, Clock::now()));
    }
    const double gflops = 2.0 * s.m * s.n * s.k / 1e9 / best;
    *peak_gflops = std::max(*peak_gflops, gflops);
    out.push_back({{"gemm", s.what}, {"m", s.m}, {"n", s.n}, {"k", s.k}, {"ta", s.ta}, {"best_s", best},
                   {"gflops", gflops}});
  }
  return out;
}

int run(int argc, char** argv) {
  CLI::App app{"CPU backend training-step throughput"};
  std::string size = "base", dump, precision = "fp32", mode = "dense";
  int rows = 8, seq_len = 128, threads = 1, steps = 3, warmup = 1, nbatches = 2, vocab = 30522, gemm_reps = 5;
  uint64_t seed = 1;
  app.add_option("--size", size, "tiny | base | large")->check(CLI::IsMember({"tiny", "base", "large"}));
  app.add_option("--mode", mode, "dense (full-length rows) | packed (MLPerf-like lengths, packed rows)")
      ->check(CLI::IsMember({"dense", "packed"}));
  app.add_option("--rows", rows, "rows per step (dense: one full-length sequence each; packed: packs)")->check(CLI::Range(1, 4096));
  app.add_option("--seq-len", seq_len, "tokens per row")->check(CLI::Range(8, 512));
  app.add_option("--threads", threads, "OpenMP threads")->check(CLI::Range(1, 1024));
  app.add_option("--steps", steps, "timed steps")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::Range(0, 1000));
  app.add_option("--batches", nbatches, "distinct batches rotated through")->check(CLI::Range(1, 64));
  app.add_option("--vocab", vocab, "vocabulary size")->check(CLI::Range(128, 1 << 20));
  app.add_option("--seed", seed, "batch and weight seed");
  app.add_option("--precision", precision, "fp32 | bf16 (the GEMMs through oneDNN, as run.precision: bf16)")
      ->check(CLI::IsMember({"fp32", "bf16"}));
  app.add_option("--gemm-reps", gemm_reps, "timed calls per shape of the GEMM calibration (best is kept)")
      ->check(CLI::Range(1, 1000));
  bool shapes = false;
  app.add_flag("--gemm-shapes", shapes, "also the last step's GEMM time per product shape");
  app.add_option("--dump-batches", dump, "write the batches as JSON to this file and exit");
  if (auto rc = bert::parse_command_line(app, argc, argv)) return *rc;
  std::vector<bert::data::Batch> batches;
  for (int i = 0; i < nbatches; ++i) {
    const uint64_t s = seed + static_cast<uint64_t>(i);
    batches.push_back(mode == "packed" ? bert::bench::make_packed_batch(rows, seq_len, vocab, s)
                                       : bert::bench::make_padded_batch(rows, seq_len, vocab, s));
  }
  if (!dump.empty()) {
    nlohmann::json j = {{"mode", mode}, {"vocab", vocab}, {"batches", nlohmann::json::array()}};
    for (const auto& b : batches) j["batches"].push_back(bert::bench::batch_json(bert::bench::padded_rows_of(b)));
    std::ofstream(dump) << j.dump();
    return 0;
  }
  omp_set_num_threads(threads);
  bert::cpu::set_blas_threads(threads);
  if (precision == "bf16") {
    std::string isa;
    if (!bert::cpu::cpu_has_bf16_matmul(&isa)) {
      std::cerr << "cpu_step: --precision bf16 needs avx512_bf16 or AMX-BF16; this CPU has " << isa << "\n";
      return 2;
    }
  }
  const bert::cpu::MatmulPrecision matmul =
      precision == "bf16" ? bert::cpu::MatmulPrecision::bf16 : bert::cpu::MatmulPrecision::fp32;
  bert::model::BertConfig cfg = bert::model::bert_config_for_size(*bert::parse_enum(size, bert::model::kModelSizeNames));
  cfg.vocab_size = vocab;
  const bert::model::ParamLayout layout = bert::model::make_param_layout(cfg);
  std::vector<float> params, grads(layout.total, 0.0f);
  bert::model::init_params(layout, seed, params);
  bert::cpu::BertCpu model(layout, matmul);
  bert::optim::Lamb lamb(layout, bert::optim::LambHyper{});
  bert::cpu::Bf16Copy params16;  // as CpuBackend: bf16 runs read the weights' copy LAMB rounds once per step
  if (precision == "bf16") params16.refresh(params.data(), params.size());
  std::vector<double> step_s, fwd_bwd_s, opt_s, step_cpu_s, seqs, seq_per_s, fwd_bwd_seq_per_s, tokens, gemm_gflop,
      gemm_s;
  double loss = 0;
  bert::cpu::set_gemm_shape_profile(shapes);
  for (int i = 0; i < warmup + steps; ++i) {
    const bert::data::Batch& b = batches[static_cast<size_t>(i) % batches.size()];
    const auto t0 = Clock::now();
    const double c0 = process_cpu_seconds();
    bert::cpu::reset_gemm_counters();
    const bert::model::DropoutContext d{true, seed, 0, static_cast<uint32_t>(i)};
    loss = model.forward(b, params.data(), d).loss;
    model.backward(params.data(), grads.data(), 1.0f, bert::cpu::BertCpu::Grads::overwrite);  // as CpuBackend
    const auto t1 = Clock::now();
    const double norm = bert::optim::global_grad_norm(layout, grads.data());
    // u into the gradients' buffer, as CpuBackend (the next backward overwrites it)
    lamb.step(params.data(), grads.data(), 1e-4, bert::optim::clip_factor(norm), params16.data(), grads.data());
    const auto t2 = Clock::now();
    const double c2 = process_cpu_seconds();
    if (i < warmup) continue;
    step_cpu_s.push_back(c2 - c0);
    gemm_gflop.push_back(static_cast<double>(bert::cpu::gemm_flops()) / 1e9);
    gemm_s.push_back(bert::cpu::gemm_thread_seconds());
    seqs.push_back(b.num_sequences);
    tokens.push_back(static_cast<double>(bert::bench::real_tokens(b)));
    seq_per_s.push_back(b.num_sequences / seconds(t0, t2));
    fwd_bwd_seq_per_s.push_back(b.num_sequences / seconds(t0, t1));
    step_s.push_back(seconds(t0, t2));
    fwd_bwd_s.push_back(seconds(t0, t1));
    opt_s.push_back(seconds(t1, t2));
  }
  bert::cpu::set_gemm_shape_profile(false);
  nlohmann::json shape_times = nlohmann::json::array();  // the last step's, before the calibration's products
  auto profile = bert::cpu::gemm_shape_profile();
  std::sort(profile.begin(), profile.end(), [](const auto& x, const auto& y) { return x.seconds > y.seconds; });
  for (const auto& g : profile)
    shape_times.push_back({{"ta", g.ta}, {"tb", g.tb}, {"m", g.m}, {"n", g.n}, {"k", g.k}, {"calls", g.calls},
                           {"seconds", g.seconds},
                           {"gflops", 2.0 * g.m * g.n * g.k * static_cast<double>(g.calls) / g.seconds / 1e9}});
  std::vector<double> outside_gemm_s;
  for (size_t i = 0; i < step_s.size(); ++i) outside_gemm_s.push_back(step_s[i] - gemm_s[i]);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);  // before the calibration's buffers
  const double med = median(step_s);
  double peak_gflops = 0;
  const nlohmann::json calibration = calibrate_gemm(static_cast<int>(std::lround(median(tokens))), cfg.hidden,
                                                    cfg.intermediate, gemm_reps, matmul, &peak_gflops);
  const double gemm_gflop_per_step = median(gemm_gflop), floor_s = gemm_gflop_per_step / peak_gflops;
  std::cout << nlohmann::json{{"bench", "cpu_step"},
                              {"implementation", "ours"},
                              {"precision", precision},
                              {"fp32_blas", bert::cpu::blas_library_name(bert::cpu::blas_library())},
                              {"model", size},
                              {"mode", mode},
                              {"rows", rows},
                              {"sequences", seqs},
                              {"real_tokens", tokens},
                              {"seq_len", seq_len},
                              {"threads", threads},
                              {"steps", steps},
                              {"warmup", warmup},
                              {"step_s", step_s},
                              {"fwd_bwd_s", fwd_bwd_s},
                              {"optimizer_s", opt_s},
                              {"step_s_median", med},
                              {"step_cpu_s", step_cpu_s},
                              {"step_cpu_s_median", median(step_cpu_s)},
                              {"fwd_bwd_s_median", median(fwd_bwd_s)},
                              {"optimizer_s_median", median(opt_s)},
                              {"seq_per_s", median(seq_per_s)},
                              {"fwd_bwd_seq_per_s", median(fwd_bwd_seq_per_s)},
                              {"peak_rss_mib", static_cast<double>(ru.ru_maxrss) / 1024.0},
                              {"last_loss", loss},
                              {"gemm_gflop", gemm_gflop},
                              {"gemm_gflop_per_step", gemm_gflop_per_step},
                              {"gemm_calibration", calibration},
                              {"gemm_peak_gflops", peak_gflops},
                              {"gemm_floor_s", floor_s},
                              {"gemm_share", floor_s / med},
                              {"gemm_s", gemm_s},
                              {"gemm_s_median", median(gemm_s)},
                              {"outside_gemm_s_median", threads == 1 ? nlohmann::json(median(outside_gemm_s)) : nlohmann::json()},
                              {"gemm_shapes", shapes ? shape_times : nlohmann::json()}}
                   .dump()
            << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return bert::bench::bench_main("cpu_step", run, argc, argv); }
