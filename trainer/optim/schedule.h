// Learning rate as the reference (TF optimization.py; NVIDIA LinearWarmupPolyDecayScheduler):
// step = 0-based index of the update.
//   (step − start_warmup_step) < warmup_steps:  lr = base·(step − start_warmup_step)/warmup_steps
//   otherwise:                                   lr = base·(1 − min(step, T)/T)^power   (T = total_steps)
// The decay uses step, not step − start_warmup_step; a negative start_warmup_step therefore keeps
// lr ≈ base until warmup ends and then jumps onto the decay line (what submitters rely on).
// Host and device code (trainer/model/host_device.h): the CPU optimizer, the training loop's log and
// the CUDA fused LAMB (which evaluates it on the device every step) share this one definition.
#pragma once
#include <cmath>
#include <cstdint>

#include "trainer/model/host_device.h"

namespace bert::optim {

struct LrSchedule {
  double base_lr = 4e-4;
  int64_t warmup_steps = 0;
  int64_t start_warmup_step = 0;
  int64_t total_steps = 1000;
  double power = 1.0;

  BERT_HD double at(int64_t step) const {
    const int64_t since = step - start_warmup_step;
    if (warmup_steps > 0 && since < warmup_steps)
      return base_lr * static_cast<double>(since) / static_cast<double>(warmup_steps);
    if (total_steps <= 0) return 0.0;
    const double frac = static_cast<double>(step < total_steps ? step : total_steps) / static_cast<double>(total_steps);
    return base_lr * std::pow(1.0 - frac, power);
  }
};

}  // namespace bert::optim
