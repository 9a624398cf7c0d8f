#!/usr/bin/env bash
# Issue 37: no bert-data command leaves an output set that looks whole when it fails or is killed. Folder
# outputs are written as OUT.partial and renamed when complete: an input with one truncated shard (split4bin,
# to-varlength, reshard, chop, shuffle, pack, from-tfrecord) leaves neither OUT nor OUT.partial (exit 2, the
# file named); a SIGKILLed synth or create leaves no OUT (and no worker process writing on), a rerun (create:
# --resume, keeping what the killed run finished) completes it with the arrays of an uninterrupted run; an
# empty or invalid text part is an error naming it.
set -uo pipefail
BD=$1
FX=$2  # tests/fixtures/data_prep
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$BD" synth --out "$D/s" --format fixed --shards 3 --samples-per-shard 200 --eval-samples 0 --vocab 1024 --seq-len 128 \
  --seed 5 > /dev/null 2>&1 || fail "synth"
cp -r "$D/s/train" "$D/cut"
last=$(ls "$D/cut" | sort | tail -1)
truncate -s 3000 "$D/cut/$last"
for cmd in "split4bin" "to-varlength" "reshard --shards 2" "chop --shards 2" "shuffle" "pack --seq-len 128"; do
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
# OUT given with a trailing slash: OUT.partial beside it, not OUT/.partial inside it
"$BD" to-varlength "$D/s/train" "$D/slash/" > /dev/null 2>&1 || fail "to-varlength into OUT/"
[ -d "$D/slash" ] && [ ! -e "$D/slash/.partial" ] && [ ! -e "$D/slash.partial" ] || fail "to-varlength into OUT/: $(ls -a "$D/slash")"

# from-tfrecord: a truncated record file among good ones
mkdir "$D/tf"
cp "$FX/tfrecord/part-00003-of-00004.seq128.tfrecord" "$D/tf/a.tfrecord"
head -c -3 "$FX/tfrecord/part-00003-of-00004.seq128.tfrecord" > "$D/tf/b.tfrecord"
"$BD" from-tfrecord "$D/tf" "$D/fromtf" > /dev/null 2> "$D/err"
rc=$?
[ $rc = 2 ] && grep -q "$D/tf/b.tfrecord" "$D/err" || fail "from-tfrecord over a truncated file: exit $rc: $(cat "$D/err")"
[ ! -e "$D/fromtf" ] && [ ! -e "$D/fromtf.partial" ] || fail "from-tfrecord left output over a truncated file"
rm "$D/tf/b.tfrecord"
"$BD" from-tfrecord "$D/tf" "$D/fromtf" > /dev/null 2>&1 && "$BD" verify "$D/fromtf/a.hdf5" > /dev/null 2>&1 \
  || fail "from-tfrecord over whole files"
[ ! -e "$D/fromtf.partial" ] || fail "from-tfrecord left $D/fromtf.partial"

