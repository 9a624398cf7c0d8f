#include <doctest/doctest.h>

#include "harness/config/naming.h"

using namespace bert::harness;

TEST_CASE("MLPerf config names parse") {
  auto n = parse_mlperf_name("systems/p8000h100_1x8x48x1_pack.yaml");
  REQUIRE(n);
  CHECK(n->system == "p8000h100");
  CHECK(n->nodes == 1);
  CHECK(n->gpus == 8);
  CHECK(n->batch == 48);
  CHECK(n->accum == 1);
  CHECK(n->suffix == "pack");
  auto s = parse_mlperf_name("samsung_dgxa100_171x8x12x1.yaml");
  REQUIRE(s);
  CHECK(s->system == "samsung_dgxa100");
  CHECK(s->nodes == 171);
  CHECK_FALSE(parse_mlperf_name("systems/local.yaml"));
  CHECK_FALSE(parse_mlperf_name("dgxa100_1x8x56.yaml"));
}

TEST_CASE("a name that disagrees with the content gives one warning per difference") {
  CHECK(check_mlperf_name("dgxa100_1x8x56x1.yaml", {1, 8, 56, 1, false}).empty());
  CHECK(check_mlperf_name("local.yaml", {3, 1, 1, 1, true}).empty());
  auto w = check_mlperf_name("x_2x8x56x1_pack.yaml", {1, 4, 56, 2, false});
  REQUIRE(w.size() == 4);
  CHECK(w[0] == "file name x_2x8x56x1_pack.yaml says nodes 2 but nodes.count is 1");
  CHECK(w[1] == "file name x_2x8x56x1_pack.yaml says GPUs per node 8 but the ranks per node is 4");
  CHECK(w[2] == "file name x_2x8x56x1_pack.yaml says accumulation 1 but benchmark.gradient_accumulation_steps is 2");
  CHECK(w[3] == "file name x_2x8x56x1_pack.yaml says _pack but benchmark.data.format is not packed");
  CHECK(check_mlperf_name("x_1x8x48x1.yaml", {1, 8, 48, 1, true}).size() == 1);
}

TEST_CASE("system.config_name is held against the content too (issue 37)") {
  auto w = check_mlperf_name("DGXA100_2x8x56x1", {1, 8, 56, 1, false}, "system.config_name");
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "system.config_name DGXA100_2x8x56x1 says nodes 2 but nodes.count is 1");
}
