#!/usr/bin/env bash
# Issue 48: an import (and the plan it gives) never says something false. Each case is a config written here
# the way a real submitter wrote it (training_results_v1.1-v5.0), checked in the import table, the YAML,
# the dry-run and plan.json, which must all say the same:
#   1. the submitter is the user's (--submitter, or BERT_SUBMITTER, the site's default), never a hardware
#      base's; none in the closed division is an error naming it (Lenovo v5.0 config_DGXB200_1x8x48x1_pack.sh);
#   2. a rendezvous host hard-coded for another site is dropped, the port is the launch's (Dell v1.1
#      config_XE8545_2x4x56x1.sh: MASTER_ADDR=100.83.149.84, MASTER_PORT=9002);
#   3. WALLTIME=UNLIMITED is no job limit everywhere (Dell v5.0 config_XE9680Lx8B200-SXM-180GB_1x8x48x1_pack.sh);
#      HPE's WALLTIME=NEXP x WALLTIME_MINUTES + 5: the config's value and the plan's, both said;
#   5. hardware without a base: every missing item in one run, nothing written until it plans; an assumed
#      topology's binding shows as unknown, and no rank is bound from it;
#   6. --topology as given, a config that exits names its line, launcher.srun.* on a local system is ignored
#      and said so, the builtin trainer's dry-run shows its data.
# Usage: import_truth.sh HARNESS SOURCE_DIR WORK
set -uo pipefail
source "$(dirname "$0")/import_lib.sh" "$@"
wantnot() { ! grep -qE -- "$2" "$1" || bad "$(basename "$1"): has /$2/: $(grep -E -- "$2" "$1" | head -1)"; }
unset BERT_SUBMITTER
import() {  # name config [options...]: exit code in $rc, outputs in $WORK/<name>.*
  local name=$1 config=$2; shift 2
  "$HARNESS" import "$config" "$@" -o "$WORK/$name.yaml" > "$WORK/$name.table" 2> "$WORK/$name.err"
  rc=$?
}
dry_run() {  # name [harness run options]: the dry-run text and plan.json
  local name=$1; shift
  "$HARNESS" run "$WORK/$name.yaml" --dry-run "$@" > "$WORK/$name.dry" 2> "$WORK/$name.dryerr" || bad "$name: dry-run: $(cat "$WORK/$name.dryerr")"
  "$HARNESS" run "$WORK/$name.yaml" --dry-run --json "$@" > "$WORK/$name.json" 2> /dev/null || bad "$name: dry-run --json"
}
json() { python3 -c "import json,sys; p=json.load(open(sys.argv[1])); print($2)" "$WORK/$1.json"; }

# NVIDIA v5.0's implementation folder (run.sub, helpers) with a submitter's config in it.
impl() {  # folder: a copy of the nyx implementation without its config
  mkdir -p "$1"
  cp "$S/v5.0/NVIDIA/nyx_n1_ngc25.04_pytorch/"{run.sub,run_and_time.sh,config_common.sh,config_mounts.sh} "$1/"
}

# ---- 1. Lenovo v5.0: a DGX B200 config (the shipped base describes the hardware, not who submits) ----
L=$WORK/Lenovo/benchmarks && impl "$L"
# Lenovo's v5.0 config is NVIDIA's v5.0 DGX B200 config, copied as it is
cp "$S/v5.0/NVIDIA/nyx_n1_ngc25.04_pytorch/config_DGXB200_1x8x48x1_pack.sh" "$L/"
LC=$L/config_DGXB200_1x8x48x1_pack.sh
# no submitter and no checkpoint: both named in one run, nothing written
import lenovo_none "$LC" --env DATADIR_PHASE2_PACKED=/data/packed --env EVALDIR=/data/eval
[ $rc = 2 ] || bad "lenovo_none: exit $rc, wanted 2"
[ -e "$WORK/lenovo_none.yaml" ] && bad "lenovo_none: a YAML that does not plan was written"
[ -e "$WORK/lenovo_none.yaml.partial" ] || bad "lenovo_none: no partial YAML"
want "$WORK/lenovo_none.err" "^harness import: the YAML as far as it goes: $WORK/lenovo_none.yaml.partial$"
want "$WORK/lenovo_none.err" "^harness import: $WORK/lenovo_none.yaml not written: it does not plan yet"
want "$WORK/lenovo_none.err" "^  system.submitter: the closed division needs the submitting organization, which no config names .*--submitter ORG \(or BERT_SUBMITTER=ORG"
want "$WORK/lenovo_none.err" "^  benchmark.data.checkpoint: CHECKPOINTDIR_PHASE1 is not set: the closed division trains from MLPerf's phase-1 checkpoint"
wantnot "$WORK/lenovo_none.err" "NVIDIA"
BERT_SUBMITTER=Lenovo import lenovo_none "$LC" "${data[@]}"  # given: written, the partial one gone
[ $rc = 0 ] && [ -e "$WORK/lenovo_none.yaml" ] && [ ! -e "$WORK/lenovo_none.yaml.partial" ] ||
  bad "lenovo_none again: exit $rc, $(echo "$WORK"/lenovo_none.*)"
