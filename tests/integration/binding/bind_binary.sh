#!/usr/bin/env bash
# Integration test of `bind` on this machine. Usage: bind_binary.sh BIND MAKE_LIVE_PLAN SOURCE_DIR
set -uo pipefail
BIND=$1
MAKE_PLAN=$2
SRC=$3
source "$(dirname "$0")/checks.sh"

allowed=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
# the highest CPU we may use (this box: 1 of 0-1), and one just past it that we may not
last=$(echo "$allowed" | tr ',' '\n' | tail -1 | awk -F- '{print $NF}')
outside=$((last + 1))
echo "allowed CPUs: $allowed; binding to CPU $last; refusing CPU $outside"

# 1. bind really restricts the CPUs (and the memory policy) of the command it execs
"$MAKE_PLAN" --out "$WORK/plan.json" --cpu map --cpu-map "$last" --mem node --unit numa || fail "make plan"
got=$(LOCAL_RANK=0 "$BIND" --plan "$WORK/plan.json" -- grep Cpus_allowed_list /proc/self/status)
expect_eq "Cpus_allowed_list under bind" "$got" "$(printf 'Cpus_allowed_list:\t%s' "$last")"
got=$(SLURM_LOCALID=0 "$BIND" --plan "$WORK/plan.json" -- sh -c 'echo "$BERT_BOUND_CPUS|$BERT_BOUND_MEMS|$RANK"')
expect_eq "env for the child" "$got" "$last|0|0"
sed 's/"gpu": -1/"gpu": 0/; s/"gpu_busid": ""/"gpu_busid": "0000:07:00.0"/' "$WORK/plan.json" > "$WORK/gpu.json"
got=$(env -u CUDA_DEVICE_ORDER LOCAL_RANK=0 "$BIND" --plan "$WORK/gpu.json" -- sh -c 'echo "$BERT_GPU|$BERT_GPU_BUSID|$CUDA_DEVICE_ORDER"')
expect_eq "GPU env for the child" "$got" "0|0000:07:00.0|PCI_BUS_ID"
got=$(CUDA_DEVICE_ORDER=FASTEST_FIRST LOCAL_RANK=0 "$BIND" --plan "$WORK/gpu.json" -- sh -c 'echo "$CUDA_DEVICE_ORDER"')
expect_eq "user's CUDA_DEVICE_ORDER kept" "$got" "FASTEST_FIRST"
if command -v numactl > /dev/null; then
  got=$(LOCAL_RANK=0 "$BIND" --plan "$WORK/plan.json" -- numactl --show | grep -E '^(policy|membind|physcpubind):' | tr -s ' ' | sed 's/ $//')
  expect_eq "numactl --show under bind" "$got" "$(printf 'policy: bind\nphyscpubind: %s\nmembind: 0' "$last")"
fi

# 2. exclusive on the live topology gives the rank every allowed CPU of its NUMA node
"$MAKE_PLAN" --out "$WORK/excl.json" --cpu node --mem node --unit numa || fail "make exclusive plan"
got=$(OMPI_COMM_WORLD_LOCAL_RANK=0 "$BIND" --plan "$WORK/excl.json" -- grep Cpus_allowed_list /proc/self/status | cut -f2)
expect_eq "node policy" "$got" "$allowed"

# 3. --print says what it would do and runs nothing
got=$(NODE_RANK=0 LOCAL_RANK=0 "$BIND" --plan "$WORK/plan.json" --print -- touch "$WORK/should-not-exist")
expected="bind: node 0 (localhost, from NODE_RANK), local rank 0 (from LOCAL_RANK), global rank 0
  gpu:  none
  cpus: $last
  mems: 0
  nics: none
  exec: touch $WORK/should-not-exist"
expect_eq "--print" "$got" "$expected"
[ -e "$WORK/should-not-exist" ] && fail "--print executed the command"
# ... and outside a launched rank (the README's `bind --plan output/plan.json --print`): every rank of the node
got=$(env -u LOCAL_RANK -u SLURM_LOCALID -u OMPI_COMM_WORLD_LOCAL_RANK -u NODE_RANK -u SLURM_NODEID "$BIND" --plan "$WORK/plan.json" --print)
rc=$?
expect_eq "--print without a local rank: exit code" "$rc" 0
echo "$got" | head -1 | grep -q "^bind: node 0 (localhost, from .*), local rank 0 (from the plan: every rank of the node; --local-rank N for one), global rank 0$" ||
  fail "--print without a local rank: $got"

# 4. a CPU outside the allowed set: exit 2, numactl-like message, command not run
sed "s/\"cpus\": \"$last\"/\"cpus\": \"$outside\"/" "$WORK/plan.json" > "$WORK/bad.json"
grep -q "\"cpus\": \"$outside\"" "$WORK/bad.json" || fail "could not build the bad plan"
err=$(LOCAL_RANK=0 "$BIND" --plan "$WORK/bad.json" -- touch "$WORK/ran" 2>&1)
rc=$?
expect_eq "exit code for CPU outside the allowed set" "$rc" 2
expect_eq "message" "$err" "bind: <$outside> is invalid: cpu argument $outside is out of range (allowed: $allowed)"
[ -e "$WORK/ran" ] && fail "command ran despite the refused binding"

