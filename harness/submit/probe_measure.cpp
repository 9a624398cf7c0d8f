#include "harness/submit/probe_measure.h"

#include <optional>
#include <vector>

#include "results/log_parser.h"

namespace bert::harness {
namespace {

using results::json;

// The samples-per-second a tracked_stats value carries, under the names implementations use.
std::optional<double> throughput_value(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_object()) return std::nullopt;
  for (const char* k : {"throughput", "seq/sec", "seq/s", "samples/sec", "samples_per_second"})
    if (v.contains(k) && v[k].is_number()) return v[k].get<double>();
  return std::nullopt;
}

struct Point {
  double t_ms;
  double samples;
};

}  // namespace

Throughput measure_throughput(std::string_view log_bytes, int warmup) {
  const results::ParsedLog log = results::parse_log(log_bytes);
  std::vector<Point> points;
  std::vector<double> values, key_values;  // tracked_stats' values; the `throughput` key's (NVIDIA logs both)
  std::vector<std::pair<double, double>> evals;  // (start, stop) ms
  double init_start = -1, run_start = -1, eval_open = -1, last_eval_samples = -1, converged = -1;
  for (const results::LogRecord& r : log.records) {
    const std::string* key = r.key_str();
    if (!key) continue;
    const json& value = r.value.contains("value") ? r.value["value"] : json();
    const json& meta = r.value.contains("metadata") ? r.value["metadata"] : json();
    if (*key == "init_start" && init_start < 0) init_start = r.timestamp;
    if (*key == "run_start" && run_start < 0) run_start = r.timestamp;
    if (*key == "eval_start") eval_open = r.timestamp;
    if (*key == "eval_stop" && eval_open >= 0) evals.emplace_back(eval_open, r.timestamp), eval_open = -1;
    if (*key == "tracked_stats" && meta.is_object() && meta.contains("step") && meta["step"].is_number())
      points.push_back({r.timestamp, meta["step"].get<double>()});
    if (*key == "eval_accuracy" && meta.is_object() && meta.contains("epoch_num") && meta["epoch_num"].is_number())
      last_eval_samples = meta["epoch_num"].get<double>();
    if (*key == "run_stop" && meta.is_object() && meta.contains("status") && meta["status"] == "success") converged = last_eval_samples;
    if (*key == "tracked_stats" || *key == "throughput")
      if (auto v = throughput_value(value)) (*key == "tracked_stats" ? values : key_values).push_back(*v);
  }
  Throughput t;
  t.converged_samples = converged;
  if (init_start >= 0 && run_start >= init_start) t.init_s = (run_start - init_start) / 1000;
  double eval_total = 0;
  for (const auto& [a, b] : evals) eval_total += (b - a) / 1000;
  t.evals = int(evals.size());
  t.eval_s = evals.empty() ? 0 : eval_total / double(evals.size());

  // A point logged at the same samples as the one before (our trainer's last line) adds nothing.
  std::vector<Point> distinct;
  for (const Point& p : points)
    if (distinct.empty() || p.samples > distinct.back().samples) distinct.push_back(p);
  if (int(distinct.size()) >= warmup + 2) {
    double samples = 0, seconds = 0;
    for (size_t i = size_t(warmup) + 1; i < distinct.size(); ++i) {
      const Point& a = distinct[i - 1];
      const Point& b = distinct[i];
      double s = (b.t_ms - a.t_ms) / 1000;
      for (const auto& [es, ee] : evals)  // evaluations inside the interval are not training
        if (es >= a.t_ms && ee <= b.t_ms) s -= (ee - es) / 1000;
      samples += b.samples - a.samples;
      seconds += s;
    }
    if (seconds > 0) {
      t.ok = true;
      t.method = "points";
      t.samples_per_s = samples / seconds;
      t.measured = int(distinct.size()) - warmup - 1;
      t.dropped = warmup;
      t.measured_s = seconds;
      return t;
    }
  }
  if (values.empty()) values = key_values;
  if (int(values.size()) >= warmup + 1) {
    double sum = 0;
    for (size_t i = size_t(warmup); i < values.size(); ++i) sum += values[i];
    t.ok = true;
    t.method = "values";
    t.measured = int(values.size()) - warmup;
    t.dropped = warmup;
    t.samples_per_s = sum / t.measured;
    return t;
  }
  t.why_not = "the log has " + std::to_string(distinct.size()) + " tracked_stats point(s) with a sample count and " +
              std::to_string(values.size()) + " throughput value(s); " + std::to_string(warmup) +
              " warm-up one(s) are dropped and at least one more is needed (run the probe longer: --seconds)";
  return t;
}

}  // namespace bert::harness
