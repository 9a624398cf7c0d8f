#!/usr/bin/env bash
# User errors end in one clear message and exit 2 (no run_stop logged); a diverging run (NaN loss)
# logs run_stop aborted and exits 1. Usage: bad_input.sh TRAINER BERT_DATA PYTHON
TRAINER=$1 BERT_DATA=$2 PYTHON=$3
source "$(dirname "$0")/common.sh"
new_work
SYNTH_SAMPLES=256 make_synth "$WORK/data"
D="$WORK/data"

expect_user_error "missing run config" "cannot open run config" --config "$WORK/none.yaml"
printf 'optimizer:\n  learning_rate: [1\n' > "$WORK/bad.yaml"
expect_user_error "malformed YAML" "bad.yaml:" --config "$WORK/bad.yaml"

write_config "$WORK/nodata.yaml" "$WORK/missing" 1
expect_user_error "missing training data" "training data directory does not exist" --config "$WORK/nodata.yaml"

write_config "$WORK/ckpt_missing.yaml" "$D" 1 "model: {size: tiny, init_checkpoint: $WORK/none.h5}"
sed -i '1d' "$WORK/ckpt_missing.yaml"  # the extra model line replaces the first
expect_user_error "missing checkpoint" "none.h5" --config "$WORK/ckpt_missing.yaml"

head -c 4096 /dev/urandom > "$WORK/corrupt.h5"
write_config "$WORK/ckpt_corrupt.yaml" "$D" 1 "model: {size: tiny, init_checkpoint: $WORK/corrupt.h5}"
sed -i '1d' "$WORK/ckpt_corrupt.yaml"
expect_user_error "corrupt checkpoint" "corrupt.h5" --config "$WORK/ckpt_corrupt.yaml"

# A real tiny checkpoint (vocab 256) loaded into a model whose vocabulary follows other data (512).
write_config "$WORK/save.yaml" "$D" 1
"$TRAINER" --config "$WORK/save.yaml" --benchmark 1 --save-weights "$WORK/tiny.h5" > /dev/null 2>&1 || fail "could not write a checkpoint"
write_config "$WORK/ckpt_ok.yaml" "$D" 1 "model: {size: tiny, init_checkpoint: $WORK/tiny.h5}" 
sed -i '1d' "$WORK/ckpt_ok.yaml"
sed 's/vocab_size: 256/vocab_size: 512/' "$WORK/ckpt_ok.yaml" > "$WORK/ckpt_vocab.yaml"
expect_user_error "checkpoint/model vocabulary mismatch" "bert/embeddings/word_embeddings has shape [256,128], the model needs [512,128]" --config "$WORK/ckpt_vocab.yaml"
sed 's/size: tiny/size: base/' "$WORK/ckpt_ok.yaml" > "$WORK/ckpt_size.yaml"
expect_user_error "checkpoint/model size mismatch" "the model needs" --config "$WORK/ckpt_size.yaml"

"$PYTHON" "$(dirname "$0")/strip_masks.py" "$D/eval/part_eval.hdf5" "$WORK/eval_nomask.hdf5"
sed "s|$D/eval/part_eval.hdf5|$WORK/eval_nomask.hdf5|" "$WORK/save.yaml" > "$WORK/nomask.yaml"
expect_user_error "eval file without masked tokens" "no masked tokens" --config "$WORK/nomask.yaml"

# The checkpoint itself loads and training starts from it.
sed -i 's/max_steps: [0-9]*/max_steps: 2/' "$WORK/ckpt_ok.yaml"
"$TRAINER" --config "$WORK/ckpt_ok.yaml" > "$WORK/ok.log" 2> "$WORK/ok.err" || { cat "$WORK/ok.err" >&2; fail "training from a saved checkpoint failed"; }
grep -q '"status": "aborted"' "$WORK/ok.log" || fail "a max_steps stop must log run_stop aborted"
echo "ok: training from a saved checkpoint, stopped by max_steps (aborted, exit 0)"

# Divergence: an absurd learning rate overflows the weights; NaN loss -> message, run_stop aborted, exit 1.
write_config "$WORK/nan.yaml" "$D" 1
sed -i 's/learning_rate: [0-9.e-]*/learning_rate: 1e38/; s/warmup_steps: 20/warmup_steps: 0/' "$WORK/nan.yaml"
rc=0
"$TRAINER" --config "$WORK/nan.yaml" > "$WORK/nan.log" 2> "$WORK/nan.err" || rc=$?
[ "$rc" -eq 1 ] || { cat "$WORK/nan.err" >&2; fail "NaN loss: exit $rc, expected 1"; }
grep -q "training diverged" "$WORK/nan.err" || fail "NaN loss: no message"
grep -q '"key": "run_stop".*"status": "aborted"' "$WORK/nan.log" || fail "NaN loss: run_stop aborted not logged"
echo "ok: NaN loss -> $(grep diverged "$WORK/nan.err")"
echo "all bad-input cases behave"
