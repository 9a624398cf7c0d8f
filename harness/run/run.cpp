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

namespace bert::harness {
namespace fs = std::filesystem;

Plan load_plan_for_resume(const std::string& outdir) {
  const std::string path = outdir + "/plan.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read (is " + outdir + " the output directory of a set?)");
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(path + ": not valid JSON");
  Plan plan;
  try {
    plan = Plan::from_json(j);
  } catch (const std::exception& e) {  // json::exception, or a word outside a setting's table
    throw std::runtime_error(path + ": not a plan this harness can read (written by another version?): " + e.what());
  }
  try {
    find_launcher(plan.launcher);
  } catch (const UserError& e) {
    throw UserError(Loc{path}, "launcher", e.message);
  }
  return plan;
}

void use_recorded_seeds(Plan& plan, const std::string& outdir) {
  const std::string path = outdir + "/state.json";
  if (!fs::exists(path)) return;
  const SetState st = load_state(path);
  if (st.nexp != plan.experiment.nexp) return;  // run_experiments names the mismatch
  plan.experiment.seeds.clear();
  for (const ExperimentRecord& e : st.experiments) plan.experiment.seeds.push_back(e.seed);
  plan.experiment.seeds_recorded_in = path;
  if (!plan.trainer_config.is_null() && !plan.experiment.seeds.empty())
    plan.trainer_config["run"]["seed"] = plan.experiment.seeds.front();
}

namespace {

constexpr unsigned long long kMinFreeForLogs = 64ull << 20;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string system_dir_name(const Plan& plan) {
  std::string s = !plan.system_name.empty() ? plan.system_name : !plan.config_name.empty() ? plan.config_name : "system";
  for (char& c : s)
    if (c == '/' || c == ' ') c = '_';
  return s;
}

std::string mllog_only(const std::string& text) {
  constexpr std::string_view kToken = ":::MLLOG ";
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t at = line.rfind(kToken);
    if (at == std::string::npos) continue;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out += line.substr(at) + "\n";
  }
  return out;
}

