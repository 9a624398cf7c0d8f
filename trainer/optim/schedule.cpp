#include "trainer/optim/schedule.h"

#include <algorithm>
#include <cmath>

namespace bert::optim {

double LrSchedule::at(int64_t step) const {
  const int64_t since = step - start_warmup_step;
  if (warmup_steps > 0 && since < warmup_steps)
    return base_lr * static_cast<double>(since) / static_cast<double>(warmup_steps);
  if (total_steps <= 0) return 0.0;
  const double frac = static_cast<double>(std::min(step, total_steps)) / static_cast<double>(total_steps);
  return base_lr * std::pow(1.0 - frac, power);
}

}  // namespace bert::optim
