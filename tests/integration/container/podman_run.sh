#!/usr/bin/env bash
# A real container runtime end to end (podman + runc, no registry):
#  1. cpack's bert-harness .deb -> container/build-podman-image.sh: a Debian image made by mmdebstrap
#     with the .deb installed by dpkg (its build time is printed);
#  2. `harness run systems/local-podman.yaml` on the host, NEXP=2, 2 ranks, each rank in its own
#     container bound by podman alone (binding.apply runtime: no bind wrapper): a probe in front of the
#     trainer records, inside the container, Cpus_allowed_list and the cgroup's cpuset (must be the
#     rank's CPU of the plan) and that the data mount is read-only; the results come back through the results mount and
#     pass our checker and the official one;
#  3. in a container of the same image (no CUDA library, no build tree): `harness run` of the installed
#     /usr/share/bert-harness/systems/local.yaml, NEXP=2, passes `harness check` there and the official
#     checker here; `bert-data` runs there.
#   podman_run.sh BUILD_DIR PYTHON
# Exits 77 (SKIPPED) when not root or podman/runc/mmdebstrap are missing (scripts/setup --test installs them).
set -uo pipefail
build=$(readlink -f "$1")
python=$2
repo=$(cd "$(dirname "$0")/../../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root (podman with runc, mmdebstrap)"; exit 77; }
for t in podman runc mmdebstrap; do
  command -v "$t" >/dev/null || { echo "SKIPPED: $t is not installed (scripts/setup --test)"; exit 77; }
done
export CONTAINERS_CONF=$repo/container/containers.conf
work=$(mktemp -d /tmp/bert-podman-XXXXXX)
tag=localhost/bert-harness:test-$$
cleanup() {
  podman rmi -f "$tag" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Short runs: the test is about the container path, not convergence; a run stopped at max_steps logs
# and must pass both checkers.
quick=(--set benchmark.max_steps=6 --set benchmark.eval_start_samples=32 --set benchmark.eval_interval_samples=32
       --set benchmark.num_eval_examples=128 --set experiment.cache_clear=off)

official() {  # official DIR: every result file under DIR passes the official checker
  local n=0 f
  while IFS= read -r f; do
    "$python" -m mlperf_logging.compliance_checker --usage training --ruleset 5.0.0 --log_output "$work/cc.log" "$f" \
      >"$work/official.txt" 2>&1 || { cat "$work/official.txt"; fail "official checker rejected $f"; }
    n=$((n + 1))
  done < <(find "$1" -path '*/results/*' -name 'result_*.txt' | sort)
  [ "$n" = 2 ] || fail "expected 2 result files under $1, found $n"
  echo "official checker: $n result files pass"
}

# ---- 1. the image ----
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -G DEB -D CPACK_COMPONENTS_ALL=tools >"$work/cpack.txt" 2>&1) ||
  { cat "$work/cpack.txt"; fail "cpack"; }
deb=$(find "$work" -maxdepth 1 -name 'bert-harness_*.deb' | head -n1)
[ -n "$deb" ] || fail "cpack made no bert-harness .deb"
t0=$SECONDS
"$repo/container/build-podman-image.sh" "$deb" "$tag" >"$work/image.txt" 2>&1 || { tail -n 30 "$work/image.txt"; fail "image build"; }
echo "image: $tag built in $((SECONDS - t0)) s"

# ---- 2. the ranks in containers, bound by podman ----
mkdir -p "$work/probe"
# binding.apply runtime: no bind wrapper; the probe stands in front of the trainer.
cat >"$work/probe/trainer" <<'PROBE'
#!/bin/sh
# Runs in the rank's container before the trainer: what the runtime gave it.
out=$(mktemp "/results/probe.$RANK.XXXXXX")  # PID 1 in every container: not a unique name
{ grep '^Cpus_allowed_list:' /proc/self/status
  echo "cpuset $(cat /sys/fs/cgroup/cpuset/cpuset.cpus 2>/dev/null || cat /sys/fs/cgroup/cpuset.cpus.effective)"
  if touch /data/train/.probe 2>/dev/null; then echo "data writable"; else echo "data read-only"; fi
} >"$out"
exec /usr/bin/trainer "$@"
PROBE
chmod +x "$work/probe/trainer"
out=$work/host
NEXP=2 LOGDIR=$out timeout 600 "$build/harness" run "$repo/systems/local-podman.yaml" "${quick[@]}" \
  --set container.image="$tag" --set container.bin_dir=/probe --set "container.mounts=[$work/probe:/probe:ro]" \
  --set nodes.ranks_per_node=2 --set 'topology.synthetic=pack:2 numa:1 core:1 pu:1' --set binding.mem=none \
  >"$work/host.txt" 2>&1 || { cat "$work/host.txt"; fail "harness run systems/local-podman.yaml"; }
for cpu in 0 1; do
  grep -q "podman run .*--cpuset-cpus=$cpu " "$out/commands.log" || fail "no rank started by podman run --cpuset-cpus=$cpu"
done
for rank in 0 1; do
  n=0
  for p in "$out"/probe."$rank".*; do
    [ -f "$p" ] || continue
    n=$((n + 1))
    grep -qx "Cpus_allowed_list:[[:space:]]*$rank" "$p" || { cat "$p"; fail "rank $rank: Cpus_allowed_list in its container is not $rank"; }
    grep -qx "cpuset $rank" "$p" || { cat "$p"; fail "rank $rank: the container's cpuset is not $rank"; }
    grep -qx "data read-only" "$p" || { cat "$p"; fail "rank $rank: the data mount is writable"; }
  done
  [ "$n" = 2 ] || fail "rank $rank: expected a probe from each of the 2 experiments, found $n"
done
echo "ranks: each in a container with Cpus_allowed_list = cgroup cpuset = its plan CPU, data read-only"
"$build/harness" check "$out/results/local-podman/bert" >"$work/check.txt" 2>&1 || { cat "$work/check.txt"; fail "harness check"; }
official "$out"

# ---- 3. the installed package, inside a container with no CUDA library ----
mkdir -p "$work/inside"
podman run --rm --network=none -v "$work/inside:/out" "$tag" sh -euc '
  if ldconfig -p | grep -q libcudart; then echo "a CUDA runtime is in the image"; exit 1; fi
  for b in harness bind trainer bert-data; do
    if readelf -d "/usr/bin/$b" | grep -q "NEEDED.*cud"; then echo "$b needs a CUDA library"; exit 1; fi
  done
  cd /out
  bert-data --help >/dev/null
  NEXP=2 LOGDIR=/out/run harness run systems/local.yaml "$@"  # found under /usr/share/bert-harness
  harness check /out/run/results/local/bert
' sh "${quick[@]}" >"$work/inside.txt" 2>&1 || { tail -n 40 "$work/inside.txt"; fail "harness from the installed package in the container"; }
grep -q '/usr/bin/bind --plan' "$work/inside/run/commands.log" || fail "the installed harness did not launch the installed bind"
official "$work/inside"
echo "installed: harness run + check + bert-data in the container without CUDA libraries"
echo PASS
