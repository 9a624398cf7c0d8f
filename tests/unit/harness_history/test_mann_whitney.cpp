#include <doctest/doctest.h>

#include "harness/history/mann_whitney.h"
#include "harness/history/spread.h"

using namespace bert::harness::history;

TEST_CASE("Mann-Whitney U: scipy's documented example (exact, no ties)") {
  // scipy.stats.mannwhitneyu docs: males vs females, U1 = 17, exact p = 0.1111111111111111
  const MannWhitney r = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  CHECK(r.u1 == 17);
  CHECK(r.method == "exact");
  CHECK(r.p == doctest::Approx(0.1111111111111111).epsilon(1e-12));
}

TEST_CASE("Mann-Whitney U: complete separation of 5 and 5 runs is p = 2/252") {
  const MannWhitney r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  CHECK(r.u1 == 0);
  CHECK(r.p == doctest::Approx(2.0 / 252).epsilon(1e-12));
  CHECK(mann_whitney_min_p(5, 5) == doctest::Approx(2.0 / 252).epsilon(1e-12));
  // 2 and 2 runs: the test can never call a difference at 0.05
  CHECK(mann_whitney_min_p(2, 2) == doctest::Approx(1.0 / 3).epsilon(1e-12));
}

TEST_CASE("Mann-Whitney U: ties take the normal approximation; all tied is p = 1") {
  const MannWhitney r = mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 5});
  CHECK(r.method == "asymptotic");
  CHECK(r.u1 == 2.5);
  CHECK(r.p == doctest::Approx(0.1366582477381475).epsilon(1e-9));  // scipy 1.10
  CHECK(mann_whitney_u({1, 1, 1}, {1, 1}).p == 1);
  CHECK(mann_whitney_u({}, {1}).method == "none");
}

TEST_CASE("spread: min, median, max and the olympic mean from 3 values on") {
  const auto s = spread_of({5, 1, 3, 2, 4});
  REQUIRE(s);
  CHECK(s->n == 5);
  CHECK(s->min == 1);
  CHECK(s->median == 3);
  CHECK(s->max == 5);
  CHECK(*s->olympic_mean == 3);
  const auto two = spread_of({1, 2});
  CHECK(two->median == 1.5);
  CHECK_FALSE(two->olympic_mean);
  CHECK_FALSE(spread_of({}));
}
