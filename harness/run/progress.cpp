#include "harness/run/progress.h"

#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

namespace bert::harness {
namespace {

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

bool update_progress(RunProgress& p, std::string_view line) {
  constexpr std::string_view kToken = ":::MLLOG ";
  size_t at = line.rfind(kToken);
  if (at == std::string_view::npos) return false;
  auto j = nlohmann::json::parse(line.substr(at + kToken.size()), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("key") || !j["key"].is_string()) return false;
  const std::string key = j["key"];
  int64_t t = j.contains("time_ms") && j["time_ms"].is_number() ? j["time_ms"].get<int64_t>() : -1;
  if (t >= 0) p.last_ms = t;
  const auto& meta = j.contains("metadata") && j["metadata"].is_object() ? j["metadata"] : nlohmann::json::object();
  if (key == "run_start") p.run_start_ms = t;
  if (meta.contains("epoch_num") && meta["epoch_num"].is_number())
    p.samples = std::max(p.samples, meta["epoch_num"].get<int64_t>());
  if (key == "eval_accuracy" && j.contains("value") && j["value"].is_number()) {
    p.accuracy = j["value"].get<double>();
    p.evals.push_back({p.samples, p.accuracy});
  }
  if (key == "run_stop")
    p.run_stop_status = meta.contains("status") && meta["status"].is_string() ? meta["status"].get<std::string>()
                                                                              : "unknown";
  return true;
}

double estimate_run_remaining_s(const RunProgress& p, double target) {
  if (p.evals.size() < 2 || p.run_start_ms < 0 || p.last_ms <= p.run_start_ms) return -1;
  const EvalPoint& a = p.evals[p.evals.size() - 2];
  const EvalPoint& b = p.evals.back();
  if (b.accuracy >= target) return 0;
  double gain_per_sample = (b.accuracy - a.accuracy) / double(std::max<int64_t>(1, b.samples - a.samples));
  if (gain_per_sample <= 0) return -1;
  double samples_left = (target - b.accuracy) / gain_per_sample;
  double samples_per_s = double(b.samples) / (double(p.last_ms - p.run_start_ms) / 1000.0);
  if (samples_per_s <= 0) return -1;
  return samples_left / samples_per_s;
}

std::string format_duration(double s) {
  if (s < 0) return "?";
  long t = std::lround(s);
  char buf[64];
  if (t < 60) std::snprintf(buf, sizeof(buf), "%ld s", t);
  else if (t < 3600) std::snprintf(buf, sizeof(buf), "%ld min %02ld s", t / 60, t % 60);
  else std::snprintf(buf, sizeof(buf), "%ld h %02ld min", t / 3600, (t % 3600) / 60);
  return buf;
}

ProgressDisplay::ProgressDisplay(std::FILE* out, bool tty, int nexp, double target_accuracy)
    : out_(out), tty_(tty), nexp_(nexp), target_(target_accuracy) {}

void ProgressDisplay::start_experiment(int k, double mean_previous_run_s) {
  k_ = k;
  mean_prev_s_ = mean_previous_run_s;
  started_ms_ = wall_ms();
  p_ = RunProgress{};
  if (tty_) redraw();
}

void ProgressDisplay::on_line(std::string_view line) {
  size_t evals_before = p_.evals.size();
  if (!update_progress(p_, line)) return;
  if (tty_) {
    // Redraw on a new eval, else at most 4 times a second (a trainer logs hundreds of lines at init).
    if (p_.evals.size() != evals_before || wall_ms() - drawn_ms_ >= 250) redraw();
  } else if (p_.evals.size() != evals_before) {
    std::fprintf(out_, "experiment %d/%d: %lld samples, eval accuracy %.4f\n", k_, nexp_,
                 (long long)p_.samples, p_.accuracy);
    std::fflush(out_);
  }
}

void ProgressDisplay::redraw() {
  double elapsed = double(wall_ms() - started_ms_) / 1000.0;
  double run_left = estimate_run_remaining_s(p_, target_);
  if (run_left < 0 && mean_prev_s_ > 0) run_left = std::max(0.0, mean_prev_s_ - elapsed);
  double per_run = mean_prev_s_ > 0 ? mean_prev_s_ : (run_left >= 0 ? elapsed + run_left : -1);
  double eta = run_left < 0 || per_run < 0 ? -1 : run_left + per_run * (nexp_ - k_);
  char buf[256];
  if (p_.accuracy >= 0)
    std::snprintf(buf, sizeof(buf), "experiment %d/%d  %lld samples  accuracy %.4f  elapsed %s  ETA %s", k_,
                  nexp_, (long long)p_.samples, p_.accuracy, format_duration(elapsed).c_str(),
                  format_duration(eta).c_str());
  else
    std::snprintf(buf, sizeof(buf), "experiment %d/%d  %lld samples  elapsed %s  ETA %s", k_, nexp_,
                  (long long)p_.samples, format_duration(elapsed).c_str(), format_duration(eta).c_str());
  drawn_ms_ = wall_ms();
  std::fprintf(out_, "\r\033[K%s", buf);
  std::fflush(out_);
  live_ = true;
}

void ProgressDisplay::clear() {
  if (tty_ && live_) {
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }
  live_ = false;
}

void ProgressDisplay::print(const std::string& line) {
  clear();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace bert::harness
