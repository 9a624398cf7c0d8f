# Sourced by the Slurm test scripts: sets $repo; exits 77 (SKIPPED) unless slurm/local-cluster is up.
# shellcheck shell=bash
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
if ! "$repo/slurm/local-cluster" status >/dev/null 2>&1; then
  echo "SKIPPED: the local Slurm cluster is not up (slurm/local-cluster up needs root)"
  exit 77
fi

# job_state JOBID: the state scontrol prints (empty while slurmctld does not know the job).
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
# job_ended STATE: final states only. Others come and go while the job still runs: COMPLETING,
# CONFIGURING, and SIGNALING while an --signal is delivered (up to 60 s before the time limit).
job_ended() {
  case "$1" in
    COMPLETED|CANCELLED|FAILED|TIMEOUT|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE|OUT_OF_MEMORY|SPECIAL_EXIT|REVOKED) return 0 ;;
    *) return 1 ;;
  esac
}

# stop_after_first_failure HARNESS YAML WORK SALLOC_ARGS...: `harness run YAML` in an allocation, stopped
# (SIGTERM) once its first experiment has failed; WORK/first.out, first.err and rc1 ("harness exit N").
stop_after_first_failure() {
  local harness=$1 yaml=$2 work=$3
  shift 3
  cat > "$work/first.sh" <<EOS
"$harness" run "$yaml" > "$work/first.out" 2> "$work/first.err" &
h=\$!
for _ in \$(seq 1 3000); do grep -q 'experiment 01/.*failed' "$work/first.out" 2> /dev/null && break; sleep 0.1; done
kill -TERM \$h
wait \$h
echo "harness exit \$?" > "$work/rc1"
EOS
  timeout 900 salloc "$@" --exclusive bash "$work/first.sh" > /dev/null 2>&1
}

# scratch_work NAME: $work, a new /tmp/bert-NAME-XXXXXX, removed at exit, and $jobid (empty): a batch job
# the script sets there is cancelled at exit too.
scratch_work() {
  work=$(mktemp -d "/tmp/bert-$1-XXXXXX")
  jobid=""
  trap '[ -n "$jobid" ] && scancel "$jobid" 2>/dev/null; rm -rf "$work"' EXIT
}

# show_tails N FILE...: each FILE that exists after a "--- FILE" line, its last N lines (N "+1": all of it);
# what a failing script shows of its jobs' output.
show_tails() {
  local n=$1 f
  shift
  for f in "$@"; do [ -f "$f" ] && { echo "--- $f"; tail -n "$n" "$f"; }; done
}
