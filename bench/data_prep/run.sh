#!/usr/bin/env bash
# bench/data_prep: `bert-data create` (text part -> fixed HDF5, the reference's arrays) in MB of
# text per second per core, against the reference generator (google-research's
# create_pretraining_data.py, the PyPI oracle of tests/fixtures/data_prep) when its venv exists.
# The machine may be shared: the two run interleaved, ROUNDS times, and medians are printed, both
# per wall second and per CPU second (user + sys of the process: what one core would do alone).
# Usage: bench/data_prep/run.sh BERT_DATA [MB] [ROUNDS]     (build target: bench_data_prep)
set -euo pipefail
BERT_DATA=$(realpath "$1")
MB=${2:-4}
ROUNDS=${3:-3}
HERE="$(cd "$(dirname "$0")" && pwd)"
FIX="$HERE/../../tests/fixtures/data_prep"
ORACLE_VENV="${ORACLE_VENV:-$HOME/.cache/bert-harness/oracle-py37}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PY=$(command -v python3)

echo "data_prep benchmark: $MB MB of generated text (tests/fixtures/data_prep/gen_text.py), vocab $(wc -l < "$FIX/vocab.txt") tokens,"
echo "  seq 512 / 76 predictions, dupe 10, seed 12345; $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$WORK/text" "$WORK/text2"
"$PY" "$FIX/gen_text.py" "$WORK/text/part-00000" --bytes $((MB * 1000000)) --seed 11 --no-specials
for k in 0 1; do "$PY" "$FIX/gen_text.py" "$WORK/text2/part-0000$k" --bytes $((MB * 500000)) --seed $((20 + k)) --no-specials; done
echo "One line." > "$WORK/tiny.txt"
BYTES=$(stat -c %s "$WORK/text/part-00000")

# time_cmd OUTFILE cmd...: wall, user+sys seconds and peak RSS (KB) of cmd and its children
time_cmd() {
  local out=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$out" "$@" > /dev/null 2> "$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
}

ORACLE_FLAGS=(--do_lower_case=True --max_seq_length=512 --max_predictions_per_seq=76 --masked_lm_prob=0.15
              --random_seed=12345 --dupe_factor=10 --short_seq_prob=0.1 --vocab_file="$FIX/vocab.txt")
have_oracle=0
if [ -x "$ORACLE_VENV/bin/python" ] && "$ORACLE_VENV/bin/python" -c 'import bert, tensorflow' 2>/dev/null; then have_oracle=1; fi

: > "$WORK/ours"; : > "$WORK/ours2"; : > "$WORK/oracle"; : > "$WORK/oracle0"
for r in $(seq "$ROUNDS"); do
  rm -rf "$WORK/out"
  time_cmd "$WORK/t" "$BERT_DATA" create "$WORK/text" "$WORK/out" --vocab "$FIX/vocab.txt" --jobs 1
  cat "$WORK/t" >> "$WORK/ours"
  rm -rf "$WORK/out2"
  time_cmd "$WORK/t" "$BERT_DATA" create "$WORK/text2" "$WORK/out2" --vocab "$FIX/vocab.txt" --jobs 2
  cat "$WORK/t" >> "$WORK/ours2"
  if [ $have_oracle = 1 ]; then
    export CUDA_VISIBLE_DEVICES="" TF_CPP_MIN_LOG_LEVEL=3
    time_cmd "$WORK/t" "$ORACLE_VENV/bin/python" -m bert.create_pretraining_data --input_file="$WORK/text/part-00000" \
      --output_file="$WORK/oracle.tfrecord" "${ORACLE_FLAGS[@]}"
    cat "$WORK/t" >> "$WORK/oracle"
    time_cmd "$WORK/t" "$ORACLE_VENV/bin/python" -m bert.create_pretraining_data --input_file="$WORK/tiny.txt" \
      --output_file="$WORK/tiny.tfrecord" "${ORACLE_FLAGS[@]}"
    cat "$WORK/t" >> "$WORK/oracle0"
  fi
  echo "  round $r/$ROUNDS: bert-data $(awk '{printf "%.2f s wall, %.2f s CPU\n", $1, $2+$3}' "$WORK/ours" | tail -1)" \
       "$( [ $have_oracle = 1 ] && awk '{printf "| oracle %.1f s wall, %.1f s CPU\n", $1, $2+$3}' "$WORK/oracle" | tail -1)"
done

# The steps after create, once, on the 1-worker output, one process each (CPU per sample).
: > "$WORK/steps"
step() {  # name cmd...
  local name=$1; shift
  time_cmd "$WORK/t" "$@"
  echo "$name $(cat "$WORK/t")" >> "$WORK/steps"
}
step chop "$BERT_DATA" chop "$WORK/out" "$WORK/chopped" --shards 8
step to-varlength "$BERT_DATA" to-varlength "$WORK/chopped" "$WORK/var"
step shuffle "$BERT_DATA" shuffle "$WORK/var" "$WORK/shuffled"
step pack "$BERT_DATA" pack "$WORK/var" "$WORK/packed" --seq-len 512

