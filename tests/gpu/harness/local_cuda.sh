#!/usr/bin/env bash
# `harness run` with systems/local_cuda.yaml on a GPU machine: the local recipe (tiny BERT on synthetic
# data made by bert-data synth, target 0.5) through trainer-cuda on one GPU, local launcher, NEXP=2,
# bind, the executor's compliance check and score. Passes when both runs converge, ours and the
# official MLPerf checker (training 5.0.0) accept both result files and a score is printed. Runs from
# a build tree or from scripts/bench-gpu's stage (an installed tree: no project dependency, no Slurm).
# Without a CUDA device: "SKIPPED: no CUDA device", exit 77.
# Usage: local_cuda.sh HARNESS SYSTEM_FILE PYTHON   (trainer-cuda, bind, bert-data: next to HARNESS)
HARNESS=$1 SYSTEM=$2 PYTHON=$3
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/../skip_without_device.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
skip_without_cuda_device "$(dirname "$HARNESS")/trainer-cuda"

out=$WORK/out
args=("$SYSTEM")
# hwloc finds the GPU among the PCI devices of the live topology (Linux sysfs). Where the machine shows
# it none (no PCI information at all), the GPU is placed on NUMA node 0, as a system file would.
if ! LOGDIR=$out "$HARNESS" run "${args[@]}" --dry-run > "$WORK/dry_run" 2>&1; then
  if grep -q "has 0 GPU(s)" "$WORK/dry_run" && nvidia-smi -L > /dev/null 2>&1; then
    echo "note: the live topology shows no GPU ($(tail -n 1 "$WORK/dry_run")): topology.gpu_numa_map=[0]"
    args+=(--set "topology.gpu_numa_map=[0]")
    LOGDIR=$out "$HARNESS" run "${args[@]}" --dry-run > "$WORK/dry_run" 2>&1 || { cat "$WORK/dry_run" >&2; fail "dry-run"; }
  else
    cat "$WORK/dry_run" >&2
    fail "harness run ${args[*]} --dry-run"
  fi
fi
grep -q '^trainer .*trainer-cuda' "$WORK/dry_run" || { cat "$WORK/dry_run" >&2; fail "the plan does not run trainer-cuda"; }
start=$(date +%s.%N)
rc=0
LOGDIR=$out "$HARNESS" run "${args[@]}" > "$WORK/stdout" 2> "$WORK/stderr" || rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$WORK/stdout"
[ "$rc" -eq 0 ] || { tail -30 "$WORK/stderr" >&2; fail "harness run ${args[*]}: exit $rc"; }
res_dir=$(ls -d "$out"/results/*/bert)
for i in 0 1; do
  res=$res_dir/result_$i.txt
  [ -f "$res" ] || fail "missing $res"
  grep -q '"key": "run_stop".*"status": "success"' "$res" || fail "run $i did not reach the target"
  "$PYTHON" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 --log_output "$WORK/cc_$i.log" "$res" \
    > "$WORK/check_$i" 2>&1 || { cat "$WORK/check_$i" >&2; fail "official compliance checker rejected result_$i.txt"; }
  grep -q SUCCESS "$WORK/check_$i" || { cat "$WORK/check_$i" >&2; fail "official checker did not report success on result_$i.txt"; }
done
[ "$(grep -c 'converged, time to train [0-9.]* min, samples [0-9][0-9]*.*compliance PASS' "$WORK/stdout")" = 2 ] ||
  fail "expected two converged runs passing our checker"
grep -q '^score: [0-9.]* min' "$WORK/stdout" || fail "no score printed"
echo "harness run $SYSTEM: 2 runs converged through trainer-cuda, both logs accepted by the official checker, ${secs}s wall"
