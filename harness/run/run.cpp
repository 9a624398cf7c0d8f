#include "harness/run/run.h"

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
#include "harness/run/set_runner.h"

namespace bert::harness {
namespace fs = std::filesystem;

namespace {

constexpr unsigned long long kMinFreeForLogs = 64ull << 20;

std::string system_dir_name(const Plan& plan) {
  std::string s = !plan.system_name.empty() ? plan.system_name : !plan.config_name.empty() ? plan.config_name : "system";
  for (char& c : s)
    if (c == '/' || c == ' ') c = '_';
  return s;
}


}  // namespace

int SetRunner::run() {
  tree_.root = opts_.resume_dir.empty() ? plan_.experiment.output_dir : opts_.resume_dir;
  if (tree_.root.empty()) return fail_usage("the plan has no experiment.output_dir");
  tree_.system = system_dir_name(plan_);
  tree_.nexp = plan_.experiment.nexp;
  try {
    walltime_s_ = parse_walltime_seconds(plan_.experiment.run_walltime);
  } catch (const std::exception& e) {
    return fail_usage(std::string("experiment.run_walltime: ") + e.what());
  }
  if (!opts_.resume_dir.empty()) {
    try {
      state_ = load_state(tree_.root + "/state.json");
    } catch (const std::exception& e) {
      return fail_usage(std::string(e.what()) + " (--resume needs the output directory of an earlier set)");
    }
    if (state_.nexp != plan_.experiment.nexp)
      return fail_usage(tree_.root + "/state.json: the set has " + std::to_string(state_.nexp) +
                        " experiments but the plan asks for " + std::to_string(plan_.experiment.nexp));
    tree_.datestamp = state_.datestamp;
  } else {
    if (fs::exists(tree_.root + "/state.json"))
      return fail_usage(tree_.root + " already holds an experiment set (state.json); continue it with --resume " +
                        tree_.root + " or choose another experiment.output_dir");
    if (int(plan_.experiment.seeds.size()) < plan_.experiment.nexp)
      return fail_usage("the plan has " + std::to_string(plan_.experiment.seeds.size()) + " seeds for " +
                        std::to_string(plan_.experiment.nexp) + " experiments");
    tree_.datestamp = make_datestamp();
  }
  try {
    prepare_output_tree(tree_, kMinFreeForLogs);
    const std::string plan_text = plan_.to_json().dump(2) + "\n";
    write_file_atomic(tree_.plan_json(), plan_text);
    if (!plan_.plan_file.empty() && fs::weakly_canonical(plan_.plan_file) != fs::weakly_canonical(tree_.plan_json()))
      write_file_atomic(plan_.plan_file, plan_text);
    write_file_atomic(tree_.systems_json(), plan_.system_json.dump(4) + "\n");
    for (const auto& [path, content] : plan_.files) write_file_atomic(path, content);
    init_state();
    save_state(tree_.state_json(), state_);
  } catch (const std::exception& e) {
    return fail_usage(e.what());
  }

  const double t_setup = seconds_now();
  const bool setup_ok = run_setup();
  state_.timings.setup_s = seconds_now() - t_setup;
  const double t_preflight = seconds_now();
  const bool preflight_ok = setup_ok && preflight();
  state_.timings.preflight_s = seconds_now() - t_preflight;
  save();
  const auto say = [this](const std::string& l) { display_.print(l); };
  const std::string power_error = setup_ok && preflight_ok ? power_.before_set(say) : "";
  if (!power_error.empty()) std::cerr << "harness run: " << power_error << "\n";
  if (!setup_ok || !preflight_ok || !power_error.empty()) {
    if (!signals_.received()) return 2;
    display_.print(std::string("interrupted by ") + strsignal(signals_.received()) + " before the first experiment");
    return 128 + signals_.received();
  }

  std::string last_failure;  // the previous experiment's failure signature ("" = it did not fail)
  int last_index = 0;
  for (auto& e : state_.experiments) {
    if (is_finished(e.status)) continue;
    if (signals_.received()) {
      state_.interrupted = true;
      state_.interrupt_signal = signals_.received();
    }
    if (state_.interrupted || !fatal_.empty()) break;
    run_experiment(e);
    const std::string failure = e.status == ExpStatus::Failed ? failure_signature(e.message) : "";
    if (!failure.empty() && failure == last_failure) {
      // The next runs would fail alike: stop here rather than spend the allocation on them.
      stopped_ = "experiments " + std::to_string(last_index) + " and " + std::to_string(e.index) +
                 " failed the same way (" + e.message + "); the set stops: fix the cause, then continue with: harness run --resume " +
                 tree_.root;
      display_.print("stopping: " + stopped_);
      break;
    }
    last_failure = failure;
    last_index = e.index;
  }
  power_.after_set(say);
  return finish();
}

bool SetRunner::init_state() {
  for (const std::string& x : plan_.excluded) state_.nodes[x].excluded = true;
  if (!opts_.resume_dir.empty()) {
    // Interrupted runs and failures before launch (e.g. a refused cache clear) are run again.
    for (auto& e : state_.experiments)
      if (!is_finished(e.status) || (e.status == ExpStatus::Failed && !e.launched)) e.status = ExpStatus::Pending;
    state_.interrupted = false;
    state_.interrupt_signal = 0;
    return true;
  }
  state_.system = tree_.system;
  state_.datestamp = tree_.datestamp;
  state_.nexp = plan_.experiment.nexp;
  for (int i = 1; i <= state_.nexp; ++i) {
    ExperimentRecord e;
    e.index = i;
    e.seed = plan_.experiment.seeds[size_t(i - 1)];
    state_.experiments.push_back(e);
  }
  return true;
}

void SetRunner::save() {
  try {
    save_state(tree_.state_json(), state_);
  } catch (const std::exception& e) {
    if (fatal_.empty()) fatal_ = e.what();
    display_.print(std::string("error: ") + e.what());
  }
}

// commands.log: every command the executor runs, rendered as --dry-run renders the Plan's commands.
void SetRunner::log_command(const std::string& what, const Command& c) {
  std::ofstream out(tree_.root + "/commands.log", std::ios::app);
  out << what << ":" << std::string(what.size() < 13 ? 13 - what.size() : 1, ' ') << c.shell() << "\n";
}

bool SetRunner::run_setup() {
  for (const auto& cmd : plan_.setup) {
    if (!cmd.creates.empty() && fs::exists(cmd.creates)) {
      display_.print("setup: " + cmd.creates + " exists, skipped: " + cmd.shell());
      continue;
    }
    display_.print("setup: " + cmd.shell());
    log_command("setup", cmd);
    ChildSpec spec{cmd.argv, plan_.env};
    for (const auto& [k, v] : cmd.env) spec.env[k] = v;
    Captured c = run_capture(spec, 24 * 3600, &signals_);
    if (c.interrupted) return false;
    if (!c.ok()) {
      std::cerr << c.output;
      std::cerr << "harness run: setup command failed (" << c.describe() << "): " << cmd.shell() << "\n";
      return false;
    }
  }
  return true;
}

bool SetRunner::preflight() {
  if (opts_.preflight == PreflightPolicy::Off) return true;
  PreflightChecks checks;
  try {  // what every node checks against: the plan's topology, and a token only the output directory holds
    const std::string dir = tree_.root + "/preflight";
    fs::create_directories(dir);
    checks.data_paths = plan_.data_paths;
    if (plan_.topology_assumed && !plan_.nodes.empty()) {
      checks.expected_gpus = static_cast<int>(plan_.nodes.front().topology.gpus.size());
    } else if (!plan_.host_bind.empty() && !plan_.nodes.empty()) {
      checks.bind = plan_.host_bind;
      checks.expected_topology = fs::absolute(dir + "/expected_topology.json").string();
      write_file_atomic(checks.expected_topology, json(plan_.nodes.front().topology).dump(2) + "\n");
    }
    if (plan_.nodes.size() > 1) {
      checks.token_path = fs::absolute(dir + "/shared_token").string();
      checks.token = tree_.datestamp + "-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}());
      write_file_atomic(checks.token_path, checks.token + "\n");
    }
  } catch (const std::exception& e) {
    std::cerr << "harness run: preflight: " << e.what() << "\n";
    return false;
  }
  ChildSpec probe = preflight_command(plan_, checks);
  log_command("preflight", Command{probe.argv, {}, ""});
  PreflightReport rep = run_preflight(plan_, checks);
  for (const auto& n : rep.notes) {
    preflight_lines_.push_back("note: " + n);
    display_.print("preflight: note: " + n);
  }
  size_t errors = 0;
  for (const auto& f : rep.findings) {
    const bool error = f.blocking || opts_.preflight == PreflightPolicy::Fail;
    errors += error ? 1 : 0;
    preflight_lines_.push_back(f.node + ": " + f.what);
    std::vector<std::string>& seen = state_.nodes[f.node].preflight;
    if (std::find(seen.begin(), seen.end(), f.what) == seen.end()) seen.push_back(f.what);
    display_.print(std::string("preflight: ") + (error ? "error: " : "warning: ") + f.node + ": " + f.what);
  }
  if (errors > 0) {
    std::cerr << "harness run: preflight found " << errors << " problem(s) on the nodes (listed above); nothing was launched\n";
    return false;
  }
  return true;
}


int run_experiments(const Plan& plan, const RunOptions& opts) {
  SetRunner r(plan, opts);
  return r.run();
}

}  // namespace bert::harness