INSTANCES=$("$BERT_DATA" info "$WORK/out/part-00000.hdf5" | sed -n "s/.* rows \([0-9]*\),.*/\1/p")
OUT_BYTES=$(stat -c %s "$WORK/out/part-00000.hdf5")
awk -v bytes="$BYTES" -v have="$have_oracle" -v inst="$INSTANCES" -v outb="$OUT_BYTES" \
    -v f1="$WORK/ours" -v f2="$WORK/ours2" -v f3="$WORK/oracle" -v f4="$WORK/oracle0" -v f5="$WORK/steps" '
function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function load(f, wall, cpu, rss,   n) { n = 0; while ((getline line < f) > 0) { split(line, v, " "); n++; wall[n] = v[1]; cpu[n] = v[2] + v[3]; rss[n] = v[4] } return n }
BEGIN {
  mb = bytes / 1e6
  n = load(f1, w1, c1, r1); W1 = median(w1, n); C1 = median(c1, n); R1 = median(r1, n)
  n2 = load(f2, w2, c2, r2); W2 = median(w2, n2); C2 = median(c2, n2); R2 = median(r2, n2)
  printf "bert-data create, 1 worker:  %.2f MB in %.2f s wall / %.2f s CPU (medians of %d): %.2f MB/s wall, %.2f MB/s per core; peak RSS %.0f MB; %s instances, %.0f MB of HDF5\n", mb, W1, C1, n, mb / W1, mb / C1, R1 / 1024, inst, outb / 1e6
  printf "bert-data create, 2 workers: 2 parts of %.2f MB in %.2f s wall / %.2f s CPU: %.2f MB/s wall, %.2f MB/s per core; peak RSS per worker %.0f MB\n", mb / 2, W2, C2, mb / W2, mb / C2, R2 / 1024
  if (have == 1) {
    n3 = load(f3, w3, c3, r3); W3 = median(w3, n3); C3 = median(c3, n3); R3 = median(r3, n3)
    n4 = load(f4, w4, c4, r4); W4 = median(w4, n4); C4 = median(c4, n4)
    printf "reference (oracle, TFRecord out): %.1f s wall / %.1f s CPU, of which startup (1-line input) %.1f s / %.1f s: %.3f MB/s wall, %.3f MB/s per core without startup; peak RSS %.0f MB\n", W3, C3, W4, C4, mb / (W3 - W4), mb / (C3 - C4), R3 / 1024
    printf "ratio per core (CPU seconds): %.1fx; per wall second, 1 process each: %.1fx (goal >= 50x per core)\n", (C3 - C4) / C1, (W3 - W4) / W1
    ref = mb / (C3 - C4)
  } else {
    printf "reference: oracle venv not found (tests/fixtures/data_prep/make_fixtures.sh builds it); published figure ~0.15 MB/s\n"
    ref = 0.15
  }
  rate = mb / C1
  parts = 500; cores = 64; part_mb = 13000 / parts; N = 156726829
  rounds = int((parts + cores - 1) / cores)
  printf "extrapolation to the MLPerf text (13 GB in 500 parts of 26 MB, %d samples) on one 64-core node:\n", N
  printf "  create, 64 workers (one part each at a time, %.1f MB/s per core as measured here): %d rounds x %.1f s = %.1f min of CPU-bound time;\n", rate, rounds, part_mb / rate, rounds * part_mb / rate / 60
  printf "    it writes %.0f GB of fixed HDF5 (%.1f bytes per byte of text here): %.1f min at an assumed 2 GB/s sustained write\n", 13e9 * outb / bytes / 1e9, outb / bytes, 13e9 * outb / bytes / 2e9 / 60
  printf "    the reference at %.3f MB/s per core: %.1f h on the same 64 cores\n", ref, rounds * part_mb / ref / 3600
  total = rounds * part_mb / rate / 60
  io = 13e9 * outb / bytes  # bytes of fixed HDF5
  while ((getline line < f5) > 0) {
    split(line, v, " "); cpu = v[3] + v[4]
    t = cpu / inst * N / 60
    par = (v[1] == "chop" || v[1] == "to-varlength") ? cores : 1
    printf "  %-12s %.2f s CPU for %d samples here -> %.1f min CPU for %d samples, %s: %.1f min\n", v[1], cpu, inst, t, N, (par > 1 ? "64 workers" : "one process"), t / par
    total += t / par
  }
  printf "  I/O of create + chop + to-varlength: write %.0f GB, read %.0f + %.0f GB, write %.0f + %.0f GB = %.1f TB: %.0f min at an assumed 2 GB/s\n", io / 1e9, io / 1e9, io / 1e9, io / 1e9, io * 0.43 / 1e9, (4.43 * io) / 1e12, 4.43 * io / 2e9 / 60
  printf "  chain, CPU-bound (create, chop, to-varlength on 64 workers; shuffle and pack one process each): %.0f min\n", total
}'
