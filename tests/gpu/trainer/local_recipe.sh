#!/usr/bin/env bash
# `trainer` with run.backend cuda on the local recipe of systems/common/local_common.yaml: tiny BERT,
# `bert-data synth` data (vocab 1024, seq 128, max_pred 20, topic skew 0.8, 4 shards x 1024 samples,
# 512 eval samples, seed 1234), batch 16, lr 1e-2, warmup 20, max_steps 1280, eval every 1024
# samples, target 0.5. Passes when the run stops with run_stop success (target reached before
# max_steps) and the official MLPerf checker (training 5.0.0) accepts the log.
# Without a CUDA device: "SKIPPED: no CUDA device", exit 77 (the trainer's own device check); with
# PRECISION fp8 on a GPU without FP8 matrix units the same (its own answer to run.precision: fp8).
# Usage: local_recipe.sh TRAINER BERT_DATA PYTHON [PRECISION: bf16 (default) | fp8]
TRAINER=$1 BERT_DATA=$2 PYTHON=$3 PRECISION=${4:-bf16}
source "$(dirname "$0")/../../integration/trainer/common.sh"
source "$(dirname "$0")/../skip_without_device.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# recipe FILE DATA_DIR: the run config the harness writes for systems/local.yaml on a GPU node.
recipe() {
  cat > "$1" <<YAML
model: {size: tiny}
data:
  train_dir: $2/train
  eval_file: $2/eval/part_eval.hdf5
  data_format: varlength
  vocab_size: 1024
  max_seq_length: 128
  max_predictions_per_seq: 20
  num_eval_examples: 512
batch: {batch_size: 16, gradient_accumulation_steps: 1, eval_batch_size: 64}
optimizer: {learning_rate: 1e-2, max_steps: 1280, warmup_steps: 20}
stopping: {eval_start_samples: 1024, eval_interval_samples: 1024, target_accuracy: 0.5}
run: {seed: 1, backend: cuda, precision: $PRECISION}
submission: {submission_org: test, submission_division: open, submission_status: research, submission_platform: 1xlocal}
YAML
}

skip_without_cuda_device "$TRAINER" "$PRECISION"

SYNTH_SAMPLES=1024 VOCAB=1024 SEQ_LEN=128 MAX_PRED=20 TOPIC_SKEW=0.8 make_synth "$WORK/data" 1234
recipe "$WORK/run.yaml" "$WORK/data"
log="$WORK/result.txt"
cache_clear_line > "$log"
start=$(date +%s.%N)
rc=0
"$TRAINER" --config "$WORK/run.yaml" >> "$log" 2> "$WORK/stderr" || rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$WORK/stderr"
[ "$rc" -eq 0 ] || fail "trainer exit $rc"
status=$(grep '"key": "run_stop"' "$log" | sed 's/.*"status": "\([a-z]*\)".*/\1/')
samples=$(grep '"key": "train_samples"' "$log" | sed 's/.*"value": \([0-9]*\).*/\1/')
acc=$(grep '"key": "eval_accuracy"' "$log" | tail -1 | sed 's/.*"value": \([0-9.]*\).*/\1/')
echo "backend cuda $PRECISION, local recipe: status $status, $samples samples, last eval accuracy $acc, ${secs}s wall"
[ "$status" = success ] || fail "did not reach the target 0.5"
"$PYTHON" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 --log_output "$WORK/cc.log" "$log" \
  > "$WORK/check" 2>&1 || { cat "$WORK/check" >&2; fail "official compliance checker rejected the log"; }
grep -q SUCCESS "$WORK/check" || { cat "$WORK/check" >&2; fail "checker did not report success"; }
echo "reached the target and the log is compliant"
