# One launcher process for all ranks with `srun -l` style output ("<task>: line"): rank 0's lines
# (untagged) make the log and result; a failed task named by the launcher is reported with its rank.
source "$(dirname "$0")/lib.sh" "$@"
out=$WORK/out
fake_srun='for r in 0 1; do (RANK=$r "$0" --config "$1" --step-ms 5 2>&1 | sed -u "s/^/$r: /") & done; wait'
"$DRIVER" --out "$out" --nexp 1 --ranks 2 --launcher srun -- sh -c "$fake_srun" "$FAKE" "$out/run.yaml" \
  > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "srun-style launch"
res=$out/results/TESTSYS/bert/result_0.txt
official_check "$res" || fail "official checker rejects $res"
log=$(ls "$out"/logs/*_01.log)
grep -q '^0: ' "$log" && fail "rank tags left in the log"
expect_grep '^1: rank 1: ' "$(ls "$out"/logs/*_01.ranks.log)"

out=$WORK/fail
failing='echo "0: starting"; echo "srun: error: node7: task 1: Exited with exit code 3" >&2; exit 1'
"$DRIVER" --out "$out" --nexp 1 --ranks 2 --launcher srun -- sh -c "$failing" > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 1 $? "srun-style failure"
[ "$(state_field "$out" 1 failed_rank)" = 1 ] || fail "failed rank not parsed from srun's message"
[ "$(state_field "$out" 1 exit_status)" = "exit code 3" ] || fail "status not parsed"

# SIGTERM to the harness inside an allocation: srun would exit without forwarding it, so the ranks
# are stopped with `scancel --signal=TERM $SLURM_JOB_ID` and rank 0's run_stop aborted reaches the log.
mkdir -p "$WORK/bin"
cat > "$WORK/bin/scancel" <<EOS
#!/bin/sh
echo "\$@" >> "$WORK/scancel.args"
kill -TERM \$(cat "$WORK/pids")
EOS
cat > "$WORK/bin/fake_srun" <<'EOS'
#!/bin/bash
# like srun: ranks outside our process group, "N: " tags, exits at once on SIGTERM
fake=$1 cfg=$2 pids=$3
: > "$pids"
for r in 0 1; do
  (RANK=$r setsid "$fake" --config "$cfg" --step-ms 300 2>&1 & echo $! >> "$pids"; wait) | sed -u "s/^/$r: /" &
done
trap 'exit 143' TERM
wait
EOS
chmod +x "$WORK/bin/scancel" "$WORK/bin/fake_srun"
out=$WORK/stop
SLURM_JOB_ID=4242 PATH="$WORK/bin:$PATH" "$DRIVER" --out "$out" --nexp 1 --ranks 2 --launcher srun \
  -- fake_srun "$FAKE" "$out/run.yaml" "$WORK/pids" > "$WORK/stdout" 2> "$WORK/stderr" &
signal_when_logged TERM $! "$out/logs/*_01.log" eval_accuracy
expect_rc 143 $? "harness run (srun) after SIGTERM"
expect_grep '^--signal=TERM 4242$' "$WORK/scancel.args"
expect_grep '"key":"run_stop".*"status":"aborted"' "$(ls "$out"/logs/*_01.log)"
expect_grep '^stop:         scancel --signal=TERM 4242$' "$out/commands.log"
echo PASS
