# local_ranks: start a job's ranks on this machine as a launcher does, for the tests and benches that
# need several ranks without Slurm (sourced; bash).
# shellcheck shell=bash

# local_ranks WORLD PER_NODE CPUS_PER_RANK OUT_PREFIX COMMAND [ARGS...]
# Starts WORLD copies of COMMAND with the variables our trainer and dist-smoke read from a launcher
# (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK; PER_NODE ranks per emulated node), rank r's
# stdout and stderr in OUT_PREFIX<r>.out, and waits for all of them. CPUS_PER_RANK > 0 binds each rank to
# its own block of that many CPUs (numactl --physcpubind; blocks wrap around the machine's CPUs). Any
# other variable (BERT_DIST_CPU_TRANSPORT, ...) goes in front of the call. Returns 1 after printing the
# output of every rank that failed (the first in rank order is often only the one left waiting).
local_ranks() {
  local world=$1 per=$2 bind=$3 out=$4
  shift 4
  local pids=() r failed=()
  for r in $(seq 0 $((world - 1))); do
    local pin=()
    if [ "$bind" -gt 0 ]; then
      local first=$(((r * bind) % $(nproc)))
      pin=(numactl "--physcpubind=$first-$((first + bind - 1))")
    fi
    RANK=$r WORLD_SIZE=$world LOCAL_RANK=$((r % per)) LOCAL_WORLD_SIZE=$per NODE_RANK=$((r / per)) \
      "${pin[@]}" "$@" > "$out$r.out" 2>&1 &
    pids+=($!)
  done
  for r in $(seq 0 $((world - 1))); do
    wait "${pids[$r]}" || failed+=("$r")
  done
  [ ${#failed[@]} -eq 0 ] && return 0
  for r in "${failed[@]}"; do
    echo "--- rank $r of $world:" >&2
    cat "$out$r.out" >&2
  done
  echo "local_ranks: rank(s) ${failed[*]} of $world failed: $*" >&2
  return 1
}
