#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "harness/run/step_runner.h"
#include "tests/unit/harness_run/temp_fd.h"

using namespace bert::harness;

namespace {
ChildSpec sh(const std::string& script) { return {{"sh", "-c", script}, {}}; }

// A step whose output goes to a scratch log no test reads: only its result.
StepResult run_unread(const std::vector<ChildSpec>& procs, const StepOptions& o = {}) {
  int log = temp_fd();
  OutputRouter r(log, -1, RankTagStyle::BySource);
  StepResult res = run_step(procs, r, o, nullptr);
  close(log);
  return res;
}
}  // namespace

TEST_CASE("all processes succeed: completed, rank 0 output in the log, env applied") {
  int log = temp_fd(), ranks = temp_fd();
  OutputRouter r(log, ranks, RankTagStyle::BySource);
  ChildSpec a = sh("echo \"hello $WHO\"; echo err >&2");
  a.env["WHO"] = "zero";
  StepResult res = run_step({a, sh("echo one")}, r, {}, nullptr);
  CHECK(res.outcome == StepOutcome::Completed);
  std::string text = slurp(log);
  CHECK(text.find("hello zero\n") != std::string::npos);
  CHECK(text.find("err\n") != std::string::npos);
  CHECK(slurp(ranks) == "1: one\n");
  close(log);
  close(ranks);
}

TEST_CASE("one process fails: the others are stopped at once and the failure is named") {
  StepResult res = run_unread({sh("sleep 30"), sh("sleep 0.2; exit 4"), sh("sleep 30")});
  CHECK(res.outcome == StepOutcome::ProcessFailed);
  CHECK(res.failed_process == 1);
  CHECK(WEXITSTATUS(res.wait_status) == 4);
  CHECK(res.message == "process 1 ended with exit status 4");
  CHECK(res.seconds < 10);
}

TEST_CASE("a process that ignores SIGTERM is killed after the grace period") {
  StepOptions o;
  o.term_grace_s = 0.5;
  o.walltime_s = 0.5;
  StepResult res = run_unread({sh("trap '' TERM; sleep 30")}, o);
  CHECK(res.outcome == StepOutcome::WalltimeExceeded);
  CHECK(res.seconds < 10);
  CHECK(res.stop_seconds >= 0.4);
}

TEST_CASE("a program that does not exist is a start failure, not a crash") {
  StepResult res = run_unread({sh("sleep 30"), {{"/no/such/trainer"}, {}}});
  CHECK(res.outcome == StepOutcome::StartFailed);
  CHECK(res.message.find("cannot start /no/such/trainer") != std::string::npos);
  CHECK(res.seconds < 10);
}

TEST_CASE("children started by a rank go down with it (process group)") {
  StepOptions o;
  o.walltime_s = 0.3;
  StepResult res = run_unread({sh("sleep 30 & sleep 30 & wait")}, o);
  CHECK(res.outcome == StepOutcome::WalltimeExceeded);
  CHECK(res.seconds < 5);
}
