#!/usr/bin/env bash
# Issue 37: the shapes of real configs the sample four do not show, written here the way submitters wrote
# them, each ending in the right plan or one clear error (file, line, field; exit 2):
#   walltimes (minutes over 59, only WALLTIME, WALLTIME following NEXP, too short for any run),
#   hardware no shipped base describes (an assumed topology, never this host's; no GPU count at all),
#   --topology / --set, topology variables that contradict the base, the launch read from run.sub
#   (v1.1: no --mpi, no slurm2pytorch) or from a PaddlePaddle-style run_and_time.sh, and helpers the
#   config's folder lacks. Usage: import_shapes.sh HARNESS SOURCE_DIR WORK
set -uo pipefail
source "$(dirname "$0")/import_lib.sh" "$@"

# A v1.1-style NVIDIA config for a DGX A100 with the given tail lines, in folder $1 (run.sub beside it when $3 is set).
make_config() {  # folder name walltime-lines [run.sub]
  local d=$WORK/$1/impl
  mkdir -p "$d"
  printf 'export DGXNGPU=8\nexport DGXSOCKETCORES=64\nexport DGXNSOCKET=2\nexport DGXHT=2\n' > "$d/config_DGXA100_common.sh"
  v11_dl_params 7100 > "$d/$2"
  cat >> "$d/$2" <<EOC
export DGXNNODES=1
export DGXSYSTEM=\$(basename \$(readlink -f \${BASH_SOURCE[0]}) | sed 's/^config_//' | sed 's/\.sh\$//' )
$3
source \$(dirname \${BASH_SOURCE[0]})/config_DGXA100_common.sh
EOC
  if [ -n "${4:-}" ]; then v11_run_sub "$d"; fi
  echo "$d/$2"
}
import() {  # name config [options...]: exit code in $rc, outputs in $WORK/<name>.*
  local name=$1 config=$2; shift 2
  "$HARNESS" import "$config" "${data[@]}" --submitter Org "$@" -o "$WORK/$name.yaml" > "$WORK/$name.table" 2> "$WORK/$name.err"
  rc=$?
}
dry_run() { "$HARNESS" run "$WORK/$1.yaml" --dry-run > "$WORK/$1.dry" 2> "$WORK/$1.dryerr" || bad "$1: dry-run: $(cat "$WORK/$1.dryerr")"; }

# 1. WALLTIME=00:70:00 (v1.1 large-scale configs): Slurm's 70 minutes, one run's job (it does not follow NEXP)
c=$(make_config w70 config_DGXA100_1x8x56x1.sh "export WALLTIME=00:70:00" runsub)
import w70 "$c"
[ $rc = 0 ] || bad "w70: $(cat "$WORK/w70.err")"
dry_run w70
want "$WORK/w70.table" "WALLTIME +=.*-> experiment.run_walltime \(it does not change with NEXP: one run's job"
want "$WORK/w70.table" "NEXP=10 while sourcing"
want "$WORK/w70.dry" "per experiment 00:70:00 \(70 min\) \(watchdog\), job 755 \(sbatch --time\) = 5 \+ NEXP 10 x \(run 00:70:00 \+ 5\)"
# ... and the run.sub beside it (v1.1) says what runs and how: run_and_time.sh itself, no --mpi
want "$WORK/w70.table" "^profile nvidia-pytorch: run.sub:4 starts \`./run_and_time.sh\` once per GPU with srun \(no --mpi\)"
want "$WORK/w70.dry" "srun -l --mpi=none .* ./run_and_time.sh$"

# 2. only WALLTIME, following NEXP, so short that each run gets (75 - 5) / 10 - 5 = 2 minutes: no run of
#    global batch 448 can finish (its RCP needs ~2.4M samples; at 2000 samples/s per GPU that is 2.5 minutes)
c=$(make_config wnexp config_DGXA100_1x8x56x1.sh 'export WALLTIME=$(( ${NEXP:-1} * 7 + 5 ))')
import wnexp "$c"
[ $rc = 2 ] || bad "wnexp: exit $rc, wanted 2"
want "$WORK/wnexp.err" "^  $WORK/wnexp.yaml.partial:[0-9]+:[0-9]+: experiment.job_walltime: closed division: the per-run limit 2 \(derived: \(job 75 - 5\) / NEXP 10 - 5 minutes\) is shorter than any run can take: at least 2.5 minutes, 24[0-9]{5} samples \(the RCP mean for global batch 448\) at 2000 samples/s on each of 8 rank\(s\)"
import wnexp_open "$c" --division open
[ $rc = 0 ] || bad "wnexp_open: $(cat "$WORK/wnexp_open.err")"
dry_run wnexp_open
want "$WORK/wnexp_open.dry" "^warning +the per-run limit 2 .* is shorter than any run can take"

