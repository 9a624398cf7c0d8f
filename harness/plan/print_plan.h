// The readable `harness run --dry-run` report: header, per-node rank table, exact commands.
#pragma once
#include <ostream>

#include "harness/plan/plan.h"
#include "harness/plan/probe_projection.h"

namespace bert::harness {

// Everything comes from the Plan, so a recorded plan.json (`harness run --resume OUTDIR --dry-run`)
// prints the same as the dry-run that made it.
void print_dry_run(const Plan& plan, std::ostream& out);

// The probe lines of the dry-run (also what `harness probe` prints): throughput, projection, --set lines.
std::string probe_lines(const ProbeProjection& p, const std::string& file);

}  // namespace bert::harness
