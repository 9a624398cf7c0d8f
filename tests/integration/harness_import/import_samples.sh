#!/usr/bin/env bash
# `harness import` on every real sample config (../shared/configs-sample, copied into tests/fixtures):
# the imported YAML's plan (--dry-run --json) against bash sourcing the config itself, variable by variable;
# the import time per config printed. Usage: import_samples.sh HARNESS SOURCE_DIR WORK
set -uo pipefail
HARNESS=$1 SRC=$2 WORK=$3
S=$SRC/tests/fixtures/configs-sample
rm -rf "$WORK" && mkdir -p "$WORK"
fail=0
data=(DATADIR_PHASE2_PACKED=/data/bert/packed_data EVALDIR=/data/bert/eval_varlength CHECKPOINTDIR_PHASE1=/data/bert/phase1)

expect_plan_error=""  # set: the case's import must stop with exit 2 and this message
# name | config | NEXP | first file | --env pairs [-- harness import options]
run_case() {
  local name=$1 config=$2 nexp=$3 first=$4; shift 4
  local dir out envs=() first_args=() src=()
  dir=$(dirname "$config")
  out=$WORK/$name
  mkdir -p "$out"
  local kvs=() opts=()  # after a "--": options of harness import itself
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; opts=("$@"); break; fi
    kvs+=("$1") envs+=(--env "$1"); shift
  done
  set -- "${kvs[@]}"
  if [ -n "$first" ]; then first_args=(--source-first "$first"); src=("$first"); fi
  # bash itself, as run.sub's users do: a clean env, source from the config's folder
  (cd "$dir" && env -i PATH=/usr/bin:/bin NEXP="$nexp" "$@" bash --noprofile --norc -c \
    'for f in "$@"; do source "$f"; done; env -0' _ "${src[@]}" "./$(basename "$config")") > "$out/bash.env" 2> /dev/null
  local t0 t1
  t0=$(date +%s%N)
  "$HARNESS" import "$config" --nexp "$nexp" "${envs[@]}" "${first_args[@]}" "${opts[@]}" -o "$out/imported.yaml" > "$out/table.txt" 2> "$out/stderr"
  local rc=$?
  t1=$(date +%s%N)
  echo "import $name: $(( (t1 - t0) / 1000000 )) ms (rc $rc)"
  if [ -n "$expect_plan_error" ]; then  # the import is written but its plan stops at a closed-division rule
    if [ $rc = 2 ] && grep -qF -- "$expect_plan_error" "$out/stderr"; then echo "  plan stops as expected: $expect_plan_error"
    else cat "$out/stderr"; echo "FAIL: $name: wanted exit 2 with '$expect_plan_error'"; fail=1; fi
    return
  fi
  if [ $rc != 0 ]; then cat "$out/stderr"; fail=1; return; fi
  "$HARNESS" run "$out/imported.yaml" --dry-run --json > "$out/plan.json" 2> "$out/stderr" || { cat "$out/stderr"; fail=1; return; }
  "$HARNESS" run "$out/imported.yaml" --dry-run > "$out/dry-run.txt" 2> /dev/null || fail=1
  python3 "$(dirname "$0")/import_compare.py" "$out/bash.env" "$out/plan.json" "$out/table.txt" || fail=1
}

run_case nvidia_v41_dgxh100 "$S/v4.1/NVIDIA/h200_ngc23.09_pytorch/config_DGXH100_1x8x48x1_pack.sh" 10 "" \
  "${data[@]}" CONT=nvcr.io#nvidia/mlperf/bert:ngc23.09 -- --submitter NVIDIA
run_case nvidia_v50_dgxb200 "$S/v5.0/NVIDIA/nyx_n1_ngc25.04_pytorch/config_DGXB200_1x8x48x1_pack.sh" 10 "" \
  "${data[@]}" CONT=nvcr.io#nvidia/mlperf/bert:ngc25.04 -- --submitter NVIDIA
run_case inventec_p8000 "$S/v5.0/Inventec/P8000_ngc23.09_pytorch/config_P8000H100_1x8x48x1_pack.sh" 10 \
  "$S/v5.0/Inventec/P8000_ngc23.09_pytorch/env.sh" -- --submitter Inventec
# hardware no shipped base describes (a DGX H100 config under another system name): the node from
# DGXNSOCKET/DGXSOCKETCORES/DGXHT/DGXNGPU
U=$WORK/unknown_impl && mkdir -p "$U"
cp "$S/v4.1/NVIDIA/h200_ngc23.09_pytorch/config_DGXH100_common.sh" "$U/config_XE9680_common.sh"
sed 's/config_DGXH100_common.sh/config_XE9680_common.sh/' "$S/v4.1/NVIDIA/h200_ngc23.09_pytorch/config_DGXH100_1x8x48x1_pack.sh" \
  > "$U/config_XE9680_1x8x48x1_pack.sh"
