// The spread of one figure over a set's runs: how many, min, median, max, and the olympic mean (the
// mean without the lowest and the highest value, as MLPerf scores time to train; 3 runs or more).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace bert::harness::history {

struct Spread {
  int n = 0;
  double min = 0, median = 0, max = 0;
  std::optional<double> olympic_mean;
};

std::optional<Spread> spread_of(std::vector<double> values);  // empty for no values

}  // namespace bert::harness::history
