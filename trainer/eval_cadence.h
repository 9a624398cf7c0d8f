// When to evaluate, in samples (sequences): the MLPerf BERT rule
// interval = floor(0.05·(230.23·GBS + 3e6) / 25000)·25000, first eval after one interval,
// unless the run config sets eval_start_samples / eval_interval_samples.
#pragma once
#include <cstdint>

namespace bert::trainer {

int64_t mlperf_eval_interval(double global_batch_size);

struct EvalCadence {
  int64_t start = 0, interval = 0;
  // First eval threshold strictly after `samples` already evaluated at (or -1 when none yet).
  int64_t next_after(int64_t last_eval_threshold) const {
    return last_eval_threshold < 0 ? start : last_eval_threshold + interval;
  }
};

EvalCadence make_eval_cadence(int64_t start_cfg, int64_t interval_cfg, double global_batch_size);

}  // namespace bert::trainer
