// A SetRecord from what there is: the end of a set the harness ran (its Plan, state and score), a
// harness output folder (plan.json, state.json, results/), or anyone's results folder of result_*.txt
// (an official submission's results/<system>/bert/, with its systems/<system>.json when beside it).
#pragma once
#include <optional>
#include <string>

#include "harness/history/set_record.h"
#include "harness/plan/plan.h"
#include "harness/run/set_state.h"
#include "results/score.h"

namespace bert::harness::history {

// The set `harness run` just ended (origin "run"), with the references' verdicts.
SetRecord record_from_run(const Plan& plan, const SetState& state, const std::string& root,
                          const std::optional<results::ScoreResult>& score);

// Results the harness did not run (origin "recorded"), scored by harness score.
SetRecord record_from_results(const std::string& results_dir, const results::ScoreResult& score);

// A folder by what it holds: a harness output folder (plan.json + state.json; also when `dir` is its
// results/<system>/bert), a folder of result_*.txt, or one with a single results/<system>/bert inside.
// Throws UserError naming the folder when it is none of these.
SetRecord record_from_folder(const std::string& dir, const std::string& ruleset);

// The harness output folder `dir` is, or whose results/<system>/bert it is; "" when neither.
std::string harness_set_root(const std::string& dir);

std::string utc_now_iso();  // 2024-05-10T19:03:48Z

}  // namespace bert::harness::history
