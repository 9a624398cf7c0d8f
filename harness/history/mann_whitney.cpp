#include "harness/history/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bert::harness::history {

namespace {

// Counts of the arrangements of m and n values with U = k, k = 0..mn: the coefficients of the Gaussian
// binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), built one factor at a time.
std::vector<double> u_counts(int m, int n) {
  if (m > n) std::swap(m, n);
  const size_t top = size_t(m) * size_t(n);
  std::vector<double> c(top + 1, 0.0);
  c[0] = 1;
  for (int i = 1; i <= m; ++i) {
    for (size_t k = top; k >= size_t(n + i) && k <= top; --k) c[k] -= c[k - size_t(n + i)];  // x (1 - q^(n+i))
    for (size_t k = size_t(i); k <= top; ++k) c[k] += c[k - size_t(i)];                      // / (1 - q^i)
  }
  return c;
}

// P(U >= u) under the null hypothesis, exactly.
double exact_sf(int m, int n, int u) {
  const std::vector<double> c = u_counts(m, n);
  double total = 0, tail = 0;
  for (size_t k = 0; k < c.size(); ++k) {
    total += c[k];
    if (int(k) >= u) tail += c[k];
  }
  return tail / total;
}

}  // namespace

MannWhitney mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  MannWhitney r;
  const int n1 = int(x.size()), n2 = int(y.size());
  if (n1 == 0 || n2 == 0) {
    r.method = "none";
    return r;
  }
  // Mid-ranks of the pooled values (ties share the mean of their ranks).
  std::vector<double> xy(x);
  xy.insert(xy.end(), y.begin(), y.end());
  std::vector<size_t> order(xy.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xy[a] < xy[b]; });
  std::vector<double> rank(xy.size());
  double tie_term = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && xy[order[j + 1]] == xy[order[i]]) ++j;
    const double mid = (double(i) + double(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) rank[order[k]] = mid;
    const double t = double(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  double r1 = 0;
  for (int i = 0; i < n1; ++i) r1 += rank[size_t(i)];
  r.u1 = r1 - double(n1) * (n1 + 1) / 2;
  const double u2 = double(n1) * n2 - r.u1;
  const double u = std::max(r.u1, u2);
  const bool ties = tie_term > 0;
  if ((n1 <= 8 || n2 <= 8) && !ties) {
    r.method = "exact";
    r.p = 2 * exact_sf(n1, n2, int(std::lround(u)));
  } else {
    r.method = "asymptotic";
    const double n = double(n1 + n2);
    const double s = std::sqrt(double(n1) * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))));
    const double z = (u - double(n1) * n2 / 2 - 0.5) / s;  // continuity correction
    r.p = s > 0 ? std::erfc(z / std::sqrt(2.0)) : 1.0;    // 2 x the normal survival function
  }
  r.p = std::clamp(r.p, 0.0, 1.0);
  return r;
}

double mann_whitney_min_p(int n1, int n2) {
  if (n1 <= 0 || n2 <= 0) return 1;
  return std::min(1.0, 2 * exact_sf(n1, n2, n1 * n2));
}

}  // namespace bert::harness::history
