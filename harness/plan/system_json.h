// The MLPerf systems/<system>.json of a Plan (the system description a submission carries).
#pragma once
#include "harness/config/config.h"
#include "harness/plan/plan.h"

namespace bert::harness {

json make_system_json(const Config& cfg, const Plan& plan);

}  // namespace bert::harness
