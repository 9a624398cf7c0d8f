# cache clear refused: `required` fails the experiment before launch with the reason, `best-effort`
# logs cache_clear false with the reason and goes on; `off` logs false without running anything.
source "$(dirname "$0")/lib.sh" "$@"
refuse='echo "sysctl: permission denied on key \"vm.drop_caches\"" >&2; exit 1'
out=$WORK/req
"$DRIVER" --out "$out" --nexp 1 --cache-policy required --cache-clear "$refuse" \
  -- sh -c "touch '$WORK/launched'" > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 1 $? "required cache clear refused"
[ -e "$WORK/launched" ] && fail "launched although the required cache clear failed"
state_field "$out" 1 message | grep -q 'cache clear is required by the system but was not done:.*permission denied' \
  || fail "reason not recorded"
log=$(ls "$out"/logs/*_01.log)
head -n 1 "$log" | grep -q '"key": "cache_clear", "value": false, "metadata": {.*"node": "localhost", "reason": ' \
  || fail "no truthful cache_clear line"

# Resume runs an experiment that failed before launch again (the cache clear may work now).
"$DRIVER" --out "$out" --resume "$out" --nexp 1 --cache-policy required --cache-clear true \
  -- "$FAKE" --config "$out/run.yaml" --step-ms 1 > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "resume after a refused cache clear"
[ "$(state_field "$out" 1 status)" = converged ] || fail "experiment not run again on resume"

out=$WORK/best
"$DRIVER" --out "$out" --nexp 1 --cache-policy best-effort --cache-clear "$refuse" \
  -- "$FAKE" --config "$out/run.yaml" --step-ms 1 > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "best-effort cache clear refused"
expect_grep 'warning: caches not cleared (best-effort).*permission denied' "$WORK/stdout"
head -n 1 "$(ls "$out"/logs/*_01.log)" | grep -q '"value": false' || fail "cache_clear not false"
[ "$(state_field "$out" 1 status)" = converged ] || fail "best-effort run did not go on"

out=$WORK/off
"$DRIVER" --out "$out" --nexp 1 --cache-policy off --cache-clear "touch '$WORK/cleared'" \
  -- "$FAKE" --config "$out/run.yaml" --step-ms 1 > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "cache clear off"
[ -e "$WORK/cleared" ] && fail "cache clear ran although off"
head -n 1 "$(ls "$out"/logs/*_01.log)" | grep -q '"value": false.*off in the system' || fail "off not logged"
echo PASS
