#include "trainer/run_config_keys.h"

#include <cstdio>
#include <limits>
#include <type_traits>

#include "formats/shard_format.h"

namespace bert::trainer {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using K = KeyType;
using R = RunConfig;

RunConfigKey str(std::string n, std::string def, Member m, std::string sys, std::string doc) {
  return {std::move(n), K::String, std::move(def), {}, {}, std::move(doc), m, std::move(sys)};
}
RunConfigKey oneof(std::string n, std::string def, std::vector<std::string> c, Member m, std::string sys, std::string doc) {
  return {std::move(n), K::Enum, std::move(def), {}, std::move(c), std::move(doc), m, std::move(sys)};
}
RunConfigKey integer(std::string n, std::string def, double lo, double hi, Member m, std::string sys, std::string doc) {
  return {std::move(n), K::Int, std::move(def), {lo, hi}, {}, std::move(doc), m, std::move(sys)};
}
RunConfigKey real(std::string n, std::string def, Range r, Member m, std::string sys, std::string doc) {
  return {std::move(n), K::Float, std::move(def), r, {}, std::move(doc), m, std::move(sys)};
}
RunConfigKey boolean(std::string n, std::string def, Member m, std::string sys, std::string doc) {
  return {std::move(n), K::Bool, std::move(def), {}, {}, std::move(doc), m, std::move(sys)};
}
RunConfigKey automatic(RunConfigKey k) {
  k.system_auto = true;
  return k;
}

std::vector<RunConfigKey> make_keys() {
  return {
      oneof("model.size", "large", enum_choices(model::kModelSizeNames), &R::model_size, "benchmark.model", "BERT size"),
      str("model.bert_config", "", &R::bert_config, "benchmark.bert_config", "bert_config.json (model=custom)"),
      str("data.train_dir", "", &R::train_dir, "benchmark.data.train_dir", "training shards (env DATADIR overrides)"),
      str("data.eval_file", "", &R::eval_file, "benchmark.data.eval_dir", "eval data file or directory (env EVALDIR overrides)"),
      str("model.init_checkpoint", "", &R::init_checkpoint, "benchmark.data.checkpoint",
          "initial checkpoint (HDF5, from bert-data convert-checkpoint; env CHECKPOINTDIR overrides)"),
      oneof("data.data_format", "varlength", enum_choices(data::kFormatNames), &R::data_format, "benchmark.data.format", "shard format"),
      integer("data.vocab_size", "30522", 2, 1e7, &R::vocab_size, "benchmark.vocab_size", "vocabulary size"),
      integer("data.max_seq_length", "512", 8, 8192, &R::max_seq_length, "benchmark.max_seq_length", "sequence length"),
      integer("data.max_predictions_per_seq", "76", 1, 8192, &R::max_predictions_per_seq, "benchmark.max_predictions_per_seq",
              "masked positions per sequence"),
      integer("data.num_eval_examples", "10000", 1, 1e9, &R::num_eval_examples, "benchmark.num_eval_examples", "eval samples"),
      integer("batch.batch_size", "1", 1, 1e6, &R::batch_size, "benchmark.batch_size",
              "per-rank batch per micro-step (the 3rd number of the config name)"),
      integer("batch.gradient_accumulation_steps", "1", 1, 1e6, &R::gradient_accumulation_steps,
              "benchmark.gradient_accumulation_steps", "micro-steps per optimizer step"),
      real("batch.average_packing_rate", "1", {1, kInf}, &R::average_packing_rate, "benchmark.average_packing_rate",
           "sequences per pack in the logged global batch (packed: 2)"),
      integer("batch.eval_batch_size", "16", 1, 1e6, &R::eval_batch_size, "benchmark.eval_batch_size", "eval batch"),
      real("optimizer.learning_rate", "4e-4", {0, kInf, true}, &R::learning_rate, "benchmark.learning_rate", "peak LAMB learning rate"),
      real("optimizer.lamb_beta_1", "0.9", {0, 1, false, true}, &R::lamb_beta_1, "benchmark.lamb_beta_1", "LAMB beta1"),
      real("optimizer.lamb_beta_2", "0.999", {0, 1, false, true}, &R::lamb_beta_2, "benchmark.lamb_beta_2", "LAMB beta2"),
      real("optimizer.lamb_epsilon", "1e-6", {0, 1, true}, &R::lamb_epsilon, "benchmark.lamb_epsilon", "LAMB epsilon"),
      real("optimizer.weight_decay_rate", "0.01", {0, kInf}, &R::weight_decay_rate, "benchmark.weight_decay_rate", "LAMB weight decay"),
      integer("optimizer.max_steps", "1000", 1, 1e9, &R::max_steps, "benchmark.max_steps", "LR-schedule length and hard stop"),
      integer("optimizer.warmup_steps", "0", 0, 1e9, &R::warmup_steps, "benchmark.warmup_steps", "absolute warmup steps"),
      real("optimizer.warmup_proportion", "0", {0, 1}, &R::warmup_proportion, "benchmark.warmup_proportion",
           "warmup as a fraction of max_steps (when warmup_steps is 0)"),
      integer("optimizer.start_warmup_step", "0", -1e9, 1e9, &R::start_warmup_step, "benchmark.start_warmup_step",
              "shift of the warmup origin (may be negative)"),
      boolean("optimizer.clip_after_allreduce", "false", &R::clip_after_allreduce, "benchmark.clip_after_allreduce",
              "clip gradients after the allreduce (always on the cuda backend)"),
      integer("stopping.max_samples", "0", 0, 1e12, &R::max_samples, "benchmark.max_samples",
              "stop (aborted) after this many samples; 0 = none"),
      integer("stopping.eval_start_samples", "-1", -1, 1e12, &R::eval_start_samples, "benchmark.eval_start_samples",
              "first eval point; -1 = the MLPerf formula"),
      integer("stopping.eval_interval_samples", "-1", -1, 1e12, &R::eval_interval_samples, "benchmark.eval_interval_samples",
              "eval interval; -1 = the MLPerf formula"),
      real("stopping.target_accuracy", "0.72", {0, 1, true, true}, &R::target_accuracy, "benchmark.target_accuracy",
           "masked-LM accuracy target"),
      integer("run.seed", "0", 0, 18446744073709551615.0, &R::seed, "", "random seed (the harness: one per experiment)"),
      automatic(oneof("run.precision", "", precision_names(), &R::precision, "benchmark.precision",
                      "math precision: auto = fp32 on the cpu backend, bf16 on cuda; fp8: cuda on H100/H200-class GPUs")),
      integer("run.fp8_amax_history", "1", 1, 1024, &R::fp8_amax_history, "benchmark.fp8_amax_history",
              "fp8: steps of absolute maxima a tensor's scale is taken from (Transformer Engine's delayed scaling)"),
      integer("run.fp8_margin", "0", 0, 32, &R::fp8_margin, "benchmark.fp8_margin",
              "fp8: scale = fp8 max / amax / 2^margin (headroom in powers of two)"),
      automatic(oneof("run.backend", "cpu", enum_choices(kBackendNames), &R::backend, "benchmark.backend",
                      "trainer backend (auto: cuda when the node has GPUs)")),
      integer("run.threads", "0", 0, 4096, &R::threads, "benchmark.threads", "CPU threads per rank (0 = from the binding)"),
      str("run.rendezvous_dir", "", &R::rendezvous_dir, "", "file rendezvous of ranks started without a launcher (local)"),
      real("run.power_window_s", "0", {0, 86400}, &R::power_window_s, "",
           "MLPerf power: after run_stop keep training on the same code path, logging nothing, until this many seconds "
           "after run_start (a short run's window of at least 60 readings; the harness sets it from power.interval); 0 = stop at run_stop"),
      str("submission.submission_org", "SUBMISSION_ORG_PLACEHOLDER", &R::submission_org, "", "MLPerf submission_org"),
      str("submission.submission_division", "closed", &R::submission_division, "", "MLPerf submission_division"),
      str("submission.submission_status", "onprem", &R::submission_status, "", "MLPerf submission_status"),
      str("submission.submission_platform", "SUBMISSION_PLATFORM_PLACEHOLDER", &R::submission_platform, "",
          "MLPerf submission_platform"),
  };
}

}  // namespace

