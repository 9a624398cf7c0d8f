// The trainer's resolved run configuration (`trainer --config run.yaml`). The harness writes it from
// the system YAML; the trainer knows nothing of systems. YAML or JSON (JSON is valid YAML).
// Keys are `group.key` (e.g. `model.size`); every key, its type, default, range and meaning is a row
// of trainer/run_config_keys.cpp (the one declaration; `harness schema` shows the benchmark.* ones).
// Every key is optional; unknown groups and keys are errors.
#pragma once
#include <cstdint>
#include <string>

#include "common/enum_names.h"
#include "common/user_error.h"
#include "formats/shard_format.h"
#include "trainer/model/config.h"
#include "trainer/backend.h"
#include "trainer/precision.h"

namespace bert::trainer {

// Every field is a row of run_config_keys.cpp, which gives its default: a new field needs its row there
// (a field without one would be left unset by the constructor).
struct RunConfig {
  RunConfig();  // every field at its run_config_keys() default

  // model
  model::ModelSize model_size;       // custom: from bert_config
  std::string bert_config;           // path to bert_config.json ("" = from size)
  std::string init_checkpoint;       // HDF5 made by bert-data convert-checkpoint ("" = random init)
  // data
  std::string train_dir;             // shards
  std::string eval_file;             // eval HDF5 (or dir)
  data::Format data_format;
  int vocab_size;
  int max_seq_length;
  int max_predictions_per_seq;
  int num_eval_examples;
  // batch
  int batch_size;                    // per rank per micro-step (rows: packs when packed)
  int gradient_accumulation_steps;
  double average_packing_rate;       // packed: sequences per pack used in logged GBS (NVIDIA: 2)
  int eval_batch_size;
  // optimizer / schedule
  double learning_rate;
  double lamb_beta_1, lamb_beta_2, lamb_epsilon, weight_decay_rate;
  int max_steps;
  int warmup_steps;
  double warmup_proportion;
  int start_warmup_step;
  bool clip_after_allreduce;
  // stopping / eval (samples = sequences)
  int64_t max_samples;               // 0 = no sample limit (max_steps still applies)
  int64_t eval_start_samples;        // -1 = from the MLPerf formula
  int64_t eval_interval_samples;     // -1 = floor(0.05*(230.23*GBS+3e6)/25000)*25000
  double target_accuracy;
  // run
  uint64_t seed;
  Precision precision;               // trainer/precision.h; not given: the backend's (resolve_precision)
  int fp8_amax_history;              // fp8: amax history length of the delayed scaling (Transformer Engine: 1)
  int fp8_margin;                    // fp8: scale = fp8 max / amax / 2^margin (Transformer Engine: 0)
  Backend backend;
  int threads;                       // CPU threads per rank (0 = from affinity)
  std::string rendezvous_dir;        // local launches: file rendezvous for the CPU collective
  double power_window_s;             // MLPerf power: train on after run_stop until this long after run_start
  // MLPerf submission keys
  std::string submission_org;
  std::string submission_division;
  std::string submission_status;
  std::string submission_platform;
};

// A bad run config (or a setting the trainer cannot honour): what() = "FILE:LINE:COL: group.key: problem".
using RunConfigError = bert::UserError;

// Reads and validates; errors name the file, line, column and key (exit 2 in the trainer).
RunConfig load_run_config(const std::string& path);

}  // namespace bert::trainer
