# Issue 37: a cause that fails every run before training (a missing data path, a container runtime that
# cannot start its container) must not cost NEXP allocations nor hide inside logs/:
# 1. the preflight reads every data path on every node and stops the set before any launch;
# 2. a rank that fails before it logs anything: its own last lines on the console (a podman's exit 125
#    explained), no result_N.txt that looks like a result (the MLLOG lines kept as .noncompliant), and the
#    set stops after two identical failures (4 planned, 2 run, 2 left for --resume).
source "$(dirname "$0")/lib.sh" "$@"
out=$WORK/pre
"$DRIVER" --out "$out" --nexp 4 --ranks 1 --preflight warn --data-path "benchmark.data.train_dir=$WORK/no_such_dir" \
  --data-path "benchmark.data.eval_dir=$WORK" -- true > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 2 $? "preflight with a missing data path"
expect_grep "preflight: error: localhost: benchmark.data.train_dir: $WORK/no_such_dir cannot be read on this node" "$WORK/stdout"
grep -q "benchmark.data.eval_dir" "$WORK/stdout" && fail "a readable data path was reported"
ls "$out"/logs/*.log > /dev/null 2>&1 && fail "an experiment was launched after the preflight failed"

out=$WORK/run
# what podman prints and exits with when it cannot start the container
podman_fails='echo "Error: crun: executable file \`/workspace/bert/run_and_time.sh\` not found: No such file or directory: OCI runtime attempted to invoke a command that was not found" >&2; exit 125'
"$DRIVER" --out "$out" --nexp 4 --ranks 1 -- sh -c "$podman_fails" > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 1 $? "a set whose runs fail alike"
[ "$(state_field "$out" 1 status)" = failed ] && [ "$(state_field "$out" 2 status)" = failed ] || fail "experiments 1 and 2 not failed"
[ "$(state_field "$out" 3 status)" = pending ] && [ "$(state_field "$out" 4 status)" = pending ] ||
  fail "experiments 3 and 4 ran after two identical failures"
expect_grep "exit status 125; the other ranks were stopped (the container runtime itself failed: podman/docker could not start the container" "$WORK/stdout"
expect_grep "  | Error: crun: executable file .*OCI runtime attempted to invoke a command that was not found" "$WORK/stdout"
expect_grep "stopping: experiments 1 and 2 failed the same way" "$WORK/stdout"
expect_grep "harness run --resume $out" "$WORK/stdout"
ls "$out"/results/TESTSYS/bert/result_*.txt > /dev/null 2>&1 && fail "a non-compliant result_N.txt was left"
[ -f "$out/results/TESTSYS/bert/result_0.txt.noncompliant" ] || fail "the failed run's MLLOG lines were not kept aside"
echo PASS