# SIGKILL PID once GLOB matches (its first finished output); then no worker process it had writes on: every
# one is dead (or a zombie nobody reaps) and the folder GLOB is in stays as it was.
kill_at_first_output() {
  local pid=$1 glob=$2 n=0 kids k st before
  until compgen -G "$glob" > /dev/null; do
    [ $((n += 1)) -lt 3000 ] || fail "no output matching $glob after 30 s"
    sleep 0.01
  done
  kids=$(cat /proc/"$pid"/task/*/children 2> /dev/null)
  kill -9 "$pid"
  wait "$pid" 2> /dev/null
  before=$(ls -lR --full-time "$(dirname "$glob")")
  for k in $kids; do
    for n in $(seq 100); do
      st=$(awk '{print $3}' /proc/"$k"/stat 2> /dev/null)
      [ -z "$st" ] || [ "$st" = Z ] && break
      sleep 0.01
    done
    [ -z "$st" ] || [ "$st" = Z ] || fail "worker $k of the killed $pid still runs (state $st)"
  done
  sleep 0.3
  [ "$before" = "$(ls -lR --full-time "$(dirname "$glob")")" ] || fail "something writes on after $pid was killed"
}

# synth killed half-way: no OUT (a harness setup step "only when OUT is missing" reruns it), a rerun completes it
synth=(synth --format varlength --shards 16 --samples-per-shard 20000 --eval-samples 100 --vocab 1024 --seq-len 128 --seed 3)
"$BD" "${synth[@]}" --out "$D/k" > /dev/null 2>&1 &
kill_at_first_output $! "$D/k.partial/train/part_*"
[ ! -e "$D/k" ] || fail "a killed synth left $D/k"
[ -d "$D/k.partial" ] || fail "the killed synth was not writing $D/k.partial"
"$BD" "${synth[@]}" --out "$D/k" > /dev/null 2>&1 || fail "synth rerun"
[ ! -e "$D/k.partial" ] && [ "$(ls "$D/k/train" | wc -l)" = 16 ] && [ -f "$D/k/synth.json" ] || fail "synth rerun: incomplete"
"$BD" verify "$D/k/train" > /dev/null 2>&1 || fail "synth rerun: output does not verify"
"$BD" "${synth[@]}" --out "$D/k" > /dev/null 2> "$D/err"
[ $? = 2 ] && grep -q "already exists" "$D/err" || fail "synth into a full folder: $(cat "$D/err")"
rm -rf "$D/k"

# create killed half-way (2 worker processes): finished parts stay in OUT.partial, OUT does not exist; a plain
# rerun refuses to drop them, --resume keeps them and makes the rest, equal to an uninterrupted run
mkdir "$D/text"
for k in $(seq -w 0 15); do
  for r in $(seq 100); do cat "$FX/text/part-0000$((10#$k % 4))-of-00004"; echo; done > "$D/text/part-$k"
done
gen=(--vocab "$FX/vocab.txt" --max-seq-length 128 --max-predictions-per-seq 20 --dupe-factor 2)
"$BD" create "$D/text" "$D/c" "${gen[@]}" --jobs 2 > /dev/null 2>&1 &
kill_at_first_output $! "$D/c.partial/*.hdf5"
[ ! -e "$D/c" ] || fail "a killed create left $D/c"
kept=$(ls "$D/c.partial" | grep -c '\.hdf5$')
[ "$kept" -lt 16 ] || fail "create finished before the kill"
"$BD" create "$D/text" "$D/c" "${gen[@]}" --jobs 2 > /dev/null 2> "$D/err"
[ $? = 2 ] && grep -q "$D/c.partial: holds what a stopped run finished (--resume" "$D/err" || fail "create rerun: $(cat "$D/err")"
"$BD" create "$D/text" "$D/c" "${gen[@]}" --jobs 2 --resume > "$D/log" 2>&1 || fail "create --resume: $(cat "$D/log")"
grep -q "($kept already there)" "$D/log" || fail "create --resume did not keep the $kept finished part(s): $(cat "$D/log")"
[ ! -e "$D/c.partial" ] && [ "$(ls "$D/c")" = "$(cd "$D/text" && ls | sed 's/$/.hdf5/')" ] || fail "create --resume: $(ls "$D/c")"
"$BD" create "$D/text" "$D/clean" "${gen[@]}" --jobs 2 > /dev/null 2>&1 || fail "create (uninterrupted)"
"$BD" verify "$D/c" --write-chk "$D/c.chk" > /dev/null 2>&1 && "$BD" verify "$D/clean" --write-chk "$D/clean.chk" > /dev/null 2>&1 \
  || fail "verify of create's outputs"
cmp -s "$D/c.chk" "$D/clean.chk" || fail "create killed and resumed differs from an uninterrupted run"
rm -rf "$D/c" "$D/clean"

# create over an invalid part after good ones: one error naming it, the finished parts kept for --resume
mkdir "$D/text2"
cp "$FX/text/part-00000-of-00004" "$D/text2/part-0"
cp "$FX/text/part-00001-of-00004" "$D/text2/part-1"
printf 'Good line.\nbad \xe9t\n' > "$D/text2/part-2"
"$BD" create "$D/text2" "$D/e" "${gen[@]}" --jobs 1 > /dev/null 2> "$D/err"
rc=$?
[ $rc = 2 ] && [ "$(grep -c "^bert-data:" "$D/err")" = 1 ] && grep -q "^bert-data: $D/text2/part-2:2: invalid UTF-8" "$D/err" \
  && grep -q "2 finished output(s) kept in $D/e.partial: --resume makes the rest" "$D/err" || fail "create over an invalid part: exit $rc: $(cat "$D/err")"
[ ! -e "$D/e" ] || fail "create over an invalid part left $D/e"
cp "$FX/text/part-00002-of-00004" "$D/text2/part-2"
"$BD" create "$D/text2" "$D/e" "${gen[@]}" --jobs 1 --resume > "$D/log" 2>&1 || fail "create --resume: $(cat "$D/log")"
grep -q "1 part(s) written (2 already there)" "$D/log" && [ "$(ls "$D/e" | wc -l)" = 3 ] || fail "create --resume: $(cat "$D/log")"

# an empty text part
mkdir -p "$D/empty"
printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n' > "$D/vocab.txt"
: > "$D/empty/part-00000"
"$BD" create "$D/empty" "$D/created" --vocab "$D/vocab.txt" > /dev/null 2> "$D/err"
rc=$?
[ $rc = 2 ] || fail "create over an empty text part: exit $rc, expected 2"
grep -q "part-00000: no training instances: the text part is empty" "$D/err" || fail "create: $(cat "$D/err")"
[ ! -e "$D/created" ] && [ ! -e "$D/created.partial" ] || fail "create left an output for an empty part"
echo PASS
