// `harness compare A B`: two sets side by side, per figure (time to train, samples to converge,
// samples per second, energy) with each set's spread over its runs, and a verdict that calls a
// difference only where a two-sided Mann-Whitney U test over the two sets' runs says it is larger than
// their run-to-run noise (p < alpha). Too few runs for the test to ever get there is said as such.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/history/mann_whitney.h"
#include "harness/history/set_record.h"
#include "harness/history/spread.h"

namespace bert::harness::history {

struct FigureComparison {
  std::string key;                 // time_to_train_min | samples_to_converge | samples_per_s | energy_j
  std::string label;               // "time to train [min]"
  bool lower_is_better = true;
  std::optional<Spread> a, b;
  std::optional<MannWhitney> test; // when both sets measured it
  double min_p = 1;                // the smallest p-value the test can give with these run counts
  std::optional<double> change;    // (median B - median A) / median A
  std::string outcome;             // better | worse | same | unknown (B against A)
  std::string verdict;             // one sentence
};

struct Comparison {
  SetRecord a, b;
  double alpha = 0.05;
  std::vector<FigureComparison> figures;
};

Comparison compare_sets(const SetRecord& a, const SetRecord& b, double alpha = 0.05);
std::string format_comparison(const Comparison& c);
ojson to_json(const Comparison& c);
std::string compare_method_text(double alpha);  // how the verdict is reached, for the output and the docs

}  // namespace bert::harness::history
