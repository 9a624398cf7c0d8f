// One set of runs as the results database, `harness history` and `harness compare` see it: who ran
// what where (system, its file and hash, the harness commit, nodes x ranks, accelerator, precision,
// backend, container image), each run's figures and the set's (score, RCP, energy), the references'
// verdicts and the output folder. Made from a harness output folder or a bare results folder
// (set_source.h); stored by results_db.h.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bert::harness::history {

using ojson = nlohmann::ordered_json;

struct RunRecord {
  int index = 0;                             // 1-based, in run order
  std::optional<int64_t> seed;
  std::string status;                        // converged | not_converged | failed | pending | interrupted
  std::optional<double> ttt_min;             // time to train (valid runs)
  std::optional<double> samples_to_converge; // the RCP reader's (converged runs)
  std::optional<double> samples_per_s;       // samples trained / seconds from run_start to the last eval
  std::optional<double> energy_j;            // from harness score's energy_j, when it gives one
  std::optional<bool> compliant;
  std::string compliance_failure;            // the first failing line
  std::string olympic;                       // its part in the olympic mean ("counted", "dropped (fastest)", ...)
  std::string result_file;                   // relative to the set's results folder
};

struct ReferenceVerdict {
  std::string figure;                        // reference_figures.h key
  double target = 0, tolerance = 0;
  std::optional<double> value;               // the set's figure; empty: not measured
  std::string basis;                         // which figure: "score (olympic mean)", "mean of 2 runs", ...
  std::string verdict;                       // met | missed | not measured
};

struct SetRecord {
  int64_t id = 0;                            // database id; 0 = not stored
  std::string recorded_at;                   // UTC, ISO 8601
  std::string origin;                        // run (harness run) | recorded (harness score --record)
  std::string system_name, config_name;
  std::string system_file, system_file_sha256;
  std::string harness_commit;                // "" = unknown (not built from git, or not run by this harness)
  bool harness_dirty = false;
  int nodes = 0, ranks_per_node = 0;
  std::string accelerator, precision, backend, container_image;
  std::string ruleset, division;
  std::string datestamp;                     // the set's (yymmddHHMMSS...); "" for recorded folders
  std::string output_dir;                    // absolute: the set's folder (or the recorded results folder)
  std::string results_dir;                   // absolute: its result_*.txt
  int nexp = 0;
  bool interrupted = false;
  std::optional<double> score_min;           // MLPerf score (olympic mean x scaling)
  std::optional<double> mean_min;            // plain mean of the valid runs (a set too small for a score)
  std::optional<double> energy_j;            // the set's energy from harness score's energy_j
  bool rcp_checked = false, rcp_passed = false;
  std::string rcp_message;
  std::vector<RunRecord> runs;
  std::vector<ReferenceVerdict> references;

  // The set's time to train: the score, else the plain mean (marked by time_basis()).
  std::optional<double> time_to_train() const { return score_min ? score_min : mean_min; }
  std::string time_basis() const;
  std::string rcp_word() const;              // PASS | FAIL | not checked
  std::string label() const;                 // "#12 local (2024-05-10 19:03)"
};

ojson to_json(const SetRecord& s);
ojson to_json(const RunRecord& r);

}  // namespace bert::harness::history
