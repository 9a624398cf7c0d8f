#!/usr/bin/env bash
# An external trainer that follows NVIDIA's run_and_time.sh contract, for the end-to-end tests: one
# process per rank, hyperparameters from NVIDIA's variables (BATCHSIZE is per rank per optimizer step,
# GRADIENT_STEPS, LR, MAX_STEPS, ...), data from DATADIR_PHASE2/EVALDIR, the seed from SEED, MLPerf log
# on stdout. It runs our trainer on the local recipe (tiny BERT, synthetic data; TRAINER names the
# binary) and records the CPUs it may run on (LOGDIR/affinity/run<EXPERIMENT_INDEX>_rank<R>) and its
# memory policy (.mem). With LOG_FILE_PATTERN (e.g. trainer_logs/run{i}.log, relative to LOGDIR) rank 0 writes its log there instead.
set -euo pipefail
: "${BATCHSIZE:?}" "${GRADIENT_STEPS:?}" "${LR:?}" "${MAX_STEPS:?}" "${SEED:?}" "${DATADIR_PHASE2:?}" "${EVALDIR:?}"
: "${TRAINER:?}" "${LOGDIR:?}" "${EXPERIMENT_INDEX:?}"
rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-${RANK:-0}}}
mkdir -p "$LOGDIR/affinity"
grep '^Cpus_allowed_list:' /proc/self/status | cut -f2 > "$LOGDIR/affinity/run${EXPERIMENT_INDEX}_rank${rank}"
# and its memory policy as get_mempolicy(2) reports it ("bind 0" after srun --mem-bind=mask_mem:0x1)
if command -v numactl > /dev/null; then
  numactl --show | awk '$1 == "policy:" {p = $2} $1 == "membind:" {m = $2} END {print p, m}' \
    > "$LOGDIR/affinity/run${EXPERIMENT_INDEX}_rank${rank}.mem"
fi

cfg=$(mktemp "${TMPDIR:-/tmp}/run_and_time_local.XXXXXX.yaml")
trap 'rm -f "$cfg"' EXIT
cat > "$cfg" <<EOC
model: {size: tiny}
data: {train_dir: "$DATADIR_PHASE2", eval_file: "$EVALDIR", data_format: varlength, vocab_size: 1024,
       max_seq_length: 128, max_predictions_per_seq: 20, num_eval_examples: ${NUM_EVAL_EXAMPLES:-512}}
batch: {batch_size: $((BATCHSIZE / GRADIENT_STEPS)), gradient_accumulation_steps: $GRADIENT_STEPS, eval_batch_size: 64}
optimizer: {learning_rate: $LR, max_steps: $MAX_STEPS, warmup_steps: ${WARMUP_STEPS:-0},
            warmup_proportion: ${WARMUP_PROPORTION:-0}, start_warmup_step: ${START_WARMUP_STEP:-0},
            lamb_beta_1: ${OPT_LAMB_BETA_1:-0.9}, lamb_beta_2: ${OPT_LAMB_BETA_2:-0.999},
            weight_decay_rate: ${WEIGHT_DECAY_RATE:-0.01}}
stopping: {eval_start_samples: ${EVAL_ITER_START_SAMPLES:-100000}, eval_interval_samples: ${EVAL_ITER_SAMPLES:-100000},
           target_accuracy: ${TARGET_MLM_ACCURACY:-0.72}, max_samples: ${MAX_SAMPLES_TERMINATION:-0}}
run: {seed: $SEED, backend: cpu, precision: fp32}
submission: {submission_division: open, submission_org: bert-harness-tests, submission_status: onprem,
             submission_platform: ${DGXNNODES:-1}x${DGXSYSTEM:-local}}
EOC
start=$(date +%s)
echo "STARTING TIMING RUN AT $(date)"
if [ -n "${LOG_FILE_PATTERN:-}" ] && [ "$rank" = 0 ]; then
  log=$LOGDIR/${LOG_FILE_PATTERN//\{i\}/$EXPERIMENT_INDEX}
  mkdir -p "$(dirname "$log")"
  "$TRAINER" --config "$cfg" > "$log"
else
  "$TRAINER" --config "$cfg"
fi
echo "ENDING TIMING RUN AT $(date)"
echo "RESULT,bert,$SEED,$(( $(date +%s) - start )),${USER:-root},$start"
