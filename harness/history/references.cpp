#include "harness/history/references.h"

#include <fmt/format.h>

#include "harness/config/reference_figures.h"

namespace bert::harness::history {

namespace {

struct Figure {
  std::optional<double> value;
  std::string basis;
};

// The mean of a per-run figure over the runs that have it.
template <typename Get>
Figure run_mean(const SetRecord& s, Get get) {
  double sum = 0;
  int n = 0;
  for (const RunRecord& r : s.runs)
    if (const std::optional<double> v = get(r)) {
      sum += *v;
      ++n;
    }
  if (n == 0) return {std::nullopt, "no run measured it"};
  return {sum / n, fmt::format("mean of {} run(s)", n)};
}

Figure figure_of(const std::string& key, const SetRecord& s) {
  if (key == "time_to_train_min") {
    if (s.time_to_train()) return {s.time_to_train(), s.time_basis()};
    return {std::nullopt, "no compliant run with a time to train"};
  }
  if (key == "samples_per_s") return run_mean(s, [](const RunRecord& r) { return r.samples_per_s; });
  if (key == "energy_j") {
    if (s.energy_j) return {s.energy_j, "the score's energy"};
    Figure f = run_mean(s, [](const RunRecord& r) { return r.energy_j; });
    if (!f.value) f.basis = "no power logs (no energy in harness score)";
    return f;
  }
  return {std::nullopt, "unknown figure"};
}

}  // namespace

std::vector<ReferenceVerdict> reference_verdicts(const std::vector<ReferenceTarget>& refs, const SetRecord& s) {
  std::vector<ReferenceVerdict> out;
  for (const ReferenceTarget& r : refs) {
    const ReferenceFigure* f = find_reference_figure(r.figure);
    const Figure fig = figure_of(r.figure, s);
    ReferenceVerdict v{r.figure, r.target, r.tolerance, fig.value, fig.basis, "not measured"};
    if (f && fig.value) {
      const bool met = f->lower_is_better ? *fig.value <= r.target * (1 + r.tolerance) : *fig.value >= r.target * (1 - r.tolerance);
      v.verdict = met ? "met" : "missed";
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string verdict_line(const ReferenceVerdict& v) {
  const ReferenceFigure* f = find_reference_figure(v.figure);
  const std::string unit = f ? std::string(f->unit) : "";
  const std::string bound = f && f->lower_is_better ? fmt::format("at most {:g} {} (target {:g} +{:g}%)", v.target * (1 + v.tolerance), unit, v.target, v.tolerance * 100)
                                                   : fmt::format("at least {:g} {} (target {:g} -{:g}%)", v.target * (1 - v.tolerance), unit, v.target, v.tolerance * 100);
  const std::string value = v.value ? fmt::format("{:.6g} {} ({})", *v.value, unit, v.basis) : "not measured (" + v.basis + ")";
  std::string word = v.verdict == "met" ? "met" : v.verdict == "missed" ? "MISSED" : "NOT MEASURED";
  return fmt::format("reference {}: {}; needs {}: {}", v.figure, value, bound, word);
}

bool any_missed(const std::vector<ReferenceVerdict>& v) {
  for (const ReferenceVerdict& r : v)
    if (r.verdict != "met") return true;
  return false;
}

}  // namespace bert::harness::history
