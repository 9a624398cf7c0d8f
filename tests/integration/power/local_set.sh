#!/usr/bin/env bash
# Power through the whole executor, local launcher (the fake trainer, ~7 s a run): a set whose monitors
# read a command every 0.1 s writes the official layout (results/<system>/bert/power/result_<i>/
# node_0.txt with >= 60 readings over the timed run), `harness score --json` gives energy_j equal to the
# official result summarizer's (and to 123.5 W x the counted run's time to train), `harness check` finds
# no power flaw, summary.md has the energy and a power plot. Then a set whose reader stops answering in
# its first run and whose monitor is killed (SIGKILL) in its second: training goes on, both runs
# converge, each has its power errors in state.json and on the console, and no energy with a named flaw;
# `--resume` of an interrupted set keeps the finished run's power log byte for byte.
#   local_set.sh HARNESS FAKE_TRAINER PYTHON WORKDIR
set -uo pipefail
harness=$1 fake=$2 py=$3 work=$4
rm -rf "$work" && mkdir -p "$work/data"
fail() { echo "FAIL: $*"; for f in "$work"/*.out; do echo "--- $f"; tail -n 25 "$f"; done; exit 1; }

yaml() {  # yaml NAME NEXP COMMAND [STEP_MS]
  cat > "$work/$1.yaml" <<YAML
system: {name: POWERLOCAL}
launcher: {type: local}
topology: {synthetic: "pack:1 numa:1 core:1 pu:1", compare: false}
binding: {cpu: none, mem: none, unit: numa}
nodes: {count: 1, ranks_per_node: 1}
trainer:
  kind: external
  argv: [$fake, --config, $work/$1/run.yaml, --step-ms, "${4:-600}"]
benchmark:
  data: {train_dir: $work/data, eval_dir: $work/data}
experiment: {nexp: $2, division: open, output_dir: $work/$1, cache_clear: off, seed_policy: "sequence:10"}
power:
  source: command
  command: "$3"
  interval: 0.1
YAML
}

# 1. a set of 3: the layout, the energy, the checks, the summary
yaml good 3 "echo 123.5"
"$harness" run "$work/good.yaml" > "$work/good.out" 2>&1 || fail "the set exited $?"
bench=$work/good/results/POWERLOCAL/bert
for i in 0 1 2; do
  n=$(grep -c '"key": "power_reading"' "$bench/power/result_$i/node_0.txt")
  [ "$n" -ge 60 ] || fail "result_$i: $n readings"
done
"$harness" check "$bench" > "$work/check.out" 2>&1 || fail "harness check of the set: exit $?"
grep -q "power logs: no error" "$work/check.out" || fail "harness check did not check the power logs"
"$harness" score --json "$bench" > "$work/score.json" || fail "harness score: exit $?"
"$py" - "$work/score.json" "$bench" <<'PY' || fail "energy"
import contextlib, io, json, sys
from mlperf_logging.result_summarizer import result_summarizer
s, bench = json.load(open(sys.argv[1])), sys.argv[2]
with contextlib.redirect_stdout(io.StringIO()):
    _, track, _, official, _ = result_summarizer._compute_strong_score_standalone(
        "bert", "POWERLOCAL", True, bench, "training", "5.0.0", return_full_scores=True)
assert s["energy_j"] is not None and abs(s["energy_j"] - official) <= 1e-9 * official, (s["energy_j"], official)
counted = [r for r in s["runs"] if r["olympic"] == "counted"]
assert len(counted) == 1 and abs(counted[0]["energy_j"] - 123.5 * counted[0]["time_to_train_ms"] / 1000) < 1e-6, counted
for r in s["runs"]:
    assert abs(r["energy_j"] - track[bench + "/" + r["file"]]) <= 1e-9 * r["energy_j"], r
print(f"energy {s['energy_j']} J = official {official} J")
PY
grep -q "^## Energy" "$work/good/summary.md" || fail "summary.md has no energy"
grep -q "power_node_0.svg" "$work/good/summary.md" || fail "summary.md has no power plot"
[ -s "$work/good/plots/power_node_0.svg" ] || fail "no power plot rendered"

# 2. a reader that stops answering (run 1) and a monitor killed mid-run (run 2)
flag=$work/bmc-gone
yaml faults 2 "test -e $flag && exit 3; echo 200"
"$harness" run "$work/faults.yaml" > "$work/faults.out" 2>&1 &
h=$!
raw() { ls "$work"/faults/logs/*_0"$1".power/node_0.txt 2>/dev/null; }
for _ in $(seq 200); do [ -n "$(raw 1)" ] && [ "$(grep -c power_reading "$(raw 1)")" -ge 10 ] && break; sleep 0.05; done
touch "$flag"
for _ in $(seq 400); do [ -n "$(raw 2)" ] && break; sleep 0.05; done
rm -f "$flag"
for _ in $(seq 200); do [ -n "$(raw 2)" ] && [ "$(grep -c power_reading "$(raw 2)")" -ge 10 ] && break; sleep 0.05; done
mon=$(pgrep -f -- "power-monitor .*--out-dir $work/faults/logs/.*_02.power" | head -1)
[ -n "$mon" ] || fail "no monitor of run 2 to kill"
kill -KILL "$mon"
wait "$h"
rc=$?
[ "$rc" = 0 ] || fail "the set with failing power exited $rc (training must go on)"
grep -q "power: ERROR: experiment 01: .*no reading" "$work/faults.out" || fail "the silent reader was not reported"
grep -q "power: ERROR: experiment 02: .*died before the run ended" "$work/faults.out" || fail "the killed monitor was not reported"
"$harness" score --json "$work/faults/results/POWERLOCAL/bert" > "$work/faults.json"
"$py" - "$work/faults.json" "$work/faults/state.json" <<'PY' || fail "the failing runs' energy"
import json, sys
s, st = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [e["status"] for e in st["experiments"]] == ["converged", "converged"], st["experiments"]
assert all(e["power_errors"] for e in st["experiments"]), [e.get("power_errors") for e in st["experiments"]]
for r in s["runs"]:
    assert r["energy_j"] is None and "node_0.txt" in r["energy_flaw"] and "uncovered" in r["energy_flaw"], r
    assert any(r["file"] in n for n in s["energy_notices"]), s["energy_notices"]
print("flaws:", [r["energy_flaw"].split(": ", 1)[1][:80] for r in s["runs"]])
PY

# 3. --resume keeps a finished run's power log
yaml resume 2 "echo 99"
"$harness" run "$work/resume.yaml" > "$work/resume1.out" 2>&1 &
h=$!
for _ in $(seq 400); do ls "$work"/resume/logs/*_02.power/node_0.txt > /dev/null 2>&1 && break; sleep 0.05; done
kill -TERM "$h"
wait "$h"
first=$work/resume/results/POWERLOCAL/bert/power/result_0/node_0.txt
[ -s "$first" ] || fail "run 1's power log is missing after the interruption"
sum=$(sha256sum < "$first")
"$harness" run --resume "$work/resume" > "$work/resume2.out" 2>&1 || fail "the resumed set exited $?"
[ "$(sha256sum < "$first")" = "$sum" ] || fail "--resume rewrote the finished run's power log"
[ "$(grep -c power_reading "$work/resume/results/POWERLOCAL/bert/power/result_1/node_0.txt")" -ge 60 ] || fail "the resumed run's power log"
echo "PASS: power layout, energy = official, failing reader and killed monitor named, resume keeps the logs"
