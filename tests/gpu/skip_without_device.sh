# skip_without_cuda_device TRAINER_CUDA: exits 77 with "SKIPPED: no CUDA device (...)" unless the
# trainer-cuda binary finds a device. The trainer checks for a device before anything else, so a run
# config whose data does not exist tells a device (the data error) from none. Sourced by the GPU
# scripts; needs fail() and WORK.
# shellcheck shell=bash
skip_without_cuda_device() {
  local trainer=$1
  cat > "$WORK/probe.yaml" <<YAML
model: {size: tiny}
data: {train_dir: $WORK/nowhere/train, eval_file: $WORK/nowhere/eval.hdf5, vocab_size: 1024, max_seq_length: 128}
run: {seed: 1, backend: cuda}
submission: {submission_org: test, submission_division: open, submission_status: research, submission_platform: 1xlocal}
YAML
  "$trainer" --config "$WORK/probe.yaml" > /dev/null 2> "$WORK/probe.err" || true
  if grep -q "no CUDA device" "$WORK/probe.err"; then
    echo "SKIPPED: no CUDA device ($(cat "$WORK/probe.err"))"
    exit 77
  fi
  grep -q "training data directory does not exist" "$WORK/probe.err" ||
    { cat "$WORK/probe.err" >&2; fail "device probe: unexpected answer from $trainer"; }
}