// The ranks' file rendezvous: emptied before each experiment so no rank meets a leftover of the
// previous one. Only inside the output tree.
void reset_rendezvous_dir(const Plan& plan, const std::string& root) {
  if (plan.rendezvous_dir.empty()) return;
  fs::path dir = fs::weakly_canonical(plan.rendezvous_dir);
  fs::path base = fs::weakly_canonical(root);
  auto rel = dir.lexically_relative(base);
  if (dir.empty() || rel.empty() || rel.string().rfind("..", 0) == 0 || rel == ".") return;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
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
  std::string rel(const std::string& p) const { return fs::relative(p, tree_.root).string(); }

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

void SetRunner::run_experiment(ExperimentRecord& e) {
  const int i = e.index;
  const uint64_t seed = e.seed;
  e = ExperimentRecord{};
  e.index = i;
  e.seed = seed;
  e.status = ExpStatus::Running;
  e.log = rel(tree_.log(i));
  save();
  double mean_prev = 0;
  int n_prev = 0;
  for (const auto& x : state_.experiments)
    if (is_finished(x.status) && x.launched) mean_prev += x.wall_seconds, ++n_prev;
  display_.start_experiment(i, n_prev ? mean_prev / n_prev : 0);

  // The experiment's trainer config (seed) where the launch command reads it, and a copy.
  json cfg = plan_.trainer_config;
  cfg["run"]["seed"] = e.seed;
  reset_rendezvous_dir(plan_, tree_.root);
  try {
    write_file_atomic(tree_.config(i), cfg.dump(2) + "\n");
    write_file_atomic(plan_.run_config_file, cfg.dump(2) + "\n");
  } catch (const std::exception& ex) {
    e.status = ExpStatus::Failed;
    e.message = ex.what();
    save();
    status_line(e);
    return;
  }

  int log_fd = ::open(tree_.log(i).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    e.status = ExpStatus::Failed;
    e.message = tree_.log(i) + ": cannot create the log: " + std::strerror(errno);
    save();
    status_line(e);
    return;
  }
  if (plan_.experiment.cache_clear != CachePolicy::Off && !plan_.cache_clear.argv.empty())
    log_command("cache clear", plan_.cache_clear);
  const double t_cc = seconds_now();
  CacheClearOutcome cc = clear_caches(plan_);
  e.timings.cache_clear_s = seconds_now() - t_cc;
  e.cache_cleared = cc.cleared;
  if (plan_.experiment.cache_clear != CachePolicy::Off && !plan_.cache_clear.argv.empty())
    for (size_t n = 0; n < cc.cleared.size() && n < plan_.nodes.size(); ++n)
      if (!cc.cleared[n]) ++state_.nodes[plan_.nodes[n].hostname].cache_clear_failures;
  int werr = 0;
  for (const auto& l : cc.mllog)
    if (!werr) werr = write_all(log_fd, l + "\n");
  if (!cc.cleared.empty() && !cc.cleared.front()) display_.print(cc.message);
  if (cc.fails_experiment || werr) {
    ::close(log_fd);
    e.status = ExpStatus::Failed;
    e.message = werr ? tree_.log(i) + ": cannot write the log: " + std::strerror(werr) : cc.message;
    save();
    status_line(e);
    return;
  }

  int ranks_fd = ::open(tree_.ranks_log(i).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  std::vector<ChildSpec> procs;
  std::map<std::string, std::string> base_env = plan_.env;
  for (const auto& [k, v] : plan_.launch.env) base_env[k] = v;
  if (!plan_.trainer_run.seed_env.empty()) base_env[plan_.trainer_run.seed_env] = std::to_string(e.seed);
  if (!plan_.trainer_run.experiment_env.empty()) base_env[plan_.trainer_run.experiment_env] = std::to_string(i);
  const std::vector<RankPlan> no_ranks;
  const std::vector<RankPlan>& ranks = plan_.nodes.empty() ? no_ranks : plan_.nodes.front().ranks;
  if (launcher_.starts_each_rank()) {
    for (const auto& r : ranks) {
      ChildSpec s{r.command_prefix, base_env, plan_.launch.cwd};
      s.argv.insert(s.argv.end(), plan_.launch.argv.begin(), plan_.launch.argv.end());
      for (const auto& [k, v] : r.env) s.env[k] = v;
      procs.push_back(std::move(s));
    }
  } else {
    procs.push_back({plan_.launch.argv, base_env, plan_.launch.cwd});
  }
  // The launch's own cost: from here to rank 0's first MLPerf line.
  const double t_launch = seconds_now();
  double first_line = -1;
  OutputRouter router(log_fd, ranks_fd, launcher_.tag_style(), [this, &first_line, t_launch](const std::string& l) {
    if (first_line < 0 && l.find(":::MLLOG") != std::string::npos) first_line = seconds_now() - t_launch;
    display_.on_line(l);
  });
  log_command("launch", plan_.launch);
  if (launcher_.starts_each_rank())
    for (const auto& r : ranks) {
      Command env_only;
      env_only.env = r.env;
      env_only.argv = r.command_prefix;
      log_command("  rank " + std::to_string(r.global_rank), env_only);
    }
  StepOptions so;
  so.term_grace_s = opts_.term_grace_s;
  so.walltime_s = walltime_s_;
  // When SIGTERM to the launched process would not reach the ranks, the launcher's stop command asks them.
  if (std::vector<std::string> stop = launcher_.stop_command(process_environment()); !stop.empty()) {
    so.stop_ranks = [this, stop] {
      Command sc;
      sc.argv = stop;
      log_command("stop", sc);
      Captured c = run_capture({sc.argv, {}}, 15);
      if (!c.ok())
        display_.print("warning: `" + sc.shell() + "` failed (" + c.describe() + "); sending SIGTERM to " + plan_.launcher);
      return c.ok();
    };
  }
  // A log file the trainer writes is found after the run among the files it wrote (stamped now).
  const bool log_from_file = plan_.trainer_run.log_source == LogSource::File;
  const FileStamps log_files_before = log_from_file ? match_run_log(tree_.root, plan_.trainer_run.log_file, i) : FileStamps{};
  log_file_error_.clear();
  e.launched = true;
  power_.start(i, [this](const std::string& l) { display_.print(l); });
  StepResult step = run_step(procs, router, so, &signals_);
  e.timings.first_line_s = first_line;
  if (log_from_file) append_log_file(i, log_fd, log_files_before);
  ::close(log_fd);
  if (ranks_fd >= 0) ::close(ranks_fd);
  std::string log_text;
  try {
    log_text = read_file(tree_.log(i));
  } catch (const std::exception&) {
  }
  finish_experiment(e, step, log_text);
}

// trainer.log.source file: the trainer wrote its MLPerf log to a file of its own; its lines join the
// run's log after the step, as rank 0's stdout lines would have (the progress reads them too).
void SetRunner::append_log_file(int i, int log_fd, const FileStamps& before) {
  std::string text;
  try {
    const std::string path = find_run_log(tree_.root, plan_.trainer_run.log_file, i, before);
    try {
      text = read_file(path);
    } catch (const std::exception& ex) {
      throw UserError("trainer.log.file", path + ": " + ex.what());
    }
  } catch (const UserError& ex) {
    log_file_error_ = ex.field + ": " + ex.message;
    display_.print("error: " + log_file_error_);
    return;
  }
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    display_.on_line(line);
    if (write_all(log_fd, line + "\n")) return;
  }
}

void SetRunner::finish_experiment(ExperimentRecord& e, const StepResult& step, const std::string& log_text) {
  const int i = e.index;
  e.wall_seconds = step.seconds;
  const RunProgress& p = display_.current();
  switch (step.outcome) {
    case StepOutcome::Completed:
      e.status = p.run_stop_status == "success" ? ExpStatus::Converged : ExpStatus::NotConverged;
      if (p.run_stop_status.empty()) e.message = "the trainer ended without logging run_stop";
      break;
    case StepOutcome::Interrupted:
      e.status = ExpStatus::Interrupted;
      e.message = step.message;
      state_.interrupted = true;
      state_.interrupt_signal = step.signal;
      break;
    case StepOutcome::ProcessFailed: {
      e.status = ExpStatus::Failed;
      const RankFailure f = launcher_.read_failure(log_text, step.failed_process, describe_wait_status(step.wait_status));
      e.failed_rank = f.rank;
      e.exit_status = f.status;
      // A node another one can replace: not this machine when the executor starts the ranks here.
      if (!launcher_.starts_each_rank()) e.failed_node = node_of_rank(plan_, f.rank);
      if (!e.failed_node.empty()) state_.nodes[e.failed_node].failed_first.push_back(i);
      e.message = (e.failed_rank >= 0 ? "rank " + std::to_string(e.failed_rank) : std::string("a rank")) +
                  (e.failed_node.empty() ? "" : " on node " + e.failed_node) + " failed with " + e.exit_status +
                  "; the other ranks were stopped";
      if (const std::string meaning = exit_status_meaning(e.exit_status); !meaning.empty()) e.message += " (" + meaning + ")";
      report_failing_rank(e, log_text);
      break;
    }
    default:
      e.status = ExpStatus::Failed;
      e.message = step.message;
      report_failing_rank(e, log_text);
      break;
  }
  if (!log_file_error_.empty() && (e.status == ExpStatus::Converged || e.status == ExpStatus::NotConverged)) {
    e.status = ExpStatus::Failed;
    e.message = log_file_error_;
  }
  if (step.outcome != StepOutcome::Interrupted && step.outcome != StepOutcome::StartFailed) {
    // The result file holds the MLLOG lines of whatever the run produced, failed runs included:
    // MLPerf scoring counts them as non-converged.
    try {
      write_file_atomic(tree_.result(i), mllog_only(log_text));
      e.result = rel(tree_.result(i));
      const double t_check = seconds_now();
      check_result(e);
      e.timings.check_s = seconds_now() - t_check;
      // A failed run that never logged run_start is no result (one that started and was stopped is: MLPerf
      // scores it as not converged); its lines are kept beside, under a name no result reader takes.
      static const std::regex run_start(R"re("key":\s*"run_start")re");
      if (e.status == ExpStatus::Failed && e.compliant && !*e.compliant && !std::regex_search(log_text, run_start)) {
        const std::string kept = tree_.result(i) + ".noncompliant";
        fs::rename(tree_.result(i), kept);
        e.result = rel(kept);
      }
    } catch (const std::exception& ex) {
      e.status = ExpStatus::Failed;
      e.message += (e.message.empty() ? "" : "; ") + std::string(ex.what());
    }
  }
  e.power_errors = power_.finish(e.index, [this](const std::string& l) { display_.print(l); });
  save();
  status_line(e);
}

// The failing rank's own last lines on the console (its cause is not only inside logs/), the last one
// also in the experiment's message (state.json, summary.md).
void SetRunner::report_failing_rank(ExperimentRecord& e, const std::string& log_text) {
  std::string ranks_text;
  try {
    ranks_text = read_file(tree_.ranks_log(e.index));
  } catch (const std::exception&) {
  }
  const std::vector<std::string> lines = rank_last_lines(log_text, ranks_text, e.failed_rank, 8);
  if (lines.empty()) return;
  const std::string who = e.failed_rank >= 0 ? "rank " + std::to_string(e.failed_rank) : std::string("the ranks");
  display_.print("experiment " + std::to_string(e.index) + ": last lines of " + who + ":");
  for (const std::string& l : lines) display_.print("  | " + l);
  e.message += "; last line: " + lines.back();
}

void SetRunner::check_result(ExperimentRecord& e) {
  results::CheckOptions co;
  co.ruleset = plan_.experiment.ruleset;
  results::LogVerdict v = results::check_log_file(tree_.result(e.index), co);
  e.compliant = v.passed;
  if (!v.passed) {
    e.compliance_failure = !v.checker_error.empty() ? v.checker_error
                           : !v.failures.empty()    ? v.failures.front().text
                           : !v.parse_errors.empty() ? "parse error: " + v.parse_errors.front()
                                                     : "failed";
    auto nl = e.compliance_failure.find('\n');
    if (nl != std::string::npos) e.compliance_failure.resize(nl);
  }
  results::ScoreOptions so;
  so.ruleset = plan_.experiment.ruleset;
  results::ScoreResult s = results::score_results_dir(tree_.results_dir(), so);
  const std::string name = fs::path(tree_.result(e.index)).filename().string();
  for (const auto& r : s.runs)
    if (r.file == name) {
      e.ttt_minutes = r.minutes;
      e.samples = r.samples_to_converge;
    }
  // Outside the RCP reader's reach (open division, unreadable batch size): what the stream showed.
  const RunProgress& p = display_.current();
  if (!e.samples && p.run_stop_status == "success" && p.samples > 0) e.samples = double(p.samples);
}

void SetRunner::status_line(const ExperimentRecord& e) {
  std::ostringstream s;
  s << "experiment " << tree_.index(e.index) << "/" << state_.nexp << " (seed " << e.seed << "): " << to_string(e.status);
  if (e.status == ExpStatus::Converged || e.status == ExpStatus::NotConverged) {
    s << ", time to train " << format_minutes(e.ttt_minutes) << ", samples ";
    if (e.samples && *e.samples < 1e9) s << (long long)*e.samples;
    else s << "n/a";
  }
  if (!e.message.empty()) s << " - " << e.message;
  if (e.compliant) s << ", compliance " << (*e.compliant ? "PASS" : "FAIL (" + e.compliance_failure + ")");
  if (!e.log.empty()) s << "  [" << e.log << "]";
  display_.print(s.str());
}

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

}  // namespace

int run_experiments(const Plan& plan, const RunOptions& opts) {
  SetRunner r(plan, opts);
  return r.run();
}

}  // namespace bert::harness
