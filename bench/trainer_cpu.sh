#!/usr/bin/env bash
# CPU training throughput (seq/s) of the trainer for tiny and base BERT at seq 128 and 512:
# `trainer --benchmark N` on in-memory full-length batches (fwd + bwd + LAMB, dropout on).
# Usage: bench/trainer_cpu.sh TRAINER [THREADS]   (build target: bench_trainer_cpu)
set -euo pipefail
TRAINER=$1
THREADS=${2:-$(nproc)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "trainer CPU benchmark on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), threads $THREADS, load $(cut -d' ' -f1-3 /proc/loadavg)"
# size seq batch steps vocab
while read -r size seq batch steps vocab; do
  cat > "$WORK/run.yaml" <<YAML
model: {size: $size}
data: {vocab_size: $vocab, max_seq_length: $seq, max_predictions_per_seq: $((76 * seq / 512))}
batch: {batch_size: $batch}
optimizer: {learning_rate: 1e-4, max_steps: 1000}
run: {seed: 1, threads: $THREADS}
YAML
  "$TRAINER" --config "$WORK/run.yaml" --benchmark "$steps"
done <<'CASES'
tiny 128 16 10 30522
tiny 512 4 10 30522
base 128 4 3 30522
base 512 1 2 30522
CASES
