// The executor's set of experiments as one object, its work in three files: run.cpp (the set: output
// tree, state, setup, preflight, the loop), experiment.cpp (one experiment: cache clear, launch, its
// log and result), set_report.cpp (the set's end: score, summary.md, plots, the exit code). Internal to
// harness/run; the interface is run.h.
#pragma once
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "harness/launch/launcher.h"
#include "harness/run/output_tree.h"
#include "harness/run/power_monitors.h"
#include "harness/run/progress.h"
#include "harness/run/run.h"
#include "harness/run/run_log_file.h"
#include "harness/run/set_state.h"
#include "harness/run/step_runner.h"
#include "process/signal_watch.h"

namespace bert::harness {

inline double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class SetRunner {
 public:
  SetRunner(const Plan& plan, const RunOptions& opts)
      : plan_(plan), launcher_(find_launcher(plan.launcher)), opts_(opts),
        display_(stdout, opts.progress_tty, plan.experiment.nexp, plan.target_accuracy),
        power_(plan, tree_, [this](const std::string& what, const Command& c) { log_command(what, c); }) {}

  int run();

 private:
  int fail_usage(const std::string& msg) {
    display_.clear();
    std::cerr << "harness run: " << msg << "\n";
    return 2;
  }
  bool init_state();
  void log_command(const std::string& what, const Command& c);
  bool run_setup();
  bool preflight();
  void run_experiment(ExperimentRecord& e);
  void finish_experiment(ExperimentRecord& e, const StepResult& step, const std::string& log_text);
  void check_result(ExperimentRecord& e);
  void append_log_file(int i, int log_fd, const FileStamps& before);
  void status_line(const ExperimentRecord& e);
  void save();
  int finish();
  std::string rel(const std::string& p) const { return std::filesystem::relative(p, tree_.root).string(); }

  const Plan& plan_;
  const Launcher& launcher_;
  RunOptions opts_;
  SignalWatch signals_;
  OutputTree tree_;
  SetState state_;
  ProgressDisplay display_;
  PowerMonitors power_;
  std::vector<std::string> preflight_lines_;
  std::string log_file_error_;  // trainer.log.file did not name exactly one file the run wrote
  double walltime_s_ = 0;
  std::string fatal_;  // set when the set cannot go on (state cannot be saved)
  std::string stopped_;  // the set stopped after two identical failures (why)
  void report_failing_rank(ExperimentRecord& e, const std::string& log_text);
};

}  // namespace bert::harness
