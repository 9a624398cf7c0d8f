#include "trainer/train_loop.h"

#include <fmt/format.h>
#include <omp.h>
#include <sched.h>

#include <chrono>
#include <filesystem>
#include <cmath>
#include <utility>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "formats/checkpoint_h5.h"
#include "results/mllog/mllog.h"
#include "trainer/data/loader.h"
#include "trainer/comm/comm.h"
#include "trainer/eval_cadence.h"
#include "trainer/model_setup.h"
#include "trainer/optim/schedule.h"
#include "trainer/step_agreement.h"
#include "trainer/stop_signal.h"
#include "trainer/synthetic_batch.h"
#include "trainer/train_backend.h"

namespace bert::trainer {

namespace {

namespace k = results::key;
using Clock = std::chrono::steady_clock;
using results::json;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int threads_from_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

// The CUDA backend reads losses from the device only when asked: at evals, at the end, and every
// this many steps (divergence check, progress line). Every rank asks after the same steps.
constexpr int64_t kLossSyncSteps = 50;

void save_weights(const std::string& path, const model::ParamLayout& layout, const std::vector<float>& params) {
  data::TensorMap tensors;
  for (const model::ParamInfo& p : layout.tensors) {
    data::Tensor t;
    t.shape.assign(p.shape.begin(), p.shape.end());
    t.values.assign(params.begin() + static_cast<std::ptrdiff_t>(p.offset),
                    params.begin() + static_cast<std::ptrdiff_t>(p.offset + p.size));
    tensors.emplace(p.name, std::move(t));
  }
  data::save_checkpoint_h5(path, tensors, "trainer");
}

void log_submission_and_hyperparameters(results::MLLogger& log, const RunConfig& cfg,
                                        const model::ParamLayout& layout, double gbs) {
  const optim::LrSchedule sched = lr_schedule(cfg);
  // The submission's identity and every hyperparameter the BERT rules ask for, in the log's order.
  const std::pair<std::string_view, json> events[] = {
      {k::kSubmissionBenchmark, "bert"},
      {k::kSubmissionOrg, cfg.submission_org},
      {k::kSubmissionDivision, cfg.submission_division},
      {k::kSubmissionStatus, cfg.submission_status},
      {k::kSubmissionPlatform, cfg.submission_platform},
      {k::kSeed, cfg.seed},
      {k::kGlobalBatchSize, gbs == std::floor(gbs) ? json(static_cast<int64_t>(gbs)) : json(gbs)},
      {k::kDBatchSize, cfg.batch_size},
      {k::kGradientAccumulationSteps, cfg.gradient_accumulation_steps},
      {k::kMaxSequenceLength, cfg.max_seq_length},
      {k::kMaxPredictionsPerSeq, cfg.max_predictions_per_seq},
      {k::kOptLearningRateTrainingSteps, cfg.max_steps},
      {k::kNumWarmupSteps, sched.warmup_steps},
      {k::kOptBaseLearningRate, cfg.learning_rate},
      {k::kOptLambEpsilon, cfg.lamb_epsilon},
      {k::kOptEpsilon, cfg.lamb_epsilon},
      {k::kOptLambBeta1, cfg.lamb_beta_1},
      {k::kOptLambBeta2, cfg.lamb_beta_2},
      {k::kOptLambWeightDecayRate, cfg.weight_decay_rate},
      {k::kOptLearningRateWarmupSteps, sched.warmup_steps},
      {k::kOptLambLearningRateDecayPolyPower, sched.power},
      {k::kStartWarmupStep, cfg.start_warmup_step},
  };
  for (const auto& [key, value] : events) log.event(key, value);
  for (const model::ParamInfo& p : layout.tensors)
    log.event(k::kWeightsInitialization, nullptr, {{"tensor", p.name}});
}

std::string eta_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
  return buf;
}

// One optimizer step and the ranks' agreement on it (`stop`: this rank asks the others to stop after
// it); false when the data ran dry first.
bool train_step(TrainBackend& backend, dist::Collective& coll, int64_t step, const NextBatch& next,
                StepAgreement& agreed, bool stop = false) {
  StepReport local;
  if (!backend.step(step, next, local)) return false;
  agreed = agree_on_step(coll, local, stop_requested() || stop);
  backend.finish_step(step, agreed.all_finite);
  return true;
}

int run_benchmark(const RunConfig& cfg, const TrainOptions& opt, const model::ParamLayout& layout,
                  dist::Collective& coll, TrainBackend& backend) {
  backend.set_params(initial_params(layout, cfg));
  // Rank r trains rows [r·B, (r+1)·B) of one global batch, so W ranks × B see what 1 rank × W·B sees.
  const data::Batch batch = slice_rows(make_synthetic_batch(cfg.batch_size * coll.size(), cfg.max_seq_length,
                                                            cfg.max_predictions_per_seq, cfg.vocab_size, cfg.seed),
                                       coll.rank() * cfg.batch_size, cfg.batch_size);
  const NextBatch next = [&](data::Batch& b) {
    b = batch;
    return true;
  };
  StepAgreement out;
  train_step(backend, coll, 0, next, out);  // warm-up: allocations, BLAS buffers (CUDA: eager steps, graph capture)
  if (!out.has_loss) agree_on_loss(coll, backend, out);
  const auto t0 = Clock::now();
  int64_t seqs = 0;
  for (int i = 1; i <= opt.benchmark_steps; ++i) {
    train_step(backend, coll, i, next, out);
    seqs += out.sequences;
  }
  if (!out.has_loss) agree_on_loss(coll, backend, out);  // waits for the device
  const double secs = seconds_since(t0);
  if (coll.rank() == 0)
    std::printf("benchmark: model %s (L%d H%d A%d) seq_len %d batch %d x accum %d x ranks %d (allreduce: %s), %s: "
                "%d steps, %.3f s, %.3g seq/s, %.2f ms/step, last loss %.4f\n",
                model::model_size_name(cfg.model_size), layout.config.layers, layout.config.hidden, layout.config.heads,
                cfg.max_seq_length, cfg.batch_size, cfg.gradient_accumulation_steps, coll.size(),
                coll.transport(), backend.describe().c_str(), opt.benchmark_steps, secs, static_cast<double>(seqs) / secs,
                1000.0 * secs / opt.benchmark_steps, out.loss);
  std::fflush(stdout);
  if (!opt.save_weights.empty() && coll.rank() == 0) save_weights(opt.save_weights, layout, backend.params());
  return 0;
}

}  // namespace

