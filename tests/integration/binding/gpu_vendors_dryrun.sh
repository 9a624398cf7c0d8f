#!/usr/bin/env bash
# `harness run X.yaml --dry-run` on a real 8x AMD MI50 node (tests/fixtures/binding/mpibind-epyc-corona-p2.xml):
# its 8 GPUs are planned, and a topology.gpu_numa_map longer than the GPUs found stops the plan at the YAML
# field with exit 2. Usage: gpu_vendors_dryrun.sh HARNESS SOURCE_DIR
set -uo pipefail
HARNESS=$1
SRC=$2
source "$(dirname "$0")/checks.sh"
AMD=$SRC/tests/fixtures/binding/mpibind-epyc-corona-p2.xml
XEON=$SRC/systems/topologies/xeon_2s.xml

system() {  # file xml gpu_numa_map gpus_per_node
  printf 'nodes: {count: 1, gpus_per_node: %s}\ntopology:\n  xml: %s\n' "$4" "$2" > "$1"
  [ -n "$3" ] && printf '  gpu_numa_map: %s\n' "$3" >> "$1"
  printf 'benchmark: {data: {train_dir: /t, eval_dir: /e}}\nexperiment: {output_dir: %s/out, division: open}\n' "$WORK" >> "$1"
}

expect_error() {  # name yaml expected-stderr
  local out err rc
  out=$(cd "$WORK" && "$HARNESS" run "$2" --dry-run 2> "$WORK/err")
  rc=$?
  err=$(cat "$WORK/err")
  [ "$rc" == 2 ] || fail "$1: exit code $rc, expected 2"
  [ -z "$out" ] || fail "$1: a failed dry-run printed a plan: $out"
  [ "$err" == "$3" ] || fail "$1: stderr
  got:      $err
  expected: $3"
}

# 1. the AMD node plans its 8 GPUs, in bus order, each rank on its GPU's socket
system "$WORK/amd.yaml" "$AMD" "" 8
out=$(cd "$WORK" && "$HARNESS" run "$WORK/amd.yaml" --dry-run 2>&1) || fail "AMD node dry-run failed: $out"
grep -q "8 GPU(s)" <<< "$out" || fail "AMD node: 8 GPUs not found: $out"
grep -Eq "^ +0 +0 +0  0000:03:00.0 +0  0-5,48-53 " <<< "$out" || fail "AMD node: rank 0 not on GPU 0000:03:00.0, CPUs 0-5,48-53: $out"
grep -Eq "^ +7 +7 +7  0000:e3:00.0 +1  42-47,90-95 " <<< "$out" || fail "AMD node: rank 7 not on GPU 0000:e3:00.0: $out"

# 2. a 9th map entry on the 8-GPU node
system "$WORK/amd9.yaml" "$AMD" "[0, 0, 0, 0, 1, 1, 1, 1, 1]" 8
expect_error "9 entries for 8 GPUs" "$WORK/amd9.yaml" \
  "$WORK/amd9.yaml:4:17: topology.gpu_numa_map: has 9 entries but $AMD has only 8 GPUs (a topology that lists its PCI devices defines its GPUs; the map cannot add any); not counted as GPUs: 1 x [1a03:2000] class 0300 (0000:65:00.0): PCI vendor 1a03 is not a GPU vendor"

# 3. 8 entries on a CPU node whose PCI devices show no GPU
system "$WORK/xeon.yaml" "$XEON" "[0, 0, 0, 0, 1, 1, 1, 1]" 8
expect_error "8 entries for no GPU" "$WORK/xeon.yaml" \
  "$WORK/xeon.yaml:4:17: topology.gpu_numa_map: has 8 entries but $XEON has no GPU (a topology that lists its PCI devices defines its GPUs; the map cannot add any); not counted as GPUs: 1 x [1a03:2000] class 0300 (0000:03:00.0): PCI vendor 1a03 is not a GPU vendor"

finish "all GPU vendor dry-run checks passed"
