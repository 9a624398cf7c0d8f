#!/usr/bin/env bash
# Bad nodes on the real local Slurm (2 emulated nodes): a 2-node set whose ranks on node2 crash names
# node2 (rank -> node from the plan) in its status line, state.json (failed_node, nodes.node2) and the
# hint to exclude it; `--resume --exclude node2` is refused while the node count is fixed (nodes.count
# 2 in a 2-node job) and, with nodes.min_count 1 allowing fewer, re-makes the plan on node1 alone
# (srun --exclude=node2) and finishes the set. Usage: bad_node.sh HARNESS FAKE_TRAINER PYTHON
set -uo pipefail
harness=$1
fake=$2
py=$3
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$(dirname "$0")/require-cluster.sh"
scratch_work badnode
fail() {
  echo "FAIL: $*"
  show_tails 30 "$work"/*.out "$work"/*.err
  exit 1
}
out=$work/set
mkdir -p "$work/data"  # the preflight reads the data paths on each node
cat > "$work/bad.yaml" <<YAML
system: {name: BADNODE}
launcher: {type: srun, srun: {mpi: pmi2}}
topology: {synthetic: "pack:1 numa:1 core:2 pu:1"}
binding: {cpu: node}
nodes: {count: 2, ranks_per_node: 1}
trainer:
  kind: external
  argv: [$fake, --config, $out/run.yaml, --step-ms, "50", --crash-node, node2, --crash-after, "0"]
benchmark:
  data: {train_dir: $work/data, eval_dir: $work/data}
experiment: {nexp: 3, division: open, output_dir: $out, cache_clear: best-effort, seed_policy: "sequence:100"}
YAML
# 1. the set, stopped (SIGTERM) once its first experiment has failed
stop_after_first_failure "$harness" "$work/bad.yaml" "$work" -N2
grep -q "^harness exit 143$" "$work/rc1" || fail "the first part did not end by SIGTERM: $(cat "$work/rc1")"
grep -q "experiment 01/3 (seed 100): failed - rank 1 on node node2 failed with exit code 3" "$work/first.out" ||
  fail "the status line does not name node2"
"$py" - "$out/state.json" <<'PY' || fail "state.json's node record"
import json, sys
s = json.load(open(sys.argv[1]))
e = s["experiments"][0]
assert e["failed_rank"] == 1 and e["failed_node"] == "node2", e
n = s["nodes"]["node2"]
assert n["failed_first"] == [1] and not n["excluded"], n
assert [x["status"] for x in s["experiments"][1:]] in (["pending", "pending"], ["interrupted", "pending"]), s["experiments"]
PY
grep -q "^nodes: node2: ranks failed first in experiment(s) 1" "$work/first.out" || fail "no per-node line"
grep -q "^nodes: continue the set without it: harness run --resume $out --exclude node2$" "$work/first.out" ||
  fail "no --exclude hint"
grep -q '"key": "cache_clear", "value": true.*"node": "node2"' "$(ls "$out"/logs/*_01.log)" || fail "no per-node cache_clear line for node2"

# 2. the node count is fixed: refused with the reason, nothing run
timeout 120 salloc -N2 --exclusive "$harness" run --resume "$out" --exclude node2 > "$work/fixed.out" 2> "$work/fixed.err"
rc=$?
[ "$rc" = 2 ] || fail "--exclude with a fixed node count exited $rc, wanted 2"
grep -q "nodes.count: 2 node(s) but this Slurm job [0-9]* has 2 (node\[1-2\]) less the excluded node2 leaves 1: the benchmark's node count is fixed" \
  "$work/fixed.err" || fail "no reason for the refusal"
# the submit line that would get a spare node instead
"$harness" run --resume "$out" --exclude node2 --submit-command > "$work/submit.out" 2>&1 || fail "--submit-command with --exclude"
grep -qx -- "--exclude=node2" "$work/submit.out" || fail "sbatch has no --exclude=node2: $(cat "$work/submit.out")"

# 3. the YAML allows fewer nodes: the plan is re-made on node1 and the set finishes there
timeout 300 salloc -N2 --exclusive "$harness" run --resume "$out" --exclude node2 --set nodes.min_count=1 \
  > "$work/resume.out" 2> "$work/resume.err"
rc=$?
[ "$rc" = 1 ] || fail "the resumed set exited $rc, wanted 1 (experiment 1 stays failed)"
grep -q "warning: the set goes on with 1 of its 2 nodes" "$work/resume.err" || fail "no shrink warning"
grep -q "^launch:.* srun .*--nodes=1 .*--exclude=node2" "$out/commands.log" || fail "the launch has no --exclude=node2: $(grep ^launch "$out/commands.log")"
"$py" - "$out/state.json" "$out/plan.json" <<'PY' || fail "the resumed set's state"
import json, sys
s = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
assert [x["status"] for x in s["experiments"]] == ["failed", "converged", "converged"], s["experiments"]
assert [x["seed"] for x in s["experiments"]] == [100, 101, 102]
assert s["nodes"]["node2"]["excluded"] and s["nodes"]["node2"]["failed_first"] == [1], s["nodes"]
assert p["num_nodes"] == 1 and p["excluded"] == ["node2"] and p["nodes"][0]["hostname"] == "node1", p["nodes"]
PY
echo PASS
