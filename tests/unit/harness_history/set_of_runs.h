// Sets of runs for the history tests: one run per value, `fill` sets the figure.
#pragma once
#include <functional>
#include <vector>

#include "harness/history/set_record.h"

inline bert::harness::history::SetRecord set_of_runs(const std::vector<double>& values,
                                                      const std::function<void(bert::harness::history::RunRecord&, double)>& fill) {
  bert::harness::history::SetRecord s;
  int i = 0;
  for (double v : values) {
    bert::harness::history::RunRecord r;
    r.index = ++i;
    fill(r, v);
    s.runs.push_back(r);
  }
  return s;
}
