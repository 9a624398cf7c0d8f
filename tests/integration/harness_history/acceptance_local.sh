# Acceptance of the results database with the real trainer: two sets of systems/local.yaml (NEXP=1 each,
# run at the same time, so both end while the other writes) land in one database; history --json lists
# both with the system name; compare shows both times to train and a verdict; an unmet reference
# (--set references.time_to_train_min.target=0.0001) is reported as missed and --fail-on-reference
# exits 3; report.html exists, holds a chart and loads nothing from outside; a published set recorded
# with score --record compares with ours. Prints the wall time (a figure, not an assertion).
source "$(dirname "$0")/lib.sh" "$@"
cd "$SRC" || fail "no source dir $SRC"
start=$(date +%s.%N)
NEXP=1 LOGDIR=$WORK/s1 "$HARNESS" run systems/local.yaml > "$WORK/s1.out" 2>&1 &
p1=$!
NEXP=1 LOGDIR=$WORK/s2 "$HARNESS" run systems/local.yaml --set references.time_to_train_min.target=0.0001 \
  --fail-on-reference > "$WORK/s2.out" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
end=$(date +%s.%N)
cat "$WORK/s1.out" "$WORK/s2.out"
expect_rc 0 $r1 "set 1"
expect_rc 3 $r2 "set 2 (a reference it cannot meet, --fail-on-reference)"
expect_grep '^reference time_to_train_min: [0-9.]* min (.*); needs at most 0.000105 min (target 0.0001 +5%): MISSED$' "$WORK/s2.out"
expect_grep 'time_to_train_min.*MISSED' "$WORK/s2/summary.md"

"$HARNESS" history --json > "$WORK/history.json" || fail "history --json"
[ "$(json_get "$WORK/history.json" "[s['system_name'] for s in j['sets']]")" = "['local', 'local']" ] ||
  fail "history --json does not list both sets of local"
[ "$(json_get "$WORK/history.json" "sorted(s['output_dir'] for s in j['sets'])")" = "['$WORK/s1', '$WORK/s2']" ] ||
  fail "history --json: not these two sets"
"$HARNESS" compare "$WORK/s1" "$WORK/s2" > "$WORK/compare.txt" || fail "compare"
cat "$WORK/compare.txt"
expect_grep '^time to train \[min\] *A *1 *[0-9.]' "$WORK/compare.txt"
expect_grep '^ *B *1 *[0-9.]' "$WORK/compare.txt"
expect_grep '^  verdict: cannot tell: with 1 and 1 runs' "$WORK/compare.txt"

for s in s1 s2; do
  r=$WORK/$s/report.html
  [ -s "$r" ] || fail "$s: no report.html"
  grep -q '<svg class="chart" id="accuracy"' "$r" || fail "$s: report.html holds no accuracy chart"
  grep -qiE 'https?:|<link|<img|src=|url\(|@import' "$r" && fail "$s: report.html refers to something outside"
done

tar -xJf "$SRC/tests/fixtures/published/smc_h100_v4.0.tar.xz" -C "$WORK"
"$HARNESS" score --record "$WORK/smc-ac-power/results/1xSMC-H100-SXM-80GB/bert" > /dev/null 2> "$WORK/record.err" ||
  fail "score --record: $(cat "$WORK/record.err")"
id=$(sed -n 's/^recorded as set #\([0-9]*\) .*/\1/p' "$WORK/record.err")
"$HARNESS" compare "$WORK/s1" "$id" > "$WORK/compare_published.txt" || fail "compare with the published set"
cat "$WORK/compare_published.txt"
expect_grep '^ *B *10 *4.61747 *5.44947 *5.92735 *5.32987$' "$WORK/compare_published.txt"
expect_grep '^  verdict: cannot tell: with 1 and 10 runs' "$WORK/compare_published.txt"
python3 -c "print('acceptance: two sets of systems/local.yaml (NEXP=1, at once) took %.1f s on %s CPU(s)' % ($end - $start, $(nproc)))"
echo PASS
