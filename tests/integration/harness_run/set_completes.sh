# A 3-run set with 2 local ranks: converged runs, distinct recorded seeds, cache_clear lines on top,
# result files that pass the official checker, summary with sha256 and plots.
source "$(dirname "$0")/lib.sh" "$@"
out=$WORK/out
"$DRIVER" --out "$out" --nexp 3 --ranks 2 --seeds 11,12,13 --cache-clear 'sync' --cache-policy required \
  -- "$FAKE" --config "$out/run.yaml" --step-ms 10 > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "harness run"

for i in 1 2 3; do
  log=$(ls "$out"/logs/*_0$i.log) || fail "no log for experiment $i"
  head -n 1 "$log" | grep -q '"key": "cache_clear", "value": true' || fail "$log does not start with cache_clear true"
  res=$out/results/TESTSYS/bert/result_$((i - 1)).txt
  [ -f "$res" ] || fail "missing $res"
  official_check "$res" || fail "official checker rejects $res: $(cat "$WORK/official_checker.out")"
  grep -q '"key":"seed","value":1'$i "$res" || fail "$res does not log seed 1$i"
  grep -v -q ':::MLLOG' "$res" && fail "$res holds non-MLLOG lines"
  grep -q '"seed": 1'$i "$out/configs/run_0$i.yaml" || fail "configs/run_0$i.yaml lacks seed 1$i"
  sum=$(sha256sum "$res" | cut -d' ' -f1)
  expect_grep "$sum  results/TESTSYS/bert/result_$((i - 1)).txt" "$out/summary.md"
  [ "$(state_field "$out" $i status)" = converged ] || fail "experiment $i not converged in state.json"
  grep -q "experiment 0$i/3 (seed 1$i): converged, time to train .* min, samples [0-9][0-9]*.*compliance PASS" \
    "$WORK/stdout" || fail "no status line for experiment $i"
done
ranks_log=$(ls "$out"/logs/*_01.ranks.log)
expect_grep '^1: rank 1: ' "$ranks_log"
grep -q '^1: ' "$(ls "$out"/logs/*_01.log)" && fail "rank 1 output leaked into the MLPerf log"
expect_grep '^score: ' "$WORK/stdout"
expect_grep '^- RCP: ' "$out/summary.md"
# 3 runs: the olympic mean counts one; the fastest and the slowest are dropped and marked so.
for role in 'dropped (fastest)' 'dropped (slowest)' 'counted'; do
  [ "$(grep -c "^| [1-3] | .* | $role | " "$out/summary.md")" = 1 ] || fail "summary.md: not one run marked '$role'"
done
[ -f "$out/plan.json" ] || fail "no plan.json"
[ -f "$out/systems/TESTSYS.json" ] || fail "no systems/TESTSYS.json"
if command -v gnuplot > /dev/null; then
  for p in accuracy.svg accuracy.png time_to_train.svg time_to_train.png; do
    [ -s "$out/plots/$p" ] || fail "plot $p not rendered"
  done
  expect_grep '](plots/accuracy.svg)' "$out/summary.md"
fi
# Not a terminal: plain progress lines, no carriage returns.
expect_grep '^experiment 1/3: [0-9]* samples, eval accuracy ' "$WORK/stdout"
grep -q $'\r' "$WORK/stdout" && fail "carriage returns in non-TTY output"
# commands.log: what was executed, as --dry-run renders commands
[ "$(grep -c '^cache clear:  sh -c sync$' "$out/commands.log")" = 3 ] || fail "cache clear not logged 3 times"
[ "$(grep -c '^launch:       ' "$out/commands.log")" = 3 ] || fail "launch not logged 3 times"
expect_grep '^  rank 1:     LOCAL_RANK=1 RANK=1 WORLD_SIZE=2' "$out/commands.log"
echo PASS
