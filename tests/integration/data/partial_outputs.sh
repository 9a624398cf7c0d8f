#!/usr/bin/env bash
# Issue 37: an input with one truncated shard must leave no output set that looks whole: split4bin,
# to-varlength, reshard and pack write OUT.partial and rename it when complete, and remove it when a file
# fails (exit 2, the file named); an empty text part is an error, not an empty shard with exit 0.
set -uo pipefail
BD=$1
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$BD" synth --out "$D/s" --format fixed --shards 3 --samples-per-shard 200 --eval-samples 0 --vocab 1024 --seq-len 128 \
  --seed 5 > /dev/null 2>&1 || fail "synth"
cp -r "$D/s/train" "$D/cut"
last=$(ls "$D/cut" | sort | tail -1)
truncate -s 3000 "$D/cut/$last"
for cmd in "split4bin" "to-varlength" "reshard --shards 2" "pack --seq-len 128"; do
  name=${cmd%% *}
  "$BD" $cmd "$D/cut" "$D/out_$name" > /dev/null 2> "$D/err"
  rc=$?
  [ $rc = 2 ] || fail "$cmd over a truncated shard: exit $rc, expected 2"
  grep -q "$last" "$D/err" || fail "$cmd: the truncated file is not named: $(cat "$D/err")"
  [ ! -e "$D/out_$name" ] || fail "$cmd left an output folder over a truncated shard"
  [ ! -e "$D/out_$name.partial" ] || fail "$cmd left $D/out_$name.partial"
  # the whole input: the output appears complete under its name, nothing .partial beside it
  "$BD" $cmd "$D/s/train" "$D/good_$name" > /dev/null 2>&1 || fail "$cmd over whole shards"
  [ -d "$D/good_$name" ] && [ ! -e "$D/good_$name.partial" ] || fail "$cmd: no complete output folder"
  "$BD" verify "$D/good_$name" > /dev/null 2>&1 || [ "$name" = split4bin ] || fail "$cmd: output does not verify"
done
# an existing, non-empty output folder is not written into
"$BD" to-varlength "$D/s/train" "$D/good_split4bin" > /dev/null 2> "$D/err"
[ $? = 2 ] && grep -q "already exists and is not an empty folder" "$D/err" || fail "to-varlength into a full folder: $(cat "$D/err")"

# an empty text part
mkdir -p "$D/text"
printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n' > "$D/vocab.txt"
: > "$D/text/part-00000"
"$BD" create "$D/text" "$D/created" --vocab "$D/vocab.txt" > /dev/null 2> "$D/err"
rc=$?
[ $rc = 2 ] || fail "create over an empty text part: exit $rc, expected 2"
grep -q "part-00000: no training instances: the text part is empty" "$D/err" || fail "create: $(cat "$D/err")"
ls "$D/created"/*.hdf5 > /dev/null 2>&1 && fail "create left a shard for an empty part"
echo PASS
