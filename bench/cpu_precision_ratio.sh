#!/bin/bash
# Ours bf16 against ours fp32 (build/cpu_step), dense full-length rows, alternating rounds: one JSON line per
# run (round, size, threads, precision, load average, cpu_step's JSON). The bf16/fp32 ratio is fp32's
# step_s_median over bf16's in the same round. Appends the run (every line, and the ratios per round) to
# bench/results/cpu_precision_ratio.json (bench/record_run.py).
#   bench/cpu_precision_ratio.sh [ROUNDS=2] [SEQ_LEN=512]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
seq_len=${2:-512}
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for round in $(seq "$rounds"); do
  for cfg in "base 2" "large 1"; do
    read -r size rows <<<"$cfg"
    for threads in 1 2; do
      for precision in fp32 bf16; do
        out=$(build/cpu_step --size "$size" --seq-len "$seq_len" --rows "$rows" --threads "$threads" --mode dense \
              --steps 2 --warmup 1 --precision "$precision")
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        echo "{\"round\":$round,\"size\":\"$size\",\"threads\":$threads,\"precision\":\"$precision\",\"load\":\"$load\",\"out\":$out}" |
          tee -a "$lines"
      done
    done
  done
done
python3 - "$lines" "$rounds" "$seq_len" bench <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
import record_run
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ratios = {}
for r in rows:
    if r["precision"] == "bf16":
        fp32 = next(x for x in rows if x["precision"] == "fp32" and (x["round"], x["size"], x["threads"]) ==
                    (r["round"], r["size"], r["threads"]))
        ratios.setdefault(f"{r['size']} {r['threads']} thread(s)", []).append(
            fp32["out"]["step_s_median"] / r["out"]["step_s_median"])
print(json.dumps({"bf16_over_fp32_by_round": ratios}), file=sys.stderr)
record_run.record("cpu_precision_ratio", {"bf16_over_fp32_by_round": ratios, "runs": rows},
                  {"seq_len": int(sys.argv[3]), "mode": "dense", "rounds": int(sys.argv[2])})
PY