# no submitter: a closed-division plan needs one (issue 14), and no base names it (issue 48)
expect_plan_error="system.submitter: the closed division needs the submitting organization"
run_case unknown_xe9680 "$U/config_XE9680_1x8x48x1_pack.sh" 10 "" "${data[@]}" CONT=registry#bert:1
grep -qF -- "--submitter ORG (or BERT_SUBMITTER=ORG" "$WORK/unknown_xe9680/stderr" || { echo "FAIL: no --submitter hint"; fail=1; }
# --submitter (and --division) go into the YAML: the same config then plans, and its results name the submitter
expect_plan_error=""
run_case unknown_xe9680_submitter "$U/config_XE9680_1x8x48x1_pack.sh" 10 "" "${data[@]}" CONT=registry#bert:1 -- \
  --submitter "Dell Technologies" --division closed
grep -q '^  submitter: Dell Technologies$' "$WORK/unknown_xe9680_submitter/imported.yaml" &&
  grep -q '^  division: closed$' "$WORK/unknown_xe9680_submitter/imported.yaml" &&
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); sys.exit(0 if p["system_json"]["submitter"] == "Dell Technologies" else 1)' \
    "$WORK/unknown_xe9680_submitter/plan.json" || { echo "FAIL: --submitter/--division not in the import or its plan"; fail=1; }
"$HARNESS" import "$U/config_XE9680_1x8x48x1_pack.sh" --division both -o "$WORK/bad_division.yaml" > /dev/null 2> "$WORK/bad_division.err"
[ $? = 2 ] && grep -qF -- "--division: 'both' is not a division (closed or open)" "$WORK/bad_division.err" ||
  { echo "FAIL: --division both: $(cat "$WORK/bad_division.err")"; fail=1; }
# the 128-node config's eval cadence on run_multinode.sh's 2 hosts (global batch 256) is not closed-division
expect_plan_error="= 150000 samples for global batch 256; got 325000"
run_case samsung_v11 "$S/v1.1/Samsung/pytorch/config_Samsung_Supercomputer21_DGXA100_128x8x16x1.sh" 10 ""
expect_plan_error=""

