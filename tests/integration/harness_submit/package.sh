#!/usr/bin/env bash
# `harness package`: two real sets (7 + 3 runs of the fake external trainer through `harness run`) become
# one MLCommons package; the official package_checker and result_summarizer (.venv's mlperf-logging)
# accept it. The builtin trainer's path: the implementation is `git archive` of the plan's commit (a
# commit of a scratch repository here), without the working copy's changes. Bad input: exit 2, one line.
source "$(dirname "$0")/lib.sh" "$@"
cd "$WORK" || exit 1

fake_system "$WORK/a.yaml" "$WORK/setA" 7
fake_system "$WORK/b.yaml" "$WORK/setB" 3
"$HARNESS" run "$WORK/a.yaml" > stdout 2> stderr
expect_rc 0 $? "set A"
"$HARNESS" run "$WORK/b.yaml" > stdout 2> stderr
expect_rc 0 $? "set B"

# the external implementation: its folder (--implementation, as for code that ran in an image)
mkdir -p impl && echo "run_and_time.sh of the fake implementation" > impl/README
"$HARNESS" package setA setB --org Example -o pkg --impl fake-1.0 --implementation impl > stdout 2> stderr
expect_rc 0 $? "harness package"
org=pkg/Example
expect_grep "package: setA: 7 result(s)" stdout
expect_grep "PACKAGE CHECKER FOUND NO ERRORS, SUCCESS" stdout
for i in $(seq 0 9); do [ -f "$org/results/TESTSYS/bert/result_$i.txt" ] || fail "no result_$i.txt"; done
cmp -s "$org/results/TESTSYS/bert/result_7.txt" setB/results/TESTSYS/bert/result_0.txt || fail "set B's first run is not result_7"
[ -f "$org/systems/TESTSYS.json" ] || fail "no systems/TESTSYS.json"
cmp -s "$org/benchmarks/bert/implementations/fake-1.0/README" impl/README || fail "implementation not copied"

