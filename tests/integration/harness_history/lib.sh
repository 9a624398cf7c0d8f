# Shared by the results-database tests: arguments, a fresh work dir, assertions, and a fast system
# (systems/local.yaml with the executor tests' stand-in trainer, so a set of runs takes seconds).
# Usage: source lib.sh HARNESS FAKE_TRAINER PYTHON SOURCE_DIR WORKDIR
set -u
HARNESS=$1
FAKE=$2
PY=$3
SRC=$4
WORK=$5
rm -rf "$WORK"
mkdir -p "$WORK"
export BERT_RESULTS_DB=$WORK/results.db

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/stdout "$WORK"/stderr; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
  done
  exit 1
}

expect_rc() {
  local want=$1 got=$2 what=$3
  [ "$got" -eq "$want" ] || fail "$what: exit code $got, expected $want"
}

expect_grep() {  # pattern file
  grep -q -- "$1" "$2" || fail "'$1' not found in $2"
}

# fast_system NAME OUT [FAKE ARGS...]: a system file running the stand-in trainer, NEXP 5, into OUT.
fast_system() {
  local name=$1 out=$2
  shift 2
  local extra=""
  for a in "$@"; do extra+=", \"$a\""; done
  cat > "$WORK/$name.yaml" <<EOY
extends: $SRC/systems/local.yaml
system: {name: $name}
trainer:
  kind: external
  argv: ["$FAKE", --config, "$out/run.yaml"$extra]
topology: {synthetic: "pack:1 numa:1 core:2 pu:1", compare: false}
experiment: {nexp: 5, output_dir: "$out", cache_clear: "off"}
EOY
  echo "$WORK/$name.yaml"
}

# json_get FILE PYTHON-EXPRESSION-ON-j
json_get() {
  "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}
