#include "harness/plan/trainer_config.h"

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

}  // namespace bert::harness