std::string RunConfigKey::problem(const RunConfig& c) const {
  return std::visit(
      [&](auto RunConfig::*m) -> std::string {
        const auto& v = c.*m;
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          if (choices.empty()) return "";
          std::string all;
          for (const std::string& x : choices) {
            if (x == v) return "";
            all += (all.empty() ? "" : ", ") + x;
          }
          return "'" + v + "' is not one of " + all;
        } else if constexpr (std::is_same_v<T, bool> || std::is_enum_v<T>) {
          return "";  // an enum is parsed (and refused) where it is read
        } else {
          char text[32];
          if constexpr (std::is_floating_point_v<T>) std::snprintf(text, sizeof text, "%.10g", v);
          else if constexpr (std::is_unsigned_v<T>) std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(v));
          else std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v));
          return range.problem(static_cast<double>(v), text);
        }
      },
      member);
}

const std::vector<RunConfigKey>& run_config_keys() {
  static const std::vector<RunConfigKey> keys = make_keys();
  return keys;
}

const RunConfigKey* find_run_config_key(std::string_view name) {
  for (const RunConfigKey& k : run_config_keys())
    if (k.name == name) return &k;
  return nullptr;
}

const RunConfigKey* find_run_config_key_by_system_key(std::string_view system_key) {
  if (system_key.empty()) return nullptr;
  for (const RunConfigKey& k : run_config_keys())
    if (k.system_key == system_key) return &k;
  return nullptr;
}

std::vector<std::string> run_config_groups() {
  std::vector<std::string> out;
  for (const RunConfigKey& k : run_config_keys()) {
    const std::string g = k.group();
    bool seen = false;
    for (const std::string& x : out) seen = seen || x == g;
    if (!seen) out.push_back(g);
  }
  return out;
}

}  // namespace bert::trainer
