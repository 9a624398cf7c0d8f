# Shared by the submitter tools' tests: the executor tests' lib.sh (fresh work dir, fail, expect_rc,
# expect_grep) and a closed-division system of the fake trainer.
# Usage: source lib.sh HARNESS FAKE_TRAINER PYTHON WORKDIR SOURCE_DIR
# shellcheck shell=bash
# shellcheck source=tests/integration/harness_run/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../harness_run/lib.sh" "$1" "$2" "$3" "$4"
HARNESS=$1
SRC=$5

# closed_system FILE NAME OUTDIR NEXP CHECKPOINT TRAINER: a closed-division system NAME, one rank on this
# machine, batch 448, data and CHECKPOINT (a file name) in $WORK/data; an external trainer whose keys
# (argv, profile) are the YAML lines TRAINER.
closed_system() {
  cat > "$1" <<YAML
system: {name: $2, submitter: Example}
launcher: {type: local}
topology: {synthetic: "pack:1 numa:1 core:2 pu:1"}
binding: {cpu: node}
nodes: {ranks_per_node: 1}
trainer:
  kind: external
$6
benchmark:
  batch_size: 448
  data: {train_dir: $WORK/data, eval_dir: $WORK/data, checkpoint: $WORK/data/$5}
experiment: {nexp: $4, division: closed, output_dir: $3, cache_clear: "off"}
YAML
}

# A closed-division system whose ranks run the fake trainer (an external trainer that reads the run's
# run.yaml), converging at ~2.3-2.8M samples (past the RCP of its batch 448).
# fake_system FILE OUTDIR NEXP [extra fake-trainer words as a YAML list tail]
fake_system() {
  mkdir -p "$WORK/data" && touch "$WORK/data/model.ckpt-28252.h5"  # the preflight reads the data paths on each node
  closed_system "$1" TESTSYS "$2" "$3" model.ckpt-28252.h5 \
    "  argv: [$FAKE, --config, $2/run.yaml, --step-ms, \"5\", --eval-samples, \"230000\"${4:-}]"
}
