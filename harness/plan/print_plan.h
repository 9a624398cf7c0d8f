// The readable `harness run --dry-run` report: header, per-node rank table, exact commands.
#pragma once
#include <ostream>

#include "harness/config/config.h"
#include "harness/plan/plan.h"

namespace bert::harness {

void print_dry_run(const Plan& plan, const Config& cfg, std::ostream& out);

}  // namespace bert::harness
