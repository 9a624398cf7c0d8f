# Shared by the results-database tests: arguments, a fresh work dir, assertions, and a fast system
# (systems/local.yaml with the executor tests' stand-in trainer, so a set of runs takes seconds).
# Usage: source lib.sh HARNESS FAKE_TRAINER PYTHON SOURCE_DIR WORKDIR
set -u
HARNESS=$1
SRC=$4
# The executor tests' lib: $FAKE, $PY, a fresh $WORK, fail, expect_rc, expect_grep.
source "$(dirname "${BASH_SOURCE[0]}")/../harness_run/lib.sh" "" "$2" "$3" "$5"
export BERT_RESULTS_DB=$WORK/results.db

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
