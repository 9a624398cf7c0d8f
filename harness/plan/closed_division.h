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

struct RcpOutlook {
  bool submittable = false;  // an exact or interpolated RCP exists (or a smaller batch compares with the smallest)
  std::string text;          // the dry-run's line, with the numbers
};
RcpOutlook rcp_outlook(double global_batch, const std::string& ruleset);

}  // namespace bert::harness
