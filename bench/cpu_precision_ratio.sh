#!/bin/bash
# Ours bf16 against ours fp32 (build/cpu_step), dense full-length rows, alternating rounds: one JSON line per
# run (round, size, threads, precision, load average, cpu_step's JSON). The bf16/fp32 ratio is fp32's
# step_s_median over bf16's in the same round.
#   bench/cpu_precision_ratio.sh [ROUNDS=2] [SEQ_LEN=512] > results.jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
seq_len=${2:-512}
for round in $(seq "$rounds"); do
  for cfg in "base 2" "large 1"; do
    read -r size rows <<<"$cfg"
    for threads in 1 2; do
      for precision in fp32 bf16; do
        out=$(build/cpu_step --size "$size" --seq-len "$seq_len" --rows "$rows" --threads "$threads" --mode dense \
              --steps 2 --warmup 1 --precision "$precision")
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        echo "{\"round\":$round,\"size\":\"$size\",\"threads\":$threads,\"precision\":\"$precision\",\"load\":\"$load\",\"out\":$out}"
      done
    done
  done
done
