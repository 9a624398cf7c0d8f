// Energy to train of one run, as mlcommons/logging's result_summarizer computes it
// (_compute_total_power, _compute_power_node, _compute_power_sw), in the same order of operations so
// the joules agree to the last bits; where the official tool would crash or produce a number that
// measures nothing, a flaw that names the file and line instead.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "results/power.h"
#include "results/pyvalue.h"

namespace bert::results {
namespace {

// Readings may leave this much of the timed run at either end uncovered (a reading a second, jitter).
constexpr double kCoverageSlackMs = 2000;

bool is_key(const LogRecord& r, const char* key) { return r.key_str() && *r.key_str() == key; }

// A number as Python's arithmetic takes it (int, float, bool); empty for anything else.
std::optional<double> number(const json& v) {
  if (!py::is_number(v)) return std::nullopt;
  bool value_error = false;
  return py::to_float(v, value_error);
}

struct FileEnergy {
  std::optional<double> joules;
  std::string flaw;
};

FileEnergy flawed(std::string text) { return {std::nullopt, std::move(text)}; }

FileEnergy node_energy(const PowerFile& f, const RunWindow& w) {
  const double ttt = w.stop_ms - w.start_ms;
  const std::string file = f.path.string();
  std::vector<const LogRecord*> lines;
  for (const LogRecord& r : f.log.records) lines.push_back(&r);
  std::stable_sort(lines.begin(), lines.end(), [](const LogRecord* a, const LogRecord* b) { return a->timestamp < b->timestamp; });
  double prev = 0, last = 0, start = 0, stop = 0, agg = 0, eff = 1.0;
  bool start_found = false, stop_found = false;
  const LogRecord *start_line = nullptr, *stop_line = nullptr;
  std::optional<double> first_reading, last_reading;
  int readings = 0;
  for (const LogRecord* r : lines) {
    if (is_key(*r, power_key::kStart)) {
      start = prev = r->timestamp;
      start_found = true;
      start_line = r;
    }
    if (is_key(*r, power_key::kReading) && !stop_found && start_found) {
      const auto v = number(r->value["value"]);
      if (!v) return flawed(f.where(*r) + ": power_reading value " + py::repr(r->value["value"]) + " is not a number");
      agg += *v * (r->timestamp - prev);
      prev = r->timestamp;
      last = std::max(last, r->timestamp);
      if (!first_reading) first_reading = r->timestamp;
      last_reading = r->timestamp;
      ++readings;
    }
    if (is_key(*r, power_key::kStop)) {
      stop = r->timestamp;
      stop_found = true;
      stop_line = r;
    }
    if (is_key(*r, power_key::kConversionEff)) {
      const auto v = number(r->value["value"]);
      if (!v) return flawed(f.where(*r) + ": conversion_eff value " + py::repr(r->value["value"]) + " is not a number");
      eff = *v;
    }
  }
  if (!start_found) return flawed(file + ": no power_measurement_start (the official summarizer stops with ValueError)");
  const std::string stop_at = stop_line ? f.where(*stop_line) : file + " (no power_measurement_stop: the last reading's time)";
  if (!stop_found) stop = last;  // the official summarizer's fallback (it prints a WARNING)
  if (stop == start)
    return flawed(stop_at + fmt::format(": power_measurement_stop has the time of power_measurement_start (line {}, time_ms "
                                        "{:.0f}): an empty window (the official summarizer divides by zero here)",
                                        start_line->file_line, start));
  if (stop < start)
    return flawed(stop_at + fmt::format(": power_measurement_stop (time_ms {:.0f}) is before power_measurement_start (line {}, "
                                        "time_ms {:.0f})", stop, start_line->file_line, start));
  if (readings == 0) return flawed(f.where(*start_line) + ": no power_reading between power_measurement_start and power_measurement_stop");
  if (*first_reading > w.start_ms + kCoverageSlackMs || *last_reading < w.stop_ms - kCoverageSlackMs)
    return flawed(f.where(*start_line) + fmt::format(
                      ": the readings span time_ms {:.0f}..{:.0f} and leave the timed run {:.0f}..{:.0f} uncovered "
                      "(a monitor that stopped or started late)", *first_reading, *last_reading, w.start_ms, w.stop_ms));
  // conversion_eff * agg_power * time_to_train / (power_stop - power_start) / 1000, left to right
  return {eff * agg * ttt / (stop - start) / 1000, ""};
}

FileEnergy switch_energy(const PowerFile& f, const RunWindow& w) {
  const double ttt = w.stop_ms - w.start_ms;
  double eff = 1.0;
  for (const LogRecord& r : f.log.records) {  // file order, up to the first estimate (as the official loop)
    if (is_key(r, power_key::kConversionEff)) {
      const auto v = number(r.value["value"]);
      if (!v) return flawed(f.where(r) + ": conversion_eff value " + py::repr(r.value["value"]) + " is not a number");
      eff = *v;
    }
    if (is_key(r, power_key::kInterconnect)) {
      const auto v = number(r.value["value"]);
      if (!v) return flawed(f.where(r) + ": interconnect_power_est value " + py::repr(r.value["value"]) + " is not a number");
      return {eff * *v * ttt / 1000, ""};
    }
  }
  return flawed(f.path.string() + ": no interconnect_power_est (the official summarizer counts 0 J for it)");
}

}  // namespace

RunEnergy run_energy(const std::filesystem::path& bench_dir, const std::string& result_name, const RunWindow& window) {
  RunEnergy e;
  const std::vector<PowerFile> files = read_power_files(bench_dir, result_name);
  double total = 0;
  for (const PowerFile& f : files) {
    (f.node ? e.nodes : e.switches) += 1;
    FileEnergy fe;
    if (!f.read_error.empty()) fe = flawed(f.read_error);
    else if (!f.log.fatal.empty()) fe = flawed(f.path.string() + ": " + f.log.fatal + " (the official parser stops here)");
    else fe = f.node ? node_energy(f, window) : switch_energy(f, window);
    if (!fe.joules) {
      if (e.flaw.empty()) e.flaw = fe.flaw;
      continue;
    }
    total += *fe.joules;
  }
  if (e.nodes == 0 && e.flaw.empty())
    e.flaw = (bench_dir / "power" / result_name).string() + ": no node_*.txt power log (the official summarizer stops with AssertionError)";
  if (e.flaw.empty()) e.joules = total;
  return e;
}

}  // namespace bert::results