# the site's default, then --submitter over it: the plan's organization everywhere
BERT_SUBMITTER="Lenovo" import lenovo_site "$LC" "${data[@]}"
[ $rc = 0 ] || bad "lenovo_site: $(cat "$WORK/lenovo_site.err")"
want "$WORK/lenovo_site.table" "^note: system.submitter: Lenovo \(BERT_SUBMITTER, the site's default\)"
dry_run lenovo_site
[ "$(json lenovo_site 'p["system_json"]["submitter"], p["trainer_config"]["submission"]["submission_org"]')" = "Lenovo Lenovo" ] ||
  bad "lenovo_site: plan.json's organization: $(json lenovo_site 'p["system_json"]["submitter"]')"
BERT_SUBMITTER="Site Default" import lenovo "$LC" "${data[@]}" --submitter Lenovo
grep -q '^  submitter: Lenovo$' "$WORK/lenovo.yaml" || bad "lenovo: --submitter not written over the site's default"
# open division without one: written as none, and the table says what the logs will carry
import lenovo_open "$LC" "${data[@]}" --division open
[ $rc = 0 ] || bad "lenovo_open: $(cat "$WORK/lenovo_open.err")"
want "$WORK/lenovo_open.table" "^  system.submitter: none given: the logs' submission_org and the systems JSON say SUBMISSION_ORG_PLACEHOLDER"
dry_run lenovo_open
[ "$(json lenovo_open 'p["trainer_config"]["submission"]["submission_org"]')" = SUBMISSION_ORG_PLACEHOLDER ] || bad "lenovo_open: organization"
# every value the config did not give has its line: the base's keys by file, the launch's by run.sub's line
want "$WORK/lenovo.table" "^not from the config$"
want "$WORK/lenovo.table" "^  system.host_processor_model_name, .*topology.synthetic, .*: from common/dgxb200_common.yaml \(the hardware base for DGXB200\)"
want "$WORK/lenovo.table" "^  trainer.kind external, trainer.profile nvidia-pytorch: run.sub:[0-9]+ starts"
want "$WORK/lenovo.table" "^  MASTER_PORT 29500: launcher.master_port by default \(the config sets none\)"
want "$WORK/lenovo.table" "^  every other key: the schema's default"

# ---- 2. + 3. Dell v1.1: 2 nodes of 4 A100s, no shipped base, the site's rendezvous, WALLTIME=UNLIMITED ----
D=$WORK/Dell/pytorch && mkdir -p "$D"
cat > "$D/config_XE8545_multinode_common.sh" <<'EOC'
## System config params
export DGXNGPU=4
export DGXSOCKETCORES=64
export DGXNSOCKET=2
export DGXHT=2         # HT is on is 2, HT off is 1
export SLURM_NTASKS=${DGXNGPU}
EOC
{ echo '## DL params'
  v11_dl_params 9000 OPT_LAMB_BETA_1=0.9 OPT_LAMB_BETA_2=0.999 START_WARMUP_STEP=0 WARMUP_PROPORTION=0.0
} > "$D/config_XE8545_2x4x56x1.sh"
cat >> "$D/config_XE8545_2x4x56x1.sh" <<'EOC'

