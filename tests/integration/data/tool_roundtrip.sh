#!/usr/bin/env bash
# synth -> verify -> pack -> verify -> split4bin -> verify, reshard, to-varlength: every step's output
# is read back completely and its counts match.
set -euo pipefail
BD=$1
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
count() { sed -n "s/.*sequences \([0-9]*\),.*/\1/p" <<<"$1" | head -1; }

"$BD" synth --out "$D/s" --format varlength --shards 3 --samples-per-shard 400 --eval-samples 100 \
  --vocab 1024 --seq-len 128 --seed 5 >/dev/null 2>&1
v=$("$BD" verify "$D/s/train" --vocab 1024 --seq-len 128 --max-pred 19 2>/dev/null)
[ "$(count "$v")" = 1200 ] || fail "synth verify: $v"
"$BD" verify "$D/s/eval/part_eval.hdf5" --vocab 1024 --seq-len 128 2>/dev/null | grep -q "sequences 100," \
  || fail "eval file"
grep -q '"train_sequences": 1200' "$D/s/synth.json" || fail "synth.json"

# deterministic from the seed: same md5 list twice, a different one for another seed
"$BD" synth --out "$D/s2" --shards 3 --samples-per-shard 400 --eval-samples 0 --vocab 1024 --seq-len 128 \
  --seed 5 >/dev/null 2>&1
"$BD" synth --out "$D/s3" --shards 3 --samples-per-shard 400 --eval-samples 0 --vocab 1024 --seq-len 128 \
  --seed 6 >/dev/null 2>&1
"$BD" verify "$D/s/train" --write-chk "$D/a.chk" >/dev/null 2>&1
"$BD" verify "$D/s2/train" --write-chk "$D/b.chk" >/dev/null 2>&1
"$BD" verify "$D/s3/train" --write-chk "$D/c.chk" >/dev/null 2>&1
cmp -s "$D/a.chk" "$D/b.chk" || fail "same seed gave different data"
cmp -s "$D/a.chk" "$D/c.chk" && fail "different seeds gave the same data"
"$BD" verify "$D/s2/train" --chk "$D/a.chk" >/dev/null 2>&1 || fail "verify --chk"

p=$("$BD" pack "$D/s/train" "$D/p" --seq-len 128 --vocab 1024 2>/dev/null)
grep -q "^pack: 1200 sequences -> " <<<"$p" || fail "pack: $p"
eff=$(sed -n 's/.*packing efficiency \([0-9.]*\).*/\1/p' <<<"$p")
awk -v e="$eff" 'BEGIN { exit !(e > 0.9 && e <= 1.0) }' || fail "packing efficiency $eff"
[ -f "$D/p/part_00000" ] && [ -f "$D/p/part_00002" ] || fail "packed names"
v=$("$BD" verify "$D/p" --vocab 1024 --seq-len 128 --max-pred 19 2>/dev/null)
[ "$(count "$v")" = 1200 ] || fail "packed verify: $v"
"$BD" info "$D/p" | grep -q "packed layout" || fail "info packed"

s=$("$BD" split4bin "$D/s/train" "$D/bins" --seq-len 128 2>/dev/null)
total=0
for b in 32 64 96 128; do
  v=$("$BD" verify "$D/bins/$b" --vocab 1024 2>/dev/null)
  n=$(count "$v")
  total=$((total + n))
  longest=$(sed -n 's/.*longest row \([0-9]*\),.*/\1/p' <<<"$v")
  [ "$longest" -le "$b" ] || fail "bin $b holds a sequence of $longest"
done
[ "$total" = 1200 ] || fail "split4bin lost sequences: $total ($s)"
"$BD" split4bin "$D/p" "$D/bins2" >/dev/null 2>&1 && fail "split4bin accepted packed input"

"$BD" reshard "$D/s/train" "$D/r" --shards 5 >/dev/null 2>&1
[ "$(ls "$D/r" | wc -l)" = 5 ] && [ -f "$D/r/part_00004_of_00005.hdf5" ] || fail "reshard names"
v=$("$BD" verify "$D/r" --vocab 1024 2>/dev/null)
[ "$(count "$v")" = 1200 ] || fail "reshard verify: $v"
"$BD" reshard "$D/s/train" "$D/r2" --shards 2000 >/dev/null 2>&1 && fail "reshard into more shards than samples"

"$BD" reshard "$D/s/train" "$D/f" --shards 2 --format fixed --seq-len 128 --max-pred 19 >/dev/null 2>&1
"$BD" info "$D/f" | grep -q "fixed layout, 2 file(s), width 128 x 19 masked slots" || fail "fixed reshard"
"$BD" to-varlength "$D/f" "$D/fv" >/dev/null 2>&1
"$BD" reshard "$D/s/train" "$D/r3" --shards 2 >/dev/null 2>&1
"$BD" verify "$D/r3" --write-chk "$D/r3.chk" >/dev/null 2>&1
"$BD" verify "$D/fv" --chk "$D/r3.chk" >/dev/null 2>&1 || fail "fixed -> varlength changed the data"
echo OK
