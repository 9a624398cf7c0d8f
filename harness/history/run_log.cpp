#include "harness/history/run_log.h"

#include "results/log_parser.h"

namespace bert::harness::history {

namespace {

std::optional<double> number(const results::json& j) {
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

}  // namespace

RunLog read_run_log(std::string_view text) {
  RunLog log;
  const results::ParsedLog parsed = results::parse_log(text);
  for (const results::LogRecord& r : parsed.records) {
    const std::string* key = r.key_str();
    if (!key || !r.value.is_object()) continue;
    const auto value = r.value.contains("value") ? r.value["value"] : results::json();
    const auto meta = r.value.contains("metadata") && r.value["metadata"].is_object() ? r.value["metadata"] : results::json::object();
    if (*key == "run_start" && !log.run_start_ms) {
      log.run_start_ms = r.timestamp;
    } else if (*key == "run_stop" && !log.run_stop_ms) {
      log.run_stop_ms = r.timestamp;
      if (meta.contains("status") && meta["status"].is_string()) log.stop_status = meta["status"].get<std::string>();
    } else if (*key == "eval_accuracy" && log.run_start_ms) {
      const auto acc = number(value);
      const auto samples = meta.contains("epoch_num") ? number(meta["epoch_num"]) : std::nullopt;
      if (acc && samples) log.evals.push_back({*samples, *acc, (r.timestamp - *log.run_start_ms) / 60000.0});
    }
  }
  double prev_samples = 0, prev_min = 0;
  for (const EvalSample& e : log.evals) {
    const double dt_s = (e.minutes - prev_min) * 60;
    if (dt_s > 0 && e.samples >= prev_samples) log.throughput.push_back({e.minutes, (e.samples - prev_samples) / dt_s});
    prev_samples = e.samples;
    prev_min = e.minutes;
  }
  if (!log.evals.empty() && log.evals.back().minutes > 0)
    log.samples_per_s = log.evals.back().samples / (log.evals.back().minutes * 60);
  return log;
}

}  // namespace bert::harness::history
