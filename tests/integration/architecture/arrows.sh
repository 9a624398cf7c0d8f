#!/usr/bin/env bash
# The arrows between folders (ARCHITECTURE.md, "Rules for arrows"): every `#include "x/..."` of a
# folder's code names a folder it may depend on. Usage: arrows.sh SOURCE_DIR
set -euo pipefail
cd "$1"

# folder -> the folders its code may include (itself always)
declare -A allowed=(
  [common]=""
  [results]="common"
  [binding]="common"
  [slurm]="common"
  [container]="common"
  [trainer]="common results"
  [dataset]="common trainer"
  [harness/config]="common trainer"
  [harness/launch]="common harness/config binding container slurm"
  [harness/plan]="common harness/config harness/launch binding container slurm trainer results"
  [harness/run]="common harness/config harness/launch harness/plan binding container results"
  [harness/import]="common harness/config harness/launch harness/plan harness/run"
  [harness/submit]="common harness/config harness/launch harness/plan harness/run results trainer"
)

bad=0
for folder in "${!allowed[@]}"; do
  while IFS= read -r hit; do
    file=${hit%%:*}
    target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$hit")
    top=${target%%/*}
    [ "$top" = harness ] && top=$(cut -d/ -f1-2 <<<"$target")
    [[ "$target" != */* ]] && continue                     # a system or same-folder header
    [ "$top" = "$folder" ] && continue
    ok=0
    for a in ${allowed[$folder]}; do [ "$top" = "$a" ] && ok=1; done
    if [ $ok = 0 ]; then
      echo "arrow not allowed: $file includes $target ($folder -> $top)"
      bad=1
    fi
  done < <(grep -rnE '^#include "' --include=*.h --include=*.cpp --include=*.cu --include=*.cuh "$folder" || true)
done
[ $bad = 0 ] && echo "every include follows the arrows"
exit $bad
