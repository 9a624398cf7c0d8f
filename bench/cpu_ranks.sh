#!/usr/bin/env bash
# CPU data parallelism on one node: `trainer --benchmark N` as 1 rank with all T threads and global batch
# G, against R ranks with T/R threads each and batch G/R, every rank bound to its own cores (numactl
# --physcpubind; on a multi-socket node bind per NUMA node instead, as the harness's binding.unit
# socket does), Gloo allreduce over a file rendezvous. Alternated ROUNDS times; prints each run's
# seq/s, the medians and the ratio. Runtime: base/128, G 8, 3 steps: ~4 min on an idle 2-core machine.
# Usage: bench/cpu_ranks.sh TRAINER [SIZE=base] [SEQ=128] [GLOBAL_BATCH=8] [STEPS=3] [ROUNDS=3] [PRECISION=fp32]
set -euo pipefail
TRAINER=$1 SIZE=${2:-base} SEQ=${3:-128} G=${4:-8} STEPS=${5:-3} ROUNDS=${6:-3} PREC=${7:-fp32}
CPUS=$(nproc) R=2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
config() {  # FILE BATCH THREADS
  cat > "$1" <<YAML
model: {size: $SIZE}
data: {vocab_size: 30522, max_seq_length: $SEQ, max_predictions_per_seq: $((76 * SEQ / 512))}
batch: {batch_size: $2}
optimizer: {learning_rate: 1e-4, max_steps: 1000}
run: {seed: 1, threads: $3, precision: $PREC, rendezvous_dir: $WORK/rdv}
YAML
}
config "$WORK/one.yaml" "$G" "$CPUS"
config "$WORK/two.yaml" $((G / R)) $((CPUS / R))
seqs() { sed -n 's/.* \([0-9.e+]*\) seq\/s.*/\1/p' "$1"; }
one=() two=()
echo "cpu_ranks: $SIZE seq $SEQ global batch $G $PREC, $CPUS cpus, $STEPS steps, load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  numactl --physcpubind=0-$((CPUS - 1)) "$TRAINER" --config "$WORK/one.yaml" --benchmark "$STEPS" > "$WORK/one.out"
  one+=("$(seqs "$WORK/one.out")")
  rm -rf "$WORK/rdv" && mkdir -p "$WORK/rdv"
  per=$((CPUS / R)) pids=()
  for r in $(seq 0 $((R - 1))); do
    RANK=$r WORLD_SIZE=$R LOCAL_RANK=$r LOCAL_WORLD_SIZE=$R NODE_RANK=0 \
      numactl --physcpubind=$((r * per))-$((r * per + per - 1)) \
      "$TRAINER" --config "$WORK/two.yaml" --benchmark "$STEPS" > "$WORK/two_$r.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  two+=("$(seqs "$WORK/two_0.out")")
  echo "round $round: 1 rank x $CPUS threads ${one[-1]} seq/s, $R ranks x $per threads ${two[-1]} seq/s, load $(cut -d' ' -f1 /proc/loadavg)"
done
python3 - "${one[*]}" "${two[*]}" <<'PY'
import statistics, sys
one = [float(x) for x in sys.argv[1].split()]
two = [float(x) for x in sys.argv[2].split()]
m1, m2 = statistics.median(one), statistics.median(two)
print(f"median: 1 rank {m1:.4g} seq/s, 2 ranks {m2:.4g} seq/s, 2 ranks / 1 rank {m2 / m1:.3f}")
PY
