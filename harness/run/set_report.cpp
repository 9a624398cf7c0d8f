// The set's end: the score, summary.md, plots, the console's last lines and the exit code (set_runner.h).
#include "harness/run/set_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>

#include "binding/binding_json.h"
#include "common/user_error.h"
#include "harness/launch/launcher.h"
#include "harness/run/cache_clear.h"
#include "harness/run/node_record.h"
#include "process/capture.h"
#include "process/child_process.h"
#include "harness/run/output_router.h"
#include "harness/run/output_tree.h"
#include "harness/run/plots.h"
#include "harness/run/power_monitors.h"
#include "harness/run/power_plots.h"
#include "harness/run/failure_report.h"
#include "harness/run/preflight.h"
#include "harness/run/progress.h"
#include "harness/run/run_log_file.h"
#include "harness/run/set_state.h"
#include "harness/run/step_runner.h"
#include "harness/run/summary.h"
#include "harness/plan/walltime.h"
#include "results/check.h"
#include "results/score.h"

namespace bert::harness {
namespace fs = std::filesystem;

int SetRunner::finish() {
  display_.clear();
  SummaryInput in;
  in.plan = &plan_;
  in.tree = &tree_;
  in.state = &state_;
  in.preflight = preflight_lines_;
  bool any_result = false;
  for (const auto& e : state_.experiments) any_result = any_result || fs::exists(tree_.result(e.index));
  std::vector<RunCurve> curves;
  std::vector<RunTime> times;
  if (any_result) {
    try {
      results::ScoreOptions so;
      so.ruleset = plan_.experiment.ruleset;
      in.score = results::score_results_dir(tree_.results_dir(), so);
    } catch (const std::exception& ex) {
      in.score_error = ex.what();
    }
  }
  for (const auto& e : state_.experiments) {
    if (!fs::exists(tree_.result(e.index))) continue;
    RunCurve c{e.index, {}};
    RunProgress p;
    std::istringstream lines(read_file(tree_.result(e.index)));
    for (std::string l; std::getline(lines, l);) update_progress(p, l);
    c.evals = p.evals;
    curves.push_back(c);
    if (e.ttt_minutes) times.push_back({e.index, *e.ttt_minutes});
  }
  try {
    in.plots = render_plots(tree_.plots_dir(), curves, times, in.score ? in.score->dropped : 0,
                            in.score ? in.score->olympic_minutes : std::nullopt,
                            plan_.target_accuracy);
  } catch (const std::exception& ex) {
    in.plots.note = ex.what();
  }
  if (power_.enabled()) in.power_plots = render_power_plots(tree_.plots_dir(), tree_.results_dir() + "/power", state_.nexp, plan_.num_nodes);
  save();
  SetEndNotes notes;
  if (opts_.at_end) notes = opts_.at_end(SetEnd{plan_, tree_, state_, in.score});
  in.extra_md = notes.summary_md;
  try {
    write_file_atomic(tree_.summary_md(), render_summary(in));
  } catch (const std::exception& ex) {
    std::cerr << "harness run: " << ex.what() << "\n";
  }

  int failed = 0, done = 0;
  for (const auto& e : state_.experiments) {
    failed += e.status == ExpStatus::Failed;
    done += is_finished(e.status);
  }
  std::ostringstream s;
  if (in.score) {
    const size_t compliant = in.score->runs.size() - size_t(in.score->dropped);
    s << "score: " << format_minutes(in.score->score_minutes);
    if (in.score->score_minutes) {
      s << " (olympic mean over " << compliant << " compliant run(s))";
    } else if (const auto mean = short_set_mean_minutes(*in.score)) {
      // Too few runs for MLPerf's olympic mean: still say how fast the set was, marked as such.
      s.str("");
      s << "score: " << format_minutes(*mean) << " (plain mean of " << compliant << " compliant run(s) of "
        << in.score->runs.size() << "; not an MLPerf score: the olympic mean needs 10 runs for BERT)";
    } else {
      s << " (" << compliant << " compliant run(s) of " << in.score->runs.size()
        << "; the olympic mean needs at least 3 with at most 1 dropped)";
    }
    if (in.score->rcp.checked) s << ", RCP " << (in.score->rcp.passed ? "PASS" : "FAIL") << " (" << in.score->rcp.message << ")";
  } else {
    s << "no score: " << (in.score_error.empty() ? "no result files" : in.score_error);
  }
  display_.print(s.str());
  for (const std::string& line : notes.console) display_.print(line);
  for (const std::string& line : node_report(state_.nodes, tree_.root)) display_.print("nodes: " + line);
  display_.print("summary: " + tree_.summary_md());
  if (state_.interrupted) {
    display_.print("interrupted after " + std::to_string(done) + " of " + std::to_string(state_.nexp) +
                   " experiments; logs kept; continue with: harness run --resume " + tree_.root);
    return 128 + state_.interrupt_signal;
  }
  if (!fatal_.empty()) return 1;
  return failed > 0 ? 1 : 0;
}

}  // namespace bert::harness
