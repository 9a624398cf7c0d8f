#include <doctest/doctest.h>

#include "harness/history/compare.h"
#include "set_of_runs.h"

using namespace bert::harness::history;

namespace {

SetRecord times(const std::vector<double>& minutes) {
  return set_of_runs(minutes, [](RunRecord& r, double m) { r.ttt_min = m; });
}

const FigureComparison& figure(const Comparison& c, const std::string& key) {
  for (const FigureComparison& f : c.figures)
    if (f.key == key) return f;
  throw std::runtime_error("no figure " + key);
}

}  // namespace

TEST_CASE("compare: a difference beyond the noise is called, with its direction") {
  const Comparison c = compare_sets(times({10, 10.2, 10.1, 10.3, 10.15}), times({12, 12.1, 11.9, 12.2, 12.05}));
  const FigureComparison& f = figure(c, "time_to_train_min");
  REQUIRE(f.test);
  CHECK(f.test->p == doctest::Approx(2.0 / 252));
  CHECK(f.outcome == "worse");  // B is slower
  CHECK(f.verdict.find("higher (worse)") != std::string::npos);
  CHECK(*f.change == doctest::Approx((12.05 - 10.15) / 10.15));
  CHECK(figure(c, "energy_j").outcome == "unknown");
  CHECK(format_comparison(c).find("Mann-Whitney") != std::string::npos);
}

TEST_CASE("compare: overlapping sets are the same; too few runs cannot tell") {
  const Comparison same = compare_sets(times({10, 11, 12, 10.5, 11.5}), times({10.2, 11.2, 11.8, 10.7, 11.4}));
  CHECK(figure(same, "time_to_train_min").outcome == "same");
  const Comparison few = compare_sets(times({10, 10.1}), times({20, 20.1}));
  const FigureComparison& f = figure(few, "time_to_train_min");
  CHECK(f.outcome == "unknown");
  CHECK(f.verdict.find("cannot tell") != std::string::npos);
  CHECK(to_json(few)["figures"][0]["mann_whitney"]["min_p"].get<double>() == doctest::Approx(1.0 / 3));
}
