#!/usr/bin/env bash
# scripts/bench-gpu verify on a stage made of this build's binaries: complete and current passes; a
# missing test binary, a CUDA binary without sm_90a code (the CPU-only trainer in trainer-cuda's place)
# and a changed build input each fail naming it. Then `run` on it: every step SKIPs here (no GPU), exit
# 77, one results file and one log tarball; a stale stage stops `run` with exit 2 before any step; the
# PyTorch peer's background protocol with a stand-in peer (fake_peer.py).
# SKIPPED (77) without cuobjdump. Usage: stage_checks.sh SRC BUILD_DIR PYTHON WORK
SRC=$1 BUILD=$2 PY=$3 WORK=$4
set -uo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK"
S=$WORK/stage
mkdir -p "$S/prefix/bin" "$S/bench" "$S/tests" "$S/python"
for t in harness bind trainer trainer-cuda bert-data; do ln -s "$BUILD/$t" "$S/prefix/bin/$t"; done
ln -s "$BUILD/trainer_throughput" "$S/bench/trainer_throughput"
ln -s "$BUILD/cuda_lamb_test" "$S/tests/cuda_lamb_test"
ln -s "$("$PY" -c 'import mlperf_logging, os; print(os.path.dirname(mlperf_logging.__file__))')" "$S/python/mlperf_logging"
manifest() {  # manifest HASH_OF_LAMB_CU
  cat > "$S/MANIFEST.json" <<JSON
{"commit": "test", "dirty": false, "staged": "now", "cuda_architectures": "80;90a",
 "tests": [{"name": "cuda_lamb", "argv": ["{stage}/tests/cuda_lamb_test"], "skip_code": 77, "env": []}],
 "cuda_binaries": ["prefix/bin/trainer-cuda", "bench/trainer_throughput", "tests/cuda_lamb_test"],
 "build_inputs": {"trainer/cuda/lamb.cu": "$1"}}
JSON
}
manifest "$(sha1sum "$SRC/trainer/cuda/lamb.cu" | cut -d' ' -f1)"

verify() { (cd "$SRC" && scripts/bench-gpu verify "$S") > "$WORK/out" 2>&1; }
verify
rc=$?
if grep -q "cuobjdump not found" "$WORK/out"; then
  echo "SKIPPED: $(cat "$WORK/out")"
  exit 77
fi
[ $rc -eq 0 ] && grep -q "complete and current" "$WORK/out" || fail "a complete stage: rc $rc: $(cat "$WORK/out")"

mv "$S/tests/cuda_lamb_test" "$WORK/"
verify && fail "a stage without a test binary passed"
grep -q "GPU test cuda_lamb: tests/cuda_lamb_test missing" "$WORK/out" || fail "missing binary: $(cat "$WORK/out")"
mv "$WORK/cuda_lamb_test" "$S/tests/"

rm "$S/prefix/bin/trainer-cuda" && ln -s "$BUILD/trainer" "$S/prefix/bin/trainer-cuda"
verify && fail "a stage whose trainer-cuda has no CUDA code passed"
grep -q "prefix/bin/trainer-cuda has no sm_90a code" "$WORK/out" || fail "no sm_90a: $(cat "$WORK/out")"
rm "$S/prefix/bin/trainer-cuda" && ln -s "$BUILD/trainer-cuda" "$S/prefix/bin/trainer-cuda"

manifest 0000
verify && fail "a stale stage passed"
grep -q "stale: trainer/cuda/lamb.cu changed since staging" "$WORK/out" || fail "stale: $(cat "$WORK/out")"
(cd "$SRC" && OUT=$WORK/run scripts/bench-gpu run "$S") > "$WORK/run.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "stale stage" "$WORK/run.out" || fail "run on a stale stage: rc $rc: $(cat "$WORK/run.out")"

manifest "$(sha1sum "$SRC/trainer/cuda/lamb.cu" | cut -d' ' -f1)"
if nvidia-smi -L > /dev/null 2>&1; then
  echo "PASS (a GPU is present: the all-SKIP run is not checked here)"
  exit 0
fi
(cd "$SRC" && OUT=$WORK/run scripts/bench-gpu run "$S") > "$WORK/run.out" 2>&1
rc=$?
[ $rc -eq 77 ] || fail "run without a GPU: rc $rc, expected 77: $(cat "$WORK/run.out")"
grep -q "^FAIL\|^TIMEOUT\|^PASS" "$WORK/run.out" && fail "a step did not skip: $(cat "$WORK/run.out")"
grep -q "^SKIP .*cuda_lamb .*SKIPPED: no CUDA device" "$WORK/run.out" || fail "cuda_lamb did not skip: $(cat "$WORK/run.out")"
[ "$(ls "$WORK/run")" = "$(printf 'gpu-logs.tar.gz\ngpu-run.json')" ] || fail "run left $(ls "$WORK/run") in OUT"
"$PY" -c 'import json, sys; e = json.load(open(sys.argv[1])); assert e["device"] == "none" and e["tests"][0]["status"] == "SKIP"' \
  "$WORK/run/gpu-run.json" || fail "gpu-run.json: $(cat "$WORK/run/gpu-run.json")"
(cd "$SRC" && scripts/bench-gpu record "$WORK/run/gpu-run.json") > "$WORK/record.out" 2>&1 && fail "recorded a run without a device"
grep -q "nothing to record" "$WORK/record.out" || fail "record: $(cat "$WORK/record.out")"

# The peer's background protocol, with a stand-in peer: started first, ready before our timed runs, timed
# last, both modes filed from its files.
(cd "$SRC" && PYTHON="$SRC/tests/integration/bench_gpu/fake_peer.py" BENCH_ONLY=pytorch OUT=$WORK/peer \
  scripts/bench-gpu run "$S") > "$WORK/peer.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run with the stand-in peer: rc $rc: $(cat "$WORK/peer.out")"
for s in "STARTED .*pytorch_compile" "PASS .*pytorch_ready" "PASS .*pytorch_timed"; do
  grep -q "^$s" "$WORK/peer.out" || fail "no '$s': $(cat "$WORK/peer.out")"
done
"$PY" -c 'import json, sys; t = json.load(open(sys.argv[1]))["throughput"]
assert t["padded"]["pytorch"]["seq_per_s"] == 123.0 and t["packed"]["pytorch"]["seq_per_s"] == 456.0, t' \
  "$WORK/peer/gpu-run.json" || fail "the peer's results: $(cat "$WORK/peer/gpu-run.json")"
echo PASS
