# SIGTERM during experiment 2 of 3: forwarded to the ranks (run_stop aborted in the log), logs kept,
# summary says interrupted, exit 143. --resume finishes 2 and 3 without redoing 1. SIGINT gives 130.
source "$(dirname "$0")/lib.sh" "$@"
out=$WORK/out
launch=("$FAKE" --config "$out/run.yaml" --step-ms 150)
"$DRIVER" --out "$out" --nexp 3 --ranks 2 --seeds 21,22,23 -- "${launch[@]}" > "$WORK/stdout" 2> "$WORK/stderr" &
signal_when_logged TERM $! "$out/logs/*_02.log" run_start
expect_rc 143 $? "harness run after SIGTERM"
log2=$(ls "$out"/logs/*_02.log)
expect_grep '"key":"run_stop".*"status":"aborted"' "$log2"
expect_grep 'The set was interrupted' "$out/summary.md"
[ "$(state_field "$out" 1 status)" = converged ] || fail "experiment 1 not converged"
[ "$(state_field "$out" 2 status)" = interrupted ] || fail "experiment 2 not marked interrupted"
[ "$(state_field "$out" 3 status)" = pending ] || fail "experiment 3 should not have started"
expect_grep 'harness run --resume' "$WORK/stdout"
sum1=$(sha256sum "$out/results/TESTSYS/bert/result_0.txt")
log1=$(ls "$out"/logs/*_01.log)
log1sum=$(sha256sum "$log1")

"$DRIVER" --out "$out" --resume "$out" --nexp 3 --ranks 2 -- "${launch[@]}" > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "harness run --resume"
grep -q 'experiment 01/3' "$WORK/stdout" && fail "resume redid experiment 1"
[ "$sum1" = "$(sha256sum "$out/results/TESTSYS/bert/result_0.txt")" ] || fail "result of experiment 1 changed"
[ "$log1sum" = "$(sha256sum "$log1")" ] || fail "log of experiment 1 changed"
for i in 2 3; do
  [ "$(state_field "$out" $i status)" = converged ] || fail "experiment $i not converged after resume"
  official_check "$out/results/TESTSYS/bert/result_$((i - 1)).txt" || fail "result $i rejected"
  grep -q '"key":"seed","value":2'$i "$out/results/TESTSYS/bert/result_$((i - 1)).txt" || fail "seed 2$i not used"
done
grep -q 'interrupted' "$out/summary.md" && fail "summary still says interrupted"
# The logs of one set share its datestamp.
[ "$(ls "$out"/logs/*.log | grep -v ranks | sed 's/_[0-9]*\.log$//' | sort -u | wc -l)" = 1 ] || fail "datestamps differ"

"$DRIVER" --out "$WORK/int" --nexp 1 -- "$FAKE" --config "$WORK/int/run.yaml" --step-ms 200 \
  > "$WORK/stdout" 2> "$WORK/stderr" &
signal_when_logged INT $! "$WORK/int/logs/*_01.log" run_start
expect_rc 130 $? "harness run after SIGINT"
echo PASS
