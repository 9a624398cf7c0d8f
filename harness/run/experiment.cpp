// One experiment of a set: the cache clear, the launch and its output, the log and its result (set_runner.h).
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

namespace {

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

}  // namespace

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


}  // namespace bert::harness
