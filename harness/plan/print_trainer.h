// The dry-run's lines about the program the ranks run and who binds them (empty for the builtin
// trainer bound by our bind wrapper, today's default, so those dry-runs read as before).
#pragma once
#include <string>

#include "harness/plan/plan.h"

namespace bert::harness {

std::string trainer_dry_run_lines(const Plan& p);

}  // namespace bert::harness
