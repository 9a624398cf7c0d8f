#include "harness/plan/walltime.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace bert::harness {
namespace {

[[noreturn]] void bad(const std::string& text) {
  throw std::invalid_argument("walltime '" + text + "' is not a Slurm time (minutes, minutes:seconds, hours:minutes:seconds, "
                              "days-hours, days-hours:minutes, days-hours:minutes:seconds, or UNLIMITED)");
}

// The ':'-separated whole numbers of `text`; any field may exceed 59, as in Slurm (00:70:00 is 70 minutes).
std::vector<double> numbers(const std::string& text, const std::string& whole) {
  std::vector<double> parts{0};
  bool digit = false;
  for (char c : text) {
    if (c == ':') {
      if (!digit) bad(whole);
      parts.push_back(0);
      digit = false;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && parts.back() < 1e9) {
      parts.back() = parts.back() * 10 + (c - '0');
      digit = true;
    } else {
      bad(whole);
    }
  }
  if (!digit) bad(whole);
  return parts;
}

}  // namespace

// Slurm's words for no limit (time_str2mins: any case, and -1).
bool is_unlimited_walltime(const std::string& text) {
  std::string up;
  for (char c : text) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return up == "UNLIMITED" || up == "INFINITE" || up == "-1";
}

// Slurm's time_str2secs: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S"; fields are not range-checked.
double parse_walltime_seconds(const std::string& text) {
  if (text.empty() || is_unlimited_walltime(text)) return 0;
  if (auto dash = text.find('-'); dash != std::string::npos) {
    std::vector<double> d = numbers(text.substr(0, dash), text);
    std::vector<double> hms = numbers(text.substr(dash + 1), text);
    if (d.size() != 1 || hms.size() > 3) bad(text);
    const double h = hms[0], m = hms.size() > 1 ? hms[1] : 0, s = hms.size() > 2 ? hms[2] : 0;
    return d[0] * 86400 + h * 3600 + m * 60 + s;
  }
  std::vector<double> p = numbers(text, text);
  if (p.size() == 1) return p[0] * 60;
  if (p.size() == 2) return p[0] * 60 + p[1];
  if (p.size() == 3) return p[0] * 3600 + p[1] * 60 + p[2];
  bad(text);
}

std::string format_walltime(double seconds) {
  const long s = std::lround(seconds);
  if (s % 60 == 0) return std::to_string(s / 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

Walltimes resolve_walltimes(const std::string& run_text, const std::string& job_text, int nexp) {
  // Slurm: 0 and UNLIMITED are no limit. A job given no limit keeps it (sbatch --time=UNLIMITED): nothing is
  // derived for it from the per-run limit; runs given no limit make a job of them unlimited too.
  const std::string run = parse_walltime_seconds(run_text) > 0 ? run_text : "";
  const bool job_unlimited = !job_text.empty() && parse_walltime_seconds(job_text) == 0;
  const bool run_unlimited = !run_text.empty() && parse_walltime_seconds(run_text) == 0;
  const std::string job = parse_walltime_seconds(job_text) > 0 ? job_text : "";
  Walltimes w{run, job, "", ""};
  if (job_unlimited || (run_unlimited && job_text.empty())) {
    w.job = kNoJobLimit;
    return w;
  }
  const double run_s = parse_walltime_seconds(run), job_s = parse_walltime_seconds(job);
  if (run_s > 0 && job_s == 0) {
    w.job = format_walltime(kSetupMarginS + nexp * (run_s + kPerExperimentMarginS));
    w.derived = "job";
  } else if (job_s > 0 && run_s == 0) {
    const double per = std::floor((job_s - kSetupMarginS) / nexp - kPerExperimentMarginS);
    if (per < 1)
      throw std::invalid_argument(fmt::format("'{}' leaves no time for {} experiment(s): the job needs 5 + NEXP x (run + 5) "
                                              "minutes (5 for setup, 5 around each experiment)", job, nexp));
    w.run = format_walltime(per);
    w.derived = "run";
  } else if (run_s > 0 && job_s > 0 && job_s < kSetupMarginS + nexp * (run_s + kPerExperimentMarginS)) {
    w.warning = fmt::format("experiment.job_walltime {} is shorter than 5 + NEXP {} x (run {} + 5) = {} minutes: the job may "
                            "end before its last experiments (--resume continues them)",
                            job, nexp, run, format_walltime(kSetupMarginS + nexp * (run_s + kPerExperimentMarginS)));
  }
  return w;
}

std::string walltime_rule(const Walltimes& w, int nexp) {
  if (w.derived == "job") return fmt::format("5 + NEXP {} x (run {} + 5) minutes", nexp, w.run);
  if (w.derived == "run") return fmt::format("(job {} - 5) / NEXP {} - 5 minutes", w.job, nexp);
  return "";
}

}  // namespace bert::harness
