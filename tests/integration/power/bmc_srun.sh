#!/usr/bin/env bash
# Power from real BMC protocols on two emulated Slurm nodes, the monitors started through srun
# (--overlap, one task a node): one OpenIPMI BMC simulator (ipmi_sim) per node answered by the real
# ipmitool over lanplus on loopback, through DCMI's Get Power Reading (what NVIDIA's power_monitor.sh
# asks; ipmi_sim answers it through DCMI_MODULE, dcmi_bmc_module.c) and then through an SDR power
# sensor; then one Redfish service per node (HTTPS, the DMTF Power schema; redfish_server.py). Each
# node's log holds its own BMC's watts; the energy is the official summarizer's; a BMC that stops
# answering (SIGSTOP) in the second run is a named error of that run's energy while training goes on;
# the BMC password is in no file of the output directory.
#   bmc_srun.sh HARNESS FAKE_TRAINER PYTHON DCMI_MODULE
set -uo pipefail
harness=$1 fake=$2 py=$3 dcmi_module=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/slurm/require-cluster.sh
source "$here/../slurm/require-cluster.sh"
[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -ge 2 ] || { echo "SKIPPED: needs 2 nodes"; exit 77; }
if ! command -v ipmi_sim > /dev/null || ! command -v ipmitool > /dev/null; then
  echo "SKIPPED: openipmi/ipmitool not installed (scripts/setup --test)"
  exit 77
fi
if [ -z "$dcmi_module" ]; then
  echo "SKIPPED: the DCMI module for ipmi_sim was not built (libopenipmi-dev: scripts/setup --test)"
  exit 77
fi
scratch_work power-bmc
pids=()
declare -A sim  # node -> its ipmi_sim's pid
trap 'for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; show_tails 25 "$work"/*.out "$work"/sim*.log; exit 1; }
secret=s3cret-$RANDOM$RANDOM
printf 'username: admin\npassword: %s\n' "$secret" > "$work/bmc.yaml"
chmod 600 "$work/bmc.yaml"
mkdir -p "$work/data"

