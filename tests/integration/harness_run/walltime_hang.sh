# A hung rank that ignores SIGTERM: the per-run walltime ends the step, SIGKILL follows the grace.
source "$(dirname "$0")/lib.sh" "$@"
out=$WORK/out
"$DRIVER" --out "$out" --nexp 1 --ranks 2 --walltime 0:02 --grace 1 \
  -- "$FAKE" --config "$out/run.yaml" --step-ms 20 --hang-rank 0 --ignore-term > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 1 $? "harness run with a hung rank"
[ "$(state_field "$out" 1 status)" = failed ] || fail "experiment not failed"
state_field "$out" 1 message | grep -q "walltime of 2 s exceeded" || fail "walltime reason missing"
wall=$(state_field "$out" 1 wall_seconds)
"$PY" -c "import sys; sys.exit(0 if 2 <= float('$wall') < 10 else 1)" || fail "step took $wall s"
pgrep -f "$out/run.yaml" > /dev/null && fail "hung rank survived"
echo "PASS ($wall s)"