# The shipped variant running NVIDIA's implementation on the P8000 is what importing Inventec's files gives:
# every variable the import passes has the same value there (numbers compared as numbers; NEXP is env.sh's).
"$HARNESS" run "$SRC/systems/p8000h100_1x8x48x1_pack_nvidia.yaml" --dry-run --json > "$WORK/shipped_p8000.json" || fail=1
python3 - "$WORK/shipped_p8000.json" "$WORK/inventec_p8000/plan.json" <<'EOP' || fail=1
import json, sys
shipped, imported = (json.load(open(f)) for f in sys.argv[1:3])
def same(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b
bad = [k for k, v in imported["trainer"]["env"].items() if k != "NEXP" and not same(shipped["trainer"]["env"].get(k), v)]
for k in ("container", "num_nodes", "ranks_per_node", "mpi"):
    if shipped[k] != imported[k]:
        bad.append(k)
if bad:
    print("shipped p8000h100_1x8x48x1_pack_nvidia.yaml differs from the import in: " + ", ".join(bad))
sys.exit(1 if bad else 0)
EOP

# WALLTIME follows NEXP (NEXP * 8 + 5): the per-run limit is WALLTIME_MINUTES, the job's derived from it and
# NEXP (5 + NEXP x (8 + 5)); MaxQ clocks the per-run time (+10)
grep -q "run_walltime: 8$" "$WORK/nvidia_v41_dgxh100/imported.yaml" && ! grep -q "job_walltime" "$WORK/nvidia_v41_dgxh100/imported.yaml" &&
  grep -q "WALLTIME  *= 85  *-> the config's job limit for NEXP 10 (it follows NEXP); the plan's is 135 = 5 + NEXP 10 x (run 8 + 5)" "$WORK/nvidia_v41_dgxh100/table.txt" &&
  grep -q "job 135 (sbatch --time) = 5 + NEXP 10 x (run 8 + 5) minutes" "$WORK/nvidia_v41_dgxh100/dry-run.txt" ||
  { echo "v4.1: expected run_walltime 8 and the job's 135 derived for NEXP 10"; fail=1; }
"$HARNESS" import "$S/v4.1/NVIDIA/h200_ngc23.09_pytorch/config_DGXH100_1x8x48x1_pack.sh" --nexp 2 --maxq --submitter NVIDIA \
  "${data[@]/#/--env=}" -o "$WORK/maxq.yaml" > /dev/null 2>&1 || fail=1
grep -q "run_walltime: 18" "$WORK/maxq.yaml" || { echo "--nexp 2 --maxq: expected 18 min per run"; fail=1; }

# bad configs: exit 2, the file, the line and bash's message
B=$WORK/bad && mkdir -p "$B"
printf 'export BATCHSIZE=48\nsource $(dirname ${BASH_SOURCE[0]})/config_missing_common.sh\nexport LR=1\n' > "$B/config_A_1x8x48x1.sh"
printf 'export A=1\nnot_a_command_xyz --flag\nexport B=2\n' > "$B/config_B.sh"
printf 'export A=1\nsleep 30\n' > "$B/config_C.sh"
expect_error() {
  local config=$1 pattern=$2
  "$HARNESS" import "$config" --timeout 2 -o "$B/out.yaml" > /dev/null 2> "$B/stderr"
  local rc=$?
  if [ $rc != 2 ] || ! grep -qE "$pattern" "$B/stderr"; then
    echo "import $(basename "$config"): expected exit 2 and /$pattern/, got $rc: $(cat "$B/stderr")"
    fail=1
  fi
}
expect_error "$B/config_A_1x8x48x1.sh" "config_A_1x8x48x1.sh:2:.*config_missing_common.sh: No such file or directory"
expect_error "$B/config_B.sh" "config_B.sh:2:.*not_a_command_xyz: command not found"
expect_error "$B/config_C.sh" "config_C.sh: bash did not finish sourcing it within 2 s"
# The population's idioms (issue 15): a helper found through $(dirname ${BASH_SOURCE[0]}), DGXSYSTEM from
# the file name, comments after the closing quote, single quotes inside double quotes, a backslash
# continuation, set -x, a bare REDACTED line, an env override with a default, HH:MM:SS walltime.
I=$WORK/idioms/impl && mkdir -p "$I"
printf 'export DGXNGPU=8\nexport DGXNSOCKET=2\n' > "$I/config_DGXA100_common.sh"
printf 'export NCCL_TOPO_FILE=/workspace/bert/topo.xml\n' > "$WORK/idioms/site_common.sh"  # a sibling folder's helper
cat > "$I/config_DGXA100_1x8x56x1.sh" <<'EOC'
set -x
export BATCHSIZE=56 # per GPU
export LR=${CDI_SET_LR:-0.00035}
export GRADIENT_STEPS=1
export MAX_STEPS=7100
export EXTRA_PARAMS="--unpad --cuda_graph_mode 'segmented' "  # trailing comment
export OPT_LAMB_BETA_1="0.9"   # quoted
export NCCL_SOCKET_IFNAME="ib0,\
ib1"
REDACTED
export DGXNNODES=1
export DGXSYSTEM=$(basename $(readlink -f ${BASH_SOURCE[0]}) | sed 's/^config_//' | sed 's/\.sh$//' )
export WALLTIME=01:15:00
source $(dirname ${BASH_SOURCE[0]})/config_DGXA100_common.sh
source $(dirname ${BASH_SOURCE[0]})/../site_common.sh
mkdir -p ./api_logs
set +x
EOC
"$HARNESS" import "$I/config_DGXA100_1x8x56x1.sh" --env DATADIR_PHASE2=/d/t --env EVALDIR=/d/e --submitter Org \
  -o "$WORK/idioms/out.yaml" > "$WORK/idioms/table.txt" 2> "$WORK/idioms/stderr" || { cat "$WORK/idioms/stderr"; fail=1; }
for want in "extends: .*common/dgxa100_common.yaml" "config_name: DGXA100_1x8x56x1" "learning_rate: 0.00035" \
             "EXTRA_PARAMS: \"--unpad --cuda_graph_mode 'segmented' \"" "lamb_beta_1: 0.9" "run_walltime: 01:15:00" \
             "NCCL_SOCKET_IFNAME: ib0,ib1" "batch_size: 56" "NCCL_TOPO_FILE: /workspace/bert/topo.xml"; do
  grep -q -- "$want" "$WORK/idioms/out.yaml" || { echo "idioms: '$want' not in the import"; fail=1; }
done
[ -f "$WORK/idioms/site_common.sh" ] && [ ! -e "$I/api_logs" ] || { echo "idioms: the import touched the config's folders"; fail=1; }
grep -q "$I/config_DGXA100_1x8x56x1.sh:10: REDACTED" "$WORK/idioms/table.txt" || { echo "idioms: the REDACTED line is not noted"; fail=1; }

# EXTRA_PARAMS: the flags the harness must know become keys (the last one wins, as in run_pretraining.py's
# parser, over the variables too), the variable itself goes on verbatim; a valued flag without a value stops.
X=$WORK/extra && mkdir -p "$X"
cp "$I/config_DGXA100_common.sh" "$X/"
sed -e '/^export EXTRA_PARAMS/d' -e '/^REDACTED/d' -e '/api_logs/d' -e '/site_common/d' "$I/config_DGXA100_1x8x56x1.sh" > "$X/config_DGXA100_1x8x56x1.sh"
extra="--dense_seq_output --eval_batch_size=32 --max_seq_length 384 --learning_rate=0.0005 --average_packing_rate=1.7 --packed_samples --num_eval_examples 5000 --learning_rate=0.0006 --cuda_graph_mode 'segmented'"
echo "export EXTRA_PARAMS=\"$extra\"" >> "$X/config_DGXA100_1x8x56x1.sh"
"$HARNESS" import "$X/config_DGXA100_1x8x56x1.sh" --env DATADIR_PHASE2=/d/t --env EVALDIR=/d/e --division open \
  -o "$X/out.yaml" > "$X/table.txt" 2> "$X/stderr" || { cat "$X/stderr"; fail=1; }
"$HARNESS" run "$X/out.yaml" --dry-run --json > "$X/plan.json" 2> "$X/stderr" || { cat "$X/stderr"; fail=1; }
python3 - "$X/plan.json" "$extra" <<'EOP' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))
tc, env = p["trainer_config"], p["trainer"]["env"]
got = {"eval_batch_size": tc["batch"]["eval_batch_size"], "max_seq_length": tc["data"]["max_seq_length"],
       "format": tc["data"]["data_format"], "average_packing_rate": tc["batch"]["average_packing_rate"],
       "num_eval_examples": tc["data"]["num_eval_examples"], "learning_rate": tc["optimizer"]["learning_rate"]}
