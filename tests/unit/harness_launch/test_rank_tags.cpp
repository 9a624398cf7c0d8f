#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/launch/rank_tags.h"

using namespace bert::harness;

TEST_CASE("srun -l tags: rank parsed and stripped, untagged lines left alone") {
  std::string l = "0: :::MLLOG {}";
  CHECK(strip_rank_tag(RankTagStyle::TaskPrefix, l) == 0);
  CHECK(l == ":::MLLOG {}");
  l = " 12: hello";
  CHECK(strip_rank_tag(RankTagStyle::TaskPrefix, l) == 12);
  CHECK(l == "hello");
  l = "srun: error: node1: task 3: Exited with exit code 2";
  CHECK(strip_rank_tag(RankTagStyle::TaskPrefix, l) == -1);
  l = "10:30 started";
  CHECK(strip_rank_tag(RankTagStyle::TaskPrefix, l) == -1);
}

TEST_CASE("mpirun --tag-output tags") {
  std::string l = "[1,0]<stdout>: :::MLLOG {}";
  CHECK(strip_rank_tag(RankTagStyle::OpenMpi, l) == 0);
  CHECK(l == ":::MLLOG {}");
  l = "[1,7]<stderr>:oops";
  CHECK(strip_rank_tag(RankTagStyle::OpenMpi, l) == 7);
  CHECK(l == "oops");
  l = "[node1:1234] some mpirun message";
  CHECK(strip_rank_tag(RankTagStyle::OpenMpi, l) == -1);
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
