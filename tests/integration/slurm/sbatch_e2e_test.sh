#!/usr/bin/env bash
# End-to-end: `sbatch slurm/run.sub systems/local-slurm.yaml` on the real local cluster, tiny BERT
# through the harness's srun launcher, results checked by our checker and the official one.
#   sbatch_e2e_test.sh CASE HARNESS PYTHON
# CASE: nexp2 | pmix | gres | two-node | walltime | killed-rank
# Exits 77 (SKIPPED) when the cluster is not up (not root).
set -uo pipefail
case_name=$1
harness=$2
python=$3
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$(dirname "$0")/require-cluster.sh"
work=$(mktemp -d /tmp/bert-sbatch-XXXXXX)
out=$work/output
jobid=""
cleanup() {
  [ -n "$jobid" ] && scancel "$jobid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL ($case_name): $*"
  [ -n "$jobid" ] && scontrol show job "$jobid" 2>/dev/null | grep -E 'JobState|ExitCode|NumNodes|TimeLimit'
  for f in "$work"/slurm-*.out; do [ -f "$f" ] && { echo "--- $f"; tail -n 60 "$f"; }; done
  exit 1
}

state() { scontrol show job "$jobid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }

wait_end() {  # wait_end SECONDS: until the job leaves PENDING/RUNNING/COMPLETING
  local deadline=$((SECONDS + $1)) s
  while :; do
    s=$(state)
    case "$s" in PENDING|RUNNING|CONFIGURING|COMPLETING|"") ;; *) echo "job $jobid: $s after $((SECONDS - t_submit)) s"; return 0 ;; esac
    [ "$SECONDS" -lt "$deadline" ] || fail "job still $s after $1 s"
    sleep 0.5
  done
}

submit() {  # submit [sbatch options] -- [harness run options]; env NEXP etc. from the caller
  local sb=() h=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do sb+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  h=("$@")
  echo "+ sbatch ${sb[*]} slurm/run.sub systems/local-slurm.yaml ${h[*]}"
  t_submit=$SECONDS
  jobid=$(cd "$repo" && sbatch --parsable -o "$work/slurm-%j.out" "${sb[@]}" \
          --export="ALL,HARNESS=$harness,LOGDIR=$out" slurm/run.sub systems/local-slurm.yaml "${h[@]}") ||
    fail "sbatch refused the job"
  echo "job $jobid"
}

started_logs() { find "$out" -path '*/logs/*' -name '*.log' -exec grep -l '"key": "run_start"' {} + 2>/dev/null | sort; }

results() { find "$out" -path '*/results/*' -name 'result_*.txt' 2>/dev/null | sort; }

check_results() {  # check_results N: N result files, each passing our checker and the official one
  local n=$1 files f
  mapfile -t files < <(results)
  [ "${#files[@]}" = "$n" ] || fail "expected $n result files, found ${#files[@]}: ${files[*]}"
  "$harness" check "$(dirname "${files[0]}")" || fail "harness check rejected the results"
  for f in "${files[@]}"; do
    "$python" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 "$f" >"$work/official.txt" 2>&1 ||
      { cat "$work/official.txt"; fail "official checker rejected $f"; }
  done
  echo "results: ${#files[@]} files pass both checkers"
}

slurm_out() { cat "$work"/slurm-"$jobid".out; }

case "$case_name" in
  nexp2|pmix|gres)
    case "$case_name" in
      pmix) export SLURM_MPI_TYPE=pmix ;;
      gres) set -- --set launcher.srun.gres_every_step=true ;;
    esac
    NEXP=2 submit -N1 -- "$@"
    wait_end 600
    [ "$(state)" = COMPLETED ] || fail "job ended $(state)"
    check_results 2
    slurm_out | grep -Eiq 'score|time.to.train' || fail "no score in the job output"
    if [ "$case_name" = gres ]; then
      slurm_out | grep -q -- '--gres=gpu:8' || fail "no --gres=gpu:8 on the steps"
    fi
    if [ "$case_name" = pmix ]; then
      slurm_out | grep -q -- '--mpi=pmix' || fail "the steps did not use --mpi=pmix"
    fi ;;
  two-node)
    NEXP=1 submit -N2 -- --set nodes.count=2
    wait_end 600
    [ "$(state)" = COMPLETED ] || fail "job ended $(state)"
    check_results 1
    f=$(results | head -1)
    [ "$(grep -c '"key": "cache_clear"' "$f")" = 2 ] || fail "expected one cache_clear line per node (2) in $f"
    scontrol show job "$jobid" | grep -q 'NumNodes=2' || fail "the job did not get 2 nodes" ;;
  walltime)
    # Once run 2 has started, cut the job's time limit to about a minute from now: Slurm then sends
    # the run.sub --signal (B:TERM, 60 s before the limit) to the harness at its next check.
    NEXP=2 submit -N1 --
    deadline=$((SECONDS + 600))
    until [ "$(started_logs | wc -l)" -ge 2 ]; do
      [ "$SECONDS" -lt "$deadline" ] || fail "run 2 never started"
      case "$(state)" in PENDING|RUNNING|CONFIGURING) ;; *) fail "job ended $(state) before run 2" ;; esac
      sleep 0.5
    done
    elapsed_min=$(((SECONDS - t_submit) / 60 + 1))
    scontrol update JobId="$jobid" TimeLimit="$elapsed_min" || fail "scontrol update TimeLimit failed"
    echo "time limit set to $elapsed_min min at $((SECONDS - t_submit)) s"
    wait_end 300
    check_results 1
    last=$(started_logs | tail -1)
    grep '"key": "run_stop"' "$last" | grep -q '"status": "aborted"' || fail "no run_stop aborted in $last" ;;
  killed-rank)
    NEXP=1 submit -N1 --
    deadline=$((SECONDS + 300))
    victim=""
    while [ -z "$victim" ]; do
      for p in $(pgrep -x trainer); do
        if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx 'SLURM_PROCID=1' &&
           tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_JOB_ID=$jobid"; then victim=$p; fi
      done
      [ "$SECONDS" -lt "$deadline" ] || fail "never saw rank 1 of job $jobid running"
      sleep 0.2
    done
    sleep 1
    echo "killing rank 1 (pid $victim)"
    t_kill=$SECONDS
    kill -KILL "$victim"
    wait_end 120
    echo "the job ended $((SECONDS - t_kill)) s after the kill"
    [ "$(state)" != COMPLETED ] || slurm_out | grep -Eiq 'fail|abort' || fail "the killed run was not reported as failed" ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "PASS ($case_name)"
