#include <doctest/doctest.h>

#include "harness/history/references.h"
#include "set_of_runs.h"

using namespace bert::harness;
using namespace bert::harness::history;

namespace {

SetRecord set_with(std::optional<double> score, std::vector<double> throughput) {
  SetRecord s = set_of_runs(throughput, [](RunRecord& r, double t) { r.samples_per_s = t; });
  s.score_min = score;
  return s;
}

}  // namespace

TEST_CASE("references: time to train is met at most target x (1 + tolerance), throughput at least target x (1 - tolerance)") {
  const SetRecord s = set_with(10.4, {900, 1000});  // mean 950 samples/s
  const auto v = reference_verdicts({{"time_to_train_min", 10, 0.05}, {"samples_per_s", 1000, 0.05}}, s);
  REQUIRE(v.size() == 2);
  CHECK(v[0].verdict == "met");  // 10.4 <= 10.5
  CHECK(*v[0].value == 10.4);
  CHECK(v[0].basis == "score (olympic mean)");
  CHECK(v[1].verdict == "met");  // 950 >= 950
  CHECK(v[1].basis == "mean of 2 run(s)");
  CHECK_FALSE(any_missed(v));

  const auto missed = reference_verdicts({{"time_to_train_min", 0.0001, 0.05}, {"samples_per_s", 2000, 0.1}}, s);
  CHECK(missed[0].verdict == "missed");
  CHECK(missed[1].verdict == "missed");
  CHECK(any_missed(missed));
  CHECK(verdict_line(missed[0]).find("MISSED") != std::string::npos);
}

TEST_CASE("references: a figure the set did not measure is 'not measured', and counts as missed") {
  SetRecord s = set_with(std::nullopt, {});
  const auto v = reference_verdicts({{"energy_j", 1e6, 0.1}, {"time_to_train_min", 10, 0.05}}, s);
  CHECK(v[0].verdict == "not measured");
  CHECK(v[1].verdict == "not measured");
  CHECK(any_missed(v));
  s.mean_min = 9;  // a short set: its plain mean, named as such
  const auto p = reference_verdicts({{"time_to_train_min", 10, 0.05}}, s);
  CHECK(p[0].verdict == "met");
  CHECK(p[0].basis.find("plain mean") != std::string::npos);
}
