# skip_without_cuda_device TRAINER_CUDA [PRECISION]: exits 77 with "SKIPPED: no CUDA device (...)" unless
# the trainer-cuda binary finds a device (and, for PRECISION fp8, "SKIPPED: no FP8 matrix units (...)"
# unless the device has them: the trainer's own answer to run.precision). The trainer checks for a device before anything else, so a run
# config whose data does not exist tells a device (the data error) from none. Sourced by the GPU
# scripts; needs fail() and WORK.
# shellcheck shell=bash
skip_without_cuda_device() {
  local trainer=$1 precision=${2:-bf16}
  cat > "$WORK/probe.yaml" <<YAML
model: {size: tiny}
data: {train_dir: $WORK/nowhere/train, eval_file: $WORK/nowhere/eval.hdf5, vocab_size: 1024, max_seq_length: 128}
run: {seed: 1, backend: cuda, precision: $precision}
submission: {submission_org: test, submission_division: open, submission_status: research, submission_platform: 1xlocal}
YAML
  "$trainer" --config "$WORK/probe.yaml" > /dev/null 2> "$WORK/probe.err" || true
  if grep -q "no CUDA device" "$WORK/probe.err"; then
    echo "SKIPPED: no CUDA device ($(cat "$WORK/probe.err"))"
    exit 77
  fi
  if grep -q "run.precision: fp8 needs GPUs with FP8 matrix units" "$WORK/probe.err"; then
    echo "SKIPPED: no FP8 matrix units ($(cat "$WORK/probe.err"))"
    exit 77
  fi
  grep -q "training data directory does not exist" "$WORK/probe.err" ||
    { cat "$WORK/probe.err" >&2; fail "device probe: unexpected answer from $trainer"; }
}