#distributed pytorch variables
export WORLD_SIZE=8
export MASTER_ADDR=100.83.149.84
export MASTER_PORT=9002
export SBATCH_NETWORK=sharp

## System run parms
export DGXNNODES=2
export DGXSYSTEM=$(basename $(readlink -f ${BASH_SOURCE[0]}) | sed 's/^config_//' | sed 's/\.sh$//' )
export WALLTIME=UNLIMITED

## System config params
source config_XE8545_multinode_common.sh
EOC
v11_run_sub "$D"
import dell11 "$D/config_XE8545_2x4x56x1.sh" "${data[@]}" --submitter "Dell"
[ $rc = 0 ] || bad "dell11: $(cat "$WORK/dell11.err")"
want "$WORK/dell11.table" "^  MASTER_ADDR += 100.83.149.84 +-> a rendezvous host of the config's own site: the harness gives every rank the first node of the job"
want "$WORK/dell11.table" "^  MASTER_PORT += 9002 +-> launcher.master_port \(the launch's MASTER_PORT\)"
want "$WORK/dell11.table" "^  WALLTIME += UNLIMITED +-> experiment.job_walltime \(no job limit: sbatch --time=UNLIMITED"
wantnot "$WORK/dell11.yaml" "100.83.149.84|MASTER_ADDR:|MASTER_PORT:"
want "$WORK/dell11.yaml" "master_port: 9002"
# inside the job: rank 0's node is the rendezvous, the port is the config's, said once
SLURM_JOB_NODELIST="gpu[01-02]" SLURM_JOB_ID=7 dry_run dell11
wantnot "$WORK/dell11.dry" "100.83.149.84|MASTER_PORT=29500"
want "$WORK/dell11.dry" "^trainer env MASTER_PORT=9002$"
want "$WORK/dell11.dry" "^trainer env MASTER_ADDR=gpu01$"
want "$WORK/dell11.dry" "^walltime    per experiment none \(watchdog\), job UNLIMITED \(sbatch --time=UNLIMITED: no limit but the partition's\)"
want "$WORK/dell11.dry" "^  submit: +sbatch --nodes=2 --time=UNLIMITED "
[ "$(json dell11 'p["experiment"]["job_walltime"], p["trainer"]["env"]["MASTER_ADDR"], p["trainer"]["env"]["MASTER_PORT"]')" = "UNLIMITED gpu01 9002" ] ||
  bad "dell11: plan.json: $(json dell11 'p["experiment"]["job_walltime"], p["trainer"]["env"]')"
# the same value said twice in a YAML (trainer.env and the launch's): one clear error at the key
{ echo "extends: dell11.yaml"; echo "trainer: {env: {MASTER_ADDR: 100.83.149.84}}"; } > "$WORK/twice.yaml"
"$HARNESS" run "$WORK/twice.yaml" --dry-run > /dev/null 2> "$WORK/twice.err"
rc=$?
[ $rc = 2 ] || bad "twice: exit $rc, wanted 2"
want "$WORK/twice.err" "^$WORK/twice.yaml:2:[0-9]+: trainer.env.MASTER_ADDR: 100.83.149.84, but the launch gives every rank the job's first node"
{ echo "extends: dell11.yaml"; echo "trainer: {env: {MASTER_PORT: '9002'}}"; echo "launcher: {master_port: 29500}"; } > "$WORK/twice.yaml"
"$HARNESS" run "$WORK/twice.yaml" --dry-run > /dev/null 2> "$WORK/twice.err"
want "$WORK/twice.err" "^$WORK/twice.yaml:2:[0-9]+: trainer.env.MASTER_PORT: 9002, but the launch gives every rank MASTER_PORT=29500 \(launcher.master_port\): write launcher.master_port: 9002 instead"

# ---- 3. Dell v5.0: WALLTIME=UNLIMITED beside a per-run limit; a B200 node no base describes (no DGXNSOCKET) ----
E=$WORK/Dell5/pytorch && impl "$E"
sed -e 's/^export WALLTIME=.*/export WALLTIME=UNLIMITED/' "$LC" \
  > "$E/config_XE9680Lx8B200-SXM-180GB_1x8x48x1_pack.sh"
