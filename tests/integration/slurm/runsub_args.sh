#!/usr/bin/env bash
# slurm/run.sub outside Slurm (no cluster needed): how it finds the system YAML and the harness, and
# its refusals. The harness is a stand-in that prints its arguments.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\necho "harness $*"\n' > "$work/fake-harness"
chmod +x "$work/fake-harness"
fails=0
check() {  # check NAME RC TEXT -- command...
  local name=$1 want=$2 text=$3 out rc
  shift 4
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" = "$want" ] && grep -qF -- "$text" <<<"$out"; then
    echo "ok: $name"
  else
    echo "FAIL: $name: rc=$rc (want $want), wanted '$text'"; echo "$out"
    fails=$((fails + 1))
  fi
}
sub=$repo/slurm/run.sub
check "system as argument, extra options passed on" 0 "harness run $repo/systems/local.yaml --dry-run" -- \
  env -u SYSTEM HARNESS="$work/fake-harness" SLURM_SUBMIT_DIR="$repo" bash "$sub" systems/local.yaml --dry-run
check "SYSTEM from the environment" 0 "harness run $repo/systems/local-slurm.yaml" -- \
  env SYSTEM=systems/local-slurm.yaml HARNESS="$work/fake-harness" SLURM_SUBMIT_DIR="$repo" bash "$sub"
check "no system" 2 "no system YAML: sbatch slurm/run.sub systems/X.yaml" -- \
  env -u SYSTEM HARNESS="$work/fake-harness" SLURM_SUBMIT_DIR="$repo" bash "$sub"
check "missing system file" 2 "system YAML $repo/systems/nope.yaml does not exist" -- \
  env -u SYSTEM HARNESS="$work/fake-harness" SLURM_SUBMIT_DIR="$repo" bash "$sub" systems/nope.yaml
mkdir -p "$work/tree/systems"
touch "$work/tree/systems/x.yaml"
check "no harness binary" 2 "no harness binary (looked for $work/tree/build/harness, $work/tree/build/bin/harness and harness on PATH)" -- \
  env -u SYSTEM -u HARNESS SLURM_SUBMIT_DIR="$work/tree" bash "$sub" systems/x.yaml
mkdir -p "$work/tree/build/bin"
cp "$work/fake-harness" "$work/tree/build/bin/harness"
check "build/bin/harness found" 0 "harness run $work/tree/systems/x.yaml" -- \
  env -u SYSTEM -u HARNESS SLURM_SUBMIT_DIR="$work/tree" bash "$sub" systems/x.yaml
if [ "$fails" != 0 ]; then
  echo "FAIL: $fails checks"
  exit 1
fi
echo PASS
