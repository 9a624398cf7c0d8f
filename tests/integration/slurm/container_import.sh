#!/usr/bin/env bash
# container/import.sh with enroot and docker replaced by stubs that record their arguments (neither
# can run here): the enroot/docker command lines it issues, and its refusals.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/noenroot"
for tool in enroot docker; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\n' "$tool" "$work" > "$work/bin/$tool"
  chmod +x "$work/bin/$tool"
done
fails=0
check() {  # check NAME EXPECTED_RC EXPECTED_TEXT -- command...: TEXT must be in calls or output
  local name=$1 want_rc=$2 text=$3
  shift 4
  rm -f "$work/calls"
  out=$(cd "$work" && "$@" 2>&1)
  rc=$?
  if [ "$rc" = "$want_rc" ] && { grep -qF -- "$text" "$work/calls" 2>/dev/null || grep -qF -- "$text" <<<"$out"; }; then
    echo "ok: $name"
  else
    echo "FAIL: $name: rc=$rc (want $want_rc), wanted '$text'"; echo "$out"; cat "$work/calls" 2>/dev/null
    fails=$((fails + 1))
  fi
}
imp=$repo/container/import.sh
P=$work/bin:$PATH
check "registry image, default name as enroot makes it" 0 \
  "enroot import -o nvidia+pytorch+24.04-py3.sqsh docker://nvcr.io#nvidia/pytorch:24.04-py3" -- \
  env PATH="$P" "$imp" 'docker://nvcr.io#nvidia/pytorch:24.04-py3'
check "local docker image to a named file" 0 "enroot import -o $work/sq/bert.sqsh dockerd://bert-mlperf:1" -- \
  env PATH="$P" "$imp" -o "$work/sq/bert.sqsh" dockerd://bert-mlperf:1
check "--build runs docker build with our Dockerfile" 0 \
  "docker build -f $repo/container/Dockerfile -t bert-mlperf:latest $repo" -- env PATH="$P" "$imp" --build -o b.sqsh
check "--build then imports from the daemon" 0 "enroot import -o b.sqsh dockerd://bert-mlperf:latest" -- \
  env PATH="$P" "$imp" --build -o b.sqsh -f
touch "$work/exists.sqsh"
check "existing output without -f" 2 "exists.sqsh exists (use -f" -- env PATH="$P" "$imp" -o exists.sqsh dockerd://x:1
check "image without a scheme" 2 "use dockerd://bert:1 (local Docker) or docker://bert:1" -- env PATH="$P" "$imp" bert:1
check "comma in the output path" 2 "contains a comma" -- env PATH="$P" "$imp" -o a,b.sqsh dockerd://x:1
check "no enroot on PATH" 2 "enroot is not installed" -- env PATH="$work/noenroot:/usr/bin:/bin" "$imp" dockerd://x:1
if [ "$fails" != 0 ]; then
  echo "FAIL: $fails checks"
  exit 1
fi
echo PASS