# 3. no shipped base (a GB200 node, GPUs only): an assumed topology from DGXNGPU, never this host's GPUs
G=$WORK/gb200/impl && mkdir -p "$G"
cp "$S/v5.0/NVIDIA/nyx_n1_ngc25.04_pytorch/run.sub" "$G/"
sed -e 's/^export DGXNNODES=.*/export DGXNNODES=2/' -e 's/^export DGXNGPU=.*/export DGXNGPU=4/' \
  "$S/v5.0/NVIDIA/nyx_n1_ngc25.04_pytorch/config_DGXB200_1x8x48x1_pack.sh" > "$G/config_GB200_2x4x48x1_pack.sh"
cp "$S/v5.0/NVIDIA/nyx_n1_ngc25.04_pytorch/config_common.sh" "$S/v5.0/NVIDIA/nyx_n1_ngc25.04_pytorch/config_mounts.sh" "$G/"
grep -q '^export DGXNGPU=4' "$G/config_GB200_2x4x48x1_pack.sh" || echo 'export DGXNGPU=4' >> "$G/config_GB200_2x4x48x1_pack.sh"
import gb200 "$G/config_GB200_2x4x48x1_pack.sh" --division open
[ $rc = 0 ] || bad "gb200: $(cat "$WORK/gb200.err")"
dry_run gb200
want "$WORK/gb200.table" "note: assumed topology pack:1 numa:1 core:4 pu:1 with 4 GPU\(s\).*not this host's"
want "$WORK/gb200.dry" "^nodes +2 x 4 ranks = 8 ranks"
want "$WORK/gb200.dry" "^topology +assumed pack:1 numa:1 core:4 pu:1: .* 4 GPU\(s\)"
want "$WORK/gb200.dry" "assumed from the config's variables, not read from any node"
grep -q "topology is read live" "$WORK/gb200.dry" && bad "gb200: planned on this host's live topology"
# --topology pins the real node instead; --set writes any key over the config
import gb200_xml "$G/config_GB200_2x4x48x1_pack.sh" --division open --topology "$SRC/systems/topologies/dgxh100.xml" \
  --set experiment.nexp=5 --set "trainer.env.NCCL_DEBUG=INFO"
[ $rc = 0 ] || bad "gb200_xml: $(cat "$WORK/gb200_xml.err")"
dry_run gb200_xml
want "$WORK/gb200_xml.dry" "^topology +[^ ]*dgxh100.xml: 2 package"
grep -q "assumed" "$WORK/gb200_xml.dry" && bad "gb200_xml: still assumed"
want "$WORK/gb200_xml.dry" "NEXP 5,"
want "$WORK/gb200_xml.yaml" "NCCL_DEBUG: INFO"
import gb200_badset "$G/config_GB200_2x4x48x1_pack.sh" --set nodes.gpu=4
[ $rc = 2 ] && grep -q "^harness import --set nodes.gpu=4: nodes.gpu: not a system key" "$WORK/gb200_badset.err" ||
  bad "--set nodes.gpu=4: $(cat "$WORK/gb200_badset.err")"
# no GPU count anywhere: one clear error, not this host's GPUs
sed -i '/DGXNGPU/d' "$G/config_GB200_2x4x48x1_pack.sh" "$G/config_common.sh"
import gb200_nogpu "$G/config_GB200_2x4x48x1_pack.sh"
[ $rc = 2 ] && grep -q "^  nodes.gpus_per_node: no GPU count: the config sets no DGXNGPU" "$WORK/gb200_nogpu.err" ||
  bad "no DGXNGPU: exit $rc: $(cat "$WORK/gb200_nogpu.err")"

# 4. topology variables that contradict the base (NVIDIA's DGX H100 helper says 64 cores per socket; it has 56)
import h100 "$S/v4.1/NVIDIA/h200_ngc23.09_pytorch/config_DGXH100_1x8x48x1_pack.sh"
[ $rc = 0 ] || bad "h100: $(cat "$WORK/h100.err")"
want "$WORK/h100.table" "^warning: DGXSOCKETCORES=64 but .*dgxh100.xml has 56 cores per socket"
want "$WORK/h100.table" "^profile nvidia-pytorch: run.sub:26[0-9] starts \`slurm2pytorch ./run_and_time.sh\` once per GPU with srun \(--mpi="

