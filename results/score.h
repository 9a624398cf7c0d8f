// Scoring of one BERT results directory the way mlcommons/logging's result summarizer and RCP
// checker do it: time to train per run, olympic mean with the failed-run rules, RCP check with the
// bundled BERT reference table, scaling factor, final score.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/check.h"

namespace bert::results {

// A run's part in the olympic mean (result_summarizer._compute_olympic_average).
enum class Olympic {
  Counted,         // inside the window: averaged
  DroppedFastest,  // the fastest valid run
  DroppedSlowest,  // the slowest valid run (no failed run took that place)
  Failed,          // not compliant or no valid time to train; counts as the slowest
  NoMean,          // the set has no olympic mean (too few runs, or more than one failed)
};
std::string_view to_string(Olympic o);  // "counted", "dropped (fastest)", ...

struct OlympicMean {
  std::optional<double> minutes;  // empty when more than one run failed or the window is empty
  std::vector<Olympic> roles;     // one per run, in input order
};
// Times to train in minutes, an empty entry for a failed run. At most one failed run (BERT): sort the
// valid times, average [1 : n - (1 - failed)], so a failed run takes the slowest place.
OlympicMean olympic_mean(const std::vector<std::optional<double>>& minutes);

struct RunScore {
  std::string file;                 // file name, e.g. result_0.txt
  std::optional<int64_t> seed;      // first `seed` value, if it is an integer
  bool compliant = false;           // passed the compliance checker (quiet)
  bool valid = false;               // compliant with a finite time to train: counts toward the score
  std::string failure;              // why not valid: first compliance failure, or the bad time to train
  std::optional<double> ttt_ms;     // run_stop - run_start (valid runs only)
  std::optional<double> minutes;    // ttt_ms / 60000
  std::optional<double> samples_to_converge;  // RCP reader: epoch_num of the last eval before a
                                              // successful run_stop, or 1e9 when not converged
  bool converged = false;           // RCP reader's view: run_stop with status "success"
  Olympic olympic = Olympic::NoMean;
  std::optional<double> run_start_ms, run_stop_ms;  // the timed run (valid runs only)
  std::optional<double> energy_j;   // energy to train (a power/ folder; valid runs with a sound power log)
  std::string energy_flaw;          // why a valid run has no energy: "<file>:<line>: <flaw>"
};

struct RcpVerdict {
  bool checked = false;     // false: not closed division, disabled, or inputs unusable
  bool passed = false;
  std::string message;      // "RCP found", "RCP Interpolation", "Missing RCP, please submit RCP with BS = …"
  std::string summary;      // the detailed-CSV word: Pass, Fail, Interp. Fail, Missing, No RCP, Unknown state
  int64_t batch_size = -1;  // global_batch_size of the submission
  std::optional<double> submission_mean;  // olympic mean of samples to converge (None if >1 non-converged)
  std::optional<double> rcp_mean, rcp_stdev, rcp_min_epochs, max_speedup;
  double normalization_factor = 1.0;  // max(1, rcp_mean / submission_mean) when passed
};

struct ScoreOptions {
  std::string ruleset = kDefaultRuleset;
  bool rcp = true;                  // run the RCP check (closed division only)
  bool rcp_full = false;            // full_rcps instead of pruned_rcps
  bool rcp_bert_train_samples = false;
  // Where the scaling factor comes from. FromRcp (default) gives what the package checker followed
  // by the summarizer produce: the RCP normalization factor when the RCP check passed with a
  // submission mean below the RCP mean, else 1. FromFile reads <dir>/scaling.json (1 if absent),
  // as the bare summarizer does.
  enum class Scaling { FromRcp, FromFile } scaling = Scaling::FromRcp;
  bool write_scaling_json = false;  // as the package checker: replace <dir>/scaling.json
};

struct ScoreResult {
  std::string dir;
  std::string division;             // from the logs' submission_division ("closed" if unknown)
  std::vector<RunScore> runs;       // in run order (result_2 before result_10)
  int dropped = 0;                  // runs that are not valid
  std::optional<double> olympic_minutes;  // empty when more than one run dropped or too few runs
  double scaling_factor = 1.0;      // see ScoreOptions::scaling
  std::optional<double> score_minutes;    // olympic_minutes * scaling_factor
  RcpVerdict rcp;
  std::vector<std::string> notices; // NOTICE / CRITICAL ERROR lines as the summarizer prints them
  bool has_power = false;           // <dir>/power exists: energy is scored
  std::optional<double> energy_olympic_j;  // olympic mean of the counted runs' energy (the runs of the time's mean)
  std::optional<double> energy_j;   // energy_olympic_j * scaling_factor: the official <benchmark>:Energy
  std::vector<std::string> energy_notices;  // one line per run without energy, naming the file and the flaw
};

// Throws UserError when `dir` has no result_*.txt or cannot be read.
ScoreResult score_results_dir(const std::filesystem::path& dir, const ScoreOptions& opts);

// RCP check alone (the rcp_checker on one directory).
RcpVerdict check_rcp(const std::filesystem::path& dir, const ScoreOptions& opts);

// The package checker's side effect: delete <dir>/scaling.json, then write {"scaling_factor": f}
// when the RCP check passed with a submission mean below the RCP mean.
void write_scaling_json(const std::filesystem::path& dir, const RcpVerdict& rcp);
// The factor that file would hold (1.0 when it would not be written).
double rcp_scaling_factor(const RcpVerdict& rcp);

std::string format_table(const ScoreResult& r);
json to_json(const ScoreResult& r);

}  // namespace bert::results
