#!/usr/bin/env bash
# Lints every shell script we ship (slurm/, container/, scripts/, .ci/) and the Slurm/mpirun/container test
# scripts with ShellCheck. A script is a file whose first line is a sh/bash shebang.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
command -v shellcheck >/dev/null || { echo "FAIL: shellcheck is not installed (scripts/setup installs it)"; exit 1; }
scripts=()
while IFS= read -r -d '' f; do
  if head -n1 "$f" | grep -Eq '^#!(/usr/bin/env |/bin/|/usr/bin/)(ba)?sh'; then scripts+=("$f"); fi
done < <(find "$repo/slurm" "$repo/container" "$repo/scripts" "$repo/.ci" "$repo/tests/integration/slurm" \
              "$repo/tests/integration/mpirun" "$repo/tests/integration/container" "$repo/tests/integration/power" \
              -type f ! -name '*.txt' ! -name '*.cpp' ! -name '*.h' ! -name '*.py' -print0 2>/dev/null)
((${#scripts[@]} > 0)) || { echo "FAIL: found no scripts under $repo"; exit 1; }
printf 'checking %s\n' "${scripts[@]#"$repo"/}"
cd "$repo" || exit 1  # `source=` paths in the scripts are relative to the repository root
if ! shellcheck -x "${scripts[@]}"; then
  echo "FAIL: shellcheck found problems"
  exit 1
fi
echo "PASS: ${#scripts[@]} scripts shellcheck-clean"
