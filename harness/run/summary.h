// summary.md of an experiment set: the runs, the score, the RCP verdict, where the logs are,
// the sha256 of every result file, the plots, and whether the set was interrupted.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/plan/plan.h"
#include "harness/run/output_tree.h"
#include "harness/run/plots.h"
#include "harness/run/set_state.h"
#include "results/score.h"

namespace bert::harness {

struct SummaryInput {
  const Plan* plan = nullptr;
  const OutputTree* tree = nullptr;
  const SetState* state = nullptr;
  std::optional<results::ScoreResult> score;
  std::string score_error;                   // why there is no score
  PlotResult plots;
  std::vector<std::string> preflight;        // findings and notes, one line each
};

std::string render_summary(const SummaryInput& in);

// "2.35 min" or "n/a".
std::string format_minutes(const std::optional<double>& m);

}  // namespace bert::harness
