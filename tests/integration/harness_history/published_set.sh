# A published set (MLCommons training results v4.0, Sustainable Metal Cloud's 1 x 8 H100 BERT with power
# logs; tests/fixtures/published) recorded with `harness score --record` is in the history with its system
# description and compares with a set of ours; its power logs, laid into our set's results folder, are
# drawn per node in report.html; history --html draws each system's trend.
source "$(dirname "$0")/lib.sh" "$@"
tar -xJf "$SRC/tests/fixtures/published/smc_h100_v4.0.tar.xz" -C "$WORK"
pub=$WORK/smc-ac-power/results/1xSMC-H100-SXM-80GB/bert
"$HARNESS" score --record "$pub" > "$WORK/score.out" 2> "$WORK/stderr" || fail "score --record of the published set"
expect_grep '^recorded as set #1 (1xSMC-H100-SXM-80GB, 10 runs) in' "$WORK/stderr"
"$HARNESS" history --json > "$WORK/history.json"
check() { [ "$(json_get "$WORK/history.json" "$1")" = "$2" ] || fail "history: $1 is not $2"; }
check "j['sets'][0]['origin']" recorded
check "j['sets'][0]['system_name']" 1xSMC-H100-SXM-80GB
check "j['sets'][0]['accelerator']" "NVIDIA H100-SXM5-80GB"
check "(j['sets'][0]['nodes'], j['sets'][0]['ranks_per_node'])" "(1, 8)"
check "len(j['sets'][0]['runs'])" 10
check "j['sets'][0]['rcp']" PASS
check "round(j['sets'][0]['score_min'], 4)" 5.3868  # harness score's own figure for this set
check "all(r['samples_per_s'] > 7000 for r in j['sets'][0]['runs'])" True

sys=$(fast_system fastA "$WORK/ours")
"$HARNESS" run "$sys" > "$WORK/stdout" 2>&1 || fail "our set"
"$HARNESS" compare "$WORK/ours" 1 > "$WORK/compare.txt" || fail "compare ours with the published set"
cat "$WORK/compare.txt"
expect_grep '^B = #1 1xSMC-H100-SXM-80GB (recorded results' "$WORK/compare.txt"
expect_grep '^time to train \[min\] *A *5 ' "$WORK/compare.txt"
expect_grep '^ *B *10 *4.61747 *5.44947 *5.92735 *5.32987$' "$WORK/compare.txt"
expect_grep 'verdict: B is [0-9.]*% higher (worse) than A, beyond the run-to-run noise (Mann-Whitney U = 0, p = 0.00[0-9]*, [a-z]*, 5 and 10 runs)' "$WORK/compare.txt"

# The published power logs as our set's own: report.html draws one chart per run that has them.
ours_res=$WORK/ours/results/fastA/bert
mkdir -p "$ours_res/power/result_0" "$ours_res/power/result_2"
cp "$pub/power/result_5119-240510190348838227199_06/node_0.txt" "$ours_res/power/result_0/node_0.txt"
cp "$pub/power/result_5120-240510190402846980797_06/node_0.txt" "$ours_res/power/result_0/node_1.txt"
cp "$pub/power/result_5119-240510190348838227199_07/node_0.txt" "$ours_res/power/result_2/node_0.txt"
"$HARNESS" run --resume "$WORK/ours" > "$WORK/resume.out" 2>&1 || fail "resume"
report=$WORK/ours/report.html
expect_grep '<svg class="chart" id="power_1" data-series-count="2"' "$report"
expect_grep '<svg class="chart" id="power_3" data-series-count="1"' "$report"
grep -q 'id="power_2"' "$report" && fail "a chart for a run without power logs"

"$HARNESS" history --html "$WORK/history.html" 2> "$WORK/html.err" || fail "history --html"
expect_grep 'id="trend_ttt_fastA"' "$WORK/history.html"
expect_grep 'id="trend_ttt_1xSMC-H100-SXM-80GB"' "$WORK/history.html"
grep -qiE 'https?:|<link|<img|src=' "$WORK/history.html" && fail "history.html refers to something outside"
echo PASS
