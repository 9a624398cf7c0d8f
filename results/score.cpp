// harness score: the result summarizer's time to train and olympic mean, plus the RCP checker.
#include "results/score.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "common/division.h"
#include "results/log_parser.h"
#include "results/power.h"
#include "results/pyvalue.h"
#include "results/rcp.h"
#include "results/result_files.h"

namespace bert::results {
namespace {

constexpr size_t kMaxDropped = 1;  // BERT (unet3d would be 4)

std::string summary_word(const RcpVerdict& v) {
  if (v.passed) return "Pass";
  if (v.message == "RCP found") return "Fail";
  if (v.message == "RCP Interpolation") return "Interp. Fail";
  if (v.message.find("Missing") != std::string::npos) return "Missing";
  if (v.message == "Cannot find any RCPs") return "No RCP";
  return "Unknown state";
}

RcpVerdict rcp_from_files(const std::vector<std::filesystem::path>& files, const std::vector<std::string>& bytes,
                          const ScoreOptions& opts, std::vector<RunScore>* runs) {
  RcpVerdict v;
  v.checked = true;
  double bs = -1;
  std::optional<std::string> benchmark;
  bool mismatch = false, first = true;
  int not_converged = 0;
  std::vector<double> samples;
  for (size_t i = 0; i < files.size(); ++i) {
    rcp::SubmissionFile f = rcp::read_submission(bytes[i], opts.rcp_bert_train_samples);
    if (!f.error.empty()) {
      v.message = files[i].filename().string() + ": " + f.error + " (the official RCP checker stops here)";
      v.summary = "Unknown state";
      return v;
    }
    if (runs) {
      (*runs)[i].converged = f.converged;
      (*runs)[i].samples_to_converge = f.samples;
    }
    samples.push_back(f.samples);
    not_converged += f.converged ? 0 : 1;
    const double cur_bs = f.bs.value_or(-1);
    if (!mismatch) {
      if (bs == -1) bs = cur_bs;
      else if (cur_bs != bs) mismatch = true;
      if (first) benchmark = f.benchmark;
      else if (f.benchmark != benchmark) mismatch = true;
    }
    first = false;
  }
  if (mismatch) {
    v.message = "Batch sizes or benchmark names in files do not match (the official RCP checker stops here)";
    v.summary = "Unknown state";
    return v;
  }
  v.batch_size = static_cast<int64_t>(bs);
  if (benchmark != "bert") {
    v.message = "RCP data exists only for bert, the logs name " + (benchmark ? "'" + *benchmark + "'" : std::string("no benchmark"));
    v.summary = "Unknown state";
    return v;
  }
  if (bs == -1) {
    v.message = "Could not detect global_batch_size";
  } else if (not_converged > 1) {
    v.message = "Insufficient convergence";
  } else {
    rcp::Decision d = rcp::decide(bs, samples, !opts.rcp_full);
    v.passed = d.passed;
    v.message = d.message;
    v.submission_mean = d.submission_mean;
    v.normalization_factor = d.norm_factor;
    if (d.record) {
      v.rcp_mean = d.record->mean;
      v.rcp_stdev = d.record->stdev;
      v.rcp_min_epochs = d.record->min_epochs;
      v.max_speedup = d.record->max_speedup;
    }
  }
  v.summary = summary_word(v);
  return v;
}

std::optional<int64_t> first_seed(const ParsedLog& log) {
  for (const auto& r : log.records)
    if (r.key_str() && *r.key_str() == "seed") {
      const json& s = r.value["value"];
      if (s.is_number_integer()) return s.get<int64_t>();
      return std::nullopt;
    }
  return std::nullopt;
}

// _query_run_start_stop: the first run_start and run_stop (a later run_start before the first
// run_stop replaces the earlier one). A time to train that is not a finite number (a NaN or
// infinite time_ms) makes the run invalid: the official summarizer would average or sort it.
void set_time_to_train(const ParsedLog& log, RunScore& run) {
  std::optional<double> start, stop;
  std::string status;
  for (const auto& rec : log.records) {
    if (rec.key_str() && *rec.key_str() == "run_start") start = rec.timestamp;
    if (rec.key_str() && *rec.key_str() == "run_stop") {
      stop = rec.timestamp;
      const auto& md = rec.value.contains("metadata") ? rec.value["metadata"] : rec.value;
      if (md.is_object() && md.contains("status") && md["status"].is_string()) status = md["status"].get<std::string>();
    }
    if (start && stop) break;
  }
  if (!start || !stop) {
    run.failure = start ? "run_stop not recorded" : "run_start not recorded";
  } else if (status != "success") {
    // Compliant in the open division (its rules do not ask for success), but the run never reached the
    // target: it has no time to train (MLPerf counts it as not converged), whatever its division.
    run.failure = "run_stop status " + (status.empty() ? std::string("missing") : status) + ": the run did not reach the target";
  } else if (!std::isfinite(*stop - *start)) {
    run.failure = fmt::format("time to train is not a finite number (run_start time_ms {:.0f}, run_stop time_ms {:.0f})",
                              *start, *stop);
  } else {
    run.valid = true;
    run.run_start_ms = start;
    run.run_stop_ms = stop;
    run.ttt_ms = *stop - *start;
    run.minutes = *run.ttt_ms / 60 / 1000;
  }
}

// The summarizer's energy: each valid run's, then the olympic mean over the runs the time's mean
// counted (_index_olympic_average: summed in time-to-train order), times the scaling factor.
void score_energy(const std::filesystem::path& dir, const std::vector<std::filesystem::path>& files, ScoreResult& r) {
  r.has_power = has_power_dir(dir);
  if (!r.has_power) return;
  std::vector<size_t> counted;
  for (size_t i = 0; i < r.runs.size(); ++i) {
    RunScore& run = r.runs[i];
    if (!run.valid) continue;
    const RunEnergy e = run_energy(dir, power_result_name(files[i]), {*run.run_start_ms, *run.run_stop_ms});
    run.energy_j = e.joules;
    run.energy_flaw = e.flaw;
    if (!e.joules) r.energy_notices.push_back("POWER: " + run.file + " has no energy: " + e.flaw);
    if (run.olympic == Olympic::Counted) counted.push_back(i);
  }
  if (counted.empty()) return;
  std::stable_sort(counted.begin(), counted.end(), [&](size_t a, size_t b) { return *r.runs[a].minutes < *r.runs[b].minutes; });
  double sum = 0;
  for (size_t i : counted) {
    if (!r.runs[i].energy_j) {
      r.energy_notices.push_back("POWER: no energy olympic mean: " + r.runs[i].file + ", a counted run, has no energy");
      return;
    }
    sum += *r.runs[i].energy_j;
  }
  r.energy_olympic_j = sum * 1.0 / static_cast<double>(counted.size());
  r.energy_j = *r.energy_olympic_j * r.scaling_factor;
}

}  // namespace

std::string_view to_string(Olympic o) {
  switch (o) {
    case Olympic::Counted: return "counted";
    case Olympic::DroppedFastest: return "dropped (fastest)";
    case Olympic::DroppedSlowest: return "dropped (slowest)";
    case Olympic::Failed: return "dropped (failed)";
    case Olympic::NoMean: break;
  }
  return "no olympic mean";
}

OlympicMean olympic_mean(const std::vector<std::optional<double>>& minutes) {
  OlympicMean m;
  m.roles.assign(minutes.size(), Olympic::NoMean);
  std::vector<size_t> valid;
  for (size_t i = 0; i < minutes.size(); ++i) {
    if (minutes[i]) valid.push_back(i);
    else m.roles[i] = Olympic::Failed;
  }
  const size_t failed = minutes.size() - valid.size();
  if (failed > kMaxDropped) return m;
  std::stable_sort(valid.begin(), valid.end(), [&](size_t a, size_t b) { return *minutes[a] < *minutes[b]; });
  const size_t begin = kMaxDropped;
  const size_t slowest_dropped = kMaxDropped - failed;
  const size_t end = valid.size() >= slowest_dropped ? valid.size() - slowest_dropped : 0;
  if (end <= begin) return m;
  double sum = 0;  // Python sum(): left to right over the sorted slice
  for (size_t k = 0; k < valid.size(); ++k) {
    m.roles[valid[k]] = k < begin ? Olympic::DroppedFastest : k < end ? Olympic::Counted : Olympic::DroppedSlowest;
    if (m.roles[valid[k]] == Olympic::Counted) sum += *minutes[valid[k]];
  }
  m.minutes = sum * 1.0 / static_cast<double>(end - begin);
  return m;
}

namespace {
// The RCP checker writes scaling.json only for a pass with a submission faster than the RCP mean.
bool scaled(const RcpVerdict& rcp) {
  return rcp.checked && rcp.passed && rcp.submission_mean && rcp.rcp_mean && *rcp.submission_mean < *rcp.rcp_mean;
}
}  // namespace

double rcp_scaling_factor(const RcpVerdict& rcp) { return scaled(rcp) ? rcp.normalization_factor : 1.0; }

void write_scaling_json(const std::filesystem::path& dir, const RcpVerdict& rcp) {
  const auto file = dir / "scaling.json";
  std::error_code ec;
  std::filesystem::remove(file, ec);
  if (!scaled(rcp)) return;
  std::ofstream out(file);
  out << "{\"scaling_factor\": " << pyjson::float_repr(rcp.normalization_factor) << "}";
  if (!out) throw UserError(file.string() + ": cannot be written");
}

RcpVerdict check_rcp(const std::filesystem::path& dir, const ScoreOptions& opts) {
  const auto files = result_files(dir);
  if (files.empty()) throw UserError(dir.string() + ": no result_*.txt files");
  std::vector<std::string> bytes;
  for (const auto& f : files) bytes.push_back(read_file_bytes(f));
  return rcp_from_files(files, bytes, opts, nullptr);
}

ScoreResult score_results_dir(const std::filesystem::path& dir, const ScoreOptions& opts) {
  ScoreResult r;
  r.dir = dir.string();
  const auto files = result_files(dir);
  if (files.empty()) throw UserError(dir.string() + ": no result_*.txt files");
  std::vector<std::string> bytes;
  for (const auto& f : files) bytes.push_back(read_file_bytes(f));

  CheckOptions copts;
  copts.ruleset = opts.ruleset;
  copts.quiet = true;
  std::vector<std::optional<double>> minutes;
  for (size_t i = 0; i < files.size(); ++i) {
    RunScore run;
    run.file = files[i].filename().string();
    LogVerdict v = check_log_text(bytes[i], copts, files[i].string());
    ParsedLog log = parse_log(bytes[i]);
    run.seed = first_seed(log);
    if (r.division.empty())
      for (const auto& rec : log.records)
        if (rec.key_str() && *rec.key_str() == "submission_division" && rec.value["value"].is_string()) {
          r.division = rec.value["value"].get<std::string>();
          break;
        }
    run.compliant = v.passed;
    if (!v.passed) {
      run.failure = !v.checker_error.empty() ? v.checker_error
                    : !v.failures.empty()    ? v.failures.front().text.substr(0, v.failures.front().text.find('\n'))
                                             : "Compliance check failed";
    } else {
      set_time_to_train(log, run);
    }
    if (!run.valid) ++r.dropped;
    minutes.push_back(run.minutes);
    r.runs.push_back(std::move(run));
  }
  if (r.division.empty()) r.division = "closed";

  const std::string where = dir.string();
  if (r.dropped > static_cast<int>(kMaxDropped)) {
    r.notices.push_back("CRITICAL ERROR: Too many non-converging runs for " + where);
  } else if (r.dropped >= 1) {
    r.notices.push_back("NOTICE: Dropping non-converged run(s) for " + where + " using olympic scoring.");
  }
  OlympicMean om = olympic_mean(minutes);
  r.olympic_minutes = om.minutes;
  for (size_t i = 0; i < r.runs.size(); ++i) r.runs[i].olympic = om.roles[i];

  if (opts.rcp && parse_enum(r.division, kDivisionNames) == Division::Closed) r.rcp = rcp_from_files(files, bytes, opts, &r.runs);
  else r.rcp.message = opts.rcp ? "not checked: open division" : "not checked";

  const auto scaling_file = dir / "scaling.json";
  if (opts.scaling == ScoreOptions::Scaling::FromFile) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(scaling_file, ec)) {
      auto parsed = pyjson::loads(latin1_to_utf8(read_file_bytes(scaling_file)));
      if (!parsed.ok || !parsed.value.is_object() || !parsed.value.contains("scaling_factor") ||
          !py::is_number(parsed.value["scaling_factor"]))
        throw UserError(scaling_file.string() + ": scaling_factor: expected {\"scaling_factor\": <number>}");
      r.scaling_factor = parsed.value["scaling_factor"].get<double>();
      r.notices.push_back("NOTICE: Applying scaling factor " + pyjson::float_repr(r.scaling_factor) + " to " + where);
    }
  } else {
    r.scaling_factor = rcp_scaling_factor(r.rcp);
  }
  if (opts.write_scaling_json && r.rcp.checked) write_scaling_json(dir, r.rcp);
  if (r.olympic_minutes) r.score_minutes = *r.olympic_minutes * r.scaling_factor;
  score_energy(dir, files, r);
  return r;
}

}  // namespace bert::results
