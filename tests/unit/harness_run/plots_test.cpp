#include <doctest/doctest.h>

#include "harness/run/plots.h"

using namespace bert::harness;

TEST_CASE("olympic window drops the fastest and the slowest") {
  std::vector<RunTime> t = {{1, 5.0}, {2, 3.0}, {3, 9.0}, {4, 4.0}, {5, 6.0}};
  auto w = olympic_window(t, 0);
  CHECK(w == std::vector<size_t>{3, 0, 4});  // 4.0, 5.0, 6.0
}

TEST_CASE("with one dropped run only the fastest goes (the dropped run counts as the slowest)") {
  std::vector<RunTime> t = {{1, 5.0}, {2, 3.0}, {3, 9.0}};
  CHECK(olympic_window(t, 1) == std::vector<size_t>{0, 2});
}

TEST_CASE("too few runs for a window") {
  CHECK(olympic_window({}, 0).empty());
  CHECK(olympic_window({{1, 2.0}}, 0).empty());
  CHECK(olympic_window({{1, 2.0}, {2, 3.0}}, 0).empty());
}
