# Shared helpers of the trainer integration tests (sourced).
# shellcheck shell=bash
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

# make_synth OUT SEED: a small synthetic set (bert-data synth): by default vocabulary 256, seq_len 64, so
# that tiny BERT learns it within the CI budget; VOCAB/SEQ_LEN/MAX_PRED/TOPIC_SKEW select another shape.
make_synth() {
  "$BERT_DATA" synth --out "$1" --format "${SYNTH_FORMAT:-varlength}" --shards 4 --samples-per-shard "${SYNTH_SAMPLES:-2048}" \
    --eval-samples 512 --vocab "${VOCAB:-256}" --seq-len "${SEQ_LEN:-64}" --max-pred "${MAX_PRED:-10}" \
    --topic-skew "${TOPIC_SKEW:-0}" --seed "${2:-1234}" > /dev/null 2>&1
}

# write_config FILE DATA_DIR SEED [extra YAML lines...]: tiny BERT run config for the synthetic set.
write_config() {
  local file=$1 data=$2 seed=$3
  shift 3
  cat > "$file" <<YAML
model: {size: tiny}
data:
  train_dir: $data/train
  eval_file: $data/eval/part_eval.hdf5
  data_format: ${SYNTH_FORMAT:-varlength}
  vocab_size: ${VOCAB:-256}
  max_seq_length: ${SEQ_LEN:-64}
  max_predictions_per_seq: ${MAX_PRED:-10}
  num_eval_examples: 512
batch: {batch_size: 16, gradient_accumulation_steps: 1, eval_batch_size: 64}
optimizer: {learning_rate: ${TRAIN_LR:-0.005}, max_steps: ${TRAIN_MAX_STEPS:-800}, warmup_steps: 20}
stopping: {eval_start_samples: 512, eval_interval_samples: 512, target_accuracy: ${TARGET:-0.05}, max_samples: ${MAX_SAMPLES:-0}}
run: {seed: $seed, threads: ${TRAIN_THREADS:-1}}
submission: {submission_org: test, submission_division: open, submission_status: research, submission_platform: 1xlocal}
YAML
  for line in "$@"; do echo "$line" >> "$file"; done
}

# The harness writes cache_clear before the trainer's lines; a result file needs it.
cache_clear_line() {
  printf ':::MLLOG {"namespace": "", "time_ms": %s, "event_type": "POINT_IN_TIME", "key": "cache_clear", "value": true, "metadata": {"file": "harness", "lineno": 1}}\n' "$(date +%s%3N)"
}

# expect_user_error DESCRIPTION NEEDLE TRAINER_ARGS...: exit 2, one message containing NEEDLE, no run_stop.
expect_user_error() {
  local what=$1 needle=$2
  shift 2
  local rc=0
  "$TRAINER" "$@" > "$WORK/stdout" 2> "$WORK/stderr" || rc=$?
  [ "$rc" -eq 2 ] || { cat "$WORK/stderr" >&2; fail "$what: exit code $rc, expected 2"; }
  grep -qF -- "$needle" "$WORK/stderr" || { cat "$WORK/stderr" >&2; fail "$what: message lacks '$needle'"; }
  [ "$(wc -l < "$WORK/stderr")" -eq 1 ] || { cat "$WORK/stderr" >&2; fail "$what: expected one message line"; }
  if grep -q '"key": "run_stop"' "$WORK/stdout"; then fail "$what: a run_stop was logged"; fi
  echo "ok: $what -> $(cat "$WORK/stderr")"
}
