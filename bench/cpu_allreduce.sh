#!/usr/bin/env bash
# The CPU collective's allreduce on this machine: dist-smoke's float + double allreduce of COUNT elements
# each (4 + 8 bytes per element per rank) between RANKS local processes, as one node or as NODES
# emulated nodes (the local launcher's NODE_RANK/LOCAL_RANK), through each transport
# (BERT_DIST_CPU_TRANSPORT=tcp: Gloo between all ranks; shm: shared memory within a node, Gloo between
# the nodes' local ranks 0). Alternated ROUNDS times; prints rank 0's allreduce_s per run and medians,
# and appends the run to bench/results/cpu_allreduce.json (bench/record_run.py).
# Every process runs on this machine, so the "network" is loopback TCP.
# Usage: bench/cpu_allreduce.sh DIST_SMOKE [COUNT=27500000] [RANKS=2] [NODES=1] [ROUNDS=3]
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/local_ranks.sh"
SMOKE=$1 COUNT=${2:-27500000} RANKS=${3:-2} NODES=${4:-1} ROUNDS=${5:-3}
PER=$((RANKS / NODES))
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
run() {  # TRANSPORT: prints rank 0's allreduce_s
  rm -rf "$WORK/rdv" && mkdir -p "$WORK/rdv"
  BERT_DIST_CPU_TRANSPORT=$1 BERT_GLOO_HOST=127.0.0.1 local_ranks "$RANKS" "$PER" 1 "$WORK/out_" \
    "$SMOKE" --rendezvous "$WORK/rdv" --count "$COUNT"
  grep -q ' OK$' "$WORK/out_0.out" || { cat "$WORK/out_0.out" >&2; exit 1; }
  sed -n 's/.* transport=\([^ ]*\) .* allreduce_s=\([0-9.]*\) .*/\1 \2/p' "$WORK/out_0.out"
}
echo "cpu_allreduce: $COUNT floats + $COUNT doubles, $RANKS ranks as $NODES node(s), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
tcp=() shm=()
for round in $(seq "$ROUNDS"); do
  read -r _ t < <(run tcp); tcp+=("$t")
  read -r kind s < <(run shm); shm+=("$s")
  echo "round $round: Gloo TCP $t s, $kind $s s"
done
python3 - "${tcp[*]}" "${shm[*]}" "$COUNT" "$RANKS" "$NODES" "$(dirname "$0")" <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[6])
import record_run
tcp, shm = ([float(x) for x in a.split()] for a in sys.argv[1:3])
mt, ms = statistics.median(tcp), statistics.median(shm)
print(f"median: Gloo TCP {mt:.3f} s, shared memory {ms:.3f} s, TCP / shared memory {mt / ms:.2f}")
record_run.record("cpu_allreduce", {"gloo_tcp_s": mt, "shared_memory_s": ms, "tcp_over_shm": mt / ms,
                                    "gloo_tcp_s_per_round": tcp, "shared_memory_s_per_round": shm},
                  {"count": int(sys.argv[3]), "ranks": int(sys.argv[4]), "nodes": int(sys.argv[5])})
PY
