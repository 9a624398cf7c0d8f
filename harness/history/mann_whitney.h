// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided, as scipy.stats.mannwhitneyu computes it with
// its defaults (method "auto", use_continuity true): the exact distribution of U when either sample has
// at most 8 values and no value is tied; otherwise the normal approximation with the tie correction
// and a continuity correction. `harness compare` calls a
// difference between two sets only where this test says it is unlikely to be run-to-run noise.
#pragma once
#include <string>
#include <vector>

namespace bert::harness::history {

struct MannWhitney {
  double u1 = 0;         // U of the first sample (the number of pairs where it is larger; ties count 1/2)
  double p = 1;          // two-sided p-value
  std::string method;    // "exact" | "asymptotic"
};

// Needs at least one value in each sample (else p = 1, method "none").
MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// The smallest two-sided p-value the exact test can give for samples of n1 and n2 values (all of one
// above all of the other): with 2 and 2 runs it is 1/3, so no difference can be called from them.
double mann_whitney_min_p(int n1, int n2);

}  // namespace bert::harness::history
