// The power monitors of a set (Plan::power): the GPU clock lock before the first experiment and its
// reset after the last; for each experiment, power-monitor on every node through the launcher's
// beside-step prefix (started before the launch, stopped after it through a stop file, then SIGTERM),
// its raw logs under logs/<datestamp>_<NN>.power/, and from them the run's official power folder
// results/<system>/bert/power/result_<i-1>/ (node_<k>.txt for the timed run and the short-run window,
// sw_<k>.txt for the interconnect estimate). A monitor that dies or a reader that fails is a loud error
// for that run's energy, never a reason to stop training.
#pragma once
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "harness/plan/plan.h"
#include "process/child_process.h"
#include "harness/run/output_tree.h"

namespace bert::harness {

using Say = std::function<void(const std::string&)>;
// commands.log: what ran ("power", "clock lock", ...) and the command.
using CommandLog = std::function<void(const std::string&, const Command&)>;

class PowerMonitors {
 public:
  PowerMonitors(const Plan& plan, const OutputTree& tree, CommandLog log) : plan_(plan), tree_(tree), log_(std::move(log)) {}
  ~PowerMonitors();
  bool enabled() const { return !plan_.power.source.empty(); }

  // Before the first experiment: the monitors' config file and the GPU clock lock. Returns "" or why
  // the set cannot start (a clock lock that failed).
  std::string before_set(const Say& say);
  // After the last: the GPU clocks reset.
  void after_set(const Say& say);

  // Experiment i (1-based): starts the monitors and waits until every node's log has begun (10 s at most).
  void start(int i, const Say& say);
  // Stops them and writes the run's official power folder. Returns the problems found (each also said).
  std::vector<std::string> finish(int i, const Say& say);


  std::string raw_dir(int i) const { return tree_.logs_dir() + "/" + tree_.datestamp + "_" + tree_.index(i) + ".power"; }
  std::string monitor_log(int i) const { return raw_dir(i) + ".log"; }
  std::string official_dir(int i) const { return tree_.results_dir() + "/power/result_" + std::to_string(i - 1); }

 private:
  void stop_running(const Say& say);
  const Plan& plan_;
  const OutputTree& tree_;
  CommandLog log_;
  Child child_;
  std::thread drain_;  // the monitors' output into their log file
  bool running_ = false;
  int log_fd_ = -1;
};

}  // namespace bert::harness
