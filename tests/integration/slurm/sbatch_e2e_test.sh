#!/usr/bin/env bash
# End-to-end: `sbatch slurm/run.sub systems/local-slurm.yaml` on the real local cluster, tiny BERT
# through the harness's srun launcher, results checked by our checker and the official one.
#   sbatch_e2e_test.sh CASE HARNESS PYTHON
# CASE: nexp2-gres | pmix-two-node | walltime | killed-rank
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

results() { find "$out" -path '*/results/*' -name 'result_*.txt' 2>/dev/null | sort; }

check_results() {  # check_results N: N result files, each passing our checker and the official one
  local n=$1 files f
  mapfile -t files < <(results)
  [ "${#files[@]}" = "$n" ] || fail "expected $n result files, found ${#files[@]}: ${files[*]}"
  "$harness" check "$(dirname "${files[0]}")" || fail "harness check rejected the results"
  for f in "${files[@]}"; do
    "$python" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 --log_output "$work/cc.log" "$f" >"$work/official.txt" 2>&1 ||
      { cat "$work/official.txt"; fail "official checker rejected $f"; }
  done
  echo "results: ${#files[@]} files pass both checkers"
}

slurm_out() { cat "$work"/slurm-"$jobid".out; }

# Short runs: the tests are about the Slurm path (run.sub, srun steps, PMI, nodes, signals), not
# about convergence; a run that stops at max_steps still logs and must pass both checkers.
quick=(--set benchmark.max_steps=6 --set benchmark.eval_start_samples=32 --set benchmark.eval_interval_samples=32
       --set benchmark.num_eval_examples=128)

case "$case_name" in
  nexp2-gres)
    # NEXP=2 with the system's --mpi=pmi2, and --gres=gpu:8 on every step (Inventec style)
    # (gres_every_step takes the YAML's GPU count, 0 on this CPU-only host: extra_flags puts the same
    # flag on every srun step)
    NEXP=2 submit -N1 -- "${quick[@]}" --set 'launcher.srun.extra_flags=[--gres=gpu:8]'
    wait_end 600
    [ "$(state)" = COMPLETED ] || fail "job ended $(state)"
    check_results 2
    slurm_out | grep -q '^score' || fail "no score line in the job output"
    for step in 'cache clear' launch; do
      grep -E "^$step: +srun .*--gres=gpu:8" "$out/commands.log" >/dev/null || fail "$step step without --gres=gpu:8"
    done ;;
  pmix-two-node)
    # SLURM_MPI_TYPE=pmix overrides the YAML; -N2: one rank on each emulated node, cache clear per node
    SLURM_MPI_TYPE=pmix NEXP=2 submit -N2 -- "${quick[@]}" --set nodes.count=2
    wait_end 600
    [ "$(state)" = COMPLETED ] || fail "job ended $(state)"
    scontrol show job "$jobid" | grep -q 'NumNodes=2' || fail "the job did not get 2 nodes"
    check_results 2
    for f in $(results); do
      [ "$(grep -c '"key": "cache_clear"' "$f")" = 2 ] || fail "expected one cache_clear line per node (2) in $f"
    done
    grep -q -- '--mpi=pmix' "$out/commands.log" || fail "the steps did not use --mpi=pmix" ;;
  walltime)
    # A 2-minute job whose run.sub signal (B:TERM, here 30 s before the limit) lands while the
    # harness works through NEXP=8 short runs: the finished results must stay intact and pass both
    # checkers, and a run that had started must end with run_stop aborted.
    NEXP=8 submit -N1 --time=2 --signal=B:TERM@30 -- "${quick[@]}"
    wait_end 300
    slurm_out | grep -q 'interrupted' || fail "the harness did not report the interrupted set"
    n=$(results | wc -l)
    if [ "$n" -lt 1 ] || [ "$n" -ge 8 ]; then fail "expected some but not all results, found $n"; fi
    check_results "$n"
    last=$(find "$out/logs" -name '*_0[1-8].log' | sort | tail -1)
    if grep -q '"key": "run_start"' "$last"; then
      grep '"key": "run_stop"' "$last" | grep -q '"status": "aborted"' || fail "no run_stop aborted in $last"
    fi
    echo "interrupted after $n results; last log $(basename "$last")" ;;
  killed-rank)
    # one rank on each of two nodes, long run; SIGKILL rank 1: srun --kill-on-bad-exit=1 must end the step
    NEXP=1 submit -N2 -- "${quick[@]}" --set benchmark.max_steps=100000 --set nodes.count=2
    deadline=$((SECONDS + 300))
    victim=""
    while [ -z "$victim" ]; do
      for p in $(pgrep -x trainer); do
        env_of=$(tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null)
        if grep -qx 'SLURM_PROCID=1' <<<"$env_of" && grep -qx "SLURM_JOB_ID=$jobid" <<<"$env_of"; then victim=$p; fi
      done
      [ "$SECONDS" -lt "$deadline" ] || fail "never saw rank 1 of job $jobid running"
      case "$(state)" in PENDING|RUNNING|CONFIGURING) ;; *) fail "job ended $(state) before rank 1 ran" ;; esac
      sleep 0.2
    done
    sleep 2
    echo "killing rank 1 (pid $victim)"
    t_kill=$SECONDS
    kill -KILL "$victim"
    wait_end 120
    echo "the job ended $((SECONDS - t_kill)) s after the kill"
    slurm_out | grep -E '^experiment 01/1 .*failed' >/dev/null || fail "the killed run was not reported as failed" ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "PASS ($case_name)"
