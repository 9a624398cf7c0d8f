# Preflight: a process pinned to a CPU our ranks are bound to fails the set under policy `fail`
# (exit 2, nothing launched, the process named) and is reported under `warn`.
source "$(dirname "$0")/lib.sh" "$@"
[ "$(nproc --all)" -ge 2 ] || { echo "SKIPPED: needs 2 CPUs"; exit 0; }
taskset -c 0 sleep 60 &
squatter=$!
trap 'kill $squatter 2> /dev/null' EXIT
sleep 0.2
out=$WORK/fail
"$DRIVER" --out "$out" --nexp 1 --preflight fail --bind-cpus 0 -- sh -c "touch '$WORK/launched'" \
  > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 2 $? "preflight fail"
expect_grep "preflight: error: localhost: process $squatter (sleep) is pinned to CPUs 0" "$WORK/stdout"
expect_grep "nothing was launched" "$WORK/stderr"
[ -e "$WORK/launched" ] && fail "launched despite the preflight failure"

out=$WORK/warn
"$DRIVER" --out "$out" --nexp 1 --preflight warn --bind-cpus 1 -- "$FAKE" --config "$out/run.yaml" --step-ms 1 \
  > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "preflight warn on other CPUs"
grep -q "process $squatter" "$WORK/stdout" && fail "a process on CPU 0 reported for ranks bound to CPU 1"

out=$WORK/warn0
"$DRIVER" --out "$out" --nexp 1 --preflight warn --bind-cpus 0-1 -- "$FAKE" --config "$out/run.yaml" --step-ms 1 \
  > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "preflight warn"
expect_grep "preflight: warning: localhost: process $squatter (sleep)" "$WORK/stdout"
expect_grep "process $squatter (sleep) is pinned" "$out/summary.md"
echo PASS
