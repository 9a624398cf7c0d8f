// The trainer's run config the Plan carries and the executor writes: one value per row of the
// run-config key table (trainer/run_config_keys.h), from its benchmark.* key or resolved here.
#pragma once
#include "harness/config/config.h"
#include "harness/plan/plan.h"
#include "trainer/run_config.h"  // Backend, Precision (trainer/precision.h)

namespace bert::harness {

// What the harness resolves itself; every other key comes from its benchmark.* YAML key.
struct TrainerInputs {
  std::string train_dir, eval_file, checkpoint;  // as the trainer sees them (container paths inside a container)
  std::string rendezvous_dir;                    // local launches only
  trainer::Backend backend = trainer::Backend::Cpu;  // auto resolved
  trainer::Precision precision = trainer::Precision::fp32;  // auto resolved (trainer/precision.h)
  bool clip_after_allreduce = false;             // always on the cuda backend
  double power_window_s = 0;                     // power measured: train on after run_stop (harness/plan/power_plan.cpp)
};

json make_trainer_config(const Config& cfg, const Plan& plan, const TrainerInputs& in);

}  // namespace bert::harness
