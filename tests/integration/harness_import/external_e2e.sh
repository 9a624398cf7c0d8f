#!/usr/bin/env bash
# End to end: an external trainer following NVIDIA's contract (run_and_time_local.sh: NVIDIA's variables
# and SEED from the environment, our trainer on the local recipe) runs NEXP=2 under `harness run`, bound
# by the launcher's own mechanism (binding.apply launcher): an Open MPI rankfile (CASE mpirun, this host)
# or srun --cpu-bind=mask_cpu (CASE srun, the local Slurm cluster, 2 nodes, pmix), or numactl (CASE local). Each rank's
# Cpus_allowed_list is compared with the plan's binding; both logs pass our checker and the official one,
# and each logs the seed the harness recorded for it.
# Usage: external_e2e.sh CASE HARNESS SOURCE_DIR PYTHON WORK
set -u
CASE=$1 HARNESS=$2 SRC=$3 PY=$4 WORK=$5
rm -rf "$WORK" && mkdir -p "$WORK"
BIN=$(cd "$(dirname "$HARNESS")" && pwd)
out=$WORK/out
fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/stdout "$WORK"/stderr; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }; done
  exit 1
}

# The local recipe's topology trick (systems/local-mpirun.yaml): two 1-PU sockets, so 2 ranks per node
# get CPU 0 and CPU 1. Usage: system_yaml BASE EXTRA_TRAINER_ENV EXTRA_NODES TRAINER_LINE TOP_LINE
system_yaml() {
  cat <<EOY
extends: $1
trainer:
  kind: external
  profile: nvidia-pytorch
  argv: [$SRC/tests/integration/harness_import/run_and_time_local.sh]
  env: {TRAINER: $BIN/trainer$2}
  $4
binding: {apply: launcher, unit: socket, mem: none}
nodes: {ranks_per_node: 2$3}
topology: {synthetic: "pack:2 numa:1 core:1 pu:1", compare: false}
benchmark: {max_steps: 4, eval_start_samples: 32, eval_interval_samples: 1024}
experiment: {nexp: 2, output_dir: $out}
$5
EOY
}

