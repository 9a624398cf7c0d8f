// report.html of one set, self-contained (inline SVG, CSS and a small script; nothing from the network):
// who ran what, the score, RCP and the references' verdicts, the runs table, eval accuracy against
// samples for every run, throughput over each run, power per node where the set has power logs, the
// binding map (each node's ranks: cores, NUMA node, GPU, NIC, from the plan), and the compliance
// verdicts with every failing line.
#pragma once
#include <string>

#include "harness/history/set_record.h"
#include "harness/plan/plan.h"

namespace bert::harness::history {

// `plan` may be null (results the harness did not run: no binding map); `target_accuracy` <= 0: no line.
std::string report_html(const SetRecord& s, const Plan* plan, double target_accuracy);

}  // namespace bert::harness::history
