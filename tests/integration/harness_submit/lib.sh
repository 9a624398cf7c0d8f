# Shared by the submitter tools' tests: arguments, a fresh work dir, assertions.
# Usage: source lib.sh HARNESS FAKE_TRAINER PYTHON WORKDIR SOURCE_DIR
# shellcheck shell=bash
set -u
HARNESS=$1
FAKE=$2
PY=$3
WORK=$4
SRC=$5
rm -rf "$WORK"
mkdir -p "$WORK"

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/stdout "$WORK"/stderr; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
  done
  exit 1
}
expect_rc() { [ "$2" -eq "$1" ] || fail "$3: exit code $2, expected $1"; }
expect_grep() { grep -q -- "$1" "$2" || fail "'$1' not found in $2"; }

# A closed-division system on this machine whose ranks run the fake trainer (an external trainer that
# reads the run's run.yaml), converging at ~2.3-2.8M samples (past the RCP of its batch 448).
# fake_system FILE OUTDIR NEXP [extra fake-trainer words as a YAML list tail]
fake_system() {
  cat > "$1" <<YAML
system: {name: TESTSYS, submitter: Example}
launcher: {type: local}
topology: {synthetic: "pack:1 numa:1 core:2 pu:1"}
binding: {cpu: node}
nodes: {ranks_per_node: 1}
trainer:
  kind: external
  argv: [$FAKE, --config, $2/run.yaml, --step-ms, "5", --eval-samples, "230000"${4:-}]
benchmark:
  batch_size: 448
  data: {train_dir: $WORK/data, eval_dir: $WORK/data, checkpoint: $WORK/data/model.ckpt-28252.h5}
experiment: {nexp: $3, division: closed, output_dir: $2, cache_clear: "off"}
YAML
}
