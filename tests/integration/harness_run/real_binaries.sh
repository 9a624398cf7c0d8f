# The real chain, shortened: build/harness run systems/<SYSTEM>.yaml (1 experiment, 4 steps, one
# early eval) -> executor -> bert-data synth, bind, trainer (SYSTEM: local, or local-mpirun for
# Open MPI's launcher with --tag-output). The result passes the official checker and
# ours, and every command the executor ran is shown verbatim by --dry-run of the same invocation.
source "$(dirname "$0")/lib.sh" "$@"
HARNESS=$5
SRC=$6
SYSTEM=${7:-local}
out=$WORK/out
cd "$SRC" || fail "no source dir $SRC"
args=("systems/$SYSTEM.yaml" --set experiment.nexp=1 --set benchmark.max_steps=4
      --set benchmark.eval_start_samples=32 --set benchmark.eval_interval_samples=1024)
LOGDIR=$out "$HARNESS" run "${args[@]}" > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "harness run ${args[*]}"
res=$out/results/$SYSTEM/bert/result_0.txt
official_check "$res" || fail "official checker rejects $res: $(tail -5 "$WORK/official_checker.out")"
expect_grep 'experiment 01/1 (seed [0-9]*): not_converged, .*compliance PASS' "$WORK/stdout"
expect_grep '^score: ' "$WORK/stdout"
head -n 1 "$(ls "$out"/logs/*_01.log)" | grep -q '"key": "cache_clear", "value": true' || fail "log does not start with cache_clear true"
seed=$(state_field "$out" 1 seed)
grep -q "\"key\": \"seed\", \"value\": $seed," "$res" || fail "the trainer did not log the recorded seed $seed"
expect_grep "\"seed\": $seed" "$out/configs/run_01.yaml"
[ -f "$out/summary.md" ] || fail "no summary.md"
# Official package checker on the output tree: with one run the only error may be the file count.
"$PY" -m mlperf_logging.package_checker "$out" training 5.0.0 --log_output "$WORK/package_checker.log" \
  > /dev/null 2>&1
errors=$(grep '^ERROR' "$WORK/package_checker.log" | grep -v 'Incorrect number of files in dir.*found 1, expected 10')
[ -z "$errors" ] || fail "package checker: $errors"
grep -q 'Incorrect number of files' "$WORK/package_checker.log" || fail "package checker did not look at the results"

LOGDIR=$out "$HARNESS" run "${args[@]}" --dry-run > "$WORK/dry_run" 2>&1 || fail "dry-run failed"
n=0
while IFS= read -r line; do
  case "$line" in
    setup:*|"cache clear:"*|launch:*)
      n=$((n + 1))
      grep -qF -- "  $line" "$WORK/dry_run" || fail "executed but not in the dry-run: $line" ;;
  esac
done < "$out/commands.log"
[ $n -ge 3 ] || fail "commands.log lists $n setup/cache clear/launch commands"
echo PASS
