# Shared helpers of the trainer integration tests (sourced).
# shellcheck shell=bash
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=scripts/lib/local_ranks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/local_ranks.sh"

# new_work: $WORK, a scratch directory removed at exit.
new_work() {
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
}

# Whether this CPU has bf16 matrix instructions (avx512_bf16 or AMX-BF16) for oneDNN: its flags, and no
# ONEDNN_MAX_CPU_ISA below them (the suite run as on an AVX2-only CPU holds oneDNN to AVX2).
cpu_has_bf16() {
  case "${ONEDNN_MAX_CPU_ISA:-ALL}" in
    ALL|all|AVX512_CORE_BF16|avx512_core_bf16|AVX512_CORE_AMX|avx512_core_amx) ;;
    *) return 1 ;;
  esac
  grep -qwE 'avx512_bf16|amx_bf16' /proc/cpuinfo
}

# With TRAIN_PRECISION=bf16 on a CPU without avx512_bf16/AMX-BF16: SKIPPED (77), as ctest expects.
skip_bf16_without_cpu_support() {
  if [ "${TRAIN_PRECISION:-fp32}" = bf16 ] && ! cpu_has_bf16; then
    echo "SKIPPED: run.precision bf16 needs avx512_bf16 or AMX-BF16, which this CPU lacks"
    exit 77
  fi
}

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
run: {seed: $seed, threads: ${TRAIN_THREADS:-1}, precision: ${TRAIN_PRECISION:-fp32}}
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

# data_parallel_config FILE BATCH RUN_KEYS: the 2-rank-vs-1-rank run config (tiny BERT with dropout off,
# because the dropout stream includes the rank; accumulation 2, clipping after the allreduce, file
# rendezvous in $WORK/rdv). RUN_KEYS: extra `run:` keys, e.g. "threads: 1" or "backend: cuda".
data_parallel_config() {
  cat > "$WORK/bert_config.json" <<'JSON'
{"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512,
 "vocab_size": 1024, "max_position_embeddings": 128, "type_vocab_size": 2, "hidden_act": "gelu",
 "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "initializer_range": 0.02}
JSON
  cat > "$1" <<YAML
model: {size: custom, bert_config: $WORK/bert_config.json}
data: {vocab_size: 1024, max_seq_length: 64, max_predictions_per_seq: 10}
batch: {batch_size: $2, gradient_accumulation_steps: 2}
optimizer: {learning_rate: 0.01, max_steps: 100, warmup_steps: 2, clip_after_allreduce: true}
run: {seed: 5, $3, rendezvous_dir: $WORK/rdv}
YAML
}

# run_ranks WORLD PER_NODE CONFIG WEIGHTS [TRANSPORT]: `trainer --benchmark 4` as the WORLD ranks of a
# local launch, PER_NODE to an emulated node (rank 0 saves WEIGHTS), the CPU collective's
# BERT_DIST_CPU_TRANSPORT (default auto); their outputs in $WORK/rank_<rank>.out.
run_ranks() {
  rm -rf "$WORK/rdv" && mkdir -p "$WORK/rdv"
  BERT_DIST_CPU_TRANSPORT=${5:-auto} BERT_GLOO_HOST=127.0.0.1 local_ranks "$1" "$2" 0 "$WORK/rank_" \
    "$TRAINER" --config "$3" --benchmark 4 --save-weights "$4" || fail "a rank of $1 failed"
}
