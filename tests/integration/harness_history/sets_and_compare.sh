# Two sets ending at the same time land in one results database; history lists them; compare calls the
# difference between a fast and a slow set beyond their noise; a missed reference is reported (console,
# summary.md, report.html, history) and --fail-on-reference exits 3; --resume replaces the set's record;
# eight folders recorded at once are all recorded. The stand-in trainer keeps each set to seconds.
source "$(dirname "$0")/lib.sh" "$@"
fast=$(fast_system fastA "$WORK/a" --step-ms 60)
slow=$(fast_system fastB "$WORK/b" --step-ms 150)
"$HARNESS" run "$fast" > "$WORK/a.out" 2>&1 &
pa=$!
"$HARNESS" run "$slow" > "$WORK/b.out" 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
expect_rc 0 $ra "set A"
expect_rc 0 $rb "set B"
expect_grep '^results database: set #[12] in' "$WORK/a.out"
expect_grep '^results database: set #[12] in' "$WORK/b.out"

"$HARNESS" history --json > "$WORK/history.json" || fail "history --json"
[ "$(json_get "$WORK/history.json" "len(j['sets'])")" = 2 ] || fail "history does not list both sets"
[ "$(json_get "$WORK/history.json" "sorted(s['system_name'] for s in j['sets'])")" = "['fastA', 'fastB']" ] ||
  fail "history lacks the system names"
[ "$(json_get "$WORK/history.json" "[len(s['runs']) for s in j['sets']]")" = "[5, 5]" ] || fail "not every run recorded"
"$HARNESS" history --system fastA > "$WORK/history.txt" || fail "history --system"
grep -q fastB "$WORK/history.txt" && fail "history --system fastA lists fastB"
expect_grep fastA "$WORK/history.txt"

ida=$(json_get "$WORK/history.json" "[s['id'] for s in j['sets'] if s['system_name']=='fastA'][0]")
idb=$(json_get "$WORK/history.json" "[s['id'] for s in j['sets'] if s['system_name']=='fastB'][0]")
"$HARNESS" compare "$ida" "$idb" > "$WORK/compare.txt" || fail "compare by ids"
cat "$WORK/compare.txt"
expect_grep '^time to train \[min\] *A *5 ' "$WORK/compare.txt"
expect_grep '^ *B *5 ' "$WORK/compare.txt"
# U = 0 (every B slower): the exact p (2/252 = 0.00794) when no two runs tie, else the normal approximation's
# with its tie correction, whose value depends on which runs took the same milliseconds; either is below 0.05
# (the p values themselves are checked against scipy in harness_history_mann_whitney_vs_scipy).
expect_grep 'verdict: B is [0-9.]*% higher (worse) than A, beyond the run-to-run noise (Mann-Whitney U = 0, p = [0-9.e-]*, \(exact\|asymptotic\), 5 and 5 runs)' \
  "$WORK/compare.txt"
p_ttt=$(sed -n 's/.*higher (worse) than A, beyond the run-to-run noise (Mann-Whitney U = 0, p = \([0-9.e-]*\),.*/\1/p' "$WORK/compare.txt" | head -1)
awk -v p="$p_ttt" 'BEGIN { exit !(p > 0 && p < 0.05) }' || fail "time to train: p = $p_ttt, not below 0.05"
expect_grep '^method: .*Mann-Whitney U test' "$WORK/compare.txt"
"$HARNESS" compare "$WORK/a" "$WORK/b/results/fastB/bert" --json > "$WORK/compare.json" || fail "compare by folders"
[ "$(json_get "$WORK/compare.json" "j['figures'][0]['outcome']")" = worse ] || fail "compare by folders: no verdict"

# References: one missed, one met; the set still exits 0 without --fail-on-reference, 3 with it.
refs=(--set references.time_to_train_min.target=0.0001 --set references.samples_per_s.target=1)
"$HARNESS" run "$fast" --set experiment.output_dir="$WORK/c" "${refs[@]}" > "$WORK/c.out" 2>&1
expect_rc 0 $? "a set missing a reference"
"$HARNESS" run "$fast" --set experiment.output_dir="$WORK/d" "${refs[@]}" --fail-on-reference > "$WORK/stdout" 2>&1
expect_rc 3 $? "--fail-on-reference with a missed reference"
expect_grep '^reference time_to_train_min: .*; needs at most 0.000105 min (target 0.0001 +5%): MISSED$' "$WORK/stdout"
expect_grep '^reference samples_per_s: .*: met$' "$WORK/stdout"
expect_grep '^## References' "$WORK/d/summary.md"
expect_grep 'time_to_train_min.*MISSED' "$WORK/d/summary.md"
expect_grep '<td class="fail">missed</td>' "$WORK/d/report.html"
"$HARNESS" history > "$WORK/history2.txt"
expect_grep 'MISSED 1/2' "$WORK/history2.txt"
"$HARNESS" run "$fast" --set experiment.output_dir="$WORK/e" --set references.samples_per_s.target=1 --fail-on-reference \
  > "$WORK/e.out" 2>&1
expect_rc 0 $? "--fail-on-reference with every reference met"

# report.html: there, with its charts and runs, and nothing it would load from anywhere.
report=$WORK/a/report.html
[ -s "$report" ] || fail "no report.html"
[ "$(grep -c '<svg class="chart"' "$report")" -ge 2 ] || fail "report.html holds no charts"
[ "$(grep -c '<tr class="run">' "$report")" = 5 ] || fail "report.html lacks runs"
grep -qiE 'https?:|<link|<img|<iframe|src=|url\(|@import|fetch\(|XMLHttpRequest' "$report" && fail "report.html refers to something outside"

# --resume of a finished set records it again in its own place.
n_before=$(json_get "$WORK/history.json" "len(j['sets'])")
"$HARNESS" run --resume "$WORK/a" > "$WORK/resume.out" 2>&1 || fail "resume"
expect_grep "^results database: set #$ida in" "$WORK/resume.out"
"$HARNESS" history --json > "$WORK/history3.json"
[ "$(json_get "$WORK/history3.json" "len(j['sets'])")" = $((n_before + 3)) ] || fail "resume added a set instead of updating it"

# Eight folders recorded at the same time: every one is there (WAL + busy timeout).
pids=()
for i in 1 2 3 4 5 6 7 8; do
  mkdir -p "$WORK/copies/$i/results/fastA"
  cp -r "$WORK/a/results/fastA/bert" "$WORK/copies/$i/results/fastA/"
  "$HARNESS" score --record "$WORK/copies/$i/results/fastA/bert" > /dev/null 2> "$WORK/record_$i.err" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a concurrent score --record failed: $(cat "$WORK"/record_*.err)"; done
"$HARNESS" history --json > "$WORK/history4.json"
[ "$(json_get "$WORK/history4.json" "sum(1 for s in j['sets'] if s['origin']=='recorded')")" = 8 ] ||
  fail "not all eight concurrent records landed"
echo PASS
