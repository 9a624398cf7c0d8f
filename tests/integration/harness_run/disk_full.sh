# The log cannot be written (file size limit standing in for a full disk): the experiment fails
# with the reason, the ranks are stopped, the partial log is kept, the next experiment still runs.
source "$(dirname "$0")/lib.sh" "$@"
out=$WORK/out
(
  ulimit -f 256  # KiB
  exec "$DRIVER" --out "$out" --nexp 2 --seeds 31,32 --grace 2 \
    -- "$FAKE" --config "$out/run.yaml" --step-ms 200 --flood-bytes 400000 --fault-seed 31
) > "$WORK/stdout" 2> "$WORK/stderr"
rc=$?
expect_rc 1 $rc "harness run with a full log"
[ "$(state_field "$out" 1 status)" = failed ] || fail "experiment 1 not failed"
state_field "$out" 1 message | grep -q "writing the log failed: File too large" || fail "reason not recorded"
log1=$(ls "$out"/logs/*_01.log)
size=$(stat -c %s "$log1")
[ "$size" -gt 100000 ] || fail "partial log not kept ($size bytes)"
expect_grep '"key": "cache_clear"' "$log1"
wall=$(state_field "$out" 1 wall_seconds)
"$PY" -c "import sys; sys.exit(0 if float('$wall') < 30 else 1)" || fail "ranks not stopped ($wall s)"
# --flood-bytes applies to every run: experiment 2 fails the same way; the set goes on and ends.
[ "$(state_field "$out" 2 status)" = failed ] || fail "experiment 2 not run"
expect_grep 'writing the log failed' "$out/summary.md"
echo PASS
