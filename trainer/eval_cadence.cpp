#include "trainer/eval_cadence.h"

#include <cmath>

namespace bert::trainer {

int64_t mlperf_eval_interval(double gbs) {
  return static_cast<int64_t>(std::floor(0.05 * (230.23 * gbs + 3e6) / 25000.0)) * 25000;
}

EvalCadence make_eval_cadence(int64_t start_cfg, int64_t interval_cfg, double gbs) {
  EvalCadence c;
  c.interval = interval_cfg > 0 ? interval_cfg : mlperf_eval_interval(gbs);
  c.start = start_cfg >= 0 ? start_cfg : c.interval;
  return c;
}

}  // namespace bert::trainer
