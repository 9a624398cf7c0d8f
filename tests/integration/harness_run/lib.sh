# Shared by the executor's integration tests: arguments, a fresh work dir, assertions.
# Usage: source lib.sh DRIVER FAKE_TRAINER PYTHON WORKDIR
set -u
DRIVER=$1
FAKE=$2
PY=$3
WORK=$4
rm -rf "$WORK"
mkdir -p "$WORK"

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/stdout "$WORK"/stderr; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
  done
  exit 1
}

# The official MLPerf compliance checker (mlcommons/logging) on one file.
official_check() {
  "$PY" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 \
    --log_output "$WORK/official_checker.log" "$1" > "$WORK/official_checker.out" 2>&1
}

# Field of experiment $1 (1-based) in state.json: state_field OUT 2 status
state_field() {
  "$PY" -c 'import json,sys; s=json.load(open(sys.argv[1]+"/state.json")); print(s["experiments"][int(sys.argv[2])-1][sys.argv[3]])' "$1" "$2" "$3"
}

expect_rc() {
  local want=$1 got=$2 what=$3
  [ "$got" -eq "$want" ] || fail "$what: exit code $got, expected $want"
}

expect_grep() {  # pattern file
  grep -q -- "$1" "$2" || fail "'$1' not found in $2"
}

# signal_when_logged SIG PID 'LOG_GLOB' PATTERN: once a file matching LOG_GLOB (quoted: expanded here)
# holds PATTERN (10 s at the most), signal SIG to PID; returns PID's exit code.
signal_when_logged() {
  local sig=$1 pid=$2 logs=$3 pattern=$4
  for _ in $(seq 1 200); do
    # shellcheck disable=SC2086  # the glob is expanded here
    ls $logs > /dev/null 2>&1 && grep -q "$pattern" $logs && break
    sleep 0.05
  done
  kill "-$sig" "$pid"
  wait "$pid"
}
