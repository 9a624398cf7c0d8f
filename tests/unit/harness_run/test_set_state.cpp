#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "harness/run/output_tree.h"
#include "harness/run/set_state.h"

using namespace bert::harness;

TEST_CASE("state round trip through state.json") {
  SetState s;
  s.system = "SYS";
  s.datestamp = "2511210500001";
  s.nexp = 2;
  s.interrupted = true;
  s.interrupt_signal = 15;
  ExperimentRecord a;
  a.index = 1;
  a.seed = 18446744073709551615ull;
  a.status = ExpStatus::Converged;
  a.compliant = true;
  a.ttt_minutes = 1.25;
  a.samples = 2.5e6;
  a.cache_cleared = {true, false};
  ExperimentRecord b;
  b.index = 2;
  b.status = ExpStatus::Failed;
  b.failed_rank = 3;
  b.exit_status = "exit status 3";
  s.experiments = {a, b};
  save_state("state_test.json", s);
  SetState r = load_state("state_test.json");
  std::remove("state_test.json");
  CHECK(r.to_json() == s.to_json());
  CHECK(r.experiments[0].seed == 18446744073709551615ull);
  CHECK(r.experiments[1].failed_rank == 3);
  CHECK_FALSE(r.experiments[1].compliant.has_value());
}

TEST_CASE("which experiments a resume keeps") {
  CHECK(is_finished(ExpStatus::Converged));
  CHECK(is_finished(ExpStatus::NotConverged));
  CHECK(is_finished(ExpStatus::Failed));
  CHECK_FALSE(is_finished(ExpStatus::Interrupted));
  CHECK_FALSE(is_finished(ExpStatus::Pending));
  CHECK_FALSE(is_finished(ExpStatus::Running));
}

TEST_CASE("a damaged state file is an error naming the file") {
  { std::ofstream("bad_state.json") << "{\"system\": 1}"; }
  CHECK_THROWS_WITH_AS(load_state("bad_state.json"), doctest::Contains("bad_state.json: not a valid state file"),
                       bert::UserError);
  { std::ofstream("bad_state.json") << R"({"system":"S","datestamp":"d","nexp":1,"experiments":[{"index":1,"seed":1,"status":"done"}]})"; }
  CHECK_THROWS_WITH(load_state("bad_state.json"), doctest::Contains("unknown experiment status 'done'"));
  std::remove("bad_state.json");
  CHECK_THROWS_AS(load_state("no_such_state.json"), bert::UserError);
}
