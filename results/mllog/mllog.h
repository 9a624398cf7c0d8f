// MLPerf log writer: one `:::MLLOG {...}` line per event, in the official key order and JSON style.
// Used by the trainer (rank 0) and the harness (cache_clear lines). Implemented in mllog.cpp.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <source_location>
#include <string>
#include <string_view>

namespace bert::results {

using json = nlohmann::ordered_json;

enum class EventType { PointInTime, IntervalStart, IntervalEnd };

// Formats one complete line (without trailing newline), e.g.
// :::MLLOG {"namespace": "", "time_ms": 1700000000000, "event_type": "POINT_IN_TIME", "key": "seed",
//           "value": 42, "metadata": {"file": "train.cpp", "lineno": 88}}
std::string format_mllog_line(int64_t time_ms, EventType type, std::string_view key, const json& value,
                              const json& metadata, std::string_view file, int lineno,
                              std::string_view ns = "");

class MLLogger {
 public:
  // Writes to `out` (not owned), flushing after every line so a killed run loses nothing.
  explicit MLLogger(std::FILE* out = stdout, std::string ns = "");

  void event(std::string_view key, const json& value = nullptr, const json& metadata = json::object(),
             std::source_location loc = std::source_location::current());
  void start(std::string_view key, const json& value = nullptr, const json& metadata = json::object(),
             std::source_location loc = std::source_location::current());
  void end(std::string_view key, const json& value = nullptr, const json& metadata = json::object(),
           std::source_location loc = std::source_location::current());

  void set_enabled(bool on) { enabled_ = on; }            // e.g. only rank 0 logs
  void set_clock(std::function<int64_t()> now_ms);       // tests inject a fixed clock
  bool enabled() const { return enabled_; }

 private:
  void log(EventType t, std::string_view key, const json& value, const json& metadata,
           const std::source_location& loc);
  std::FILE* out_;
  std::string ns_;
  bool enabled_ = true;
  std::function<int64_t()> now_ms_;
  std::mutex mu_;
};

// BERT key names as constants (the strings of mlperf_logging.mllog.constants).
namespace key {
inline constexpr const char* kCacheClear = "cache_clear";
inline constexpr const char* kInitStart = "init_start";
inline constexpr const char* kInitStop = "init_stop";
inline constexpr const char* kRunStart = "run_start";
inline constexpr const char* kRunStop = "run_stop";
inline constexpr const char* kSubmissionBenchmark = "submission_benchmark";
inline constexpr const char* kSubmissionOrg = "submission_org";
inline constexpr const char* kSubmissionDivision = "submission_division";
inline constexpr const char* kSubmissionStatus = "submission_status";
inline constexpr const char* kSubmissionPlatform = "submission_platform";
inline constexpr const char* kSeed = "seed";
inline constexpr const char* kGlobalBatchSize = "global_batch_size";
inline constexpr const char* kDBatchSize = "d_batch_size";
inline constexpr const char* kGradientAccumulationSteps = "gradient_accumulation_steps";
inline constexpr const char* kMaxSequenceLength = "max_sequence_length";
inline constexpr const char* kMaxPredictionsPerSeq = "max_predictions_per_seq";
inline constexpr const char* kOptLearningRateTrainingSteps = "opt_learning_rate_training_steps";
inline constexpr const char* kNumWarmupSteps = "num_warmup_steps";
inline constexpr const char* kWeightsInitialization = "weights_initialization";
inline constexpr const char* kOptBaseLearningRate = "opt_base_learning_rate";
inline constexpr const char* kOptLambEpsilon = "opt_lamb_epsilon";
inline constexpr const char* kOptEpsilon = "opt_epsilon";
inline constexpr const char* kOptLambBeta1 = "opt_lamb_beta_1";
inline constexpr const char* kOptLambBeta2 = "opt_lamb_beta_2";
inline constexpr const char* kOptLambWeightDecayRate = "opt_lamb_weight_decay_rate";
inline constexpr const char* kOptLearningRateWarmupSteps = "opt_learning_rate_warmup_steps";
inline constexpr const char* kOptLambLearningRateDecayPolyPower = "opt_lamb_learning_rate_decay_poly_power";
inline constexpr const char* kStartWarmupStep = "start_warmup_step";
inline constexpr const char* kEpochStart = "epoch_start";
inline constexpr const char* kEpochStop = "epoch_stop";
inline constexpr const char* kBlockStart = "block_start";
inline constexpr const char* kBlockStop = "block_stop";
inline constexpr const char* kEvalStart = "eval_start";
inline constexpr const char* kEvalStop = "eval_stop";
inline constexpr const char* kEvalAccuracy = "eval_accuracy";
inline constexpr const char* kTrainSamples = "train_samples";
inline constexpr const char* kEvalSamples = "eval_samples";
inline constexpr const char* kTrackedStats = "tracked_stats";
inline constexpr const char* kEpochNum = "epoch_num";
inline constexpr const char* kFirstEpochNum = "first_epoch_num";
inline constexpr const char* kEpochCount = "epoch_count";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kStatusSuccess = "success";
inline constexpr const char* kStatusAborted = "aborted";
}  // namespace key

}  // namespace bert::results
