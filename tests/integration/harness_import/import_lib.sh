# Sourced by import_shapes.sh and import_truth.sh with their arguments (HARNESS SOURCE_DIR WORK): the work
# folder emptied, the sample configs' folder ($S), the verdict ($fail, bad, want), the data paths' --env words.
HARNESS=$1 SRC=$2 WORK=$3
S=$SRC/tests/fixtures/configs-sample
rm -rf "$WORK" && mkdir -p "$WORK"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
want() { grep -qE -- "$2" "$1" || bad "$(basename "$1"): no /$2/"; }
data=(--env DATADIR_PHASE2=/data/hdf5 --env DATADIR_PHASE2_PACKED=/data/packed --env EVALDIR=/data/eval --env CHECKPOINTDIR_PHASE1=/data/phase1)

# Pieces of a v1.1-round NVIDIA implementation folder (DGX A100), as NVIDIA's v1.1 configs and those copied
# from them (Dell's) write them.

# The DL params: 56 sequences per GPU, unpadded; MAX_STEPS, then any NAME=VALUE words, one export a line.
v11_dl_params() {  # MAX_STEPS [NAME=VALUE...]
  local steps=$1; shift
  printf 'export %s\n' BATCHSIZE=56 GRADIENT_STEPS=1 LR=3.5e-4 MAX_SAMPLES_TERMINATION=4500000 "MAX_STEPS=$steps" "$@" \
    'EXTRA_PARAMS="--dense_seq_output --unpad --unpad_fmha --exchange_padding"' PHASE=2 \
    EVAL_ITER_START_SAMPLES=150000 EVAL_ITER_SAMPLES=150000
}

# v1.1's run.sub training step into folder $1: no --mpi, run_and_time.sh itself (it reads SLURM_LOCALID).
v11_run_sub() {  # folder
  printf '#!/bin/bash\n#SBATCH --exclusive\nsrun --ntasks="${SLURM_JOB_NUM_NODES}" true\nsrun -l --ntasks="$(( SLURM_JOB_NUM_NODES * DGXNGPU ))" \\\n  --ntasks-per-node="${DGXNGPU}" --container-name="${CONT_NAME}" --container-workdir=${WORK_DIR} "run_and_time.sh"\n' > "$1/run.sub"
}
