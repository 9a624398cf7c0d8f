// The verdict of each of a system's references (plan.references, from `references:` in its YAML) on
// a set: the set's figure against target and tolerance, which way is better from
// harness/config/reference_figures.h. A figure the set did not measure is "not measured", which
// `harness run --fail-on-reference` counts as missed: an acceptance cannot pass on a figure nobody took.
#pragma once
#include <string>
#include <vector>

#include "harness/history/set_record.h"
#include "harness/plan/plan.h"

namespace bert::harness::history {

std::vector<ReferenceVerdict> reference_verdicts(const std::vector<ReferenceTarget>& refs, const SetRecord& s);

// "reference time_to_train_min: 1.234 min (score (olympic mean)), target 1.2 min +5%: MISSED"
std::string verdict_line(const ReferenceVerdict& v);
bool any_missed(const std::vector<ReferenceVerdict>& v);  // missed or not measured

}  // namespace bert::harness::history
