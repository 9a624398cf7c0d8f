#include "harness/history/compare.h"

#include <cmath>
#include <functional>

#include <fmt/format.h>

namespace bert::harness::history {

namespace {

using RunFigure = std::function<std::optional<double>(const RunRecord&)>;

struct FigureDef {
  const char* key;
  const char* label;
  bool lower_is_better;
  RunFigure get;
};

const std::vector<FigureDef>& figure_defs() {
  static const std::vector<FigureDef> d = {
      // valid runs only: a failed run has no time to train (MLPerf counts it as the slowest, not as a number)
      {"time_to_train_min", "time to train [min]", true, [](const RunRecord& r) { return r.ttt_min; }},
      {"samples_to_converge", "samples to converge", true, [](const RunRecord& r) { return r.samples_to_converge; }},
      {"samples_per_s", "samples per second", false, [](const RunRecord& r) { return r.samples_per_s; }},
      {"energy_j", "energy [J]", true, [](const RunRecord& r) { return r.energy_j; }},
  };
  return d;
}

std::vector<double> values(const SetRecord& s, const RunFigure& get) {
  std::vector<double> v;
  for (const RunRecord& r : s.runs)
    if (std::optional<double> x = get(r); x && std::isfinite(*x)) v.push_back(*x);
  return v;
}

std::string num(double v) { return fmt::format("{:.6g}", v); }

FigureComparison compare_figure(const FigureDef& d, const SetRecord& a, const SetRecord& b, double alpha) {
  FigureComparison f;
  f.key = d.key;
  f.label = d.label;
  f.lower_is_better = d.lower_is_better;
  const std::vector<double> va = values(a, d.get), vb = values(b, d.get);
  f.a = spread_of(va);
  f.b = spread_of(vb);
  if (!f.a || !f.b) {
    f.outcome = "unknown";
    f.verdict = !f.a && !f.b ? "measured in neither set" : std::string("not measured in set ") + (f.a ? "B" : "A");
    return f;
  }
  f.test = mann_whitney_u(va, vb);
  f.min_p = mann_whitney_min_p(int(va.size()), int(vb.size()));
  if (f.a->median != 0) f.change = (f.b->median - f.a->median) / std::fabs(f.a->median);
  const std::string how = fmt::format("Mann-Whitney U = {:g}, p = {:.3g}, {}, {} and {} runs", f.test->u1, f.test->p,
                                      f.test->method, va.size(), vb.size());
  if (f.test->p < alpha) {
    const bool lower = f.b->median < f.a->median;
    f.outcome = lower == f.lower_is_better ? "better" : "worse";
    const std::string pct = f.change ? fmt::format("{:.1f}% ", std::fabs(*f.change) * 100) : "";
    f.verdict = fmt::format("B is {}{} ({}) than A, beyond the run-to-run noise ({})", pct, lower ? "lower" : "higher",
                            f.outcome, how);
  } else if (f.min_p >= alpha) {
    f.outcome = "unknown";
    f.verdict = fmt::format("cannot tell: with {} and {} runs the test's smallest p-value is {:.3g}, not below {:g}; "
                            "run more experiments ({})", va.size(), vb.size(), f.min_p, alpha, how);
  } else {
    f.outcome = "same";
    f.verdict = "no difference beyond the run-to-run noise (" + how + ")";
  }
  return f;
}

std::string spread_cells(const std::optional<Spread>& s) {
  if (!s) return fmt::format("{:>5}  {:>12}  {:>12}  {:>12}  {:>12}", 0, "-", "-", "-", "-");
  return fmt::format("{:>5}  {:>12}  {:>12}  {:>12}  {:>12}", s->n, num(s->min), num(s->median), num(s->max),
                     s->olympic_mean ? num(*s->olympic_mean) : "-");
}

std::string describe(const char* tag, const SetRecord& s) {
  const std::string who = s.id ? fmt::format("#{} ", s.id) : "";
  return fmt::format("{} = {}{} ({}; {}), {} node(s) x {} rank(s), {}, {} {}, {}\n    {}\n", tag, who, s.system_name,
                     s.origin == "recorded" ? "recorded results" : "harness run", s.recorded_at.empty() ? "?" : s.recorded_at,
                     s.nodes, s.ranks_per_node, s.accelerator.empty() ? "accelerator ?" : s.accelerator,
                     s.backend.empty() ? "backend ?" : s.backend, s.precision.empty() ? "precision ?" : s.precision,
                     s.container_image.empty() ? "no container" : s.container_image, s.output_dir);
}

std::string opt_min(const std::optional<double>& v) { return v ? fmt::format("{:.4g} min", *v) : "n/a"; }

}  // namespace

std::string compare_method_text(double alpha) {
  return fmt::format(
      "a difference is called only where a two-sided Mann-Whitney U test over the two sets' per-run values gives "
      "p < {:g} (as scipy.stats.mannwhitneyu: the exact distribution when a set has at most 8 runs and no value is "
      "tied, else the normal approximation with tie and continuity corrections); otherwise it is within the "
      "run-to-run noise. The change is between the medians.",
      alpha);
}

Comparison compare_sets(const SetRecord& a, const SetRecord& b, double alpha) {
  Comparison c{a, b, alpha, {}};
  for (const FigureDef& d : figure_defs()) c.figures.push_back(compare_figure(d, a, b, alpha));
  return c;
}

std::string format_comparison(const Comparison& c) {
  std::string out = describe("A", c.a) + describe("B", c.b) + "\n";
  out += fmt::format("{:<22} {:>3}  {:>5}  {:>12}  {:>12}  {:>12}  {:>12}\n", "figure", "set", "runs", "min", "median", "max",
                     "olympic mean");
  for (const FigureComparison& f : c.figures) {
    out += fmt::format("{:<22} {:>3}  {}\n", f.label, "A", spread_cells(f.a));
    out += fmt::format("{:<22} {:>3}  {}\n", "", "B", spread_cells(f.b));
    out += "  verdict: " + f.verdict + "\n";
  }
  out += fmt::format("\ntime to train of the set: A {} ({}), B {} ({})\n", opt_min(c.a.time_to_train()), c.a.time_basis(),
                     opt_min(c.b.time_to_train()), c.b.time_basis());
  out += fmt::format("RCP: A {}, B {}\n", c.a.rcp_word(), c.b.rcp_word());
  out += "method: " + compare_method_text(c.alpha) + "\n";
  return out;
}

ojson to_json(const Comparison& c) {
  auto spread = [](const std::optional<Spread>& s) {
    if (!s) return ojson();
    return ojson{{"n", s->n}, {"min", s->min}, {"median", s->median}, {"max", s->max},
                 {"olympic_mean", s->olympic_mean ? ojson(*s->olympic_mean) : ojson()}};
  };
  ojson figs = ojson::array();
  for (const FigureComparison& f : c.figures) {
    ojson test;
    if (f.test) test = {{"u1", f.test->u1}, {"p", f.test->p}, {"method", f.test->method}, {"min_p", f.min_p}};
    figs.push_back({{"figure", f.key}, {"label", f.label}, {"lower_is_better", f.lower_is_better}, {"a", spread(f.a)},
                    {"b", spread(f.b)}, {"mann_whitney", test}, {"change", f.change ? ojson(*f.change) : ojson()},
                    {"outcome", f.outcome}, {"verdict", f.verdict}});
  }
  return ojson{{"a", to_json(c.a)}, {"b", to_json(c.b)}, {"alpha", c.alpha}, {"method", compare_method_text(c.alpha)},
               {"figures", figs}};
}

}  // namespace bert::harness::history
