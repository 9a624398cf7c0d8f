// MLPerf Training power logs: results/<system>/<benchmark>/power/result_<i>/node_<k>.txt and sw_<k>.txt
// (mlperf_logging's keys power_measurement_start/stop, power_reading, conversion_eff,
// interconnect_power_est). Energy to train as the official result_summarizer computes it (per node:
// conversion_eff x sum(reading x dt) / (stop - start) x TTT; per switch: conversion_eff x estimate x
// TTT), with what makes it crash or mean nothing named instead; the official package checker's power
// checks; and the checks it misses (power_checks.cpp).
#pragma once
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "results/log_parser.h"

namespace bert::results {

namespace power_key {
inline constexpr const char* kStart = "power_measurement_start";
inline constexpr const char* kStop = "power_measurement_stop";
inline constexpr const char* kReading = "power_reading";
inline constexpr const char* kConversionEff = "conversion_eff";
inline constexpr const char* kInterconnect = "interconnect_power_est";
}  // namespace power_key

// One power log file, read.
struct PowerFile {
  std::filesystem::path path;
  bool node = true;  // node_<k>.txt (false: sw_<k>.txt)
  int index = -1;    // k; -1 when the name has no number after the last '_'
  ParsedLog log;
  std::string read_error;  // the file could not be read
  std::string where(const LogRecord& r) const { return path.string() + ":" + std::to_string(r.file_line); }
};

// "result_3" for ".../result_3.txt" (the summarizer's name: up to the first '.').
std::string power_result_name(const std::filesystem::path& result_file);
// <bench_dir>/power is a directory (the summarizer's _has_power).
bool has_power_dir(const std::filesystem::path& bench_dir);
// The node_*.txt then sw_*.txt files of <bench_dir>/power/<result_name>/, each in index order.
std::vector<PowerFile> read_power_files(const std::filesystem::path& bench_dir, const std::string& result_name);

// The timed run of a result log (run_start, run_stop), as scoring finds it.
struct RunWindow {
  double start_ms = 0;
  double stop_ms = 0;
};

struct RunEnergy {
  std::optional<double> joules;  // every file's energy summed (nodes, then switches); empty when flawed
  std::string flaw;              // why not: "<file>:<line>: <what>" (the first flaw found)
  int nodes = 0;                 // node files read
  int switches = 0;              // sw files read
};

// Energy of one run: the result_summarizer's _compute_total_power over the run's power folder, for
// time to train `window.stop_ms - window.start_ms`. A log the official tool would crash on (no
// power_measurement_start, a stop at the start's time, a value that is not a number), or one that
// means nothing (no node file, stop before start, no reading, readings that leave the timed run
// uncovered) gives no energy and its flaw.
RunEnergy run_energy(const std::filesystem::path& bench_dir, const std::string& result_name, const RunWindow& window);

// Checks of a benchmark directory's power logs: what the official package checker's power check does
// (a folder per result, node_/sw_ names without gaps, the same counts in every run) and what it misses
// (power_checks.cpp). Each finding names the file (and line, where there is one).
struct PowerFinding {
  std::string where;  // "<file>:<line>" or "<folder>"
  std::string check;  // the check's name (power_checks.cpp's table)
  std::string text;
  bool error = true;  // false: a warning
};
struct PowerCheckOptions {
  std::optional<int> nodes;  // the system's node count (systems/<system>.json number_of_nodes), if known
};
std::vector<PowerFinding> check_power_dir(const std::filesystem::path& bench_dir,
                                          const std::vector<std::filesystem::path>& result_files,
                                          const PowerCheckOptions& opts);
std::string format_finding(const PowerFinding& f);  // "ERROR - <where>: <text> [<check>]"

// The official package checker's PowerChecker.check_power: the results whose power folder fails it,
// and its warning lines.
struct OfficialPowerVerdict {
  std::set<std::string> failing;  // result names ("result_3")
  std::vector<std::string> warnings;
};
OfficialPowerVerdict official_power_check(const std::filesystem::path& power_dir,
                                          const std::vector<std::filesystem::path>& result_files);

// A results directory's node count from the MLPerf systems JSON beside it: <bench_dir>/../../../systems/
// <system>.json (a harness output tree or a submitter folder); empty when there is none or it has none.
std::optional<int> system_node_count(const std::filesystem::path& bench_dir);

}  // namespace bert::results
