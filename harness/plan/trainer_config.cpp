#include "harness/plan/trainer_config.h"

#include <stdexcept>

#include "trainer/run_config_keys.h"

namespace bert::harness {
namespace {

std::string submission_status(const std::string& status) {
  if (status == "Available on-premise") return "onprem";
  if (status == "Available cloud") return "cloud";
  if (status == "Preview") return "preview";
  return "research";
}

// A key's value as its system-YAML key gives it (the schema default when not written).
json from_system(const Config& cfg, const trainer::RunConfigKey& k) {
  switch (k.type) {
    case trainer::KeyType::Int: return cfg.integer(k.system_key);
    case trainer::KeyType::Float: return cfg.real(k.system_key);
    case trainer::KeyType::Bool: return cfg.flag(k.system_key);
    default: return cfg.str(k.system_key);
  }
}

// MLPerf's platform is the system's name; NVIDIA's "<nodes>x<system>" only when the name does not
// already count its nodes (Baidu_8xDGXA100 stays as it is, not 8xBaidu_8xDGXA100).
std::string submission_platform(const Plan& plan) {
  const std::string prefix = std::to_string(plan.num_nodes) + "x";
  if (plan.system_name.find(prefix) != std::string::npos) return plan.system_name;
  return prefix + plan.system_name;
}

}  // namespace

json make_trainer_config(const Config& cfg, const Plan& plan, const TrainerInputs& in) {
  const std::string submitter = cfg.str("system.submitter");
  const std::map<std::string, json> resolved{
      {"model.init_checkpoint", in.checkpoint},
      {"data.train_dir", in.train_dir},
      {"data.eval_file", in.eval_file},
      {"optimizer.clip_after_allreduce", in.clip_after_allreduce},
      {"run.seed", plan.experiment.seeds.empty() ? 0 : plan.experiment.seeds.front()},
      {"run.precision", trainer::to_string(in.precision)},
      {"run.backend", trainer::backend_name(in.backend)},
      {"run.rendezvous_dir", in.rendezvous_dir},
      {"run.power_window_s", in.power_window_s},
      {"submission.submission_org", submitter.empty() ? "SUBMISSION_ORG_PLACEHOLDER" : submitter},
      {"submission.submission_division", enum_name(plan.experiment.division, kDivisionNames)},
      {"submission.submission_status", submission_status(cfg.str("system.status"))},
      {"submission.submission_platform", submission_platform(plan)}};
  json j;
  for (const trainer::RunConfigKey& k : trainer::run_config_keys()) {
    auto it = resolved.find(k.name);
    if (it == resolved.end() && k.system_key.empty()) throw std::logic_error("run-config key " + k.name + " has no value");
    j[k.group()][k.key()] = it != resolved.end() ? it->second : from_system(cfg, k);
  }
  return j;
}

}  // namespace bert::harness
