#!/usr/bin/env bash
# A new user's trial of `harness import` over a corpus of real config_*.sh (MLPerf Training results
# rounds, every submitter's `benchmarks/bert/implementations/*/`, with the run.sub / run_and_time.sh
# beside them): each config is imported with the data variables a site sets and --submitter (the
# submitter's folder), then dry-run; the plan is compared with what bash says the config sets (nodes,
# GPUs per node, batch per GPU per step, learning rate). One line per config, then a table:
#   ok       imported and dry-run, the plan agrees with the config
#   refused  the plan stops at a closed-division rule (the key is shown): a rule the config really breaks
#   failed   anything else (import or dry-run error, a plan that disagrees with the config, or a key of the
#            YAML whose origin the import table does not give: import_accounted.py)
# Usage: import_corpus.sh HARNESS [CORPUS_DIR [WORK]] [-- more harness import options]
# Without a corpus (none given, or BERT_IMPORT_CORPUS unset) it SKIPs (exit 77). The corpus is not part of
# the repository (the results repositories' code is not ours to commit): lay it out as
# <round>/<submitter>/<implementation>/{config_*.sh,run.sub,run_and_time.sh,...}.
# Exit 0 when at least BERT_IMPORT_CORPUS_MIN percent (default 99) are ok or refused.
set -uo pipefail
HARNESS=${1:?usage: import_corpus.sh HARNESS [CORPUS_DIR [WORK]] [-- import options]}
shift
CORPUS=${BERT_IMPORT_CORPUS:-}
WORK=""
if [ $# -gt 0 ] && [ "$1" != -- ]; then CORPUS=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then WORK=$1; shift; fi
[ "${1:-}" = -- ] && shift
EXTRA=("$@")
if [ -z "$CORPUS" ] || [ ! -d "$CORPUS" ]; then
  echo "SKIP: no corpus of config_*.sh given (import_corpus.sh HARNESS CORPUS_DIR, or BERT_IMPORT_CORPUS)"
  exit 77
fi
CORPUS=$(cd "$CORPUS" && pwd)
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/import-corpus-XXXXXX")}
mkdir -p "$WORK"
MIN=${BERT_IMPORT_CORPUS_MIN:-99}
HERE=$(cd "$(dirname "$0")" && pwd)
# What a site sets before sourcing (run.sub's users export them; the _pack configs read DATADIR_PHASE2_PACKED).
DATA=(DATADIR_PHASE2=/data/bert/hdf5/training-4320/hdf5_4320_shards_varlength DATADIR_PHASE2_PACKED=/data/bert/packed_data
      EVALDIR=/data/bert/hdf5/eval_varlength CHECKPOINTDIR_PHASE1=/data/bert/phase1)

# A config is a config_*.sh that no other config_*.sh of its folder sources (those are its helpers) and
# that sets a run's variables (not run.sub's config_mounts.sh).
is_helper() {
  local f=$1 name
  name=$(basename "$f")
  grep -lsF -- "$name" "$(dirname "$f")"/config_*.sh | grep -qvxF -- "$f" && return 0
  ! grep -qE '(BATCHSIZE|DGXNNODES|LR|GRAD_STEPS)=' "$f"
}

n=0 ok=0 refused=0 failed=0
declare -A classes
printf '%-8s %-44s %s\n' status detail config
while IFS= read -r cfg; do
  is_helper "$cfg" && continue
  rel=${cfg#"$CORPUS"/}
  submitter=$(echo "$rel" | cut -d/ -f2)
  id=$(echo "$rel" | tr '/' '_' | sed 's/\.sh$//')
  out=$WORK/$id
  mkdir -p "$out"
  n=$((n + 1))
  envs=()
  for kv in "${DATA[@]}"; do envs+=(--env "$kv"); done
  # bash alone, for the comparison (NEXP: the set's 10, as the import assumes)
  (cd "$(dirname "$cfg")" && timeout 20 env -i PATH=/usr/bin:/bin NEXP=10 "${DATA[@]}" bash --noprofile --norc -c \
    'source "$1" > /dev/null 2>&1; env -0' _ "./$(basename "$cfg")") > "$out/bash.env" 2> /dev/null
  "$HARNESS" import "$cfg" "${envs[@]}" --submitter "$submitter" "${EXTRA[@]}" -o "$out/imported.yaml" > "$out/table.txt" 2> "$out/import.err"
  rc=$?
  status=failed detail=""
  if [ $rc = 0 ]; then
    if "$HARNESS" run "$out/imported.yaml" --dry-run --json > "$out/plan.json" 2> "$out/dryrun.err"; then
      if detail=$(python3 "$HERE/import_corpus_check.py" "$out/bash.env" "$out/plan.json" "$out/table.txt") &&
         detail=$(python3 "$HERE/import_accounted.py" "$out/imported.yaml" "$out/table.txt"); then
        status=ok
      fi
    else
      detail="dry-run: $(grep -m1 . "$out/dryrun.err")"
    fi
  elif [ $rc = 2 ] && grep -q ': closed division: ' "$out/import.err"; then
    status=refused
    detail=$(grep -m1 ': closed division: ' "$out/import.err" | sed -E 's/^ *[^ ]*: ([a-z_.]+): closed division:.*/\1/')
  else
    detail="import rc $rc: $(grep -m1 . "$out/import.err")"
  fi
  case $status in
    ok) ok=$((ok + 1)) ;;
    refused) refused=$((refused + 1)); classes["refused $detail"]=$(( ${classes["refused $detail"]:-0} + 1 )) ;;
    failed) failed=$((failed + 1))
            cls=$(echo "$detail" | sed -E 's/[0-9]+/N/g; s#/[^ :]*##g' | cut -c1-90)
            classes["failed $cls"]=$(( ${classes["failed $cls"]:-0} + 1 )) ;;
  esac
  printf '%-8s %-44s %s\n' "$status" "$(echo "$detail" | cut -c1-200)" "$rel"
done < <(find "$CORPUS" -name 'config_*.sh' -type f | LC_ALL=C sort)

echo
echo "classes:"
for c in "${!classes[@]}"; do printf '  %4d  %s\n' "${classes[$c]}" "$c"; done | sort -rn
echo
printf '%-8s %5s\n' ok "$ok" refused "$refused" failed "$failed" total "$n"
good=$((ok + refused))
rate=$(awk -v g=$good -v n=$n 'BEGIN { printf "%.1f", n ? 100 * g / n : 0 }')
echo "imported and dry-run right, or refused by a closed-division rule: $good / $n = $rate %  (work: $WORK)"
awk -v r="$rate" -v m="$MIN" 'BEGIN { exit !(r + 0 >= m + 0) }'
