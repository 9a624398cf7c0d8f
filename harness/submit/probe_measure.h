// Throughput of a short run from its MLPerf log alone (any trainer's MLLOG lines):
// - points: `tracked_stats` lines whose metadata step is a sample count (our trainer) give (time, samples);
//   the rate over the intervals after the first `warmup` points, minus the evaluations inside them, is
//   the training throughput;
// - values: otherwise the throughput the lines carry (`tracked_stats` {"throughput"|"seq/sec"|"seq/s"|
//   "samples/sec": x}, or else NVIDIA's `throughput` key, which repeats them), averaged after the first
//   `warmup` of them;
// - evaluations: eval_start -> eval_stop pairs; initialization: init_start -> run_start;
// - convergence: a run_stop with status "success" after eval_accuracy lines: the last one's epoch_num.
#pragma once
#include <string>
#include <string_view>

namespace bert::harness {

struct Throughput {
  bool ok = false;
  std::string method;           // "points" | "values"
  double samples_per_s = 0;     // after warm-up, without evaluations
  int measured = 0;             // intervals (points) or values averaged
  int dropped = 0;              // warm-up points/values left out
  double measured_s = 0;        // training seconds the rate covers (points)
  double eval_s = 0;            // mean seconds of one evaluation (0 = none seen)
  int evals = 0;
  double init_s = -1;           // init_start -> run_start (-1 = not logged)
  double converged_samples = -1;  // run_stop "success": the last eval_accuracy's epoch_num before it, as the
                                  // RCP checker counts samples to converge (-1 = the run did not converge)
  std::string why_not;          // when !ok: what the log lacked
};

Throughput measure_throughput(std::string_view log_bytes, int warmup);

}  // namespace bert::harness
