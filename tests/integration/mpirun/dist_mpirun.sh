#!/usr/bin/env bash
# dist-smoke under Open MPI's mpirun on localhost: rank/size from OMPI_COMM_WORLD_*, KV exchange
# through the PMIx server mpirun starts (or a file rendezvous), Gloo allreduce.
#   dist_mpirun.sh pmix|file /path/to/dist-smoke
set -uo pipefail
mode=$1
smoke=$2
command -v mpirun >/dev/null || { echo "FAIL: mpirun not installed (scripts/setup installs openmpi-bin)"; exit 1; }
flags=(--oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
out=$(mktemp)
dir=$(mktemp -d)
trap 'rm -rf "$out" "$dir"' EXIT
case "$mode" in
  pmix) n=2; cmd=(mpirun "${flags[@]}" -np 2 "$smoke") ;;
  file) n=3; cmd=(mpirun "${flags[@]}" -np 3 -x BERT_DIST_PMI=file "$smoke" --rendezvous "$dir/rdv") ;;
  *) echo "usage: $0 pmix|file SMOKE" >&2; exit 2 ;;
esac
echo "+ ${cmd[*]}"
timeout 60 "${cmd[@]}" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" = 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
[ "$(grep -c " launcher=mpirun pmi=$mode .* OK$" "$out")" = "$n" ] || { echo "FAIL: expected $n OK lines with pmi=$mode"; exit 1; }
[ "$(grep -o 'uid=[0-9a-f]*' "$out" | sort -u | wc -l)" = 1 ] || { echo "FAIL: ranks saw different uids"; exit 1; }
[ "$(grep -c "allreduce=$((n * (n + 1) / 2)) " "$out")" = "$n" ] || { echo "FAIL: wrong allreduce"; exit 1; }
echo PASS
