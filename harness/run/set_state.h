// state.json: what happened to each experiment of a set, rewritten atomically after every change,
// so `harness run --resume OUTDIR` can continue without redoing finished experiments.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/run/node_record.h"

namespace bert::harness {

// pending: not run yet (or interrupted / stopped before launch: run again on resume).
// converged / not_converged: the trainer ran to its end. failed: a rank died, the log could not be
// written, the walltime ran out, or the required cache clear was refused.
enum class ExpStatus { Pending, Running, Converged, NotConverged, Failed, Interrupted };
const char* to_string(ExpStatus s);
ExpStatus exp_status_from_string(const std::string& s);  // throws std::runtime_error on an unknown word
bool is_finished(ExpStatus s);  // converged, not_converged or failed after launch: kept on resume

// The harness's own overhead in one experiment (bench/harness_overhead.py).
struct ExperimentTimings {
  double cache_clear_s = 0;            // the cache clear step
  double first_line_s = -1;            // launch -> rank 0's first MLPerf line (-1 = none)
  double check_s = 0;                  // compliance check + score of its result
};

// The harness's own overhead before the experiments of the last `harness run` of a set.
struct SetTimings {
  double setup_s = 0, preflight_s = 0;
};

struct ExperimentRecord {
  int index = 0;                       // 1-based
  uint64_t seed = 0;
  ExpStatus status = ExpStatus::Pending;
  std::string log;                     // paths relative to the output dir
  std::string result;
  std::string message;                 // why failed / interrupted
  int failed_rank = -1;
  std::string failed_node;             // the node that rank ran on (the plan's rank -> node)
  std::string exit_status;             // "exit status 3", "killed by signal 9 (Killed)"
  std::optional<bool> compliant;
  std::string compliance_failure;
  std::optional<double> ttt_minutes;
  std::optional<double> samples;
  std::vector<bool> cache_cleared;     // per node, true outcome of the cache clear
  ExperimentTimings timings;
  double wall_seconds = 0;
  bool launched = false;
  std::vector<std::string> power_errors;  // its power monitors' failures (power_monitors.h): its energy is suspect
};

struct SetState {
  std::string system;
  std::string datestamp;
  int nexp = 0;
  bool interrupted = false;
  int interrupt_signal = 0;
  std::vector<ExperimentRecord> experiments;
  NodeRecords nodes;                   // per node across the set (node_record.h)
  SetTimings timings;

  nlohmann::ordered_json to_json() const;
  static SetState from_json(const nlohmann::ordered_json& j);  // throws std::runtime_error on bad content
};

void save_state(const std::string& path, const SetState& s);   // atomic; throws UserError
SetState load_state(const std::string& path);                   // throws UserError with the path

}  // namespace bert::harness