import dell50 "$E/config_XE9680Lx8B200-SXM-180GB_1x8x48x1_pack.sh" "${data[@]}" --submitter "Dell"
[ $rc = 0 ] || bad "dell50: $(cat "$WORK/dell50.err")"
want "$WORK/dell50.table" "^  WALLTIME += UNLIMITED +-> experiment.job_walltime \(no job limit"
dry_run dell50
want "$WORK/dell50.dry" "^walltime    per experiment 12 \(watchdog\), job UNLIMITED \(sbatch --time=UNLIMITED: no limit but the partition's\)$"
want "$WORK/dell50.dry" "^  submit: +sbatch --nodes=1 --time=UNLIMITED "
# the node is assumed (one core per GPU): no rank is bound from it, and the table says unknown
want "$WORK/dell50.dry" "^topology    assumed pack:1 numa:1 core:8 pu:1"
want "$WORK/dell50.dry" "^      0       0    0  -                 \?  \(unknown\) +\(unknown\)$"
wantnot "$WORK/dell50.dry" "\(unbound\)"
[ "$(json dell50 'sorted({r["binding"]["cpus"] for n in p["nodes"] for r in n["ranks"]})')" = "['']" ] ||
  bad "dell50: ranks bound from an assumed topology: $(json dell50 '[r["binding"]["cpus"] for r in p["nodes"][0]["ranks"]]')"

# ---- 3. Dell v4.1 R760: WALLTIME_MINUTES=UNLIMITED and no WALLTIME: no limit per run, and none for the job ----
R=$WORK/Dell41/pytorch && impl "$R"
sed -e 's/^export WALLTIME_RUNANDTIME=.*/export WALLTIME_MINUTES=UNLIMITED/' -e '/^export WALLTIME=/d' "$LC" > "$R/config_R760x2H100NVL-PCIe-94GB.sh"
import r760 "$R/config_R760x2H100NVL-PCIe-94GB.sh" "${data[@]}" --submitter Dell --set nodes.gpus_per_node=2 \
  --set "topology.synthetic=pack:2 numa:1 core:32 pu:2" --set "topology.gpu_numa_map=[0,1]" --set topology.assumed=true
[ $rc = 0 ] || bad "r760: $(cat "$WORK/r760.err")"
want "$WORK/r760.table" "^  WALLTIME_MINUTES += UNLIMITED +-> experiment.run_walltime \(no per-run limit; unless WALLTIME gives one, the job's is UNLIMITED too"
dry_run r760
want "$WORK/r760.dry" "^walltime    per experiment none \(watchdog\), job UNLIMITED \(sbatch --time=UNLIMITED: no limit but the partition's\)$"
want "$WORK/r760.dry" "^  submit: +sbatch --nodes=1 --time=UNLIMITED "

# ---- 3. HPE: WALLTIME=$(( NEXP x WALLTIME_MINUTES + 5 )): the config's value and the plan's, both said ----
H=$WORK/HPE/pytorch && impl "$H"
sed -e 's/^export WALLTIME_RUNANDTIME=.*/export WALLTIME_MINUTES=8/' \
  -e 's/^export WALLTIME=.*/export WALLTIME=$(( ${NEXP:-1} * ${WALLTIME_MINUTES} + 5 ))/' "$LC" > "$H/config_DGXB200_1x8x48x1_pack.sh"
import hpe "$H/config_DGXB200_1x8x48x1_pack.sh" "${data[@]}" --submitter HPE
[ $rc = 0 ] || bad "hpe: $(cat "$WORK/hpe.err")"
want "$WORK/hpe.table" "^  WALLTIME += 85 +-> the config's job limit for NEXP 10 \(it follows NEXP\); the plan's is 135 = 5 \+ NEXP 10 x \(run 8 \+ 5\) minutes"
dry_run hpe
want "$WORK/hpe.dry" "^walltime    per experiment 8 \(watchdog\), job 135 \(sbatch --time\) = 5 \+ NEXP 10 x \(run 8 \+ 5\) minutes"

