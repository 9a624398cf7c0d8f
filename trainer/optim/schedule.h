// Learning rate as the reference (TF optimization.py; NVIDIA LinearWarmupPolyDecayScheduler):
// step = 0-based index of the update.
//   (step − start_warmup_step) < warmup_steps:  lr = base·(step − start_warmup_step)/warmup_steps
//   otherwise:                                   lr = base·(1 − min(step, T)/T)^power   (T = total_steps)
// The decay uses step, not step − start_warmup_step; a negative start_warmup_step therefore keeps
// lr ≈ base until warmup ends and then jumps onto the decay line (what submitters rely on).
#pragma once
#include <cstdint>

namespace bert::optim {

struct LrSchedule {
  double base_lr = 4e-4;
  int64_t warmup_steps = 0;
  int64_t start_warmup_step = 0;
  int64_t total_steps = 1000;
  double power = 1.0;

  double at(int64_t step) const;
};

}  // namespace bert::optim
