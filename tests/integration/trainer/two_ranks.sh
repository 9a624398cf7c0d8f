#!/usr/bin/env bash
# Data parallelism: 2 ranks x batch B (a local launch over a file rendezvous) end with the same weights
# as 1 rank x batch 2B after k steps (clipping after the allreduce, where the two must agree), through
# shared memory (the default on one node: each rank updates its run of tensors, then they gather) and
# through Gloo TCP (every rank updates everything). In bf16 with clipping before the allreduce the two
# transports must give the same bits: a weight or bf16 copy not gathered would show. Also 4 ranks as
# two emulated nodes (updates sharded within each). Dropout is off
# (bert_config.json) because its stream includes the rank. Usage: two_ranks.sh TRAINER PYTHON
TRAINER=$1 PYTHON=$2
source "$(dirname "$0")/common.sh"
new_work
COMPARE="$(dirname "$0")/compare_weights.py"
data_parallel_config "$WORK/one.yaml" 8 "threads: 1"
data_parallel_config "$WORK/two.yaml" 4 "threads: 1"
"$TRAINER" --config "$WORK/one.yaml" --benchmark 4 --save-weights "$WORK/one.h5" > "$WORK/one.out" 2>&1 \
  || { cat "$WORK/one.out" >&2; fail "1 rank run failed"; }
for transport in shm tcp; do
  run_ranks 2 2 "$WORK/two.yaml" "$WORK/two_$transport.h5" $transport
  grep -q "(allreduce: $transport)" "$WORK/rank_0.out" || { cat "$WORK/rank_0.out" >&2; fail "rank 0 did not use $transport"; }
  sharded=no && grep -q "LAMB sharded over 2 ranks" "$WORK/rank_0.out" && sharded=yes
  [ "$sharded" = "$([ $transport = shm ] && echo yes || echo no)" ] || fail "$transport: LAMB sharded: $sharded"
  "$PYTHON" "$COMPARE" "$WORK/two_$transport.h5" "$WORK/one.h5" 1e-4 || fail "2 x B ($transport) and 1 x 2B weights differ"
done
cat "$WORK/one.out" "$WORK/rank_0.out"
# The comparison can fail: 1 rank x B (half the global batch) must NOT match.
"$TRAINER" --config "$WORK/two.yaml" --benchmark 4 --save-weights "$WORK/half.h5" > /dev/null 2>&1 || fail "half run failed"
if "$PYTHON" "$COMPARE" "$WORK/half.h5" "$WORK/one.h5" 1e-4 > /dev/null 2>&1; then
  fail "1 x B matched 1 x 2B: the comparison cannot tell batches apart"
fi
echo "ok: 2 ranks x B == 1 rank x 2B after 5 steps (gradient accumulation 2), shared memory and TCP"

# 4 ranks as 2 emulated nodes of 2 (NODE_RANK): shared memory within each node and TCP between them,
# LAMB sharded within each node (a part not gathered would leave rank 0 with stale weights); and TCP.
data_parallel_config "$WORK/four.yaml" 2 "threads: 1"
for transport in shm tcp; do
  run_ranks 4 2 "$WORK/four.yaml" "$WORK/four_$transport.h5" $transport
  want=$([ $transport = shm ] && echo "shm+tcp" || echo tcp)
  grep -q "(allreduce: $want)" "$WORK/rank_0.out" || { cat "$WORK/rank_0.out" >&2; fail "4 ranks: not $want"; }
  if [ $transport = shm ]; then
    grep -q "LAMB sharded over 2 ranks per node" "$WORK/rank_0.out" || { cat "$WORK/rank_0.out" >&2; fail "4 ranks: not sharded per node"; }
  fi
  "$PYTHON" "$COMPARE" "$WORK/four_$transport.h5" "$WORK/one.h5" 1e-4 || fail "4 x B/2 ($want) and 1 x 2B weights differ"
done
echo "ok: 4 ranks as 2 nodes x 2 == 1 rank x 2B: shared memory + TCP (sharded per node) and TCP"

data_parallel_config "$WORK/bf16.yaml" 4 "threads: 1, precision: bf16"
sed -i 's/clip_after_allreduce: true/clip_after_allreduce: false/' "$WORK/bf16.yaml"
if ! "$TRAINER" --config "$WORK/bf16.yaml" --benchmark 1 > "$WORK/probe.out" 2>&1; then
  grep -q "run.precision" "$WORK/probe.out" || { cat "$WORK/probe.out" >&2; fail "bf16 run failed"; }
  echo "bf16 part skipped: $(grep run.precision "$WORK/probe.out")"
  exit 0
fi
for transport in shm tcp; do run_ranks 2 2 "$WORK/bf16.yaml" "$WORK/bf16_$transport.h5" $transport; done
"$PYTHON" "$COMPARE" "$WORK/bf16_shm.h5" "$WORK/bf16_tcp.h5" 0 || fail "bf16: shared memory (sharded) and TCP weights differ"
echo "ok: bf16, 2 ranks: shared memory (sharded updates) == TCP (replicated), bit for bit"
