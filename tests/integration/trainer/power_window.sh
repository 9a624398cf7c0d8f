#!/usr/bin/env bash
# run.power_window_s (MLPerf power: a run shorter than its window of >= 60 readings trains on after
# run_stop): a run that ends after 64 samples keeps training through the same steps until 6 s after
# run_start, logs nothing after its final line, and its log is the one it would be without the window.
# Usage: power_window.sh TRAINER BERT_DATA
TRAINER=$1 BERT_DATA=$2
source "$(dirname "$0")/common.sh"
new_work
SYNTH_SAMPLES=512 make_synth "$WORK/data"
MAX_SAMPLES=64 TARGET=0.999 write_config "$WORK/run.yaml" "$WORK/data" 5
sed -i 's/^run: {/run: {power_window_s: 6, /' "$WORK/run.yaml"
grep -q "power_window_s: 6" "$WORK/run.yaml" || fail "the run config has no power window"
"$TRAINER" --config "$WORK/run.yaml" > "$WORK/log" 2> "$WORK/err" || { cat "$WORK/err" >&2; fail "exit code $?"; }
window=$(sed -n 's/.*\[trainer\] power window: \([0-9]*\) more steps after run_stop, \([0-9.]*\) s after run_start.*/\1 \2/p' "$WORK/err")
[ -n "$window" ] || { cat "$WORK/err" >&2; fail "no power window line"; }
read -r steps secs <<< "$window"
[ "$steps" -ge 1 ] || fail "no step after run_stop"
awk -v s="$secs" 'BEGIN { exit !(s >= 6) }' || fail "the window ended $secs s after run_start, before 6 s"
tail -n 1 "$WORK/log" | grep -q '"key": "tracked_stats"' || fail "a line after the run's final tracked_stats"
[ "$(grep -c '"key": "run_stop"' "$WORK/log")" = 1 ] || fail "not one run_stop"
t0=$(sed -n 's/.*"time_ms": \([0-9]*\).*"key": "run_start".*/\1/p' "$WORK/log")
t1=$(sed -n 's/.*"time_ms": \([0-9]*\).*"key": "run_stop".*/\1/p' "$WORK/log")
echo "ok: run_stop $((t1 - t0)) ms after run_start; $steps more steps, training until $secs s after run_start"