want = {"eval_batch_size": 32, "max_seq_length": 384, "format": "packed", "average_packing_rate": 1.7,
        "num_eval_examples": 5000, "learning_rate": 0.0006}
bad = [f"{k}: {got[k]!r}, want {v!r}" for k, v in want.items() if str(got[k]) != str(v) and not (
    isinstance(v, float) and float(got[k]) == v)]
if env.get("EXTRA_PARAMS") != sys.argv[2]:
    bad.append(f"EXTRA_PARAMS not passed verbatim: {env.get('EXTRA_PARAMS')!r}")
if bad:
    print("EXTRA_PARAMS import: " + "; ".join(bad))
sys.exit(1 if bad else 0)
EOP
for want in "EXTRA_PARAMS --eval_batch_size *= 32 *-> benchmark.eval_batch_size" \
            "EXTRA_PARAMS --packed_samples *= (switch) *-> benchmark.data.format packed$" \
            "LR  *= 0.00035 *-> benchmark.learning_rate (overridden: EXTRA_PARAMS --learning_rate 0.0006)"; do
  grep -q -- "$want" "$X/table.txt" || { echo "EXTRA_PARAMS import: no table row /$want/"; cat "$X/table.txt"; fail=1; }
done
# --packed_samples alone: run_pretraining.py's packing rate 2, whatever PACKING_FACTOR says (the 8x8x36x1_pack
# configs set 1; their eval cadence is that of rate 2)
sed -i 's/ --average_packing_rate=1.7//' "$X/config_DGXA100_1x8x56x1.sh" && echo "export PACKING_FACTOR=1" >> "$X/config_DGXA100_1x8x56x1.sh"
"$HARNESS" import "$X/config_DGXA100_1x8x56x1.sh" --env DATADIR_PHASE2=/d/t --env EVALDIR=/d/e --division open \
  -o "$X/rate.yaml" > "$X/rate.txt" 2> "$X/stderr" || { cat "$X/stderr"; fail=1; }
grep -q "^  average_packing_rate: 2$" "$X/rate.yaml" &&
  grep -q "PACKING_FACTOR *= 1 *-> benchmark.average_packing_rate (overridden: EXTRA_PARAMS --packed_samples 2)" "$X/rate.txt" &&
  grep -q "EXTRA_PARAMS --packed_samples *= (switch) *-> benchmark.average_packing_rate 2, benchmark.data.format packed" "$X/rate.txt" ||
  { echo "EXTRA_PARAMS --packed_samples: not packing rate 2 over PACKING_FACTOR=1"; cat "$X/rate.txt"; fail=1; }
sed -i 's/--num_eval_examples 5000/--num_eval_examples/' "$X/config_DGXA100_1x8x56x1.sh"
"$HARNESS" import "$X/config_DGXA100_1x8x56x1.sh" -o "$X/bad.yaml" > /dev/null 2> "$X/bad.err"
[ $? = 2 ] && grep -qF -- "config_DGXA100_1x8x56x1.sh: EXTRA_PARAMS: --num_eval_examples has no value" "$X/bad.err" ||
  { echo "EXTRA_PARAMS without a value: $(cat "$X/bad.err")"; fail=1; }

[ $fail = 0 ] && echo PASS
exit $fail
