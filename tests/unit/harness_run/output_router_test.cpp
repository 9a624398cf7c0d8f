#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "harness/run/output_router.h"

using namespace bert::harness;

namespace {
std::string slurp(int fd) {
  std::string out;
  lseek(fd, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, size_t(n));
  return out;
}
int temp_fd() {
  char name[] = "/tmp/router_testXXXXXX";
  int fd = mkstemp(name);
  unlink(name);
  return fd;
}
}  // namespace

TEST_CASE("srun -l tags: rank parsed and stripped, untagged lines left alone") {
  std::string l = "0: :::MLLOG {}";
  CHECK(strip_rank_tag(RankTagStyle::Srun, l) == 0);
  CHECK(l == ":::MLLOG {}");
  l = " 12: hello";
  CHECK(strip_rank_tag(RankTagStyle::Srun, l) == 12);
  CHECK(l == "hello");
  l = "srun: error: node1: task 3: Exited with exit code 2";
  CHECK(strip_rank_tag(RankTagStyle::Srun, l) == -1);
  l = "10:30 started";
  CHECK(strip_rank_tag(RankTagStyle::Srun, l) == -1);
}

TEST_CASE("mpirun --tag-output tags") {
  std::string l = "[1,0]<stdout>: :::MLLOG {}";
  CHECK(strip_rank_tag(RankTagStyle::Mpirun, l) == 0);
  CHECK(l == ":::MLLOG {}");
  l = "[1,7]<stderr>:oops";
  CHECK(strip_rank_tag(RankTagStyle::Mpirun, l) == 7);
  CHECK(l == "oops");
  l = "[node1:1234] some mpirun message";
  CHECK(strip_rank_tag(RankTagStyle::Mpirun, l) == -1);
}

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
  OutputRouter r(main_fd, ranks_fd, RankTagStyle::Srun);
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

TEST_CASE("mpirun tags inside a line (a line written in pieces) are removed and the line rebuilt") {
  std::vector<std::pair<int, std::string>> got;
  MpirunDemux d([&](int rank, std::string line) { got.push_back({rank, line}); });
  const std::string stream =
      "[1,0]<stdout>::::MLLOG {\"a\": 1, [1,1]<stdout>:one\n[1,0]<stdout>:\"b\": 2}\n"
      "mpirun: a message\n[1,0]<stderr>:progress\n[1,1]<stdout>:two";
  // Fed in small pieces so tags are cut by read boundaries.
  for (size_t i = 0; i < stream.size(); i += 3) d.feed(std::string_view(stream).substr(i, 3));
  d.finish();
  REQUIRE(got.size() == 5);
  CHECK(got[0] == std::pair<int, std::string>{1, "one"});
  CHECK(got[1] == std::pair<int, std::string>{0, ":::MLLOG {\"a\": 1, \"b\": 2}"});
  CHECK(got[2] == std::pair<int, std::string>{-1, "mpirun: a message"});
  CHECK(got[3] == std::pair<int, std::string>{0, "progress"});
  CHECK(got[4] == std::pair<int, std::string>{1, "two"});
}

TEST_CASE("brackets that are not tags stay text") {
  std::vector<std::pair<int, std::string>> got;
  MpirunDemux d([&](int rank, std::string line) { got.push_back({rank, line}); });
  d.feed("[1,0]<stdout>:x [1,2] [a] [1,0]<stdin>:\n");
  d.finish();
  REQUIRE(got.size() == 1);
  CHECK(got[0] == std::pair<int, std::string>{0, "x [1,2] [a] [1,0]<stdin>:"});
}
