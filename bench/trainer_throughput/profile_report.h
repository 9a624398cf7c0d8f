// trainer_throughput --profile's report: each op class's device time per step next to its floor
// (trainer/model/step_costs.h: its FLOPs at the measured GEMM rate or its bytes at the measured copy
// bandwidth, whichever is longer), as a text table (largest gap to the floor first) and as JSON for
// bench/results. Plain C++: the arithmetic is unit-tested without a GPU.
#pragma once
#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "trainer/model/step_costs.h"

namespace bert::bench {

struct ProfileInput {
  std::array<double, model::kStepOps> ms{};  // mean device time per profiled step
  std::array<int, model::kStepOps> spans{};  // marks per step
  double gaps_ms = 0;                        // stream idle between ops, per step
  double step_ms = 0;                        // first mark to the end of LAMB, per step
  int steps = 0;                             // profiled steps averaged
  bool graph = false;                        // the profiled steps replayed a captured graph
  double timed_step_ms = 0;                  // the benchmark's median step without events
  model::StepCosts costs{};                  // per step, over the real tokens
  double gemm_flop_per_s = 0, copy_bytes_per_s = 0;
};

// Empty when the times add up (ops + gaps = step within 1 % + 0.05 ms) and every op that has work
// was timed; otherwise what is wrong (the profile is not to be trusted then).
std::string profile_inconsistency(const ProfileInput& p);

nlohmann::json profile_json(const ProfileInput& p);
std::string profile_table(const ProfileInput& p);

}  // namespace bert::bench
