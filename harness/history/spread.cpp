#include "harness/history/spread.h"

#include <algorithm>

namespace bert::harness::history {

std::optional<Spread> spread_of(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  Spread s;
  s.n = int(v.size());
  s.min = v.front();
  s.max = v.back();
  const size_t h = v.size() / 2;
  s.median = v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
  if (v.size() >= 3) {
    double sum = 0;
    for (size_t i = 1; i + 1 < v.size(); ++i) sum += v[i];
    s.olympic_mean = sum / double(v.size() - 2);
  }
  return s;
}

}  // namespace bert::harness::history
