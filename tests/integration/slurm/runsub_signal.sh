#!/usr/bin/env bash
# run.sub's walltime path on the real cluster: with a 1-minute limit and --signal=B:TERM@55, Slurm
# must send SIGTERM to the process run.sub execs (the harness; here a stand-in that records it)
# well before the limit, and run.sub must hand it the system YAML and the extra arguments.
set -uo pipefail
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$(dirname "$0")/require-cluster.sh"
scratch_work runsub
cat > "$work/harness" <<'STANDIN'
#!/usr/bin/env bash
echo "args: $*"
trap 'echo "got SIGTERM after $SECONDS s"; exit 143' TERM
sleep 300 &
wait
echo "no SIGTERM"
STANDIN
chmod +x "$work/harness"
jobid=$(cd "$repo" && sbatch --parsable --time=1 --signal=B:TERM@55 -o "$work/out.txt" \
        --export="ALL,HARNESS=$work/harness" slurm/run.sub systems/local-slurm.yaml --dry-run) || { echo "FAIL: sbatch"; exit 1; }
echo "job $jobid"
for _ in $(seq 900); do
  ! job_ended "$(job_state "$jobid")" || break
  sleep 0.1
done
cat "$work/out.txt"
grep -q "^args: run $repo/systems/local-slurm.yaml --dry-run$" "$work/out.txt" || { echo "FAIL: run.sub passed other arguments"; exit 1; }
grep -q '^got SIGTERM' "$work/out.txt" || { echo "FAIL: the harness got no SIGTERM before the time limit"; exit 1; }
echo PASS
