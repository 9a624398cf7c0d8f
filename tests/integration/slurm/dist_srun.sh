#!/usr/bin/env bash
# dist-smoke (bert_dist bootstrap + KV exchange + the CPU collective: shared memory on one node, Gloo TCP
# across nodes, or both with BERT_DIST_CPU_TRANSPORT=shm) under the real local Slurm.
#   dist_srun.sh CASE /path/to/dist-smoke
# CASE: pmi2 | pmix | mismatch | nopmi | two-node | gres | killed-rank
# Exits 77 (SKIPPED) when the cluster is not up (not root).
set -uo pipefail
case_name=$1
smoke=$2
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$(dirname "$0")/require-cluster.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

fail() { echo "FAIL ($case_name): $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
run() {  # run srun args...: stdout/stderr to files, rc in $rc
  echo "+ $*"
  local t0=$SECONDS
  timeout 60 "$@" >"$out" 2>"$err"
  rc=$?
  echo "rc=$rc after $((SECONDS - t0)) s"
}
expect_ok_lines() {  # expect_ok_lines N PATTERN...: N lines ending in OK, each matching every PATTERN
  local n=$1 p
  shift
  [ "$rc" = 0 ] || fail "exit code $rc"
  [ "$(grep -c ' OK$' "$out")" = "$n" ] || fail "expected $n OK lines"
  for p in "$@"; do
    [ "$(grep -c -- "$p" "$out")" = "$n" ] || fail "expected $n lines with '$p'"
  done
  # every rank read the same 128-byte blob from rank 0
  [ "$(grep -o 'uid=[0-9a-f]*' "$out" | sort -u | wc -l)" = 1 ] || fail "ranks saw different uids"
}
expect_error() {  # expect_error TEXT: the step failed, no rank reported OK, stderr says TEXT
  [ "$rc" != 0 ] || fail "expected a failed step"
  ! grep -q ' OK$' "$out" || fail "a rank reported OK"
  grep -qF -- "$1" "$err" || fail "stderr lacks: $1"
}

case "$case_name" in
  pmi2)
    run srun --mpi=pmi2 -N1 -n2 "$smoke"
    expect_ok_lines 2 'launcher=srun pmi=pmi2 transport=shm' 'size=2' ;;
  pmix)
    run srun --mpi=pmix -N1 -n2 "$smoke"
    expect_ok_lines 2 'launcher=srun pmi=pmix transport=shm' 'size=2' ;;
  mismatch)
    run srun --mpi=pmi2 -N1 -n2 --export=ALL,BERT_DIST_PMI=pmix "$smoke"
    # shellcheck disable=SC2016  # literal backquotes in the expected message
    expect_error 'srun started this step with --mpi=pmi2 (SLURM_MPI_TYPE=pmi2): launch with `srun --mpi=pmix`' ;;
  nopmi)
    run srun --mpi=none -N1 -n2 "$smoke"
    # shellcheck disable=SC2016  # literal backquotes in the expected message
    expect_error 'launch with `srun --mpi=pmi2` or `srun --mpi=pmix`' ;;
  two-node)
    for mpi in pmi2 pmix; do
      run srun --mpi=$mpi -N2 --ntasks-per-node=2 "$smoke"
      expect_ok_lines 4 "pmi=$mpi transport=tcp" 'size=4' 'local=[01]/2' 'node1:.*node1:.*node2:.*node2:'
      if [ "$(grep -c 'node=0/2' "$out")" != 2 ] || [ "$(grep -c 'node=1/2' "$out")" != 2 ]; then
        fail "ranks not on both nodes"
      fi
    done
    # shared memory within each node, Gloo between the nodes' local ranks 0
    run srun --mpi=pmi2 -N2 --ntasks-per-node=2 --export=ALL,BERT_DIST_CPU_TRANSPORT=shm "$smoke"
    expect_ok_lines 4 'transport=shm+tcp' 'size=4'
    # uneven nodes (2 + 1 ranks): the sharded pair splits each node's copy among that node's ranks
    run srun --mpi=pmi2 -N2 -n3 --export=ALL,BERT_DIST_CPU_TRANSPORT=shm "$smoke"
    expect_ok_lines 3 'transport=shm+tcp' 'size=3'
    [ "$(grep -c 'local=0/1 node=1/2' "$out")" = 1 ] || fail "not 2 + 1 ranks on the two nodes" ;;
  gres)
    run srun --mpi=pmi2 -N2 --ntasks-per-node=1 --gres=gpu:8 "$smoke"
    expect_ok_lines 2 'transport=tcp .*gpus=0,1,2,3,4,5,6,7 OK'
    run srun --mpi=pmi2 -n1 --gres=gpu:9 true
    [ "$rc" != 0 ] || fail "--gres=gpu:9 on an 8-GPU node was accepted" ;;
  killed-rank)
    # rank 1 leaves after the rendezvous: the others must fail with a collective error (shared memory:
    # "rank 1 exited"), and srun must end
    run srun --mpi=pmi2 -N1 -n3 --kill-on-bad-exit=1 "$smoke" --exit-rank 1
    expect_error 'dist-smoke: rank 1 exits on purpose'
    [ "$rc" != 124 ] || fail "the step hung" ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "PASS ($case_name)"; cat "$out"
