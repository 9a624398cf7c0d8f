# Acceptance: `harness run systems/local.yaml` (NEXP=2 from the YAML) on this machine with the real
# trainer, bind and bert-data: two converged runs whose result files pass the official checker and
# ours, a printed score, an output tree that passes the official package checker's structure
# checks that apply to a 2-run set. Prints the wall time (a figure, not an assertion).
source "$(dirname "$0")/lib.sh" "$@"
HARNESS=$5
SRC=$6
out=$WORK/out
cd "$SRC" || fail "no source dir $SRC"
start=$(date +%s.%N)
LOGDIR=$out "$HARNESS" run systems/local.yaml > "$WORK/stdout" 2> "$WORK/stderr"
rc=$?
end=$(date +%s.%N)
cat "$WORK/stdout"
expect_rc 0 $rc "harness run systems/local.yaml"
res_dir=$out/results/local/bert
for i in 0 1; do
  [ -f "$res_dir/result_$i.txt" ] || fail "missing result_$i.txt"
  official_check "$res_dir/result_$i.txt" || fail "official checker rejects result_$i.txt: $(tail -5 "$WORK/official_checker.out")"
  grep -q '"key": "run_stop".*"status": "success"' "$res_dir/result_$i.txt" || fail "run $i did not converge"
done
[ "$(grep -c 'converged, time to train [0-9.]* min, samples [0-9][0-9]*.*compliance PASS' "$WORK/stdout")" = 2 ] \
  || fail "expected two converged runs passing our checker"
"$HARNESS" check "$res_dir" > "$WORK/check.out" 2>&1 || fail "harness check rejects the results: $(tail -5 "$WORK/check.out")"
expect_grep '^score: [0-9.]* min' "$WORK/stdout"
seeds=$(grep -ho '"key": "seed", "value": [0-9]*' "$res_dir"/result_*.txt | sort -u | wc -l)
[ "$seeds" = 2 ] || fail "the two runs do not log two distinct seeds"

# Official package checker: with 2 runs the only error may be the BERT file count (10 required).
"$PY" -m mlperf_logging.package_checker "$out" training 5.0.0 --log_output "$WORK/package_checker.log" \
  > /dev/null 2>&1
errors=$(grep '^ERROR' "$WORK/package_checker.log" | grep -v 'Incorrect number of files in dir.*found 2, expected 10')
[ -z "$errors" ] || fail "package checker: $errors"
"$PY" -m mlperf_logging.system_desc_checker "$out/systems/local.json" training 5.0.0 \
  --log_output "$WORK/system_desc.log" > /dev/null 2>&1
grep -q '^ERROR' "$WORK/system_desc.log" && fail "systems/local.json: $(grep '^ERROR' "$WORK/system_desc.log")"
python3 -c "print('acceptance: harness run systems/local.yaml took %.1f s on %s CPU(s)' % ($end - $start, $(nproc)))"
echo PASS
