#!/usr/bin/env bash
# The committed systems/topologies/*.xml are exactly what make_topologies.py generates.
# Usage: topologies_regenerate.sh PYTHON SOURCE_DIR
set -euo pipefail
PYTHON=$1
SRC=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$PYTHON" "$SRC/systems/topologies/make_topologies.py" "$OUT" > /dev/null
count=0
for f in "$OUT"/*.xml; do
  diff -q "$f" "$SRC/systems/topologies/$(basename "$f")"
  count=$((count + 1))
done
[ "$count" -ge 8 ] || { echo "only $count topologies generated"; exit 1; }
echo "$count topologies match their generator"