# ---- 5. a GB200 node without a base, DGXNGPU, submitter or checkpoint: all of it in one run ----
G=$WORK/GB200/pytorch && impl "$G"
sed -e '/DGXNGPU/d' -e 's/^export DGXNNODES=.*/export DGXNNODES=2/' "$LC" > "$G/config_GB200_2x4x48x1_pack.sh"
import gb200 "$G/config_GB200_2x4x48x1_pack.sh" --env DATADIR_PHASE2_PACKED=/data/packed --env EVALDIR=/data/eval
[ $rc = 2 ] || bad "gb200: exit $rc, wanted 2"
[ -e "$WORK/gb200.yaml" ] && bad "gb200: a YAML that does not plan was written"
[ "$(grep -c '^  [a-z_.]*: ' "$WORK/gb200.err")" = 3 ] || bad "gb200: wanted 3 missing items: $(cat "$WORK/gb200.err")"
want "$WORK/gb200.err" "^  nodes.gpus_per_node: no GPU count: the config sets no DGXNGPU and no shipped hardware base describes 'GB200_2x4x48x1_pack'"
want "$WORK/gb200.err" "^  system.submitter: "
want "$WORK/gb200.err" "^  benchmark.data.checkpoint: "
import gb200_given "$G/config_GB200_2x4x48x1_pack.sh" "${data[@]}" --submitter Org --set nodes.gpus_per_node=4 \
  --set "topology.synthetic=pack:1 numa:1 core:72 pu:1" --set "topology.gpu_numa_map=[0,0,0,0]" --set topology.assumed=true
[ $rc = 0 ] || bad "gb200_given: $(cat "$WORK/gb200_given.err")"

# ---- 6. --topology as given; a config that exits; launcher.srun.* where the launcher is local; our data ----
import topo_abs "$E/config_XE9680Lx8B200-SXM-180GB_1x8x48x1_pack.sh" "${data[@]}" --submitter Dell \
  --topology "$SRC/systems/topologies/dgxh100.xml"
[ $rc = 0 ] || bad "topo_abs: $(cat "$WORK/topo_abs.err")"
want "$WORK/topo_abs.yaml" "^  xml: $SRC/systems/topologies/dgxh100.xml$"
mkdir -p "$WORK/moved" && cp "$WORK/topo_abs.yaml" "$WORK/moved/"  # a YAML that moves keeps its node
"$HARNESS" run "$WORK/moved/topo_abs.yaml" --dry-run > "$WORK/moved.dry" 2>&1 || bad "topo_abs moved: $(cat "$WORK/moved.dry")"
X=$WORK/exits/impl && mkdir -p "$X"
printf 'export BATCHSIZE=48\n[ -n "$CONT" ] || { echo "CONT must be set"; exit 1; }\nexport LR=1\n' > "$X/config_DGXA100_1x8x48x1.sh"
import exits "$X/config_DGXA100_1x8x48x1.sh"
[ $rc = 2 ] || bad "exits: exit $rc, wanted 2"
want "$WORK/exits.err" "^$X/config_DGXA100_1x8x48x1.sh:2:0: \`exit 1\` ends the shell that sources the config"
cat > "$WORK/local_srun.yaml" <<EOY
extends: $SRC/systems/local.yaml
launcher:
  srun:
    mpi: pmix
EOY
"$HARNESS" run "$WORK/local_srun.yaml" --dry-run > "$WORK/local_srun.dry" 2>&1 || bad "local_srun: $(cat "$WORK/local_srun.dry")"
want "$WORK/local_srun.dry" "^warning     launcher.srun.mpi \($WORK/local_srun.yaml:4:[0-9]+\) is ignored: launcher.type is local$"
want "$WORK/local_srun.dry" "^data        train_dir .*/data/train, eval_dir .*/data/eval, checkpoint none$"

# every import above: each key its YAML writes has a line of the table that says where it came from
for n in lenovo lenovo_site lenovo_open dell11 dell50 r760 hpe gb200_given topo_abs; do
  python3 "$(dirname "$0")/import_accounted.py" "$WORK/$n.yaml" "$WORK/$n.table" || bad "$n: a key of the YAML the table does not account for"
done

[ $fail = 0 ] && echo PASS
exit $fail
