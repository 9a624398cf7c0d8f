#!/usr/bin/env bash
# Packed data (NVIDIA's layout, up to 3 sequences per row): the trainer counts sequences, not packs,
# logs GBS with the packing rate, and its log passes the official checker.
# Usage: packed.sh TRAINER BERT_DATA PYTHON
TRAINER=$1 BERT_DATA=$2 PYTHON=$3
source "$(dirname "$0")/common.sh"
new_work
SYNTH_FORMAT=packed SYNTH_SAMPLES=512 make_synth "$WORK/data"
SYNTH_FORMAT=packed TRAIN_MAX_STEPS=6 write_config "$WORK/run.yaml" "$WORK/data" 4
sed -i 's/batch_size: 16,/batch_size: 8, average_packing_rate: 2.0,/; s/eval_start_samples: 512, eval_interval_samples: 512/eval_start_samples: 40, eval_interval_samples: 40/' "$WORK/run.yaml"
cache_clear_line > "$WORK/log"
"$TRAINER" --config "$WORK/run.yaml" >> "$WORK/log" 2> "$WORK/err" || { cat "$WORK/err" >&2; fail "packed run failed"; }
grep -q '"key": "global_batch_size", "value": 16,' "$WORK/log" || fail "GBS must be 8 packs x packing rate 2"
samples=$(grep '"key": "train_samples"' "$WORK/log" | sed 's/.*"value": \([0-9]*\).*/\1/')
[ "$samples" -gt 48 ] || fail "6 steps x 8 packs must hold more than 48 sequences (got $samples)"
[ "$(grep -c '"key": "eval_accuracy"' "$WORK/log")" -ge 1 ] || fail "no eval"
"$PYTHON" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 --log_output "$WORK/cc.log" "$WORK/log" > "$WORK/check" 2>&1 \
  || { cat "$WORK/check" >&2; fail "official checker rejected the packed run's log"; }
echo "ok: packed data, $samples sequences in 6 steps of 8 packs; log compliant"
