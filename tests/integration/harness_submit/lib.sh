# Shared by the submitter tools' tests: the executor tests' lib.sh (fresh work dir, fail, expect_rc,
# expect_grep) and a closed-division system of the fake trainer.
# Usage: source lib.sh HARNESS FAKE_TRAINER PYTHON WORKDIR SOURCE_DIR
# shellcheck shell=bash
# shellcheck source=tests/integration/harness_run/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../harness_run/lib.sh" "$1" "$2" "$3" "$4"
HARNESS=$1
SRC=$5

# A closed-division system on this machine whose ranks run the fake trainer (an external trainer that
# reads the run's run.yaml), converging at ~2.3-2.8M samples (past the RCP of its batch 448).
# fake_system FILE OUTDIR NEXP [extra fake-trainer words as a YAML list tail]
fake_system() {
  mkdir -p "$WORK/data" && touch "$WORK/data/model.ckpt-28252.h5"  # the preflight reads the data paths on each node
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
