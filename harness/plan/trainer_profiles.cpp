// The trainer profiles. Facts: NVIDIA's run.sub/run_and_time.sh/config_*.sh (MLPerf Training results
// v1.1-v5.0, and Inventec's fork), Samsung's v1.1 run_multinode.sh; see systems/README.md.
#include "harness/plan/trainer_profiles.h"

#include "harness/plan/launch_commands.h"

namespace bert::harness {
namespace {

// NVIDIA's hyperparameter variables, read by run_and_time.sh (BATCHSIZE is per GPU per optimizer step).
std::vector<ProfileVariable> nvidia_variables() {
  return {
      {"DGXNNODES", "nodes.count", "", true},
      {"DGXNGPU", "nodes.gpus_per_node", "", true},
      {"DGXSYSTEM", "system.config_name", "", false},
      {"BATCHSIZE", "benchmark.batch_size", "benchmark.gradient_accumulation_steps", true},
      {"GRADIENT_STEPS", "benchmark.gradient_accumulation_steps", "", true},
      {"LR", "benchmark.learning_rate", "", true},
      {"MAX_STEPS", "benchmark.max_steps", "", true},
      {"MAX_SAMPLES_TERMINATION", "benchmark.max_samples", "", false},
      {"OPT_LAMB_BETA_1", "benchmark.lamb_beta_1", "", false},
      {"OPT_LAMB_BETA_2", "benchmark.lamb_beta_2", "", false},
      {"WEIGHT_DECAY_RATE", "benchmark.weight_decay_rate", "", false},
      {"WARMUP_PROPORTION", "benchmark.warmup_proportion", "", false},
      {"WARMUP_STEPS", "benchmark.warmup_steps", "", false},
      {"START_WARMUP_STEP", "benchmark.start_warmup_step", "", false},
      {"EVAL_ITER_START_SAMPLES", "benchmark.eval_start_samples", "", false},
      {"EVAL_ITER_SAMPLES", "benchmark.eval_interval_samples", "", false},
      {"NUM_EVAL_EXAMPLES", "benchmark.num_eval_examples", "", false},
      {"TARGET_MLM_ACCURACY", "benchmark.target_accuracy", "", false},
      {"PACKING_FACTOR", "benchmark.average_packing_rate", "", false},
  };
}

// run_pretraining.py's flags with a meaning for the plan, as run_and_time.sh passes them (v4.1/v5.0);
// --packed_samples selects packed data, whose samples per sequence --average_packing_rate gives.
// Not here: --train_batch_size and --gradient_accumulation_steps (BATCHSIZE is their product; an
// override of one alone is the implementation's own arithmetic), kernels, graphs, fp16/bf16.
std::vector<ProfileFlag> nvidia_flags() {
  return {
      {"--packed_samples", "benchmark.data.format", "packed"},
      {"--packed_samples", "benchmark.average_packing_rate", "2"},  // run_pretraining.py's default rate
      {"--average_packing_rate", "benchmark.average_packing_rate", ""},
      {"--max_seq_length", "benchmark.max_seq_length", ""},
      {"--max_predictions_per_seq", "benchmark.max_predictions_per_seq", ""},
      {"--eval_batch_size", "benchmark.eval_batch_size", ""},
      {"--num_eval_examples", "benchmark.num_eval_examples", ""},
      {"--eval_iter_start_samples", "benchmark.eval_start_samples", ""},
      {"--eval_iter_samples", "benchmark.eval_interval_samples", ""},
      {"--target_mlm_accuracy", "benchmark.target_accuracy", ""},
      {"--max_samples_termination", "benchmark.max_samples", ""},
      {"--learning_rate", "benchmark.learning_rate", ""},
      {"--max_steps", "benchmark.max_steps", ""},
      {"--opt_lamb_beta_1", "benchmark.lamb_beta_1", ""},
      {"--opt_lamb_beta_2", "benchmark.lamb_beta_2", ""},
      {"--weight_decay_rate", "benchmark.weight_decay_rate", ""},
      {"--warmup_proportion", "benchmark.warmup_proportion", ""},
      {"--warmup_steps", "benchmark.warmup_steps", ""},
      {"--start_warmup_step", "benchmark.start_warmup_step", ""},
  };
}

std::vector<TrainerProfile> make_profiles() {
  TrainerProfile generic;
  generic.name = "generic";
  generic.doc = "any program: paths in the harness's own names (DATADIR, EVALDIR, CHECKPOINTDIR, LOGDIR)";
  generic.train = {"DATADIR", kTrainMount};
  generic.eval = {"EVALDIR", kEvalMount};
  generic.checkpoint = {"CHECKPOINTDIR", kCheckpointMount};
  generic.results = {"LOGDIR", kResultsMount};

  TrainerProfile nvidia;
  nvidia.name = "nvidia-pytorch";
  nvidia.doc = "NVIDIA's PyTorch BERT (NGC container): each srun task runs slurm2pytorch ./run_and_time.sh";
  // As every run.sub since v3.0: slurm2pytorch (mlperf-common, in the image) turns SLURM_PROCID/LOCALID
  // and MLPERF_SLURM_FIRSTNODE into torch.distributed's RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR.
  nvidia.argv = {"slurm2pytorch", "./run_and_time.sh"};
  nvidia.master_addr_env = {"MLPERF_SLURM_FIRSTNODE", "MASTER_ADDR"};  // run.sub exports both (R30+, R50)
  nvidia.master_port_env = "MASTER_PORT";
  nvidia.workdir = "/workspace/bert";
  nvidia.train = {"DATADIR_PHASE2", "/workspace/data_phase2"};
  nvidia.eval = {"EVALDIR", "/workspace/evaldata"};
  nvidia.checkpoint = {"CHECKPOINTDIR_PHASE1", "/workspace/phase1"};
  nvidia.results = {"LOGDIR", "/results"};
  nvidia.checkpoint_file = "model.ckpt-28252.pt";
  nvidia.env = {{"PHASE", "2"}};
  nvidia.variables = nvidia_variables();
  nvidia.extra_args_env = "EXTRA_PARAMS";
  nvidia.flags = nvidia_flags();

  // Samsung v1.1: run_multinode.sh reads these (its own names), ssh + bind_launch, no container.
  TrainerProfile samsung;
  samsung.name = "samsung-pytorch";
  samsung.doc = "Samsung's v1.1 PyTorch BERT (run_multinode.sh variables; a virtualenv, no container)";
  samsung.train = {"INPUT_DIR", ""};
  samsung.eval = {"EVAL_DIR", ""};
  samsung.checkpoint = {"CHECKPOINTDIR_PHASE1", ""};
  samsung.results = {"LOGDIR", ""};
  samsung.checkpoint_file = "model.ckpt-28252.pt";
  samsung.variables = {
      {"BATCHSIZE", "benchmark.batch_size", "", true},
      {"GRAD_STEPS", "benchmark.gradient_accumulation_steps", "", true},
      {"LR", "benchmark.learning_rate", "", true},
      {"MAX_STEPS", "benchmark.max_steps", "", true},
      {"MAX_SAMPLES_TERMINATION", "benchmark.max_samples", "", false},
      {"OPT_LAMB_BETA_1", "benchmark.lamb_beta_1", "", false},
      {"OPT_LAMB_BETA_2", "benchmark.lamb_beta_2", "", false},
      {"EPSILON", "benchmark.lamb_epsilon", "", false},
      {"WEIGHT_DECAY_RATE", "benchmark.weight_decay_rate", "", false},
      {"WARMUP_STEPS", "benchmark.warmup_steps", "", false},
      {"START_STEPS", "benchmark.start_warmup_step", "", false},
      {"EVAL_START", "benchmark.eval_start_samples", "", false},
      {"EVAL_ITER", "benchmark.eval_interval_samples", "", false},
      {"TARGET_MLM_ACCURACY", "benchmark.target_accuracy", "", false},
      {"DGXSYSTEM", "system.config_name", "", false},
  };
  return {generic, nvidia, samsung};
}

const std::vector<TrainerProfile>& profiles() {
  static const std::vector<TrainerProfile> p = make_profiles();
  return p;
}

}  // namespace

const TrainerProfile* find_trainer_profile(std::string_view name) {
  for (const TrainerProfile& p : profiles())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> trainer_profile_names() {
  std::vector<std::string> out;
  for (const TrainerProfile& p : profiles()) out.push_back(p.name);
  return out;
}

}  // namespace bert::harness
