#!/usr/bin/env bash
# A whole set on NODES emulated Slurm nodes x RANKS ranks, plus one spare node: every rank first meets
# all the others (dist-smoke: the trainer's own bootstrap and CPU collectives, PMI2 through srun) and then
# logs as the fake trainer; per-node preflight and cache clear; rank 0's lines to the MLPerf log, the
# others' to .ranks.log. The ranks on one node crash in experiment 1 (the set is stopped there); the
# node is named, `--resume --exclude` is refused in a job without a spare, and in a job of NODES+1 nodes
# the set goes on without it on the spare and finishes.
#   emulated_set.sh HARNESS FAKE_TRAINER DIST_SMOKE PYTHON [NODES [RANKS]]      (NODES 1, RANKS 2)
# Needs a local cluster of at least NODES+1 nodes (ctest: the 2-node fixture). The 32-node run:
#   sudo SLURM_NODES=33 SLURM_CPUS=8 SLURM_FAKE_GPUS=0 SLURM_WAIT_S=180 slurm/local-cluster up
#   tests/integration/slurm/emulated_set.sh build/harness build/harness_run_fake_trainer build/dist-smoke python3 32 4
#   sudo slurm/local-cluster down
set -uo pipefail
harness=$1
fake=$2
smoke=$3
py=$4
nodes=${5:-1}
ranks=${6:-2}
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$(dirname "$0")/require-cluster.sh"
have=$(sinfo -h -N -o %N | sort -u | wc -l)
[ "$have" -gt "$nodes" ] || { echo "SKIPPED: $nodes nodes and a spare need $((nodes + 1)) nodes; the cluster has $have"; exit 77; }
scratch_work emulated
fail() {
  echo "FAIL: $*"
  show_tails 20 "$work"/*.out "$work"/*.err
  exit 1
}
world=$((nodes * ranks))
bad=node$(((nodes + 1) / 2))  # a node in the middle of the first allocation
out=$work/set
mkdir -p "$work/data"  # the preflight reads the data paths on each node
cat > "$work/set.yaml" <<YAML
system: {name: EMULATED}
launcher: {type: srun, srun: {mpi: pmi2}}
topology: {synthetic: "pack:1 numa:$ranks core:1 pu:1", compare: false}
binding: {cpu: none, mem: none, unit: numa}
nodes: {count: $nodes, ranks_per_node: $ranks}
trainer:
  kind: external
  argv: [sh, -c, "$smoke --count 4096 && exec $fake --config $out/run.yaml --step-ms 20 --crash-node $bad --crash-after 0 --fault-seed 100"]
benchmark:
  data: {train_dir: $work/data, eval_dir: $work/data}
experiment: {nexp: 3, division: open, output_dir: $out, cache_clear: best-effort, seed_policy: "sequence:100"}
YAML
t0=$(date +%s.%N)
# 1. experiment 1 fails on $bad; the set is stopped there (SIGTERM)
stop_after_first_failure "$harness" "$work/set.yaml" "$work" -N"$nodes" -w "node[1-$nodes]"
t1=$(date +%s.%N)
grep -q "^harness exit 143$" "$work/rc1" || fail "the first part did not end by SIGTERM: $(cat "$work/rc1")"
log1=$(ls "$out"/logs/*_01.log)
ranks1=$(ls "$out"/logs/*_01.ranks.log)
# the rendezvous: every rank saw all $world (rank 0 in the MLPerf log, the others in .ranks.log)
[ "$(grep -c "size=$world " "$log1")" = 1 ] || fail "rank 0's dist-smoke line is not in the MLPerf log"
[ "$(grep -c "size=$world " "$ranks1")" = $((world - 1)) ] || fail "not $((world - 1)) other ranks met $world: $(grep -c "size=$world " "$ranks1")"
grep -q "^$((world - 1)): " "$ranks1" || fail "no line of rank $((world - 1)) in .ranks.log"
grep -q "^0: " "$ranks1" && fail "rank 0's lines went to .ranks.log"
# per node: preflight and cache clear
for n in $(seq 1 "$nodes"); do
  grep -q "\"key\": \"cache_clear\", \"value\": true.*\"node\": \"node$n\"" "$log1" || fail "no cache_clear line for node$n"
  grep -q "^preflight: note: node$n: " "$work/first.out" || fail "no preflight answer from node$n"
done
grep -q "experiment 01/3 (seed 100): failed - rank [0-9]* on node $bad failed" "$work/first.out" || fail "the failure does not name $bad"
grep -q "^nodes: continue the set without it: harness run --resume $out --exclude $bad$" "$work/first.out" || fail "no --exclude hint"

# 2. no spare in the job: refused with the reason
timeout 300 salloc -N"$nodes" -w "node[1-$nodes]" --exclusive "$harness" run --resume "$out" --exclude "$bad" \
  > "$work/fixed.out" 2> "$work/fixed.err"
[ $? = 2 ] || fail "--exclude without a spare node did not exit 2"
grep -q "the benchmark's node count is fixed" "$work/fixed.err" || fail "no reason given"

# 3. a job with the spare: the plan is re-made without $bad, the set finishes
timeout 900 salloc -N$((nodes + 1)) -w "node[1-$((nodes + 1))]" --exclusive "$harness" run --resume "$out" --exclude "$bad" \
  > "$work/resume.out" 2> "$work/resume.err"
rc=$?
t2=$(date +%s.%N)
[ "$rc" = 1 ] || fail "the resumed set exited $rc, wanted 1 (experiment 1 stays failed)"
"$py" - "$out/state.json" "$out/plan.json" "$bad" "$nodes" "$world" <<'PY' || fail "the resumed set's state"
import json, sys
s, p, bad, nodes, world = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
assert [x["status"] for x in s["experiments"]] == ["failed", "converged", "converged"], s["experiments"]
assert s["experiments"][0]["failed_node"] == bad
assert s["nodes"][bad]["excluded"] and s["nodes"][bad]["failed_first"] == [1], s["nodes"]
hosts = [n["hostname"] for n in p["nodes"]]
assert p["world_size"] == world and bad not in hosts and f"node{nodes + 1}" in hosts, hosts
PY
log3=$(ls "$out"/logs/*_03.log)
[ "$(grep -c "size=$world " "$(ls "$out"/logs/*_03.ranks.log)")" = $((world - 1)) ] || fail "experiment 3: not every rank met $world"
grep -q "\"key\": \"cache_clear\", \"value\": true.*\"node\": \"node$((nodes + 1))\"" "$log3" || fail "the spare's cache was not cleared"
grep -q "\"node\": \"$bad\"" "$log3" && fail "$bad is still in experiment 3's cache clear"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$nodes" -v w="$world" \
  'BEGIN { printf "PASS: %d nodes x %d ranks: failed set and stop %.1f s, resumed without the node %.1f s, total %.1f s\n", n, w / n, b - a, c - b, c - a }'
