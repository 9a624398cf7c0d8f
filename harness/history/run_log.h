// What one run's MLPerf log says beyond its score: the eval curve (samples trained, accuracy, time),
// the throughput between evals, and the run's samples per second. Read from the result file's
// MLLOG lines (results::parse_log), so it works for our sets and for anyone's published ones.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bert::harness::history {

struct EvalSample {
  double samples = 0;   // epoch_num: samples trained when the eval ran
  double accuracy = 0;
  double minutes = 0;   // since run_start
};

struct ThroughputSample {
  double minutes = 0;         // end of the interval, since run_start
  double samples_per_s = 0;   // samples trained in the interval / its length (evals included)
};

struct RunLog {
  std::optional<double> run_start_ms, run_stop_ms;
  std::string stop_status;                  // run_stop's metadata status ("" = no run_stop)
  std::vector<EvalSample> evals;
  std::vector<ThroughputSample> throughput; // from run_start to the first eval, then eval to eval
  std::optional<double> samples_per_s;      // the last eval's samples / its time since run_start
};

RunLog read_run_log(std::string_view text);

}  // namespace bert::harness::history
