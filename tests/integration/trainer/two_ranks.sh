#!/usr/bin/env bash
# Data parallelism: 2 ranks x batch B (Gloo allreduce over a file rendezvous, the local launcher's
# environment) end with the same weights as 1 rank x batch 2B after k steps, for both clipping orders
# where they must agree (clip after the allreduce). Dropout is off (bert_config.json) because its
# stream includes the rank. Usage: two_ranks.sh TRAINER PYTHON
TRAINER=$1 PYTHON=$2
source "$(dirname "$0")/common.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
data_parallel_config "$WORK/one.yaml" 8 "threads: 1"
data_parallel_config "$WORK/two.yaml" 4 "threads: 1"
"$TRAINER" --config "$WORK/one.yaml" --benchmark 4 --save-weights "$WORK/one.h5" > "$WORK/one.out" 2>&1 \
  || { cat "$WORK/one.out" >&2; fail "1 rank run failed"; }
run_two_ranks "$WORK/two.yaml" "$WORK/two.h5"
cat "$WORK/one.out" "$WORK/two_0.out"
"$PYTHON" "$(dirname "$0")/compare_weights.py" "$WORK/two.h5" "$WORK/one.h5" 1e-4 || fail "2 x B and 1 x 2B weights differ"
# The comparison can fail: 1 rank x B (half the global batch) must NOT match.
"$TRAINER" --config "$WORK/two.yaml" --benchmark 4 --save-weights "$WORK/half.h5" > /dev/null 2>&1 || fail "half run failed"
if "$PYTHON" "$(dirname "$0")/compare_weights.py" "$WORK/half.h5" "$WORK/one.h5" 1e-4 > /dev/null 2>&1; then
  fail "1 x B matched 1 x 2B: the comparison cannot tell batches apart"
fi
echo "ok: 2 ranks x B == 1 rank x 2B after 5 steps (gradient accumulation 2)"
