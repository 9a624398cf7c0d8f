# The srun launcher on the real local Slurm cluster (fixture slurm_cluster of tests/integration/slurm):
# inside an allocation, `harness run systems/local-slurm.yaml` (shortened) passes the official checker;
# SIGTERM to the harness reaches the trainer through `scancel --signal=TERM` (run_stop aborted), 143.
source "$(dirname "$0")/lib.sh" "$@"
HARNESS=$5
SRC=$6
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$SRC/tests/integration/slurm/require-cluster.sh"
cd "$SRC" || fail "no source dir $SRC"
short=(--set experiment.nexp=1 --set benchmark.eval_start_samples=32 --set benchmark.eval_interval_samples=1024)

out=$WORK/short
timeout 300 salloc -N1 --exclusive env LOGDIR="$out" "$HARNESS" run systems/local-slurm.yaml "${short[@]}" \
  --set benchmark.max_steps=4 > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "harness run systems/local-slurm.yaml in an allocation"
official_check "$out/results/local-slurm/bert/result_0.txt" || fail "official checker rejects the srun result"
expect_grep 'compliance PASS' "$WORK/stdout"
expect_grep '^preflight:    srun ' "$out/commands.log"

out=$WORK/term
cat > "$WORK/term.sh" <<EOS
LOGDIR="$out" "$HARNESS" run systems/local-slurm.yaml ${short[*]} > "$WORK/stdout" 2> "$WORK/stderr" &
h=\$!
for _ in \$(seq 1 600); do grep -q '"key": "run_start"' "$out"/logs/*_01.log 2> /dev/null && break; sleep 0.1; done
kill -TERM \$h
wait \$h
echo "harness exit \$?" > "$WORK/rc"
EOS
timeout 300 salloc -N1 --exclusive bash "$WORK/term.sh" > /dev/null 2>&1
expect_grep '^harness exit 143$' "$WORK/rc"
expect_grep '^stop:         scancel --signal=TERM [0-9]*$' "$out/commands.log"
expect_grep '"key": "run_stop".*"status": "aborted"' "$(ls "$out"/logs/*_01.log)"
expect_grep 'The set was interrupted' "$out/summary.md"
echo PASS
