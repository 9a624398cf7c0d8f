#!/usr/bin/env bash
# Tiny BERT with 2 ranks through mpirun (systems/local-mpirun.yaml: OMPI_COMM_WORLD_* + PMIx
# bootstrap, Gloo allreduce) must train exactly as the harness local launcher with 2 ranks (RANK/
# WORLD_SIZE + file rendezvous): same seed, same eval accuracies at every eval, same final loss.
#   trainer_mpirun.sh HARNESS
set -uo pipefail
harness=$1
repo=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d /tmp/bert-mpirun-XXXXXX)
trap 'rm -rf "$work"' EXIT
common=(--set benchmark.max_steps=12 --set benchmark.warmup_steps=2 --set benchmark.eval_start_samples=64 --set benchmark.eval_interval_samples=64
        --set benchmark.num_eval_examples=128 --set experiment.seed_policy=fixed:7 --set experiment.cache_clear=off)
run() {  # run NAME YAML [options]: NEXP=1 into $work/NAME, prints the eval accuracies of the run
  local name=$1 yaml=$2
  shift 2
  NEXP=1 LOGDIR=$work/$name timeout 300 "$harness" run "$repo/systems/$yaml" "${common[@]}" "$@" >"$work/$name.txt" 2>&1 ||
    { cat "$work/$name.txt"; echo "FAIL: harness run $yaml"; exit 1; }
  grep -h '"key": "eval_accuracy"' "$work/$name"/logs/*_01.log | sed 's/.*"value": \([^,]*\),.*/\1/' | tr '\n' ' '
  # and the training loss (EMA) rank 0 reports at the last step
  grep -ho '\[trainer\] step 12 .*loss [0-9.]*' "$work/$name"/logs/*_01*.log | head -1 | grep -o 'loss [0-9.]*'
}
mpi=$(run mpirun local-mpirun.yaml)
loc=$(run local local.yaml --set nodes.ranks_per_node=2 --set 'topology.synthetic=pack:2 numa:1 core:1 pu:1' --set topology.compare=false \
      --set binding.mem=none)
echo "mpirun: $mpi"
echo "local:  $loc"
grep -q 'mpirun -np 2' "$work/mpirun/commands.log" || { echo "FAIL: not launched with mpirun -np 2"; exit 1; }
[ "$(wc -w <<<"$mpi")" -ge 4 ] || { echo "FAIL: expected evals and a final loss under mpirun"; exit 1; }
[ "$mpi" = "$loc" ] || { echo "FAIL: mpirun and the local launcher disagree"; exit 1; }
echo PASS