case $CASE in
  mpirun)
    system_yaml "$SRC/systems/local-mpirun.yaml" "" "" "" "" > "$WORK/system.yaml"
    timeout 600 "$HARNESS" run "$WORK/system.yaml" > "$WORK/stdout" 2> "$WORK/stderr"
    rc=$?
    grep -q -- '--rankfile' "$out/commands.log" || fail "the launch line has no --rankfile"
    check_affinity=1
    ;;
  local)  # numactl in front of the one rank, which may then run on CPU 0 only (the host has 0-1)
    system_yaml "$SRC/systems/local.yaml" "" "" "" "" | sed 's/nodes: {ranks_per_node: 2}/nodes: {ranks_per_node: 1}/' \
      > "$WORK/system.yaml"
    timeout 600 "$HARNESS" run "$WORK/system.yaml" > "$WORK/stdout" 2> "$WORK/stderr"
    rc=$?
    grep -q -- 'numactl' "$out/plan.json" || fail "no numactl in the plan"
    check_affinity=1
    ;;
  mpirun-bind)  # binding.apply bind: our bind wrapper in front of the external program
    system_yaml "$SRC/systems/local-mpirun.yaml" "" "" "" "" | sed 's/^binding: {apply: launcher,/binding: {apply: bind,/' \
      > "$WORK/system.yaml"
    timeout 600 "$HARNESS" run "$WORK/system.yaml" > "$WORK/stdout" 2> "$WORK/stderr"
    rc=$?
    grep -q -- "bind --plan .* -- $SRC/tests/integration/harness_import/run_and_time_local.sh" "$out/commands.log" ||
      fail "the launch line does not run the program through bind"
    check_affinity=1
    ;;
  mpirun-logfile)  # trainer.log.source file: rank 0's log is a file of the trainer's, not its stdout; a glob in
    # the implementation's /results that both runs' logs match: each run's log is the one it wrote
    system_yaml "$SRC/systems/local-mpirun.yaml" ', LOG_FILE_PATTERN: "trainer_logs/run{i}.log"' "" \
      'log: {source: file, file: "/results/trainer_logs/*.log"}' "" > "$WORK/system.yaml"
    timeout 600 "$HARNESS" run "$WORK/system.yaml" > "$WORK/stdout" 2> "$WORK/stderr"
    rc=$?
    [ -s "$out/trainer_logs/run2.log" ] || fail "the trainer did not write trainer_logs/run2.log"
    check_affinity=1
    ;;
  srun)
    # shellcheck source=tests/integration/slurm/require-cluster.sh
    source "$SRC/tests/integration/slurm/require-cluster.sh"
    # Memory too: both local ranks on NUMA node 0 (the only one here), --mem-bind=mask_mem:0x1,0x1
    system_yaml "$SRC/systems/local-slurm.yaml" "" ", count: 2" "" "launcher: {srun: {mpi: pmix}}" |
      sed 's/mem: none}/mem: map, mem_map: ["0", "0"]}/' > "$WORK/system.yaml"
    timeout 600 salloc -N2 --exclusive "$HARNESS" run "$WORK/system.yaml" > "$WORK/stdout" 2> "$WORK/stderr"
    rc=$?
    grep -q -- '--cpu-bind=mask_cpu:0x1,0x2' "$out/commands.log" || fail "the launch line has no --cpu-bind=mask_cpu:0x1,0x2"
    grep -q -- '--mpi=pmix' "$out/commands.log" || fail "the launch line has no --mpi=pmix"
    # The ranks' Cpus_allowed_list below is Slurm's doing: the local cluster runs task/affinity (a
    # cluster without it accepts the flags and binds nothing, and this test fails).
    grep -q -- '--mem-bind=mask_mem:0x1,0x1' "$out/commands.log" || fail "the launch line has no --mem-bind=mask_mem:0x1,0x1"
    check_affinity=1
    want_mem="bind 0"
    ;;
  *) fail "unknown case $CASE" ;;
esac
[ "$rc" = 0 ] || fail "harness run exited $rc"
[ "$(grep -c 'compliance PASS' "$WORK/stdout")" = 2 ] || fail "not both runs pass our checker"
ranks=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["world_size"])' "$out/plan.json")
for i in 1 2; do
  res=$(ls "$out"/results/*/bert/result_$((i - 1)).txt)
  "$PY" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 --log_output "$WORK/official_$i.log" "$res" \
    > "$WORK/official_$i.out" 2>&1 || fail "official checker rejects $res: $(tail -3 "$WORK/official_$i.out")"
  seed=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["experiments"][int(sys.argv[2])-1]["seed"])' "$out/state.json" $i)
  grep -q "\"key\": \"seed\", \"value\": $seed," "$res" || fail "run $i did not log the recorded seed $seed (SEED)"
  for r in $(seq 0 $((ranks - 1))); do
    f=$out/affinity/run${i}_rank$r
    [ -f "$f" ] || fail "rank $r of run $i did not start (no $f)"
    [ $check_affinity = 1 ] || continue
    want=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1])); r=int(sys.argv[2]); n=p["ranks_per_node"]; print(p["nodes"][r//n]["ranks"][r%n]["binding"]["cpus"])' "$out/plan.json" "$r")
    [ "$(cat "$f")" = "$want" ] || fail "rank $r of run $i may run on CPUs $(cat "$f"), the plan says $want"
    [ -z "${want_mem:-}" ] || [ "$(cat "$f.mem")" = "$want_mem" ] ||
      fail "rank $r of run $i has memory policy '$(cat "$f.mem" 2>/dev/null)', the plan's mask_mem:0x1 means '$want_mem'"
  done
done
echo PASS
