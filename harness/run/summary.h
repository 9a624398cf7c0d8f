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
  std::string extra_md;                      // sections of an observer of the set's end (RunOptions::at_end)
  PlotResult power_plots;                    // power over time per node (Plan::power)
};

std::string render_summary(const SummaryInput& in);

// "2.35 min" or "n/a".
std::string format_minutes(const std::optional<double>& m);

// Mean time to train of the compliant runs when the set is too small for MLPerf's olympic mean
// (a figure for short local sets, never presented as the MLPerf score). Empty without compliant runs.
std::optional<double> short_set_mean_minutes(const results::ScoreResult& s);

}  // namespace bert::harness
