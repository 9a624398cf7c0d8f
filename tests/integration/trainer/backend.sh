#!/usr/bin/env bash
# run.backend selection through the real binary: precision must suit the backend (cpu bf16 needs
# avx512_bf16/AMX-BF16; fp8 is cuda's), and `backend: cuda`
# on a machine without a CUDA device (or in a build without CUDA) is one clear user error naming
# run.backend, exit 2, before any rendezvous, in training and in --benchmark mode. A cpu run of the
# same config still trains (the shared loop drives the CPU backend). BERT_CPU_BLAS picks the fp32 BLAS.
# Usage: backend.sh TRAINER BERT_DATA HAVE_CUDA(0|1)
TRAINER=$1 BERT_DATA=$2 HAVE_CUDA=$3
source "$(dirname "$0")/common.sh"
new_work
SYNTH_SAMPLES=256 make_synth "$WORK/data"
D="$WORK/data"

# run_config FILE RUN_GROUP: the small synthetic run with its `run:` line replaced.
run_config() {
  write_config "$1" "$D" 1
  sed -i "s/^run: .*/run: $2/" "$1"
}

run_config "$WORK/cpu_bf16.yaml" "{seed: 1, threads: 1, backend: cpu, precision: bf16}"
# A CPU without bf16 matrix instructions (oneDNN capped at plain AVX-512, as on Ice Lake): one error
# naming run.precision, before anything runs.
ONEDNN_MAX_CPU_ISA=AVX512_CORE expect_user_error "cpu bf16 without avx512_bf16/AMX" \
  "cpu_bf16.yaml: run.precision: bf16 on run.backend: cpu needs a CPU with bf16 matrix instructions" \
  --config "$WORK/cpu_bf16.yaml"
# With them (this CPU's flags say so), the cpu backend trains with bf16 GEMMs.
if cpu_has_bf16; then
  sed -i 's/max_steps: [0-9]*/max_steps: 2/' "$WORK/cpu_bf16.yaml"
  "$TRAINER" --config "$WORK/cpu_bf16.yaml" > "$WORK/bf16.log" 2> "$WORK/bf16.err" || { cat "$WORK/bf16.err" >&2; fail "cpu bf16 run failed"; }
  grep -q '"key": "run_stop".*"status": "aborted"' "$WORK/bf16.log" || fail "cpu bf16 run: no run_stop aborted"
  echo "ok: cpu backend with bf16 trains"
else
  echo "note: no avx512_bf16/amx_bf16 on this CPU: the bf16 training run is not exercised"
fi

run_config "$WORK/cuda_fp32.yaml" "{seed: 1, threads: 1, backend: cuda, precision: fp32}"
expect_user_error "cuda backend with fp32" "cuda_fp32.yaml: run.precision: fp32 is not implemented on run.backend: cuda" --config "$WORK/cuda_fp32.yaml"
run_config "$WORK/cpu_fp8.yaml" "{seed: 1, threads: 1, backend: cpu, precision: fp8}"
expect_user_error "cpu backend with fp8" "cpu_fp8.yaml: run.precision: fp8 is not implemented on run.backend: cpu" --config "$WORK/cpu_fp8.yaml"

run_config "$WORK/cuda.yaml" "{seed: 1, threads: 1, backend: cuda}"
if [ "$HAVE_CUDA" = 1 ]; then
  if command -v nvidia-smi > /dev/null && nvidia-smi -L 2> /dev/null | grep -q '^GPU'; then
    echo "SKIPPED: a CUDA device is present (the gpu-labelled trainer_cuda_* tests cover backend cuda there)"
    exit 77
  fi
  needle="cuda.yaml: run.backend: cuda, but there is no CUDA device"
else
  needle="cuda.yaml: run.backend: cuda, but this trainer was built without CUDA"
fi
expect_user_error "backend cuda, training" "$needle" --config "$WORK/cuda.yaml"
expect_user_error "backend cuda, --benchmark" "$needle" --config "$WORK/cuda.yaml" --benchmark 2
# Each rank of a multi-rank launch fails on its own (no rendezvous is ever waited for).
rc=0
RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 NODE_RANK=0 BERT_DIST_TIMEOUT_S=600 \
  timeout 60 "$TRAINER" --config "$WORK/cuda.yaml" > /dev/null 2> "$WORK/rank1.err" || rc=$?
if [ "$rc" -ne 2 ] || ! grep -qF "$needle" "$WORK/rank1.err"; then
  cat "$WORK/rank1.err" >&2
  fail "rank 1 of 2: exit $rc"
fi
echo "ok: rank 1 of 2 with backend cuda -> exit 2 at once"

# The same config on the cpu backend trains (2 steps, stopped by max_steps: aborted, exit 0).
sed 's/backend: cuda/backend: cpu/; s/max_steps: [0-9]*/max_steps: 2/' "$WORK/cuda.yaml" > "$WORK/cpu.yaml"
"$TRAINER" --config "$WORK/cpu.yaml" > "$WORK/cpu.log" 2> "$WORK/cpu.err" || { cat "$WORK/cpu.err" >&2; fail "cpu run failed"; }
grep -q '"key": "run_stop".*"status": "aborted"' "$WORK/cpu.log" || fail "cpu run: no run_stop aborted"

# The fp32 BLAS: the one BERT_CPU_BLAS names is the one that runs (the benchmark line says which), and a
# bad value is one error naming the variable, before anything runs.
for blas in openblas:OpenBLAS mkl:MKL onednn:oneDNN; do
  BERT_CPU_BLAS=${blas%%:*} "$TRAINER" --config "$WORK/cpu.yaml" --benchmark 1 > "$WORK/blas.log" 2> "$WORK/blas.err" ||
    { cat "$WORK/blas.err" >&2; fail "BERT_CPU_BLAS=${blas%%:*}: benchmark failed"; }
  grep -qF "cpu fp32 (${blas#*:} sgemm)" "$WORK/blas.log" || { cat "$WORK/blas.log" >&2; fail "BERT_CPU_BLAS=${blas%%:*}: not ${blas#*:}"; }
  echo "ok: BERT_CPU_BLAS=${blas%%:*} runs ${blas#*:}"
done
BERT_CPU_BLAS=atlas expect_user_error "an unknown BLAS" \
  "environment variable BERT_CPU_BLAS='atlas': expected auto, mkl, onednn or openblas" --config "$WORK/cpu.yaml"
echo "all backend selection cases behave"
