#!/usr/bin/env bash
# `trainer` with backend cuda on 2 GPUs (local launcher environment, file rendezvous): the NCCL unique
# id travels through the trainer's KV store, gradients are averaged by NCCL. 2 ranks x batch B must end
# much closer to 1 rank x 2B than 1 rank x B does (bf16 on both sides, so the check is relative: the
# distance to the 2-rank weights at most a third of the half-batch run's distance). Dropout off (its
# stream includes the rank), clipping after the allreduce, gradient accumulation 2, 5 steps (the
# first/last micro-batch graphs are captured and replayed).
# Without a CUDA device, or with fewer than 2: SKIPPED, exit 77. Usage: two_ranks.sh TRAINER PYTHON
TRAINER=$1 PYTHON=$2
source "$(dirname "$0")/../../integration/trainer/common.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/bert_config.json" <<'JSON'
{"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512,
 "vocab_size": 1024, "max_position_embeddings": 128, "type_vocab_size": 2, "hidden_act": "gelu",
 "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "initializer_range": 0.02}
JSON
config() {  # FILE BATCH
  cat > "$1" <<YAML
model: {size: custom, bert_config: $WORK/bert_config.json}
data: {vocab_size: 1024, max_seq_length: 128, max_predictions_per_seq: 20}
batch: {batch_size: $2, gradient_accumulation_steps: 2}
optimizer: {learning_rate: 0.01, max_steps: 100, warmup_steps: 2, clip_after_allreduce: true}
run: {seed: 5, backend: cuda, rendezvous_dir: $WORK/rdv}
YAML
}
config "$WORK/one.yaml" 16
config "$WORK/two.yaml" 8

rc=0
"$TRAINER" --config "$WORK/one.yaml" --benchmark 4 --save-weights "$WORK/one.h5" > "$WORK/one.out" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "no CUDA device" "$WORK/one.out"; then
  echo "SKIPPED: no CUDA device"
  exit 77
fi
[ "$rc" -eq 0 ] || { cat "$WORK/one.out" >&2; fail "1 rank run failed (exit $rc)"; }
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -lt 2 ]; then
  echo "SKIPPED: needs 2 CUDA devices (nvidia-smi lists ${gpus:-none})"
  exit 77
fi
mkdir -p "$WORK/rdv"
pids=()
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 NODE_RANK=0 \
    "$TRAINER" --config "$WORK/two.yaml" --benchmark 4 --save-weights "$WORK/two.h5" > "$WORK/two_$r.out" 2>&1 &
  pids+=($!)
done
for r in 0 1; do
  wait "${pids[$r]}" || { cat "$WORK/two_$r.out" >&2; fail "rank $r failed"; }
done
"$TRAINER" --config "$WORK/two.yaml" --benchmark 4 --save-weights "$WORK/half.h5" > "$WORK/half.out" 2>&1 \
  || { cat "$WORK/half.out" >&2; fail "half-batch run failed"; }
cat "$WORK/one.out" "$WORK/two_0.out" "$WORK/half.out"
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
echo "ok: 2 GPUs x B tracks 1 GPU x 2B (NCCL allreduce through the trainer)"
