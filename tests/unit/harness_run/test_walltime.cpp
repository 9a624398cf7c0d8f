#include <doctest/doctest.h>

#include <stdexcept>

#include "harness/plan/walltime.h"

using bert::harness::parse_walltime_seconds;

TEST_CASE("walltime: Slurm's time formats") {
  CHECK(parse_walltime_seconds("") == 0);
  CHECK(parse_walltime_seconds("30") == 1800);
  CHECK(parse_walltime_seconds("0:02") == 2);
  CHECK(parse_walltime_seconds("12:30") == 750);
  CHECK(parse_walltime_seconds("01:15:00") == 4500);
  CHECK_THROWS_AS(parse_walltime_seconds("1h"), std::invalid_argument);
  CHECK(parse_walltime_seconds("1:60") == 120);  // minutes:seconds; Slurm lets a field run past 59
  CHECK_THROWS_AS(parse_walltime_seconds("1:2:3:4"), std::invalid_argument);
  CHECK_THROWS_WITH(parse_walltime_seconds("-5"), doctest::Contains("'-5'"));
}
