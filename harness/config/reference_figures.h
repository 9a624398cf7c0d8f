// The figures a system's `references:` may hold, one row each: its key (references.<key>.target and
// .tolerance), its unit and which way is better. The schema's rows, the Plan's references and the
// verdicts (harness/history/references.cpp) all come from this table.
#pragma once
#include <string_view>

namespace bert::harness {

struct ReferenceFigure {
  std::string_view key;    // references.<key>
  std::string_view unit;   // for messages: "min", "samples/s", "J"
  bool lower_is_better;    // met when the figure is at most target x (1 + tolerance); else at least target x (1 - tolerance)
  std::string_view what;   // which figure of a set is compared with the target
};

inline constexpr ReferenceFigure kReferenceFigures[] = {
    {"time_to_train_min", "min", true,
     "the set's time to train in minutes: its MLPerf score, or the plain mean of the compliant runs where the set is "
     "too small for an olympic mean"},
    {"samples_per_s", "samples/s", false,
     "training throughput: the mean over the runs of the samples trained per second from run_start to the last eval"},
    {"energy_j", "J", true,
     "energy to train in joules: the score's energy (harness score's energy_j, from the power logs), else the mean of "
     "the runs' energy"},
};

inline const ReferenceFigure* find_reference_figure(std::string_view key) {
  for (const ReferenceFigure& f : kReferenceFigures)
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace bert::harness