# One ipmi_sim per node: lanplus on 127.0.0.1:PORT, DCMI's power reading RAW x 10 W, and an SDR "Pwr
# Consumption" sensor (entity 21, watts, M = 10: raw 50 reads 500 W).
start_ipmi_sim() {  # NODE PORT RAW
  local name="Pwr Consumption" d=$work/sim$1
  mkdir -p "$d"
  cat > "$d/lan.conf" <<CONF
name "$1"
loadlib "$dcmi_module" "watts=$(($3 * 10))"
set_working_mc 0x20
  startlan 1
    addr 127.0.0.1 $2
    priv_limit admin
    allowed_auths_callback none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_admin none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
  user 2 true "admin" "$secret" admin 10 none md2 md5 straight
CONF
  local id
  id=$(printf '%s' "$name" | od -An -tx1 | tr -s ' ' | sed 's/ / 0x/g')
  cat > "$d/node.emu" <<EMU
mc_setbmc 0x20
mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr
main_sdr_add 0x20 0x01 0x00 0x51 0x01 $(printf '0x%02x' $((43 + ${#name}))) 0x20 0x00 0x10 0x15 0x01 0x67 0x68 0x0b 0x01 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x06 0x00 0x00 0x0a 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0xff 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 $(printf '0x%02x' $((0xC0 + ${#name})))$id
sensor_add 0x20 0 0x10 0x0b 0x01
sensor_set_value 0x20 0 0x10 $3 0
mc_enable 0x20
EMU
  ipmi_sim -c "$d/lan.conf" -f "$d/node.emu" -n -s "$d/state" > "$work/sim$1.log" 2>&1 &
  pids+=($!)
  sim[$1]=$!
}
base=$((20000 + RANDOM % 20000))
start_ipmi_sim node1 "$base" 50
start_ipmi_sim node2 $((base + 1)) 60
for p in "$base" $((base + 1)); do
  for _ in $(seq 50); do
    IPMI_PASSWORD=$secret ipmitool -I lanplus -C 3 -H 127.0.0.1 -p "$p" -U admin -E -N 1 -R 1 dcmi power reading > /dev/null 2>&1 && break
    sleep 0.1
  done
done

yaml() {  # yaml NAME NEXP POWER-YAML...
  local name=$1 nexp=$2
  shift 2
  {
    cat <<YAML
system: {name: EMULATED_POWER}
launcher: {type: srun, srun: {mpi: pmi2}}
topology: {synthetic: "pack:1 numa:1 core:1 pu:1", compare: false}
binding: {cpu: none, mem: none, unit: numa}
nodes: {count: 2, ranks_per_node: 1}
trainer:
  kind: external
  argv: [$fake, --config, $work/$name/run.yaml, --step-ms, "1600"]
benchmark:
  data: {train_dir: $work/data, eval_dir: $work/data}
experiment: {nexp: $nexp, division: open, output_dir: $work/$name, cache_clear: off, seed_policy: "sequence:20"}
power:
  interval: 0.25
  credentials_file: $work/bmc.yaml
YAML
    printf '  %s\n' "$@"
  } > "$work/$name.yaml"
}

# 1. ipmi, DCMI (power.ipmi.reading's default): two runs; node2's BMC stops answering in the second
bmcs="bmc: {node1: '127.0.0.1:$base', node2: '127.0.0.1:$((base + 1))'}"
yaml ipmi 2 "source: ipmi" "ipmi: {interface: lanplus, cipher_suite: 3}" "$bmcs"
cat > "$work/ipmi.sh" <<EOS
"$harness" run "$work/ipmi.yaml" > "$work/ipmi.out" 2>&1 &
h=\$!
for _ in \$(seq 600); do ls "$work"/ipmi/logs/*_02.power/node_1.txt > /dev/null 2>&1 && break; sleep 0.1; done
sleep 2
kill -STOP ${sim[node2]}
wait \$h
echo "harness exit \$?" > "$work/ipmi.rc"
EOS
timeout 400 salloc -N2 -w "node[1-2]" --exclusive bash "$work/ipmi.sh" > "$work/salloc-ipmi.out" 2>&1
kill -CONT "${sim[node2]}"
grep -q "^harness exit 0$" "$work/ipmi.rc" || fail "the ipmi set: $(cat "$work/ipmi.rc" 2>/dev/null) (training must go on)"
bench=$work/ipmi/results/EMULATED_POWER/bert
grep -q -- "srun --overlap --nodes=2 --ntasks=2 --ntasks-per-node=1" "$work/ipmi/plan.json" || fail "the monitors are not one srun --overlap task a node"
grep -q "power: ERROR: experiment 02: .*127.0.0.1:$((base + 1))" "$work/ipmi.out" || fail "the silent BMC was not named"

check_nodes() {  # BENCH RESULT WATTS0 WATTS1
  for k in 0 1; do
    local f=$1/power/$2/node_$k.txt w
    w=$([ $k = 0 ] && echo "$3" || echo "$4")
    [ "$(grep -c '"key": "power_reading"' "$f")" -ge 60 ] || fail "$f: fewer than 60 readings"
    grep '"key": "power_reading"' "$f" | grep -qv "\"value\": $w, .*\"host\": \"node$((k + 1))\"" && fail "$f: a reading that is not $w W from node$((k + 1))"
  done
  return 0
}
check_nodes "$bench" result_0 500.0 600.0
"$harness" score --json "$bench" > "$work/ipmi.json"
"$py" - "$work/ipmi.json" "$work/ipmi/state.json" 1100 <<'PY' || fail "the ipmi energies"
import json, sys
s, st, watts = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
r0, r1 = s["runs"]
assert abs(r0["energy_j"] - watts * r0["time_to_train_ms"] / 1000) < 1e-6, r0
assert r1["energy_j"] is None and "node_1.txt" in r1["energy_flaw"], r1
assert not st["experiments"][0].get("power_errors") and st["experiments"][1]["power_errors"], st["experiments"]
print(f"ipmi (dcmi): run 1 {r0['energy_j']} J; run 2: {r1['energy_flaw'][-100:]}")
PY
grep -q '"ipmi_reading": *"dcmi"' "$work/ipmi/plan.json" || fail "the ipmi set did not ask DCMI"

# 2. ipmi, an SDR sensor by name: one run
yaml sensor 1 "source: ipmi" "ipmi: {interface: lanplus, reading: sensor, sensor: 'Pwr Consumption', cipher_suite: 3}" "$bmcs"
timeout 300 salloc -N2 -w "node[1-2]" --exclusive "$harness" run "$work/sensor.yaml" > "$work/sensor.out" 2>&1 || fail "the sensor set exited $?"
check_nodes "$work/sensor/results/EMULATED_POWER/bert" result_0 500.0 600.0
grep -q '"ipmi_reading": *"sensor"' "$work/sensor/plan.json" || fail "the sensor set did not ask the SDR sensor"

# 3. redfish: one run, one HTTPS service per node
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/bmc.key" -out "$work/bmc.crt" > /dev/null 2>&1 || fail "openssl"
ports=()
for w in 321.5 432.0; do
  "$py" "$here/redfish_server.py" "$work/bmc.crt" "$work/bmc.key" admin "$secret" "$w" > "$work/redfish$w.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do grep -q "^ready" "$work/redfish$w.log" && break; sleep 0.05; done
  ports+=("$(sed -n 's/^ready //p' "$work/redfish$w.log")")
done
yaml redfish 1 "source: redfish" "redfish: {ca_file: $work/bmc.crt}" "bmc: {node1: '127.0.0.1:${ports[0]}', node2: '127.0.0.1:${ports[1]}'}"
timeout 300 salloc -N2 -w "node[1-2]" --exclusive "$harness" run "$work/redfish.yaml" > "$work/redfish.out" 2>&1 || fail "the redfish set exited $?"
bench=$work/redfish/results/EMULATED_POWER/bert
check_nodes "$bench" result_0 321.5 432.0
"$harness" score --json "$bench" > "$work/redfish.json"
"$py" - "$work/redfish.json" 753.5 <<'PY' || fail "the redfish energy"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert abs(r["energy_j"] - float(sys.argv[2]) * r["time_to_train_ms"] / 1000) < 1e-6, r
print(f"redfish: {r['energy_j']} J")
PY
grep -rl -- "$secret" "$work/ipmi" "$work/sensor" "$work/redfish" && fail "the BMC password is in a file of the output"
echo "PASS: ipmi (lanplus to ipmi_sim: DCMI and an SDR sensor) and redfish (HTTPS) power on 2 srun nodes; a silent BMC named"
