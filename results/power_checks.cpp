// Checks of the power logs of a benchmark directory, as data: one row per check (its name, the rule in
// words, whether it fails the directory, what it reads). The official package checker's three
// (a folder per result, names without gaps, the same counts in every run) and what it misses: MLPerf's
// power rules (training_policies power_measurement.adoc) on each file's content.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "results/power.h"
#include "results/pyvalue.h"
#include "results/result_files.h"

namespace bert::results {
namespace fs = std::filesystem;
namespace {

constexpr int kMinReadings = 60;
constexpr double kMaxGapMs = 1500;       // one reading a second, with half a second of jitter
constexpr double kCoverageSlackMs = 1500;

bool is_key(const LogRecord& r, const char* key) { return r.key_str() && *r.key_str() == key; }

// One file as the checks see it: its lines, and the timed run of its result log when there is one.
struct View {
  const PowerFile& f;
  std::optional<RunWindow> run;
  std::vector<const LogRecord*> with(const char* key) const {
    std::vector<const LogRecord*> out;
    for (const LogRecord& r : f.log.records)
      if (is_key(r, key)) out.push_back(&r);
    return out;
  }
  // Readings inside [start, stop] (all of them when either is missing).
  std::vector<const LogRecord*> readings() const {
    auto starts = with(power_key::kStart), stops = with(power_key::kStop);
    std::vector<const LogRecord*> out;
    for (const LogRecord* r : with(power_key::kReading)) {
      if (!starts.empty() && r->timestamp < starts.front()->timestamp) continue;
      if (!stops.empty() && r->timestamp > stops.back()->timestamp) continue;
      out.push_back(r);
    }
    return out;
  }
  std::string file() const { return f.path.string(); }
  std::string at(const LogRecord* r) const { return f.where(*r); }
};

using Out = std::vector<std::pair<std::string, std::string>>;  // (where, text)
using Check = void (*)(const View&, Out&);

struct Row {
  const char* name;
  const char* rule;
  bool node_files;    // checks node_<k>.txt
  bool switch_files;  // checks sw_<k>.txt
  bool error;
  Check check;
};

std::optional<double> num(const json& v) {
  bool value_error = false;
  return py::is_number(v) ? py::to_float(v, value_error) : std::nullopt;
}

void one_start(const View& v, Out& out) {
  auto s = v.with(power_key::kStart);
  if (s.empty()) out.emplace_back(v.file(), "no power_measurement_start");
  else if (s.size() > 1) out.emplace_back(v.at(s[1]), fmt::format("{} power_measurement_start lines (one expected)", s.size()));
}

void one_stop(const View& v, Out& out) {
  auto s = v.with(power_key::kStop);
  if (s.empty()) out.emplace_back(v.file(), "no power_measurement_stop (the monitor was stopped before it could write one)");
  else if (s.size() > 1) out.emplace_back(v.at(s[1]), fmt::format("{} power_measurement_stop lines (one expected)", s.size()));
}

void stop_after_start(const View& v, Out& out) {
  auto a = v.with(power_key::kStart), b = v.with(power_key::kStop);
  if (a.empty() || b.empty() || b.back()->timestamp > a.front()->timestamp) return;
  out.emplace_back(v.at(b.back()), fmt::format("power_measurement_stop time_ms {:.0f} is not after power_measurement_start's "
                                               "{:.0f} (line {})", b.back()->timestamp, a.front()->timestamp, a.front()->file_line));
}

void increasing_times(const View& v, Out& out) {
  const LogRecord* prev = nullptr;
  const LogRecord* prev_reading = nullptr;
  for (const LogRecord& r : v.f.log.records) {
    if (prev && r.timestamp < prev->timestamp) {
      out.emplace_back(v.at(&r), fmt::format("time_ms {:.0f} is before the previous line's {:.0f}", r.timestamp, prev->timestamp));
      return;
    }
    if (is_key(r, power_key::kReading)) {
      if (prev_reading && r.timestamp <= prev_reading->timestamp) {
        out.emplace_back(v.at(&r), fmt::format("power_reading at time_ms {:.0f}, not after the previous reading's (line {})",
                                               r.timestamp, prev_reading->file_line));
        return;
      }
      prev_reading = &r;
    }
    prev = &r;
  }
}

void values(const View& v, Out& out) {
  for (const char* key : {power_key::kReading, power_key::kConversionEff, power_key::kInterconnect})
    for (const LogRecord* r : v.with(key)) {
      const auto x = num(r->value["value"]);
      if (!x || !std::isfinite(*x) || *x < 0) {
        out.emplace_back(v.at(r), std::string(key) + " value " + py::repr(r->value["value"]) + " is not a number of watts >= 0");
        return;
      }
    }
}

void reading_rate(const View& v, Out& out) {
  auto rs = v.readings();
  auto a = v.with(power_key::kStart), b = v.with(power_key::kStop);
  std::vector<std::pair<double, size_t>> t;  // (time, line): start, readings, stop
  if (!a.empty()) t.emplace_back(a.front()->timestamp, a.front()->file_line);
  for (const LogRecord* r : rs) t.emplace_back(r->timestamp, r->file_line);
  if (!b.empty()) t.emplace_back(b.back()->timestamp, b.back()->file_line);
  size_t gaps = 0, first = 0;
  double widest = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    const double gap = t[i].first - t[i - 1].first;
    if (gap <= kMaxGapMs) continue;
    if (gaps++ == 0) first = i;
    widest = std::max(widest, gap);
  }
  if (gaps == 0) return;
  out.emplace_back(v.file() + ":" + std::to_string(t[first].second),
                   fmt::format("{:.3f} s since line {} without a reading{}: fewer than one reading a second (widest gap {:.3f} s)",
                               (t[first].first - t[first - 1].first) / 1000, t[first - 1].second,
                               gaps > 1 ? fmt::format(" (and {} more such gaps)", gaps - 1) : "", widest / 1000));
}

void min_readings(const View& v, Out& out) {
  const size_t n = v.readings().size();
  if (n < kMinReadings)
    out.emplace_back(v.file(), fmt::format("{} power_reading lines in the measurement window; MLPerf asks for at least {} "
                                           "(a short run keeps training after run_stop until there are)", n, kMinReadings));
}

void covers_run(const View& v, Out& out) {
  if (!v.run) return;
  auto rs = v.readings();
  auto a = v.with(power_key::kStart), b = v.with(power_key::kStop);
  const std::string run = fmt::format("the timed run {:.0f}..{:.0f}", v.run->start_ms, v.run->stop_ms);
  if (!a.empty() && a.front()->timestamp > v.run->start_ms)
    out.emplace_back(v.at(a.front()), fmt::format("power_measurement_start time_ms {:.0f} is after run_start: the window misses "
                                                  "the start of {}", a.front()->timestamp, run));
  if (!b.empty() && b.back()->timestamp < v.run->stop_ms)
    out.emplace_back(v.at(b.back()), fmt::format("power_measurement_stop time_ms {:.0f} is before run_stop: the window misses "
                                                 "the end of {}", b.back()->timestamp, run));
  if (rs.empty()) return;
  if (rs.front()->timestamp > v.run->start_ms + kCoverageSlackMs)
    out.emplace_back(v.at(rs.front()), fmt::format("the first reading (time_ms {:.0f}) comes {:.1f} s after run_start: {} is "
                                                   "not covered", rs.front()->timestamp,
                                                   (rs.front()->timestamp - v.run->start_ms) / 1000, run));
  if (rs.back()->timestamp < v.run->stop_ms - kCoverageSlackMs)
    out.emplace_back(v.at(rs.back()), fmt::format("the last reading (time_ms {:.0f}) comes {:.1f} s before run_stop: {} is "
                                                  "not covered", rs.back()->timestamp,
                                                  (v.run->stop_ms - rs.back()->timestamp) / 1000, run));
}

void conversion_eff(const View& v, Out& out) {
  auto c = v.with(power_key::kConversionEff);
  if (c.empty()) {
    out.emplace_back(v.file(), "no conversion_eff line (metadata measurement_type AC or DC; AC readings need the PSU's "
                               "conversion efficiency; the official summarizer takes 1.0)");
    return;
  }
  const json& md = c.front()->value["metadata"];
  const json type = md.is_object() && md.contains("measurement_type") ? md["measurement_type"] : json(nullptr);
  if (type != "AC" && type != "DC") {
    out.emplace_back(v.at(c.front()), "conversion_eff metadata measurement_type is " + py::repr(type) + ", not 'AC' or 'DC'");
    return;
  }
  const auto x = num(c.front()->value["value"]);
  if (x && (*x <= 0 || *x > 1))
    out.emplace_back(v.at(c.front()), fmt::format("conversion_eff {} is outside (0, 1]", py::repr(c.front()->value["value"])));
  if (type == "DC" && x && *x != 1.0)
    out.emplace_back(v.at(c.front()), "conversion_eff of DC readings is not 1 (DC is measured after the conversion)");
}

void host_metadata(const View& v, Out& out) {
  for (const LogRecord* r : v.with(power_key::kReading)) {
    const json& md = r->value["metadata"];
    if (!md.is_object() || !md.contains("host")) {
      out.emplace_back(v.at(r), "power_reading without metadata host (the node it measures)");
      return;
    }
  }
}

void interconnect(const View& v, Out& out) {
  auto e = v.with(power_key::kInterconnect);
  if (e.empty()) out.emplace_back(v.file(), "no interconnect_power_est (the official summarizer counts 0 J for this switch)");
  else if (e.size() > 1) out.emplace_back(v.at(e[1]), "more than one interconnect_power_est; the official summarizer takes the first");
}

void parses(const View& v, Out& out) {
  if (!v.f.read_error.empty()) out.emplace_back(v.file(), v.f.read_error);
  else if (!v.f.log.fatal.empty()) out.emplace_back(v.file(), v.f.log.fatal);
  else if (!v.f.log.errors.empty()) out.emplace_back(v.file(), "a line that is not MLLOG JSON: " + v.f.log.errors.front().first);
}

const Row kRows[] = {
    {"parse", "every line is MLLOG JSON", true, true, true, parses},
    {"start", "one power_measurement_start", true, false, true, one_start},
    {"stop", "one power_measurement_stop", true, false, true, one_stop},
    {"stop_after_start", "power_measurement_stop after power_measurement_start", true, false, true, stop_after_start},
    {"increasing_times", "time_ms never goes back; readings strictly increasing", true, true, true, increasing_times},
    {"values", "readings, efficiencies and estimates are numbers >= 0", true, true, true, values},
    {"reading_rate", "at least one reading a second over the window", true, false, true, reading_rate},
    {"min_readings", "at least 60 readings", true, false, true, min_readings},
    {"covers_run", "the window and its readings cover run_start..run_stop", true, false, true, covers_run},
    {"conversion_eff", "conversion_eff with measurement_type AC (efficiency in (0, 1]) or DC", true, false, true, conversion_eff},
    {"host", "power_reading names its host", true, false, false, host_metadata},
    {"interconnect", "one interconnect_power_est per switch file", false, true, true, interconnect},
};

// The timed run of a result log, when it has run_start and run_stop.
std::optional<RunWindow> timed_run(const fs::path& result_file) {
  ParsedLog log;
  try {
    log = parse_log(read_file_bytes(result_file));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::optional<double> a, b;
  for (const LogRecord& r : log.records) {
    if (!a && is_key(r, "run_start")) a = r.timestamp;
    if (!b && is_key(r, "run_stop")) b = r.timestamp;
  }
  if (!a || !b) return std::nullopt;
  return RunWindow{*a, *b};
}

}  // namespace

std::string format_finding(const PowerFinding& f) {
  return std::string(f.error ? "ERROR - " : "WARNING - ") + f.where + ": " + f.text + " [power " + f.check + "]";
}

std::vector<PowerFinding> check_power_dir(const fs::path& bench_dir, const std::vector<fs::path>& result_files,
                                          const PowerCheckOptions& opts) {
  std::vector<PowerFinding> out;
  const fs::path power_dir = bench_dir / "power";
  const OfficialPowerVerdict official = official_power_check(power_dir, result_files);
  for (const std::string& w : official.warnings) {
    const bool error = w.find("but some do not conform") == std::string::npos;
    out.push_back({power_dir.string(), "package_checker", w, error});
  }
  for (const fs::path& rf : result_files) {
    const std::string name = power_result_name(rf);
    std::error_code ec;
    if (!fs::is_directory(power_dir / name, ec)) continue;  // the official check named it
    const std::vector<PowerFile> files = read_power_files(bench_dir, name);
    int nodes = 0;
    for (const PowerFile& f : files) nodes += f.node ? 1 : 0;
    if (opts.nodes && nodes != *opts.nodes)
      out.push_back({(power_dir / name).string(), "nodes_of_run",
                     fmt::format("{} node power log(s) for a system of {} node(s): one file per node of the run", nodes, *opts.nodes)});
    const std::optional<RunWindow> run = timed_run(rf);
    for (const PowerFile& f : files) {
      const View v{f, run};
      for (const Row& row : kRows) {
        if (!(f.node ? row.node_files : row.switch_files)) continue;
        if (std::string(row.name) != "parse" && (!f.read_error.empty() || !f.log.fatal.empty())) continue;
        Out found;
        row.check(v, found);
        for (auto& [where, text] : found) out.push_back({where, row.name, text, row.error});
      }
    }
  }
  return out;
}

}  // namespace bert::results
