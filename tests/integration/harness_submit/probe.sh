#!/usr/bin/env bash
# `harness probe`: (1) a fake external trainer printing NVIDIA-shaped MLLOG lines with known timing gives
# exactly 2000 samples/s after its warm-up, init 60 s, evals of 5 s, and from the RCP of batch 448 the
# projection and walltimes worked out by hand below; the dry-run shows them; another batch marks the
# probe as another shape's and shows none of its projection. (2) The local recipe through our trainer
# measures from its tracked_stats points and, tiny BERT not being BERT-Large, projects from the samples it
# took to reach its own target (issue 48). (3) A run too short to measure: exit 1 with the reason.
source "$(dirname "$0")/lib.sh" "$@"
cd "$WORK" || exit 1

closed_system nv.yaml NVFAKE "$WORK/nv" 10 model.ckpt-28252.pt "  profile: nvidia-pytorch
  argv: [$PY, $SRC/tests/integration/harness_submit/fake_nvidia_trainer.py]"
"$HARNESS" probe nv.yaml --seconds 60 --no-preflight > stdout 2> stderr
expect_rc 0 $? "probe of the NVIDIA-shaped trainer"
# 7 values of 2000 after the one of 1200; RCP 448: mean 2414421, slowest reference run 2759680 samples;
# MLPerf cadence for 448: every 150000 from 150000 -> 16 and 18 evals of 5 s:
#   mean:    2414421 / 2000 + 16 x 5 = 1287.2 s = 21.5 min;  slowest: 2759680 / 2000 + 18 x 5 = 1469.8 s = 24.5 min
#   per run: ceil((60 + 1469.8) x 1.25 / 60) = 32;  job: 5 + 10 x (32 + 5) = 375
expect_grep "2000.0 samples/s after warm-up (7 throughput values, 1 dropped), init 60.0 s, eval 5.0 s" stdout
expect_grep "time to train 21.5 min projected at the RCP mean 2414421 samples (batch 448: RCP found); slowest reference run 2759680 samples: 24.5 min" stdout
expect_grep "walltime per run 32 = (init + slowest) x 1.25 (margin 25 %), job 375 for NEXP 10" stdout
expect_grep "--set experiment.run_walltime=32 --set experiment.job_walltime=375" stdout
[ -f nv/probe/probe.json ] || fail "no nv/probe/probe.json"
"$HARNESS" run nv.yaml --dry-run > dry 2>&1 || fail "dry-run after the probe: $(cat dry)"
expect_grep "^probe       .*(${WORK}/nv/probe/probe.json): 2000.0 samples/s" dry
expect_grep "^            --set experiment.run_walltime=32 --set experiment.job_walltime=375" dry
"$HARNESS" run nv.yaml --dry-run --set experiment.run_walltime=32 --set experiment.job_walltime=375 > dry2 2>&1
expect_grep "^walltime    per experiment 32 (watchdog), job 375 (sbatch --time)" dry2
grep -q "^warning .*probe" dry2 && fail "a warning about the probe for its own shape: $(grep warning dry2)"
"$HARNESS" run nv.yaml --dry-run --set benchmark.batch_size=224 > dry3 2>&1
expect_grep "probe.json was measured for nv (1 ranks, global batch 448), not this plan: its projection is not shown; probe again" dry3
grep -qE "^probe |time to train|experiment.run_walltime=32" dry3 && fail "another plan's probe shown as this one's projection: $(grep -E '^probe ' dry3)"
"$HARNESS" run nv.yaml --dry-run --json | "$PY" -c 'import json,sys; p=json.load(sys.stdin)["probe"]; assert p["samples_per_s"] == 2000.0, p' ||
  fail "plan.json does not carry the probe"

# (3) one interval: nothing left after the warm-up
sed "s|fake_nvidia_trainer.py\]|fake_nvidia_trainer.py, \"1\"]|" nv.yaml > short.yaml
"$HARNESS" probe short.yaml --seconds 60 --no-preflight > stdout 2> stderr
expect_rc 1 $? "probe of a run too short"
expect_grep "harness probe: no throughput: .*: the log has 0 tracked_stats point(s) with a sample count and 1 throughput value(s); 1 warm-up one(s) are dropped" stderr

# (2) the local recipe, our trainer (synthetic data made by the plan's setup step)
cd "$SRC" || exit 1
LOGDIR=$WORK/local "$HARNESS" probe systems/local.yaml --set "topology.synthetic=pack:1 numa:1 core:2 pu:1" \
  --points 3 --steps-per-point 4 --seconds 300 --no-preflight > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 0 $? "probe of the local recipe"
# tiny BERT to its own target 0.5 (issue 48): not BERT-Large's RCP; the probe run keeps the target and stops
# where it converges, and that is the projection's number of samples, on the system's cadence (every 1024)
grep -qE "samples/s after warm-up \([0-9]+ intervals, 1 dropped\)" "$WORK/stdout" || fail "no throughput line: $(cat "$WORK/stdout")"
grep -qE "time to train [0-9.]+ min projected at [0-9]+ samples to target 0.5 \(measured: the probe run reached target 0.5 at [0-9]+ samples; the system evaluates at 1024 \+ k x 1024" "$WORK/stdout" ||
  fail "no measured projection: $(cat "$WORK/stdout")"
grep -q "RCP" "$WORK/stdout" && fail "the local recipe projected from BERT-Large's RCP: $(cat "$WORK/stdout")"
"$PY" - "$WORK/local/probe/probe.json" <<'PY' || fail "local probe.json"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["method"] == "points" and p["samples_per_s"] > 0 and p["measured"] >= 3, p
assert p["basis"] == "measured" and p["target"] == 0.5 and p["rcp_mean_samples"] % 1024 == 0, p
assert p["run_walltime"] and p["set_lines"][0].startswith("--set experiment.run_walltime="), p
PY
# later dry-runs of the same plan show that projection
LOGDIR=$WORK/local "$HARNESS" run systems/local.yaml --set "topology.synthetic=pack:1 numa:1 core:2 pu:1" --dry-run > "$WORK/local.dry" 2>&1
grep -qE "^            time to train .* samples to target 0.5 \(measured: " "$WORK/local.dry" || fail "the dry-run does not show it: $(cat "$WORK/local.dry")"
echo PASS
