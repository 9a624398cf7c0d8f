# Experiment 2 of 3: rank 1 exits with status 3 while rank 2 hangs. The executor must stop the
# whole step quickly, mark the experiment failed with the rank and status, keep its log, and run
# experiment 3.
source "$(dirname "$0")/lib.sh" "$@"
out=$WORK/out
"$DRIVER" --out "$out" --nexp 3 --ranks 3 --seeds 11,12,13 --grace 5 \
  -- "$FAKE" --config "$out/run.yaml" --step-ms 100 --crash-rank 1 --crash-code 3 --crash-after 2 \
  --hang-rank 2 --fault-seed 12 > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 1 $? "harness run with a failed experiment"
[ "$(state_field "$out" 1 status)" = converged ] || fail "experiment 1 not converged"
[ "$(state_field "$out" 2 status)" = failed ] || fail "experiment 2 not marked failed"
[ "$(state_field "$out" 2 failed_rank)" = 1 ] || fail "failed rank not recorded"
[ "$(state_field "$out" 2 exit_status)" = "exit status 3" ] || fail "exit status not recorded"
[ "$(state_field "$out" 3 status)" = converged ] || fail "experiment 3 did not run after the failure"
wall=$(state_field "$out" 2 wall_seconds)
"$PY" -c "import sys; sys.exit(0 if float('$wall') < 30 else 1)" || fail "step took $wall s to stop"
expect_grep 'experiment 02/3 (seed 12): failed - rank 1 failed with exit status 3' "$WORK/stdout"
log2=$(ls "$out"/logs/*_02.log)
expect_grep '"key":"run_start"' "$log2"
# rank 0 got SIGTERM and logged its own end; nothing of the partial run is lost
expect_grep '"key":"run_stop".*"status":"aborted"' "$log2"
[ -f "$out/results/TESTSYS/bert/result_1.txt" ] || fail "failed run's MLLOG lines not kept as a result file"
expect_grep 'rank 1 failed with exit status 3' "$out/summary.md"
pgrep -f "fault-seed 12" > /dev/null && fail "ranks of the failed step still running"
echo "PASS (failed step stopped after $wall s)"
