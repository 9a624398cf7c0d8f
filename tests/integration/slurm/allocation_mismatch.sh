#!/usr/bin/env bash
# A Slurm job whose allocation does not match the system: `harness run` of the 1-node local-slurm
# system inside a 2-node job stops before any step (exit 2, the message names nodes.count and the
# allocation), and a matching job gets past the check; the plan's submit words for a job given no limit
# (sbatch --time=UNLIMITED) are taken by Slurm.
#   allocation_mismatch.sh HARNESS
set -uo pipefail
harness=$1
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$(dirname "$0")/require-cluster.sh"
scratch_work alloc
fail() {
  echo "FAIL: $*"
  show_tails +1 "$work"/*.out
  exit 1
}
# --wait: sbatch exits with the batch script's exit code.
sbatch --wait -N2 --time=2 -o "$work/two.out" --chdir="$repo" \
  --wrap "exec '$harness' run systems/local-slurm.yaml --set experiment.output_dir='$work/out'"
rc=$?
[ "$rc" = 2 ] || fail "a 2-node job for a 1-node system exited $rc, wanted 2"
grep -qE "nodes.count: 1 node\(s\) but this Slurm job [0-9]+ has 2 \(node\[1-2\]\): submit with sbatch --nodes=1, or set nodes.count to 2" \
  "$work/two.out" || fail "no allocation message"
[ ! -e "$work/out" ] || fail "the harness made $work/out: it got past the plan"
# The same system in a 1-node job passes the check (its dry-run prints the real node name).
sbatch --wait -N1 --time=2 -o "$work/one.out" --chdir="$repo" \
  --wrap "exec '$harness' run systems/local-slurm.yaml --dry-run"
rc=$?
[ "$rc" = 0 ] || fail "a 1-node job's dry-run exited $rc"
grep -qE "^node 0 \(node[12]\)" "$work/one.out" || fail "the dry-run inside the job does not name the allocated node"
# A job given no limit (an imported WALLTIME=UNLIMITED, issue 48): the plan's own submit words, which Slurm takes.
mapfile -t cmd < <(cd "$repo" && "$harness" run systems/local-slurm.yaml --set experiment.job_walltime=UNLIMITED --submit-command)
[ "${cmd[*]}" = "sbatch --nodes=1 --time=UNLIMITED slurm/run.sub systems/local-slurm.yaml" ] || fail "submit command: ${cmd[*]}"
jobid=$(cd "$repo" && "${cmd[0]}" --parsable --wait -o "$work/unlimited.out" "${cmd[@]:1}" --dry-run)
rc=$?
[ "$rc" = 0 ] || fail "the job submitted with --time=UNLIMITED exited $rc"
scontrol show job "$jobid" | grep -q "TimeLimit=UNLIMITED" || fail "job $jobid: $(scontrol show job "$jobid" | grep -o 'TimeLimit=[^ ]*')"
echo PASS
