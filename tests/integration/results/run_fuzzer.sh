#!/bin/sh
# Runs the libFuzzer target for SECONDS on seeds made by our writer; fails on any crash.
#   run_fuzzer.sh FUZZER MAKE_LOG SECONDS WORKDIR
set -eu
fuzzer=$1 make_log=$2 seconds=$3 work=$4
rm -rf "$work" && mkdir -p "$work/seeds" "$work/corpus"
for rs in 3.1.0 4.0.0 4.1.0 5.0.0; do
  for div in closed open; do
    { printf '\003'; "$make_log" --ruleset "$rs" --division "$div" --samples 300000; } > "$work/seeds/${rs}_$div.txt"
  done
done
"$fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus" "$work/seeds" > "$work/fuzz.log" 2>&1 || {
  tail -40 "$work/fuzz.log"
  exit 1
}
grep -E '^stat::number_of_executed_units|^Done ' "$work/fuzz.log"
