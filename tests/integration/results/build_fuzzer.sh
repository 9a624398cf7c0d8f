#!/bin/sh
# Builds the libFuzzer target with clang (Debian's clang++) and AddressSanitizer.
#   build_fuzzer.sh OUT_BINARY [CLANGXX]
set -eu
out=$1
cxx=${2:-clang++}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
gen=$out.gen
mkdir -p "$gen"
files=$(cd "$root/results/rules" && find . -name '*.yaml' -o -name '*.json' | sed 's|^\./||' | LC_ALL=C sort | paste -sd, -)
cmake -DOUT="$gen/rules_embedded.cpp" -DROOT="$root/results/rules" -DFILES="$files" -P "$root/results/embed_files.cmake"
srcs=""
for f in "$root"/results/*.cpp "$root"/results/mllog/*.cpp; do
  case "$f" in */cli_*.cpp|*/mllog.cpp) ;; *) srcs="$srcs $f" ;; esac
done
# shellcheck disable=SC2086
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root" $srcs "$gen/rules_embedded.cpp" "$here/fuzz_check.cpp" -lyaml-cpp -lfmt -o "$out"
