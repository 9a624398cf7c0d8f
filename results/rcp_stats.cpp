#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "results/mllog/pyjson.h"
#include "results/rcp.h"
#include "results/rules_embedded.h"

namespace bert::results::rcp {

double np_sum(const std::vector<double>& v, size_t begin, size_t end) {
  const size_t n = end - begin;
  const double* a = v.data() + begin;
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t half = n / 2;
  half -= half % 8;
  return np_sum(v, begin, begin + half) + np_sum(v, begin + half, end);
}

double np_mean(const std::vector<double>& v, size_t begin, size_t end) {
  if (end <= begin) return std::nan("");
  return np_sum(v, begin, end) / static_cast<double>(end - begin);
}

double np_std(const std::vector<double>& v) {
  const double mean = np_mean(v, 0, v.size());
  std::vector<double> sq(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double d = v[i] - mean;
    sq[i] = d * d;
  }
  return std::sqrt(np_sum(sq, 0, sq.size()) / static_cast<double>(v.size()));
}

namespace {

// Continued fraction for the regularized incomplete beta function (modified Lentz).
double beta_cf(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-16;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < eps) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_cf(a, b, x) / a;
  return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

}  // namespace

double student_t_cdf(double df, double t) {
  if (std::isnan(t)) return t;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double x = df / (df + t * t);
  const double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, x);
  return t < 0 ? tail : 1.0 - tail;
}

double min_acceptable_mean(double mean, double stdev, int n_ref, int n_subm) {
  if (stdev == 0) return mean;
  constexpr double alpha = 0.05, tolerance = 0.0001;
  double hi = mean, lo = 0.0, mid = (lo + hi) / 2;
  while (hi - lo > tolerance) {
    // scipy ttest_ind_from_stats(mid, stdev, n_ref, mean, stdev, n_subm, equal_var=True)
    const double v = stdev * stdev;
    const double n1 = n_ref, n2 = n_subm;
    const double df = n1 + n2 - 2.0;
    const double svar = ((n1 - 1) * v + (n2 - 1) * v) / df;
    const double denom = std::sqrt(svar * (1.0 / n1 + 1.0 / n2));
    const double t = (mid - mean) / denom;
    const double two_sided = student_t_cdf(df, -std::fabs(t)) * 2;
    const double p = t < 0 ? two_sided / 2 : 1 - two_sided / 2;
    if (p > alpha) hi = mid;
    else lo = mid;
    mid = (lo + hi) / 2;
  }
  return mid;
}

Record interpolate(double bs, const Record& lo, const Record& hi) {
  // np.interp with two points
  auto interp = [&](double y0, double y1) {
    if (bs >= hi.bs) return y1;
    if (bs <= lo.bs) return y0;
    const double slope = (y1 - y0) / (hi.bs - lo.bs);
    return slope * (bs - lo.bs) + y0;
  };
  Record r;
  r.name = "bert_interp_" + pyjson::dumps(bs == std::floor(bs) ? json(static_cast<int64_t>(bs)) : json(bs));
  r.bs = bs;
  r.mean = interp(lo.mean, hi.mean);
  r.stdev = interp(lo.stdev, hi.stdev);
  r.min_epochs = min_acceptable_mean(r.mean, r.stdev, kSubmissionRuns * 2);
  r.max_speedup = r.mean / r.min_epochs;
  return r;
}

namespace {

Table load_table() {
  Table t;
  const json j = json::parse(embedded_file("rcps_bert.json"));
  for (const auto& rec : j.at("records")) {
    Record r;
    r.name = rec.at("name").get<std::string>();
    r.bs = rec.at("bs").get<double>();
    for (const auto& s : rec.at("samples_to_converge")) r.samples.push_back(s.get<double>());
    std::sort(r.samples.begin(), r.samples.end());
    r.mean = np_mean(r.samples, 1, r.samples.size() - 1);
    r.stdev = np_std(r.samples);
    r.min_epochs = min_acceptable_mean(r.mean, r.stdev, static_cast<int>(r.samples.size()) - 2);
    r.max_speedup = r.mean / r.min_epochs;
    t.full.push_back(std::move(r));
  }
  std::stable_sort(t.full.begin(), t.full.end(), [](const Record& a, const Record& b) { return a.bs < b.bs; });

  // _prune_rcps: drop batch sizes below the fastest-converging one, then walk once, removing a
  // point that converges slower than the interpolation of its current neighbours.
  auto fastest = std::min_element(t.full.begin(), t.full.end(),
                                  [](const Record& a, const Record& b) { return a.mean < b.mean; });
  std::vector<Record> kept;
  for (const auto& r : t.full)
    if (r.bs >= fastest->bs) kept.push_back(r);
  for (size_t i = 1; i + 1 < kept.size();) {
    const Record mid = interpolate(kept[i].bs, kept[i - 1], kept[i + 1]);
    if (kept[i].mean > mid.mean) kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
    else ++i;
  }
  for (const auto& r : t.full)
    if (std::any_of(kept.begin(), kept.end(), [&](const Record& k) { return k.bs == r.bs; })) t.pruned.push_back(r);
  return t;
}

}  // namespace

const Table& bert_table() {
  static const Table t = load_table();
  return t;
}

}  // namespace bert::results::rcp
