// Reference convergence points (RCP) for BERT and the statistics of mlcommons/logging's RCP
// checker: olympic mean, population stdev, t-test minimum by bisection, pruning, interpolation.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace bert::results::rcp {

struct Record {
  std::string name;
  double bs = 0;
  std::vector<double> samples;  // sorted samples to converge of the reference runs
  double mean = 0, stdev = 0, min_epochs = 0, max_speedup = 0;
};

struct Table {
  std::vector<Record> full;    // sorted by batch size
  std::vector<Record> pruned;  // the default `pruned_rcps` set
};

const Table& bert_table();  // from the bundled results/rules/rcps_bert.json

inline constexpr int kSubmissionRuns = 10;  // BERT

// numpy's pairwise float64 sum and mean (bit-identical for the sizes used here).
double np_sum(const std::vector<double>& v, size_t begin, size_t end);
double np_mean(const std::vector<double>& v, size_t begin, size_t end);
double np_std(const std::vector<double>& v);  // ddof = 0
// Student t CDF (scipy.special.stdtr).
double student_t_cdf(double df, double t);
// _find_min_acceptable_mean: bisection on [0, mean] to 1e-4 for the one-sided p = 0.05 point.
double min_acceptable_mean(double mean, double stdev, int n_ref, int n_subm = kSubmissionRuns - 2);
Record interpolate(double bs, const Record& lo, const Record& hi);

// What one result file contributes (read_submission_file).
struct SubmissionFile {
  bool converged = false;
  double samples = 1e9;
  std::optional<double> bs;              // last global_batch_size line
  std::optional<std::string> benchmark;  // last submission_benchmark line (str of its value)
  std::string error;  // non-empty where the official reader raises (e.g. run_stop without status)
};
SubmissionFile read_submission(std::string_view bytes, bool use_train_samples);

// Which reference the checker compares a set of batch size `bs` against, known before any run.
struct Coverage {
  enum class Kind { Exact, Interpolated, BelowSmallest, Missing, NoRcps } kind = Kind::NoRcps;
  std::optional<Record> record;  // Exact and Interpolated: the RCP; BelowSmallest: the smallest one
  double lo_bs = 0, hi_bs = 0;   // Interpolated: the neighbours; Missing: lo_bs = the largest batch size
};
Coverage coverage(double bs, bool use_pruned);

struct Decision {
  bool passed = false;
  std::string message;
  double norm_factor = 1.0;
  std::optional<Record> record;           // the RCP compared against
  std::optional<double> submission_mean;  // olympic mean of the submission's samples
};
// check_directory's decision for batch size `bs` and the per-run samples (1e9 = not converged).
Decision decide(double bs, std::vector<double> samples, bool use_pruned);

}  // namespace bert::results::rcp
