// The score table and JSON.
#include <fmt/format.h>

#include "results/pyvalue.h"
#include "results/score.h"

namespace bert::results {
namespace {

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string samples_text(const RunScore& r) {
  if (!r.samples_to_converge) return "-";
  if (!r.converged) return "not converged";
  return fmt::format("{:.0f}", *r.samples_to_converge);
}

std::string status_text(const RunScore& r) {
  if (r.valid) return "ok";
  return (r.compliant ? "INVALID: " : "FAILED: ") + r.failure;
}

}  // namespace

std::string format_table(const ScoreResult& r) {
  std::string out = fmt::format("{}  (division {})\n", r.dir, r.division);
  out += fmt::format("{:<4} {:<16} {:>12} {:>20} {:>10}  {:<18} {}\n", "run", "file", "seed",
                     "samples to converge", "minutes", "olympic mean", "status");
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const auto& run = r.runs[i];
    out += fmt::format("{:<4} {:<16} {:>12} {:>20} {:>10}  {:<18} {}\n", i, run.file,
                       run.seed ? std::to_string(*run.seed) : "-", samples_text(run),
                       run.minutes ? fmt::format("{:.3f}", *run.minutes) : "-", to_string(run.olympic),
                       status_text(run));
  }
  for (const auto& n : r.notices) out += n + "\n";
  if (r.has_power) {
    for (size_t i = 0; i < r.runs.size(); ++i)
      if (r.runs[i].energy_j) out += fmt::format("energy run {} ({}): {:.1f} J\n", i, r.runs[i].file, *r.runs[i].energy_j);
    for (const auto& n : r.energy_notices) out += n + "\n";
  }
  out += "olympic mean: " + (r.olympic_minutes ? fmt::format("{:.4f} min", *r.olympic_minutes) : "none") + "\n";
  if (r.rcp.checked) {
    out += fmt::format("RCP: {} ({}; global batch size {})", r.rcp.passed ? "PASS" : "FAIL", r.rcp.message,
                       r.rcp.batch_size);
    if (r.rcp.submission_mean && r.rcp.rcp_min_epochs)
      out += fmt::format(": submission mean {:.1f} samples, RCP mean {:.1f}, minimum {:.1f}, normalization {:.6f}",
                         *r.rcp.submission_mean, r.rcp.rcp_mean.value_or(0), *r.rcp.rcp_min_epochs,
                         r.rcp.normalization_factor);
    out += "\n";
  } else {
    out += "RCP: " + r.rcp.message + "\n";
  }
  out += fmt::format("scaling factor: {}\n", pyjson::float_repr(r.scaling_factor));
  out += "score: " + (r.score_minutes ? fmt::format("{:.4f} min", *r.score_minutes) : "none (no valid score)") + "\n";
  if (r.has_power)
    out += "energy: " + (r.energy_j ? fmt::format("{:.1f} J (olympic mean {:.1f} J x scaling {})", *r.energy_j,
                                                  *r.energy_olympic_j, pyjson::float_repr(r.scaling_factor))
                                    : std::string("none")) + "\n";
  return out;
}

json to_json(const ScoreResult& r) {
  json j = json::object();
  j["dir"] = r.dir;
  j["division"] = r.division;
  json runs = json::array();
  for (const auto& run : r.runs) {
    json o = json::object();
    o["file"] = run.file;
    o["seed"] = run.seed ? json(*run.seed) : json(nullptr);
    o["compliant"] = run.compliant;
    o["valid"] = run.valid;
    o["olympic"] = std::string(to_string(run.olympic));
    o["failure"] = run.failure.empty() ? json(nullptr) : json(run.failure);
    o["time_to_train_ms"] = opt(run.ttt_ms);
    o["minutes"] = opt(run.minutes);
    o["samples_to_converge"] = opt(run.samples_to_converge);
    o["converged"] = run.converged;
    if (r.has_power) {
      o["energy_j"] = opt(run.energy_j);
      o["energy_flaw"] = run.energy_flaw.empty() ? json(nullptr) : json(run.energy_flaw);
    }
    runs.push_back(o);
  }
  j["runs"] = runs;
  j["dropped"] = r.dropped;
  j["olympic_minutes"] = opt(r.olympic_minutes);
  json rcp = json::object();
  rcp["checked"] = r.rcp.checked;
  rcp["passed"] = r.rcp.passed;
  rcp["message"] = r.rcp.message;
  rcp["summary"] = r.rcp.summary;
  rcp["global_batch_size"] = r.rcp.batch_size;
  rcp["submission_mean"] = opt(r.rcp.submission_mean);
  rcp["rcp_mean"] = opt(r.rcp.rcp_mean);
  rcp["rcp_stdev"] = opt(r.rcp.rcp_stdev);
  rcp["rcp_min_samples"] = opt(r.rcp.rcp_min_epochs);
  rcp["max_speedup"] = opt(r.rcp.max_speedup);
  rcp["normalization_factor"] = r.rcp.normalization_factor;
  j["rcp"] = rcp;
  j["scaling_factor"] = r.scaling_factor;
  j["score_minutes"] = opt(r.score_minutes);
  j["notices"] = r.notices;
  j["power"] = r.has_power;
  j["energy_j"] = opt(r.energy_j);
  j["energy_olympic_j"] = opt(r.energy_olympic_j);
  j["energy_notices"] = r.energy_notices;
  return j;
}

}  // namespace bert::results
