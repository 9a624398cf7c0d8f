#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/launch/rank_tags.h"

using namespace bert::harness;

TEST_CASE("rank tags: srun -l's and mpirun --tag-output's parsed and stripped, untagged lines left alone") {
  struct Case {
    RankTagStyle style;
    std::string line;
    int rank;
    std::string rest;  // the line after the call (unchanged when untagged)
  };
  const Case cases[] = {
      {RankTagStyle::TaskPrefix, "0: :::MLLOG {}", 0, ":::MLLOG {}"},
      {RankTagStyle::TaskPrefix, " 12: hello", 12, "hello"},
      {RankTagStyle::TaskPrefix, "srun: error: node1: task 3: Exited with exit code 2", -1,
       "srun: error: node1: task 3: Exited with exit code 2"},
      {RankTagStyle::TaskPrefix, "10:30 started", -1, "10:30 started"},
      {RankTagStyle::OpenMpi, "[1,0]<stdout>: :::MLLOG {}", 0, ":::MLLOG {}"},
      {RankTagStyle::OpenMpi, "[1,7]<stderr>:oops", 7, "oops"},
      {RankTagStyle::OpenMpi, "[node1:1234] some mpirun message", -1, "[node1:1234] some mpirun message"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    std::string l = c.line;
    CHECK(strip_rank_tag(c.style, l) == c.rank);
    CHECK(l == c.rest);
  }
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