# 5. a PaddlePaddle-style run_and_time.sh (Baidu v2.0): it starts its ranks itself, so the builtin trainer runs
P=$WORK/paddle/impl && mkdir -p "$P"
make_config paddle config_DGXA100_1x8x56x1.sh "export WALLTIME=01:15:00" > /dev/null
cat > "$P/run_and_time.sh" <<'EOR'
#!/bin/bash
export PADDLE_TRAINERS_NUM=`$PYTHON -c "import paddle; print(paddle.device.cuda.device_count())"`
CMD="bash run_benchmark.sh"
if [[ $PADDLE_TRAINERS_NUM -gt 1 ]]; then
  ORTERUN=`which orterun`
  mpirun="$ORTERUN --allow-run-as-root -np $((PADDLE_TRAINERS_NUM * 2)) --bind-to none -x PADDLE_TRAINER_ENDPOINTS"
fi
$mpirun $CMD
EOR
import paddle "$P/config_DGXA100_1x8x56x1.sh" --division open
[ $rc = 0 ] || bad "paddle: $(cat "$WORK/paddle.err")"
want "$WORK/paddle.table" "^profile nvidia-pytorch: run_and_time.sh:5 starts the ranks itself \(orterun\), a PaddlePaddle implementation: .*the builtin trainer"
grep -q "kind: external" "$WORK/paddle.yaml" && bad "paddle: planned as a per-rank external trainer"
want "$WORK/paddle.yaml" "checkpoint: /data/phase1/model.ckpt-28252.h5"
# and a config with nothing beside it: guessed, and said so
rm "$P/run_and_time.sh"
import guessed "$P/config_DGXA100_1x8x56x1.sh"
want "$WORK/guessed.table" "^warning: the implementation's launch was guessed: no run.sub"

# 6. helpers the config's folder lacks: a name from an unset variable (Supermicro v4.1), NVIDIA's common
#    helper of a config copied out of NVIDIA's tree (Lenovo v3.1), a mistyped name (one clear error)
H=$WORK/helpers/impl && mkdir -p "$H"
sed 's|source $(dirname ${BASH_SOURCE\[0\]})/config_DGXH100_common.sh|source $(dirname ${BASH_SOURCE[0]})/config_${SYSTEM}_common.sh|' \
  "$S/v4.1/NVIDIA/h200_ngc23.09_pytorch/config_DGXH100_1x8x48x1_pack.sh" > "$H/config_AS-8125GS-TNHR_1x8x48x1_pack.sh"
printf 'export DGXNGPU=8\nexport DGXSOCKETCORES=48\nexport DGXNSOCKET=2\nexport DGXHT=2\n' > "$H/config_AS-8125GS-TNHR_common.sh"
import sysvar "$H/config_AS-8125GS-TNHR_1x8x48x1_pack.sh"
[ $rc = 0 ] || bad "sysvar: $(cat "$WORK/sysvar.err")"
want "$WORK/sysvar.table" "note: SYSTEM is unset and names the helper \(config_\\$\{SYSTEM\}_common.sh\): SYSTEM=AS-8125GS-TNHR"
want "$WORK/sysvar.table" "DGXSOCKETCORES += 48"
L=$WORK/lenovo/impl && mkdir -p "$L"
cp "$S/v4.1/NVIDIA/h200_ngc23.09_pytorch/config_DGXH100_1x8x48x1_pack.sh" "$L/"
import lenovo "$L/config_DGXH100_1x8x48x1_pack.sh"
[ $rc = 0 ] || bad "lenovo: $(cat "$WORK/lenovo.err")"
want "$WORK/lenovo.table" "note: config_DGXH100_common.sh is not beside the config \(its repository lacks it\): the node of the shipped base common/dgxh100_common.yaml stands in \(DGXNGPU=8 DGXNSOCKET=2 DGXSOCKETCORES=56 DGXHT=2\)"
N=$WORK/nettrix/impl && mkdir -p "$N"
printf 'export DGXNGPU=8\n' > "$N/config_X640G40_A30_common.sh"
printf 'export BATCHSIZE=16\nexport DGXNNODES=1\nsource ./config_X640_A30_common.sh\n' > "$N/config_X640G40_A30.sh"
import nettrix "$N/config_X640G40_A30.sh"
[ $rc = 2 ] && grep -q "^$N/config_X640G40_A30.sh:3:0: bash: line 3: ./config_X640_A30_common.sh: No such file or directory; the config's folder lacks the file it sources (the folder has config_X640G40_A30_common.sh)" "$WORK/nettrix.err" ||
  bad "nettrix: exit $rc: $(cat "$WORK/nettrix.err")"

[ $fail = 0 ] && echo PASS
exit $fail
