#!/usr/bin/env bash
# CPU data parallelism on one node: `trainer --benchmark N` as 1 rank with all T threads and global batch
# G, against R ranks with T/R threads each and batch G/R, every rank bound to its own cores (numactl
# --physcpubind; on a multi-socket node bind per NUMA node instead, as the harness's binding.unit
# socket does; with more ranks than cores, 1 thread each and unbound), file rendezvous; the R ranks run
# twice, with the CPU collective's shared memory (BERT_DIST_CPU_TRANSPORT=shm: on one node the default;
# as NODES emulated nodes, shared memory within each and Gloo TCP between them) and with Gloo TCP alone.
# Alternated ROUNDS times; prints each run's seq/s, the medians and the ratios, and appends the run to
# bench/results/cpu_ranks.json (bench/record_run.py). Runtime: base/128, G 8,
# 3 steps: ~6 min on an idle 2-core machine.
# Usage: bench/cpu_ranks.sh TRAINER [SIZE=base] [SEQ=128] [GLOBAL_BATCH=8] [STEPS=3] [ROUNDS=3] [PRECISION=fp32]
#        [RANKS=2] [NODES=1]
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/local_ranks.sh"
TRAINER=$1 SIZE=${2:-base} SEQ=${3:-128} G=${4:-8} STEPS=${5:-3} ROUNDS=${6:-3} PREC=${7:-fp32}
R=${8:-2} NODES=${9:-1}
CPUS=$(nproc) PER_RANK=$(($(nproc) / R))
SHM=$([ "$NODES" = 1 ] && echo "shared memory" || echo "shared memory within $NODES nodes + TCP")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
config() {  # FILE BATCH THREADS
  cat > "$1" <<YAML
model: {size: $SIZE}
data: {vocab_size: 30522, max_seq_length: $SEQ, max_predictions_per_seq: $((76 * SEQ / 512))}
batch: {batch_size: $2}
optimizer: {learning_rate: 1e-4, max_steps: 1000}
run: {seed: 1, threads: $3, precision: $PREC, rendezvous_dir: $WORK/rdv}
YAML
}
config "$WORK/one.yaml" "$G" "$CPUS"
config "$WORK/two.yaml" $((G / R)) $((PER_RANK > 0 ? PER_RANK : 1))
seqs() { sed -n 's/.* \([0-9.e+]*\) seq\/s.*/\1/p' "$1"; }
one=() shm=() tcp=()
echo "cpu_ranks: $SIZE seq $SEQ global batch $G $PREC, $R ranks as $NODES node(s), $CPUS cpus, $STEPS steps, load $(cut -d' ' -f1-3 /proc/loadavg)"
ranks() {  # TRANSPORT: R ranks at once; prints rank 0's seq/s
  rm -rf "$WORK/rdv" && mkdir -p "$WORK/rdv"
  BERT_DIST_CPU_TRANSPORT=$1 BERT_GLOO_HOST=127.0.0.1 local_ranks "$R" $((R / NODES)) "$PER_RANK" "$WORK/two_" \
    "$TRAINER" --config "$WORK/two.yaml" --benchmark "$STEPS"
  grep -q "LAMB sharded" "$WORK/two_0.out" && echo "sharded: $(grep -o 'LAMB sharded[^:]*' "$WORK/two_0.out")" >&2
  seqs "$WORK/two_0.out"
}
for round in $(seq "$ROUNDS"); do
  numactl --physcpubind=0-$((CPUS - 1)) "$TRAINER" --config "$WORK/one.yaml" --benchmark "$STEPS" > "$WORK/one.out"
  one+=("$(seqs "$WORK/one.out")")
  shm+=("$(ranks shm)")
  tcp+=("$(ranks tcp)")
  echo "round $round: 1 rank x $CPUS threads ${one[-1]} seq/s, $R ranks x $((PER_RANK > 0 ? PER_RANK : 1)) threads ${shm[-1]} seq/s ($SHM), ${tcp[-1]} seq/s (Gloo TCP), load $(cut -d' ' -f1 /proc/loadavg)"
done
python3 - "${one[*]}" "${shm[*]}" "${tcp[*]}" "$R" "$SHM" "$(dirname "$0")" "$SIZE $SEQ $G $STEPS $PREC $NODES" <<'PY'
import statistics, sys
sys.path.insert(0, sys.argv[6])
import record_run
one, shm, tcp = ([float(x) for x in a.split()] for a in sys.argv[1:4])
r, label = sys.argv[4], sys.argv[5]
size, seq, g, steps, prec, nodes = sys.argv[7].split()
m1, ms, mt = statistics.median(one), statistics.median(shm), statistics.median(tcp)
print(f"median: 1 rank {m1:.4g} seq/s, {r} ranks {ms:.4g} seq/s ({label}), {mt:.4g} seq/s (Gloo TCP); "
      f"{r} ranks / 1 rank {ms / m1:.3f} ({label}), {mt / m1:.3f} (Gloo TCP)")
record_run.record("cpu_ranks", {"one_rank_seq_per_s": m1, "ranks_seq_per_s": ms, "ranks_transport": label,
                                "ranks_gloo_tcp_seq_per_s": mt, "ranks_over_one": ms / m1, "gloo_tcp_over_one": mt / m1,
                                "per_round": {"one": one, "ranks": shm, "gloo_tcp": tcp}},
                  {"size": size, "seq_len": int(seq), "global_batch": int(g), "steps": int(steps), "precision": prec,
                   "ranks": int(r), "nodes": int(nodes)})
PY
