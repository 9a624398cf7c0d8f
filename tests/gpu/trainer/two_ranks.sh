#!/usr/bin/env bash
# `trainer` with backend cuda as 2 ranks (local launcher environment, file rendezvous): on 2 GPUs the NCCL
# unique id travels through the trainer's KV store and NCCL averages the gradients; on one GPU both ranks
# share it and the host collective (shared memory) averages them (rank 0 says so). 2 ranks x batch B must end
# much closer to 1 rank x 2B than 1 rank x B does (bf16 on both sides, so the check is relative: the
# distance to the 2-rank weights at most a third of the half-batch run's distance). Dropout off (its
# stream includes the rank), clipping after the allreduce, gradient accumulation 2, 5 steps (the
# first/last micro-batch graphs are captured and replayed).
# Without a CUDA device: SKIPPED, exit 77. Usage: two_ranks.sh TRAINER PYTHON
TRAINER=$1 PYTHON=$2
source "$(dirname "$0")/../../integration/trainer/common.sh"
source "$(dirname "$0")/../skip_without_device.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
skip_without_cuda_device "$TRAINER"
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
data_parallel_config "$WORK/one.yaml" 16 "backend: cuda"
data_parallel_config "$WORK/two.yaml" 8 "backend: cuda"

"$TRAINER" --config "$WORK/one.yaml" --benchmark 4 --save-weights "$WORK/one.h5" > "$WORK/one.out" 2>&1 ||
  { cat "$WORK/one.out" >&2; fail "1 rank run failed"; }
run_ranks 2 2 "$WORK/two.yaml" "$WORK/two.h5"
"$TRAINER" --config "$WORK/two.yaml" --benchmark 4 --save-weights "$WORK/half.h5" > "$WORK/half.out" 2>&1 \
  || { cat "$WORK/half.out" >&2; fail "half-batch run failed"; }
cat "$WORK/one.out" "$WORK/rank_0.out" "$WORK/half.out"
if [ "${gpus:-0}" -lt 2 ]; then
  grep -q "ranks share a GPU: gradients averaged through the host collective" "$WORK/rank_0.out" ||
    fail "one GPU: rank 0 does not say the host collective averages the gradients"
fi
"$PYTHON" - "$WORK/one.h5" "$WORK/two.h5" "$WORK/half.h5" <<'PY' || fail "2 x B is not closer to 1 x 2B than 1 x B is"
import sys
import h5py
import numpy as np

def flat(path):
    with h5py.File(path, "r") as f:
        names = []
        f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        return np.concatenate([f[n][...].astype(np.float64).ravel() for n in sorted(names)])

one, two, half = (flat(p) for p in sys.argv[1:4])
d_two = np.linalg.norm(two - one) / np.linalg.norm(one)
d_half = np.linalg.norm(half - one) / np.linalg.norm(one)
print(f"relative distance to 1 x 2B: 2 x B {d_two:.3g}, 1 x B {d_half:.3g}")
sys.exit(0 if d_two < d_half / 3 else 1)
PY
if [ "${gpus:-0}" -lt 2 ]; then
  echo "ok: 2 ranks x B on one GPU track 1 rank x 2B (the host collective through the trainer)"
else
  echo "ok: 2 GPUs x B tracks 1 GPU x 2B (NCCL allreduce through the trainer)"
fi
