#include "trainer/run_config.h"

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>

namespace bert::trainer {

namespace {

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& key, const std::string& msg) const {
    const YAML::Mark m = n.Mark();
    std::string where = path_;
    if (m.line >= 0) where.append(":").append(std::to_string(m.line + 1)).append(":").append(std::to_string(m.column + 1));
    where.append(": ").append(key).append(": ").append(msg);
    throw RunConfigError(where);
  }

  template <class T>
  void scalar(const YAML::Node& n, const std::string& key, T& out, const char* what) const {
    if (n.IsNull()) return;  // null keeps the default
    if (!n.IsScalar()) fail(n, key, std::string("expected ") + what);
    try {
      out = n.as<T>();
    } catch (const YAML::Exception&) {
      fail(n, key, std::string("expected ") + what + ", got '" + n.Scalar() + "'");
    }
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

using Setter = std::function<void(const Reader&, const YAML::Node&, const std::string&, RunConfig&)>;

template <class T>
Setter field(T RunConfig::*member, const char* what) {
  return [member, what](const Reader& r, const YAML::Node& n, const std::string& key, RunConfig& c) {
    r.scalar(n, key, c.*member, what);
  };
}

Setter str(std::string RunConfig::*m) { return field(m, "a string"); }
Setter integer(int RunConfig::*m) { return field(m, "an integer"); }
Setter int64(int64_t RunConfig::*m) { return field(m, "an integer"); }
Setter real(double RunConfig::*m) { return field(m, "a number"); }

const std::map<std::string, std::map<std::string, Setter>>& schema() {
  static const std::map<std::string, std::map<std::string, Setter>> s = {
      {"model",
       {{"size", str(&RunConfig::model_size)},
        {"bert_config", str(&RunConfig::bert_config)},
        {"init_checkpoint", str(&RunConfig::init_checkpoint)}}},
      {"data",
       {{"train_dir", str(&RunConfig::train_dir)},
        {"eval_file", str(&RunConfig::eval_file)},
        {"data_format", str(&RunConfig::data_format)},
        {"vocab_size", integer(&RunConfig::vocab_size)},
        {"max_seq_length", integer(&RunConfig::max_seq_length)},
        {"max_predictions_per_seq", integer(&RunConfig::max_predictions_per_seq)},
        {"num_eval_examples", integer(&RunConfig::num_eval_examples)}}},
      {"batch",
       {{"batch_size", integer(&RunConfig::batch_size)},
        {"gradient_accumulation_steps", integer(&RunConfig::gradient_accumulation_steps)},
        {"average_packing_rate", real(&RunConfig::average_packing_rate)},
        {"eval_batch_size", integer(&RunConfig::eval_batch_size)}}},
      {"optimizer",
       {{"learning_rate", real(&RunConfig::learning_rate)},
        {"lamb_beta_1", real(&RunConfig::lamb_beta_1)},
        {"lamb_beta_2", real(&RunConfig::lamb_beta_2)},
        {"lamb_epsilon", real(&RunConfig::lamb_epsilon)},
        {"weight_decay_rate", real(&RunConfig::weight_decay_rate)},
        {"max_steps", integer(&RunConfig::max_steps)},
        {"warmup_steps", integer(&RunConfig::warmup_steps)},
        {"warmup_proportion", real(&RunConfig::warmup_proportion)},
        {"start_warmup_step", integer(&RunConfig::start_warmup_step)},
        {"clip_after_allreduce", field(&RunConfig::clip_after_allreduce, "true or false")}}},
      {"stopping",
       {{"max_samples", int64(&RunConfig::max_samples)},
        {"eval_start_samples", int64(&RunConfig::eval_start_samples)},
        {"eval_interval_samples", int64(&RunConfig::eval_interval_samples)},
        {"target_accuracy", real(&RunConfig::target_accuracy)}}},
      {"run",
       {{"seed", field(&RunConfig::seed, "a non-negative integer")},
        {"precision", str(&RunConfig::precision)},
        {"backend", str(&RunConfig::backend)},
        {"threads", integer(&RunConfig::threads)},
        {"rendezvous_dir", str(&RunConfig::rendezvous_dir)}}},
      {"submission",
       {{"submission_org", str(&RunConfig::submission_org)},
        {"submission_division", str(&RunConfig::submission_division)},
        {"submission_status", str(&RunConfig::submission_status)},
        {"submission_platform", str(&RunConfig::submission_platform)}}},
  };
  return s;
}

void validate(const Reader& r, const YAML::Node& root, const RunConfig& c) {
  auto node_of = [&](const std::string& dotted) {
    const auto dot = dotted.find('.');
    const YAML::Node g = root[dotted.substr(0, dot)];
    if (g && g.IsMap() && g[dotted.substr(dot + 1)]) return g[dotted.substr(dot + 1)];
    return g ? g : root;
  };
  auto require = [&](bool ok, const std::string& key, const std::string& msg) {
    if (!ok) r.fail(node_of(key), key, msg);
  };
  require(c.model_size == "tiny" || c.model_size == "base" || c.model_size == "large" || c.model_size == "custom",
          "model.size", "must be tiny, base, large or custom (got '" + c.model_size + "')");
  require(c.model_size != "custom" || !c.bert_config.empty(), "model.bert_config",
          "size custom needs a bert_config.json");
  require(c.data_format == "fixed" || c.data_format == "varlength" || c.data_format == "packed", "data.data_format",
          "must be fixed, varlength or packed (got '" + c.data_format + "')");
  require(c.vocab_size > 0, "data.vocab_size", "must be positive");
  require(c.max_seq_length > 1, "data.max_seq_length", "must be at least 2");
  require(c.max_predictions_per_seq > 0, "data.max_predictions_per_seq", "must be positive");
  require(c.num_eval_examples > 0, "data.num_eval_examples", "must be positive");
  require(c.batch_size > 0, "batch.batch_size", "must be positive");
  require(c.gradient_accumulation_steps > 0, "batch.gradient_accumulation_steps", "must be positive");
  require(c.average_packing_rate >= 1.0, "batch.average_packing_rate", "must be at least 1");
  require(c.eval_batch_size > 0, "batch.eval_batch_size", "must be positive");
  require(c.learning_rate > 0, "optimizer.learning_rate", "must be positive");
  require(c.lamb_beta_1 >= 0 && c.lamb_beta_1 < 1, "optimizer.lamb_beta_1", "must be in [0, 1)");
  require(c.lamb_beta_2 >= 0 && c.lamb_beta_2 < 1, "optimizer.lamb_beta_2", "must be in [0, 1)");
  require(c.lamb_epsilon > 0, "optimizer.lamb_epsilon", "must be positive");
  require(c.weight_decay_rate >= 0, "optimizer.weight_decay_rate", "must not be negative");
  require(c.max_steps > 0, "optimizer.max_steps", "must be positive");
  require(c.warmup_steps >= 0, "optimizer.warmup_steps", "must not be negative");
  require(c.warmup_proportion >= 0 && c.warmup_proportion <= 1, "optimizer.warmup_proportion", "must be in [0, 1]");
  require(c.max_samples >= 0, "stopping.max_samples", "must not be negative (0 = no limit)");
  require(c.eval_start_samples >= -1, "stopping.eval_start_samples", "must be -1 (formula) or >= 0");
  require(c.eval_interval_samples == -1 || c.eval_interval_samples > 0, "stopping.eval_interval_samples",
          "must be -1 (formula) or positive");
  require(c.target_accuracy > 0 && c.target_accuracy <= 1, "stopping.target_accuracy", "must be in (0, 1]");
  require(c.precision == "fp32" || c.precision == "bf16", "run.precision", "must be fp32 or bf16");
  require(c.backend == "cpu" || c.backend == "cuda", "run.backend", "must be cpu or cuda");
  require(c.backend != "cpu" || c.precision == "fp32", "run.precision", "the cpu backend trains in fp32");
  require(c.threads >= 0, "run.threads", "must not be negative (0 = from affinity)");
}

}  // namespace

RunConfig load_run_config(const std::string& path) {
  Reader r(path);
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw RunConfigError(path + ": cannot open run config");
  } catch (const YAML::ParserException& e) {
    std::string where = path;
    where.append(":").append(std::to_string(e.mark.line + 1)).append(":").append(std::to_string(e.mark.column + 1));
    throw RunConfigError(where.append(": not valid YAML: ").append(e.msg));
  }
  if (!root.IsMap()) throw RunConfigError(path + ": run config must be a mapping of groups (model, data, ...)");
  RunConfig c;
  for (const auto& group : root) {
    const std::string g = group.first.as<std::string>();
    const auto it = schema().find(g);
    if (it == schema().end()) r.fail(group.first, g, "unknown group (expected model, data, batch, optimizer, stopping, run, submission)");
    if (group.second.IsNull()) continue;
    if (!group.second.IsMap()) r.fail(group.second, g, "must be a mapping");
    for (const auto& kv : group.second) {
      const std::string k = kv.first.as<std::string>();
      const auto f = it->second.find(k);
      if (f == it->second.end()) r.fail(kv.first, g + "." + k, "unknown key");
      f->second(r, kv.second, g + "." + k, c);
    }
  }
  if (c.precision.empty()) c.precision = c.backend == "cuda" ? "bf16" : "fp32";
  validate(r, root, c);
  return c;
}

}  // namespace bert::trainer
