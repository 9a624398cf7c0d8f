#!/usr/bin/env bash
# The arrows between folders (ARCHITECTURE.md, "Rules for arrows"): every `#include "x/..."` of a
# folder's code names a folder it may depend on. A file belongs to the deepest folder listed below
# (trainer/cpu/gemm.cpp to trainer/cpu, trainer/train_loop.cpp to trainer). Also: only the training
# loop and main() include the loop's own headers, so a backend knows neither the loop nor the stop
# signal. Usage: arrows.sh SOURCE_DIR
set -euo pipefail
cd "$1"

# folder -> the folders its code may include (itself always)
declare -A allowed=(
  [common]=""
  [formats]="common"
  # the MLPerf log writer (bert_mllog) apart from the checker and scoring of results/
  [results/mllog]="common"
  [results]="common results/mllog"
  [binding]="common"
  [slurm]="common"
  [container]="common"
  [process]="common"
  [power]="common process"
  [trainer]="common formats results/mllog trainer/model trainer/data trainer/cpu trainer/optim trainer/comm trainer/cuda"
  [trainer/model]="common" [trainer/data]="common formats" [trainer/comm]="common"
  [trainer/cpu]="common trainer/model trainer/data" [trainer/optim]="common trainer/model trainer/cpu"
  # the kernels and the CUDA model; cuda_backend.cpp implements trainer/train_backend.h
  [trainer/cuda]="common formats trainer trainer/model trainer/data trainer/optim trainer/comm"
  [dataset]="common formats trainer/data"
  [harness/config]="common formats trainer power"
  [harness/launch]="common harness/config binding container slurm"
  [harness/plan]="common harness/config harness/launch binding container formats slurm trainer results power"
  [harness/run]="common harness/config harness/launch harness/plan binding container process results results/mllog power"
  [harness/import]="common harness/config harness/launch harness/plan harness/run process"
  [harness/submit]="common harness/config harness/launch harness/plan harness/run process results trainer"
  [harness/history]="common harness/config harness/plan harness/run process results results/mllog binding"
)
# The training loop's own headers and the files that may include them.
loop_headers='trainer/train_loop.h|trainer/step_agreement.h|trainer/stop_signal.h'
loop_files=' trainer/main.cpp trainer/train_loop.cpp trainer/step_agreement.cpp trainer/stop_signal.cpp '

# The listed folder a path belongs to: the deepest listed prefix of its directory ("" = none).
folder_of() {
  local dir=$1
  while [ -n "$dir" ] && [ "$dir" != . ]; do
    [ -n "${allowed[$dir]+x}" ] && { echo "$dir"; return; }
    [[ "$dir" != */* ]] && break
    dir=${dir%/*}
  done
  echo ""
}

bad=0
while IFS= read -r hit; do
  file=${hit%%:*}
  target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$hit")
  [[ "$target" != */* ]] && continue                     # a system or same-folder header
  folder=$(folder_of "$(dirname "$file")")
  [ -z "$folder" ] && continue                           # tests, bench, harness/main.cpp: anything
  top=$(folder_of "$(dirname "$target")")
  [ -z "$top" ] && top=${target%%/*}                     # a generated header (build tree) or tests/
  if [[ "$target" =~ ^($loop_headers)$ ]] && [[ "$loop_files" != *" $file "* ]]; then
    echo "arrow not allowed: $file includes $target (only the training loop and main include the loop's headers)"
    bad=1
    continue
  fi
  [ "$top" = "$folder" ] && continue
  ok=0
  for a in ${allowed[$folder]}; do [ "$top" = "$a" ] && ok=1; done
  if [ $ok = 0 ]; then
    echo "arrow not allowed: $file includes $target ($folder -> $top)"
    bad=1
  fi
done < <(grep -rnE '^#include "' --include=*.h --include=*.cpp --include=*.cu --include=*.cuh \
           "${!allowed[@]}" 2>/dev/null | sort -u || true)
[ $bad = 0 ] && echo "every include follows the arrows"
exit $bad
