// The trainer's resolved run configuration (`trainer --config run.yaml`). The harness writes it from
// the system YAML; the trainer knows nothing of systems. YAML or JSON (JSON is valid YAML).
// Keys are exactly the field names below, grouped as in the comments (e.g. `model.size`).
// Groups and keys (what harness/plan/trainer_config.cpp writes; every key optional, unknown keys are errors):
//   model:      size, bert_config, init_checkpoint
//   data:       train_dir, eval_file, data_format, vocab_size, max_seq_length, max_predictions_per_seq,
//               num_eval_examples
//   batch:      batch_size, gradient_accumulation_steps, average_packing_rate, eval_batch_size
//   optimizer:  learning_rate, lamb_beta_1, lamb_beta_2, lamb_epsilon, weight_decay_rate, max_steps,
//               warmup_steps, warmup_proportion, start_warmup_step, clip_after_allreduce
//   stopping:   max_samples, eval_start_samples, eval_interval_samples, target_accuracy
//   run:        seed, precision, backend, threads, rendezvous_dir
//   submission: submission_org, submission_division, submission_status, submission_platform
#pragma once
#include <cstdint>
#include <string>

#include "common/user_error.h"

namespace bert::trainer {

struct RunConfig {
  // model
  std::string model_size = "tiny";       // tiny | base | large | custom (from bert_config)
  std::string bert_config;               // path to bert_config.json ("" = from size)
  std::string init_checkpoint;           // HDF5 made by bert-data convert-checkpoint ("" = random init)
  // data
  std::string train_dir;                 // shards
  std::string eval_file;                 // eval HDF5 (or dir)
  std::string data_format = "varlength"; // fixed | varlength | packed
  int vocab_size = 30522;
  int max_seq_length = 512;
  int max_predictions_per_seq = 76;
  int num_eval_examples = 10000;
  // batch
  int batch_size = 1;                    // per rank per micro-step (rows: packs when packed)
  int gradient_accumulation_steps = 1;
  double average_packing_rate = 1.0;     // packed: sequences per pack used in logged GBS (NVIDIA: 2)
  int eval_batch_size = 16;
  // optimizer / schedule
  double learning_rate = 4e-4;
  double lamb_beta_1 = 0.9, lamb_beta_2 = 0.999, lamb_epsilon = 1e-6, weight_decay_rate = 0.01;
  int max_steps = 1000;
  int warmup_steps = 0;
  double warmup_proportion = 0.0;
  int start_warmup_step = 0;
  bool clip_after_allreduce = false;
  // stopping / eval (samples = sequences)
  int64_t max_samples = 0;               // 0 = no sample limit (max_steps still applies)
  int64_t eval_start_samples = -1;       // -1 = from the MLPerf formula
  int64_t eval_interval_samples = -1;    // -1 = floor(0.05*(230.23*GBS+3e6)/25000)*25000
  double target_accuracy = 0.720;
  // run
  uint64_t seed = 0;
  std::string precision;                 // fp32 | bf16; load_run_config: "" -> the backend's (cpu fp32, cuda bf16)
                                         // cpu: fp32 only (load_run_config); cuda: bf16 only (at trainer start)
  std::string backend = "cpu";           // cpu | cuda
  int threads = 0;                       // CPU threads per rank (0 = from affinity)
  std::string rendezvous_dir;            // local launches: file rendezvous for the CPU collective
  // MLPerf submission keys
  std::string submission_org = "SUBMISSION_ORG_PLACEHOLDER";
  std::string submission_division = "closed";
  std::string submission_status = "onprem";
  std::string submission_platform = "SUBMISSION_PLATFORM_PLACEHOLDER";
};

// A bad run config (or a setting the trainer cannot honour): what() = "FILE:LINE:COL: group.key: problem".
using RunConfigError = bert::UserError;

// Reads and validates; errors name the file, line, column and key (exit 2 in the trainer).
RunConfig load_run_config(const std::string& path);

}  // namespace bert::trainer
