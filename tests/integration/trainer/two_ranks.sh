#!/usr/bin/env bash
# Data parallelism: 2 ranks x batch B (Gloo allreduce over a file rendezvous, the local launcher's
# environment) end with the same weights as 1 rank x batch 2B after k steps, for both clipping orders
# where they must agree (clip after the allreduce). Dropout is off (bert_config.json) because its
# stream includes the rank. Usage: two_ranks.sh TRAINER PYTHON
TRAINER=$1 PYTHON=$2
source "$(dirname "$0")/common.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/bert_config.json" <<'JSON'
{"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512,
 "vocab_size": 1024, "max_position_embeddings": 128, "type_vocab_size": 2, "hidden_act": "gelu",
 "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "initializer_range": 0.02}
JSON
config() {  # FILE BATCH
  cat > "$1" <<YAML
model: {size: custom, bert_config: $WORK/bert_config.json}
data: {vocab_size: 1024, max_seq_length: 64, max_predictions_per_seq: 10}
batch: {batch_size: $2, gradient_accumulation_steps: 2}
optimizer: {learning_rate: 0.01, max_steps: 100, warmup_steps: 2, clip_after_allreduce: true}
run: {seed: 5, threads: 1, rendezvous_dir: $WORK/rdv}
YAML
}
config "$WORK/one.yaml" 8
config "$WORK/two.yaml" 4
"$TRAINER" --config "$WORK/one.yaml" --benchmark 4 --save-weights "$WORK/one.h5" > "$WORK/one.out" 2>&1 \
  || { cat "$WORK/one.out" >&2; fail "1 rank run failed"; }
mkdir -p "$WORK/rdv"
pids=()
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 NODE_RANK=0 \
    "$TRAINER" --config "$WORK/two.yaml" --benchmark 4 --save-weights "$WORK/two.h5" > "$WORK/two_$r.out" 2>&1 &
  pids+=($!)
done
for r in 0 1; do
  wait "${pids[$r]}" || { cat "$WORK/two_$r.out" >&2; fail "rank $r failed"; }
done
cat "$WORK/one.out" "$WORK/two_0.out"
"$PYTHON" "$(dirname "$0")/compare_weights.py" "$WORK/two.h5" "$WORK/one.h5" 1e-4 || fail "2 x B and 1 x 2B weights differ"
# The comparison can fail: 1 rank x B (half the global batch) must NOT match.
"$TRAINER" --config "$WORK/two.yaml" --benchmark 4 --save-weights "$WORK/half.h5" > /dev/null 2>&1 || fail "half run failed"
if "$PYTHON" "$(dirname "$0")/compare_weights.py" "$WORK/half.h5" "$WORK/one.h5" 1e-4 > /dev/null 2>&1; then
  fail "1 x B matched 1 x 2B: the comparison cannot tell batches apart"
fi
echo "ok: 2 ranks x B == 1 rank x 2B after 5 steps (gradient accumulation 2)"
