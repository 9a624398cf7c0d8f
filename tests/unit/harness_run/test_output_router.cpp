#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "harness/run/output_router.h"
#include "tests/unit/harness_run/temp_fd.h"

using namespace bert::harness;

TEST_CASE("lines are routed as they complete; partial lines wait, finish() writes them") {
  int main_fd = temp_fd(), ranks_fd = temp_fd();
  std::vector<std::string> seen;
  OutputRouter r(main_fd, ranks_fd, RankTagStyle::BySource, [&](const std::string& l) { seen.push_back(l); });
  r.feed(0, 1, "first li");
  CHECK(slurp(main_fd).empty());
  r.feed(0, 1, "ne\nsecond");
  CHECK(slurp(main_fd) == "first line\n");
  r.feed(1, 1, "rank one\n");
  r.feed(0, 2, "stderr of rank 0\n");
  r.finish();
  CHECK(slurp(main_fd) == "first line\nstderr of rank 0\nsecond\n");
  CHECK(slurp(ranks_fd) == "1: rank one\n");
  CHECK(seen == std::vector<std::string>{"first line", "stderr of rank 0", "second"});
  CHECK(r.main_write_errno() == 0);
  close(main_fd);
  close(ranks_fd);
}

TEST_CASE("srun style: rank 0 to the log without its tag, launcher messages to the log, others aside") {
  int main_fd = temp_fd(), ranks_fd = temp_fd();
  OutputRouter r(main_fd, ranks_fd, RankTagStyle::TaskPrefix);
  r.feed(0, 1, "0: a\n1: b\nsrun: error: x: task 1: Exited with exit code 3\n");
  r.finish();
  CHECK(slurp(main_fd) == "a\nsrun: error: x: task 1: Exited with exit code 3\n");
  CHECK(slurp(ranks_fd) == "1: b\n");
  close(main_fd);
  close(ranks_fd);
}

TEST_CASE("a failed write to the log is reported with its errno") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  close(fds[0]);  // writing now fails with EPIPE (SIGPIPE ignored below)
  signal(SIGPIPE, SIG_IGN);
  OutputRouter r(fds[1], -1, RankTagStyle::BySource);
  r.feed(0, 1, "line\n");
  CHECK(r.main_write_errno() == EPIPE);
  close(fds[1]);
  signal(SIGPIPE, SIG_DFL);
}