# 5. the planner itself refuses a map naming a CPU outside the allowed set
err=$("$MAKE_PLAN" --out "$WORK/x.json" --cpu map --cpu-map "$outside" 2>&1)
rc=$?
expect_eq "planner exit code" "$rc" 2
expect_eq "planner message" "$err" "binding.cpu_map: local rank 0: <$outside> is invalid: cpu argument $outside is out of range (allowed: $allowed)"

# 6. other user errors: one message, exit 2
check_error() {  # name expected-message command...
  local name=$1 want=$2
  shift 2
  local out
  out=$("$@" 2>&1)
  local rc=$?
  expect_eq "$name: exit code" "$rc" 2
  expect_eq "$name: message" "$out" "$want"
}
check_error "no local rank" "bind: cannot tell the local rank: none of LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK is set (or pass --local-rank)" \
  env -u LOCAL_RANK -u SLURM_LOCALID -u OMPI_COMM_WORLD_LOCAL_RANK "$BIND" --plan "$WORK/plan.json" -- true
check_error "missing plan" "bind: $WORK/nope.json: cannot open the plan file" "$BIND" --local-rank 0 --plan "$WORK/nope.json" -- true
check_error "rank not in plan" "bind: $WORK/plan.json: nodes[0].ranks has no local rank 3 (from LOCAL_RANK)" \
  env LOCAL_RANK=3 "$BIND" --plan "$WORK/plan.json" -- true
check_error "no command" "bind: no command given after --" "$BIND" --local-rank 0 --plan "$WORK/plan.json"
check_error "command not found" "bind: cannot execute '$WORK/no-such-cmd': No such file or directory" \
  "$BIND" --local-rank 0 --plan "$WORK/plan.json" -- "$WORK/no-such-cmd"

# 7. --compare-topology: this node matches its own --show-topology; a DGX-2 export is another machine
"$BIND" --show-topology > "$WORK/this.json" || fail "--show-topology"
got=$("$BIND" --compare-topology "$WORK/this.json")
expect_eq "compare with itself: exit code" "$?" 0
[[ "$got" == "bind: this node matches $WORK/this.json: live: "*" PUs; NUMA 0: "* ]] || fail "compare with itself: $got"
DGX2=$SRC/tests/fixtures/binding/hwloc-nvidiaDGX2.xml
err=$("$BIND" --compare-topology "$DGX2" 2>&1 > "$WORK/out")
expect_eq "compare with a DGX-2: exit code" "$?" 2
[ -s "$WORK/out" ] && fail "compare with a DGX-2 printed to stdout: $(cat "$WORK/out")"
expect_eq "compare with a DGX-2: first line" "$(head -1 <<< "$err")" "bind: this node does not match the expected topology ($DGX2):"
grep -q "^  GPUs: expected 16, this node has " <<< "$err" || fail "compare with a DGX-2: no GPU line: $err"
grep -q "^  expected:  $DGX2: 2 packages, 4 cores, 4 PUs; NUMA 0: 0-1; NUMA 1: 24-25; 16 GPUs: 0000:34:00.0 on NUMA 0" <<< "$err" ||
  fail "compare with a DGX-2: expected side not described: $err"
grep -q "^  this node: live: " <<< "$err" || fail "compare with a DGX-2: this node not described: $err"
# the NICs too: a node with a ConnectX-5 behind its GPUs' switch is not this one (which lists no RDMA device,
# unless this machine has one: then it is named as not expected)
PASCAL=$SRC/tests/fixtures/binding/mpibind-cts1-pascal.xml
err=$("$BIND" --compare-topology "$PASCAL" 2>&1)
expect_eq "compare with cts1-pascal: exit code" "$?" 2
grep -q "^  NIC mlx5_0 (0000:08:00.0): expected on NUMA node 0, not on this node$" <<< "$err" ||
  fail "compare with cts1-pascal: its NIC not named: $err"
grep -q "^  expected:  $PASCAL: .*; 1 NIC: mlx5_0 0000:08:00.0 on NUMA 0" <<< "$err" ||
  fail "compare with cts1-pascal: the expected side does not list its NIC: $err"
# and a rank's NICs in the plan are shown (--print) and exported (BERT_NICS)
sed 's/"nics": \[\]/"nics": ["mlx5_0:1", "mlx5_1:1"]/; s/"nic_locality": ""/"nic_locality": "pci-switch"/' "$WORK/plan.json" > "$WORK/nic.json"
got=$(LOCAL_RANK=0 "$BIND" --plan "$WORK/nic.json" --print | grep nics:)
expect_eq "--print with NICs" "$got" "  nics: mlx5_0:1,mlx5_1:1 (pci-switch)"
got=$(LOCAL_RANK=0 "$BIND" --plan "$WORK/nic.json" -- sh -c 'echo "$BERT_NICS"')
expect_eq "BERT_NICS for the child" "$got" "mlx5_0:1,mlx5_1:1"
check_error "compare with a missing file" "bind: cannot read topology file '$WORK/none.xml': No such file or directory" \
  "$BIND" --compare-topology "$WORK/none.xml"

finish "all bind integration checks passed"