# the official tools accept it
"$PY" -m mlperf_logging.package_checker "$org" training 5.0.0 --log_output official.log > official.out 2>&1
grep -q "PACKAGE CHECKER FOUND NO ERRORS, SUCCESS" official.log || fail "official package_checker: $(grep -E 'ERROR|WARNING' official.log)"
grep -q "ERROR - " official.log && grep -v "FOUND NO ERRORS" official.log | grep -q "ERROR - " && fail "official package_checker logged errors"
"$PY" -m mlperf_logging.result_summarizer "$org" training 5.0.0 --csv summary.csv > summarizer.out 2>&1
expect_rc 0 $? "official result_summarizer"
grep -q "^closed,Available on-premise,Example,TESTSYS,1,.*,[0-9.]*e*-*[0-9]*," summary.csv || fail "summarizer has no TESTSYS row: $(cat summary.csv)"
bert=$("$PY" -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(r[0]["bert"])' summary.csv)
[ -n "$bert" ] || fail "the summarizer gives TESTSYS no bert score"

# harness check of the package: a stray file is a warning; --quiet drops it (issue 48), the verdict stays
cp -r "$org" quiet && echo notes > quiet/results/TESTSYS/bert/notes.txt
"$HARNESS" check quiet > stdout 2> stderr
expect_rc 0 $? "harness check of the package with a stray file"
expect_grep "^WARNING - Detected .* but some do not conform to naming convention" stdout
"$HARNESS" check quiet --quiet > stdout 2> stderr
expect_rc 0 $? "harness check --quiet of the package"
grep -q "WARNING" stdout && fail "check --quiet printed a warning: $(grep WARNING stdout)"
expect_grep "PACKAGE CHECKER FOUND NO ERRORS, SUCCESS" stdout
"$HARNESS" check --help > stdout 2>&1
expect_grep "Exit codes: 0 every log passes" stdout  # documented where users look

# builtin trainer: git archive of the recorded commit, not the working copy
git init -q repo && (cd repo && echo committed > code.cpp && git add code.cpp &&
  git -c user.name=t -c user.email=t@t commit -q -m c && echo uncommitted > code.cpp && echo new > extra.cpp)
commit=$(git -C repo rev-parse HEAD)
cp -r setA setC
"$PY" - setC/plan.json "$WORK/repo" "$commit" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["trainer_run"]["kind"] = "builtin"
p["trainer_config"]["run"]["backend"] = "cpu"
p["source"] = {"commit": sys.argv[3], "dirty": True, "dir": sys.argv[2]}
json.dump(p, open(sys.argv[1], "w"))
PY
"$HARNESS" package setC setB --org Example -o pkg2 > stdout 2> stderr
expect_rc 2 $? "package of setC + setB (two implementations)"  # setB ran from another (the real) commit
expect_grep "one package holds one implementation" stderr
"$HARNESS" package setC --org Example -o pkg3 > stdout 2> stderr
expect_rc 1 $? "package of 7 runs (the check wants 10)"
expect_grep "Incorrect number of files in dir" stdout
expect_grep "package: warning: setC ran from a tree with uncommitted changes; the package holds commit $commit without them" stdout
impl=pkg3/Example/benchmarks/bert/implementations/cpp-cpu
[ "$(cat "$impl/code.cpp")" = committed ] || fail "the snapshot is not the commit: $(cat "$impl/code.cpp")"
[ -e "$impl/extra.cpp" ] && fail "an untracked file went into the snapshot"

# bad input: one line, exit 2
"$HARNESS" package nowhere --org Example -o pkg4 > stdout 2> stderr
expect_rc 2 $? "a folder that is no set"
[ "$(wc -l < stderr)" = 1 ] || fail "not one line: $(cat stderr)"
expect_grep "nowhere/plan.json: cannot read" stderr
"$HARNESS" package setA --org Example -o pkg > stdout 2> stderr
expect_rc 2 $? "an existing package"
expect_grep "pkg/Example: already exists" stderr
# power: sets with a monitor (a command every 0.02 s, 60+ readings a run) carry their power folders into the
# package; the official package checker accepts it and its result summarizer's bert:Energy is ours
for set in P:7 Q:3; do
  fake_system "$WORK/${set%:*}.yaml" "$WORK/set${set%:*}" "${set#*:}"
  sed -i 's/--step-ms, "5"/--step-ms, "150"/' "$WORK/${set%:*}.yaml"
  printf 'power: {source: command, command: "echo 250", interval: 0.02, conversion_eff: 0.95}\n' >> "$WORK/${set%:*}.yaml"
  "$HARNESS" run "$WORK/${set%:*}.yaml" > stdout 2> stderr
  expect_rc 0 $? "power set ${set%:*}"
done
"$HARNESS" package setP setQ --org Example -o pkgp --impl fake-1.0 --implementation impl > stdout 2> stderr
expect_rc 0 $? "harness package of the power sets"
org=pkgp/Example
for i in $(seq 0 9); do [ -s "$org/results/TESTSYS/bert/power/result_$i/node_0.txt" ] || fail "no power/result_$i/node_0.txt"; done
cmp -s "$org/results/TESTSYS/bert/power/result_7/node_0.txt" setQ/results/TESTSYS/bert/power/result_0/node_0.txt || fail "set Q's first power log is not result_7's"
"$PY" -m mlperf_logging.package_checker "$org" training 5.0.0 --log_output official-power.log > official.out 2>&1
grep -q "PACKAGE CHECKER FOUND NO ERRORS, SUCCESS" official-power.log || fail "official package_checker on the power package: $(grep -E 'ERROR|WARNING' official-power.log)"
"$HARNESS" score --json "$org/results/TESTSYS/bert" > score-power.json
"$PY" - "$org" score-power.json <<'PY' || fail "bert:Energy"
import contextlib, io, json, sys
from mlperf_logging.result_summarizer import result_summarizer
org, ours = sys.argv[1], json.load(open(sys.argv[2]))
with contextlib.redirect_stdout(io.StringIO()):
    _, _, _, energy, _ = result_summarizer._compute_strong_score_standalone(
        "bert", "TESTSYS", True, org + "/results/TESTSYS/bert", "training", "5.0.0", return_full_scores=True)
assert energy is not None and abs(ours["energy_j"] - energy) <= 1e-9 * energy, (ours["energy_j"], energy)
print(f"bert:Energy {energy} J, ours {ours['energy_j']} J")
PY
echo PASS
