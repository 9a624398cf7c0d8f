// Live progress from rank 0's MLLOG stream: experiment k/N, samples, eval accuracy, ETA.
// On a terminal one line is redrawn in place; otherwise a plain line per eval.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace bert::harness {

struct EvalPoint {
  int64_t samples = 0;
  double accuracy = 0;
};

struct RunProgress {
  int64_t run_start_ms = -1;
  int64_t last_ms = -1;
  int64_t samples = 0;
  double accuracy = -1;
  std::vector<EvalPoint> evals;
  std::string run_stop_status;  // "" until run_stop
};

// Feeds one line of rank 0's output; returns true when it was an MLLOG line it understood.
bool update_progress(RunProgress& p, std::string_view line);

// Estimated seconds until this run reaches `target`, from the last two evals (accuracy per sample
// and samples per second since run_start); negative when unknown.
double estimate_run_remaining_s(const RunProgress& p, double target);

class ProgressDisplay {
 public:
  ProgressDisplay(std::FILE* out, bool tty, int nexp, double target_accuracy);
  void start_experiment(int k, double mean_previous_run_s);  // 0 = no finished run to go by
  void on_line(std::string_view rank0_line);                 // tracks and redraws
  void print(const std::string& line);                       // a permanent line (clears the live one)
  void clear();
  const RunProgress& current() const { return p_; }

 private:
  void redraw();
  std::FILE* out_;
  bool tty_;
  int nexp_, k_ = 0;
  double target_;
  double mean_prev_s_ = 0;
  int64_t started_ms_ = 0;
  int64_t drawn_ms_ = 0;
  bool live_ = false;
  RunProgress p_;
};

std::string format_duration(double seconds);  // "42 s", "3 min 05 s", "1 h 02 min"

}  // namespace bert::harness
