// The MLPerf closed-division rules for BERT that the official checker does not enforce (training
// rules: target 0.720, seq 512, 76 predictions, 10,000 eval samples, the phase-1 checkpoint, the eval
// cadence), checked when the plan is built so a set that cannot be submitted is never queued; and
// which reference convergence point (RCP) the planned global batch will be compared against.
#pragma once
#include <string>

#include "harness/config/config.h"

namespace bert::harness {

// Samples per optimizer step as the trainer logs global_batch_size (packed: x average_packing_rate).
double planned_global_batch(const Config& cfg, int world_size);

// Throws UserError at the first key that breaks a closed-division rule.
void check_closed_division(const Config& cfg, double global_batch);

// The shortest time one run of this plan can take, so that a per-run limit below it is known to kill every
// run: the samples it must train (the RCP mean for its global batch: what a converging run needs; less
// when max_steps x global batch or max_samples stops it first) at kFloorSamplesPerRankS per rank, a rate
// above the fastest any accelerator has reached: 1,605 samples/s per accelerator, measured from the
// result logs of MLPerf Training v3.1-v5.0 BERT (train_samples / (run_stop - run_start) / accelerators;
// the fastest: v5.0 Dell 1xXE9712x4GB200). Init before run_start is not counted.
inline constexpr double kFloorSamplesPerRankS = 2000;
struct RunTimeFloor {
  double seconds = 0;
  std::string why;  // "2,980,000 samples (the RCP mean for global batch 768) at 2000 samples/s on each of 8 ranks"
};
RunTimeFloor run_time_floor(const Config& cfg, double global_batch, int world_size);

// Why the BERT RCPs say nothing about the samples this system trains to its target ("" = they do: BERT-Large
// against the closed division's target 0.720), e.g. "benchmark.model tiny, not BERT-Large (large)".
std::string rcp_does_not_apply(const Config& cfg);

struct RcpOutlook {
  bool submittable = false;  // an exact or interpolated RCP exists (or a smaller batch compares with the smallest)
  std::string text;          // the dry-run's line, with the numbers
};
RcpOutlook rcp_outlook(double global_batch, const std::string& ruleset);

}  // namespace bert::harness