int run_trainer(const RunConfig& cfg, const TrainOptions& opt) {
  check_backend_available(cfg, opt.config_path);  // before any rendezvous: a lone rank fails at once
  const dist::ProcessInfo proc = dist::detect_process();
  results::MLLogger log(stdout);
  if (opt.benchmark_steps == 0) log.start(k::kInitStart);  // every rank, as NVIDIA's trainer
  log.set_enabled(proc.rank == 0 && opt.benchmark_steps == 0);

  const int threads = cfg.threads > 0 ? cfg.threads : threads_from_affinity();
  omp_set_num_threads(threads);  // the CPU backend gives its BLAS the same

  std::unique_ptr<dist::KVStore> kv = dist::make_kv_store(proc, cfg.rendezvous_dir);
  std::unique_ptr<dist::Collective> coll = dist::make_cpu_collective(proc, *kv);
  const int world = coll->size();

  const model::ParamLayout layout = model::make_param_layout(resolve_model_config(cfg));
  const BackendContext ctx{cfg, opt.config_path, layout, proc, *kv, *coll};
  if (opt.benchmark_steps > 0) {
    const std::unique_ptr<TrainBackend> backend = make_backend(ctx);
    return run_benchmark(cfg, opt, layout, *coll, *backend);
  }

  const bool packed = cfg.data_format == data::Format::packed;
  const double gbs = static_cast<double>(cfg.batch_size) * cfg.gradient_accumulation_steps * world *
                     (packed ? cfg.average_packing_rate : 1.0);
  if (cfg.train_dir.empty()) throw RunConfigError("run config: data.train_dir is required for training");
  if (cfg.eval_file.empty()) throw RunConfigError("run config: data.eval_file is required for training");
  // Only existence here: the training data itself is not read before run_start.
  if (!std::filesystem::is_directory(cfg.train_dir))
    throw data::DataError(cfg.train_dir + ": training data directory does not exist (data.train_dir)");

  const std::unique_ptr<TrainBackend> backend = make_backend(ctx);
  backend->set_params(initial_params(layout, cfg));
  log_submission_and_hyperparameters(log, cfg, layout, gbs);

  // The eval set is fixed (masks baked in) and cached before the clock starts, as NVIDIA does.
  const data::EvalSet eval = data::load_eval(cfg.eval_file, cfg.vocab_size, cfg.max_seq_length,
                                             cfg.max_predictions_per_seq, cfg.num_eval_examples, proc.rank, world,
                                             cfg.eval_batch_size);
  double eval_totals[2] = {static_cast<double>(eval.num_sequences), static_cast<double>(eval.num_masked)};
  coll->allreduce_sum(eval_totals, 2);
  if (eval_totals[1] <= 0) throw data::DataError(cfg.eval_file + ": the eval set has no masked tokens");
  const auto eval_samples = static_cast<int64_t>(eval_totals[0]);
  const EvalCadence cadence = make_eval_cadence(cfg.eval_start_samples, cfg.eval_interval_samples, gbs);

  coll->barrier();
  log.end(k::kInitStop);
  log.start(k::kRunStart);
  const auto run_t0 = Clock::now();

  // Training data is opened only now, after run_start.
  data::LoaderOptions lo;
  lo.dir = cfg.train_dir;
  lo.format = cfg.data_format;
  lo.rank = proc.rank;
  lo.world_size = world;
  lo.batch_size = cfg.batch_size;
  lo.seq_len = cfg.max_seq_length;
  lo.max_pred = cfg.max_predictions_per_seq;
  lo.vocab_size = cfg.vocab_size;
  lo.seed = cfg.seed;
  data::Loader loader(lo);

  int64_t samples = 0, step = 0, next_eval = cadence.next_after(-1);
  log.start(k::kEpochStart, nullptr, {{k::kEpochNum, 0}});
  log.start(k::kBlockStart, nullptr, {{k::kFirstEpochNum, 0}, {k::kEpochCount, 1}});

  std::string status = k::kStatusAborted, reason;
  int exit_code = 0;
  double last_acc = -1, loss_ema = 0;
  auto last_progress = Clock::now() - std::chrono::seconds(60);
  bool have_loss = false;
  const NextBatch next_batch = [&](data::Batch& b) { return loader.next(b); };
  for (;;) {
    StepAgreement out;
    if (!train_step(*backend, *coll, step, next_batch, out)) {
      reason = "training data exhausted";
      break;
    }
    ++step;
    samples += out.sequences;
    const bool hit_max = step >= cfg.max_steps || (cfg.max_samples > 0 && samples >= cfg.max_samples);
    if (!out.has_loss && (samples >= next_eval || hit_max || out.stop || step % kLossSyncSteps == 0))
      agree_on_loss(*coll, *backend, out);
    if (out.has_loss && (!std::isfinite(out.loss) || !std::isfinite(out.grad_norm))) {
      std::fprintf(stderr, "trainer: loss is %s at step %lld (%lld samples): training diverged; stopping\n",
                   std::isfinite(out.loss) ? "finite but the gradient is not" : "NaN/inf",
                   static_cast<long long>(step), static_cast<long long>(samples));
      reason = "diverged";
      exit_code = 1;
      break;
    }
    if (out.has_loss) {
      loss_ema = have_loss ? 0.9 * loss_ema + 0.1 * out.loss : out.loss;
      have_loss = true;
    }
    bool reached = false;
    if (samples >= next_eval) {
      const double secs = seconds_since(run_t0);
      log.event(k::kTrackedStats, {{"throughput", samples / std::max(secs, 1e-9)}}, {{"step", samples}});
      log.start(k::kEvalStart, samples, {{k::kEpochNum, samples}});
      last_acc = backend->evaluate(eval);
      log.end(k::kEvalStop, samples, {{k::kEpochNum, samples}});
      log.event(k::kEvalAccuracy, last_acc, {{k::kEpochNum, samples}});
      while (next_eval <= samples) next_eval += cadence.interval;
      reached = last_acc >= cfg.target_accuracy;
    }
    const double secs = seconds_since(run_t0);
    if (proc.rank == 0 && (seconds_since(last_progress) >= 5.0 || reached || hit_max)) {
      last_progress = Clock::now();
      const double frac_steps = static_cast<double>(step) / cfg.max_steps;
      const double frac_samples = cfg.max_samples > 0 ? static_cast<double>(samples) / cfg.max_samples : 0.0;
      const double frac = std::max(frac_steps, frac_samples);
      std::fprintf(stderr, "[trainer] step %lld samples %lld  %.1f seq/s  loss %.4f  lr %.3g  eval acc %s  ETA(max) %s\n",
                   static_cast<long long>(step), static_cast<long long>(samples), samples / std::max(secs, 1e-9),
                   loss_ema, backend->learning_rate(step - 1),
                   last_acc < 0 ? "-" : std::to_string(last_acc).substr(0, 6).c_str(),
                   eta_text(secs / std::max(frac, 1e-9) - secs).c_str());
    }
    if (reached) {
      status = k::kStatusSuccess;
      reason = "target accuracy reached";
      break;
    }
    if (out.stop) {
      reason = "stop requested (SIGTERM)";
      break;
    }
    if (hit_max) {
      reason = step >= cfg.max_steps ? "max_steps reached" : "max_samples reached";
      break;
    }
  }
  log.end(k::kBlockStop, nullptr, {{k::kFirstEpochNum, 0}});
  log.end(k::kEpochStop, nullptr, {{k::kEpochNum, samples}});
  log.event(k::kTrainSamples, samples);
  // Which rows: MLPerf's pick_eval_samples.py rule over the N samples of the eval files.
  log.event(k::kEvalSamples, eval_samples,
            {{"eval_rows", fmt::format("int(i*{}/{}) for i < {}", eval.total_available, cfg.num_eval_examples,
                                       cfg.num_eval_examples)}});
  log.end(k::kRunStop, nullptr, {{k::kStatus, status}});
  const double secs = seconds_since(run_t0);
  log.event(k::kTrackedStats, {{"throughput", samples / std::max(secs, 1e-9)}}, {{"step", samples}});
  std::fflush(stdout);
  if (!opt.save_weights.empty() && proc.rank == 0) save_weights(opt.save_weights, layout, backend->params());
  if (proc.rank == 0)
    std::fprintf(stderr, "[trainer] run_stop %s: %s after %lld steps, %lld samples, %.1f s, last eval accuracy %s\n",
                 status.c_str(), reason.c_str(), static_cast<long long>(step), static_cast<long long>(samples), secs,
                 last_acc < 0 ? "-" : std::to_string(last_acc).c_str());
  // MLPerf power: a run shorter than its power window trains on through the same steps and data path
  // until the window is complete, logging nothing (the result is already written above). The step index
  // stays inside the schedule; each rank's clock may end it, the step's stop flag ends it on all.
  if (cfg.power_window_s > 0 && exit_code == 0 && !stop_requested() && seconds_since(run_t0) < cfg.power_window_s) {
    std::unique_ptr<data::Loader> again;
    const NextBatch more = [&](data::Batch& b) {
      if (!again && loader.next(b)) return true;
      for (int pass = 0; pass < 2; ++pass) {  // another pass over the shards
        if (again && again->next(b)) return true;
        again = std::make_unique<data::Loader>(lo);
      }
      return false;
    };
    int64_t extra = 0;
    for (StepAgreement out; !out.stop; ++extra)
      if (!train_step(*backend, *coll, std::min<int64_t>(step, cfg.max_steps - 1), more, out,
                      seconds_since(run_t0) >= cfg.power_window_s))
        break;
    if (proc.rank == 0)
      std::fprintf(stderr, "[trainer] power window: %lld more steps after run_stop, %.1f s after run_start\n",
                   static_cast<long long>(extra), seconds_since(run_t0));
  }
  return exit_code;
}

}  // namespace bert::trainer
