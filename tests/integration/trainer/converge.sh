#!/usr/bin/env bash
# Convergence + compliance: tiny BERT on `bert-data synth` data reaches the target for each seed
# (run_stop success before max_steps), and every log passes the official MLPerf checker (training 5.0.0,
# open division). CMake runs it with the data shape, recipe and target of systems/local.yaml (vocab 1024,
# seq 128, topic skew 0.8, lr 1e-2, target 0.5; see trainer/README.md "Convergence"). TRAIN_PRECISION=bf16:
# the cpu backend's bf16 GEMMs (SKIPPED, 77, on a CPU without avx512_bf16/AMX-BF16).
# Usage: converge.sh TRAINER BERT_DATA PYTHON SEED...
TRAINER=$1 BERT_DATA=$2 PYTHON=$3
shift 3
source "$(dirname "$0")/common.sh"
skip_bf16_without_cpu_support
new_work
make_synth "$WORK/data"
for seed in "$@"; do
  write_config "$WORK/run_$seed.yaml" "$WORK/data" "$seed"
  log="$WORK/result_$seed.txt"
  cache_clear_line > "$log"
  start=$(date +%s.%N)
  "$TRAINER" --config "$WORK/run_$seed.yaml" >> "$log" 2> "$WORK/stderr_$seed" || { cat "$WORK/stderr_$seed" >&2; fail "seed $seed: trainer exit $?"; }
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  status=$(grep '"key": "run_stop"' "$log" | sed 's/.*"status": "\([a-z]*\)".*/\1/')
  samples=$(grep '"key": "train_samples"' "$log" | sed 's/.*"value": \([0-9]*\).*/\1/')
  acc=$(grep '"key": "eval_accuracy"' "$log" | tail -1 | sed 's/.*"value": \([0-9.]*\).*/\1/')
  echo "seed $seed: status $status, $samples samples, last accuracy $acc, ${secs}s"
  [ "$status" = success ] || { tail -3 "$WORK/stderr_$seed" >&2; fail "seed $seed did not reach the target"; }
  "$PYTHON" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 --log_output "$WORK/cc_$seed.log" "$log" > "$WORK/check_$seed" 2>&1 \
    || { cat "$WORK/check_$seed" >&2; fail "seed $seed: official compliance checker rejected the log"; }
  grep -q SUCCESS "$WORK/check_$seed" || { cat "$WORK/check_$seed" >&2; fail "seed $seed: checker did not report success"; }
done
echo "converged and compliant for seeds: $*"
