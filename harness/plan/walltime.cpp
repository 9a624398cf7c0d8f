#include "harness/plan/walltime.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace bert::harness {
namespace {

[[noreturn]] void bad(const std::string& text) {
  throw std::invalid_argument("walltime '" + text + "' is not a Slurm time (minutes, mm:ss, hh:mm:ss or d-hh[:mm[:ss]])");
}

std::vector<long> numbers(const std::string& text, const std::string& whole) {
  std::vector<long> parts{0};
  bool digit = false;
  for (char c : text) {
    if (c == ':') {
      if (!digit) bad(whole);
      parts.push_back(0);
      digit = false;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && parts.back() < 100000000) {
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

double parse_walltime_seconds(const std::string& text) {
  if (text.empty()) return 0;
  if (auto dash = text.find('-'); dash != std::string::npos) {  // d-hh[:mm[:ss]]
    std::vector<long> d = numbers(text.substr(0, dash), text);
    std::vector<long> hms = numbers(text.substr(dash + 1), text);
    if (d.size() != 1 || hms.size() > 3) bad(text);
    double s = 0;
    for (size_t i = 0; i < 3; ++i) {
      long v = i < hms.size() ? hms[i] : 0;
      if (i > 0 && v >= 60) bad(text);
      s = s * 60 + double(v);
    }
    return double(d[0]) * 86400 + s;
  }
  std::vector<long> parts = numbers(text, text);
  if (parts.size() == 1) return double(parts[0]) * 60;
  if (parts.size() > 3 || parts.back() >= 60 || (parts.size() == 3 && parts[1] >= 60)) bad(text);
  double s = 0;
  for (long p : parts) s = s * 60 + double(p);
  return s;
}

std::string format_walltime(double seconds) {
  const long s = std::lround(seconds);
  if (s % 60 == 0) return std::to_string(s / 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

Walltimes resolve_walltimes(const std::string& run, const std::string& job, int nexp) {
  Walltimes w{run, job, ""};
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
