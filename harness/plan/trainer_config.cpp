#include "harness/plan/build_plan.h"

namespace bert::harness {
namespace {

std::string submission_status(const std::string& status) {
  if (status == "Available on-premise") return "onprem";
  if (status == "Available cloud") return "cloud";
  if (status == "Preview") return "preview";
  return "research";
}

}  // namespace

// Groups and keys follow trainer/run_config.h (fields grouped as its comments group them).
json make_trainer_config(const Config& cfg, const Plan& plan, const TrainerInputs& in) {
  std::string submitter = cfg.str("system.submitter");
  json j;
  j["model"] = {{"size", cfg.str("benchmark.model")},
                {"bert_config", cfg.str("benchmark.bert_config")},
                {"init_checkpoint", in.checkpoint}};
  j["data"] = {{"train_dir", in.train_dir},
               {"eval_file", in.eval_file},
               {"data_format", cfg.str("benchmark.data.format")},
               {"vocab_size", cfg.integer("benchmark.vocab_size")},
               {"max_seq_length", cfg.integer("benchmark.max_seq_length")},
               {"max_predictions_per_seq", cfg.integer("benchmark.max_predictions_per_seq")},
               {"num_eval_examples", cfg.integer("benchmark.num_eval_examples")}};
  j["batch"] = {{"batch_size", cfg.integer("benchmark.batch_size")},
                {"gradient_accumulation_steps", cfg.integer("benchmark.gradient_accumulation_steps")},
                {"average_packing_rate", cfg.real("benchmark.average_packing_rate")},
                {"eval_batch_size", cfg.integer("benchmark.eval_batch_size")}};
  j["optimizer"] = {{"learning_rate", cfg.real("benchmark.learning_rate")},
                    {"lamb_beta_1", cfg.real("benchmark.lamb_beta_1")},
                    {"lamb_beta_2", cfg.real("benchmark.lamb_beta_2")},
                    {"lamb_epsilon", cfg.real("benchmark.lamb_epsilon")},
                    {"weight_decay_rate", cfg.real("benchmark.weight_decay_rate")},
                    {"max_steps", cfg.integer("benchmark.max_steps")},
                    {"warmup_steps", cfg.integer("benchmark.warmup_steps")},
                    {"warmup_proportion", cfg.real("benchmark.warmup_proportion")},
                    {"start_warmup_step", cfg.integer("benchmark.start_warmup_step")},
                    {"clip_after_allreduce", in.clip_after_allreduce}};
  j["stopping"] = {{"max_samples", cfg.integer("benchmark.max_samples")},
                   {"eval_start_samples", cfg.integer("benchmark.eval_start_samples")},
                   {"eval_interval_samples", cfg.integer("benchmark.eval_interval_samples")},
                   {"target_accuracy", cfg.real("benchmark.target_accuracy")}};
  j["run"] = {{"seed", plan.experiment.seeds.empty() ? 0 : plan.experiment.seeds.front()},
              {"precision", in.precision},
              {"backend", in.backend},
              {"threads", cfg.integer("benchmark.threads")},
              {"rendezvous_dir", in.rendezvous_dir}};
  j["submission"] = {{"submission_org", submitter.empty() ? "SUBMISSION_ORG_PLACEHOLDER" : submitter},
                     {"submission_division", plan.experiment.division},
                     {"submission_status", submission_status(cfg.str("system.status"))},
                     {"submission_platform", std::to_string(plan.num_nodes) + "x" + plan.system_name}};
  return j;
}

json make_system_json(const Config& cfg, const Plan& plan) {
  const binding::NodeTopology& t = plan.nodes.front().topology;
  int sockets = cfg.integer("system.host_processors_per_node") > 0
                    ? static_cast<int>(cfg.integer("system.host_processors_per_node"))
                    : t.packages;
  int gpus = plan.nodes.front().ranks.empty() || plan.nodes.front().ranks.front().binding.gpu < 0 ? 0 : plan.ranks_per_node;
  json j;
  j["submitter"] = cfg.str("system.submitter");
  j["division"] = plan.experiment.division;
  j["status"] = cfg.str("system.status");
  j["system_name"] = plan.system_name;
  j["number_of_nodes"] = std::to_string(plan.num_nodes);
  j["host_processors_per_node"] = std::to_string(sockets);
  j["host_processor_model_name"] = cfg.str("system.host_processor_model_name");
  j["host_processor_core_count"] = sockets > 0 ? std::to_string(t.cores / sockets) : "";
  j["host_processor_vcpu_count"] = sockets > 0 ? std::to_string(t.pus / sockets) : "";
  for (const char* k : {"host_processor_frequency", "host_processor_caches", "host_processor_interconnect"}) j[k] = "";
  j["host_memory_capacity"] = cfg.str("system.host_memory_capacity");
  for (const char* k : {"host_storage_type", "host_storage_capacity"}) j[k] = "";
  j["host_networking"] = cfg.str("system.host_networking");
  for (const char* k : {"host_networking_topology", "host_memory_configuration"}) j[k] = "";
  j["accelerators_per_node"] = std::to_string(gpus);
  j["accelerator_model_name"] = cfg.str("system.accelerator_model_name");
  for (const char* k : {"accelerator_host_interconnect", "accelerator_frequency", "accelerator_on-chip_memories",
                        "accelerator_memory_configuration", "accelerator_memory_capacity", "accelerator_interconnect",
                        "accelerator_interconnect_topology"})
    j[k] = "";
  j["cooling"] = cfg.str("system.cooling");
  j["hw_notes"] = "";
  j["framework"] = cfg.str("system.framework");
  j["other_software_stack"] = json::object();
  j["operating_system"] = cfg.str("system.operating_system");
  j["sw_notes"] = "";
  for (const auto& [k, v] : cfg.string_map("system.json")) j[k] = v;
  return j;
}

}  // namespace bert::harness
