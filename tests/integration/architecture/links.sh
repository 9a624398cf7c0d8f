#!/usr/bin/env bash
# What the trainer binaries link (ARCHITECTURE.md, "Rules for arrows"): of results/ only the MLPerf log
# writer (bert_mllog: MLLogger, format_mllog_line, the keys, Python's JSON), never the checker or scoring;
# of formats/ only the reading side (no shard writer: that is bert_formats_write, dataset/'s). Reads the
# symbols each binary defines. Usage: links.sh BINARY...
set -euo pipefail
bad=0
for bin in "$@"; do
  symbols=$(nm -C --defined-only "$bin")
  if ! grep -q 'bert::results::MLLogger' <<<"$symbols"; then  # what it must link: else the check sees nothing
    echo "$bin defines no bert::results::MLLogger symbol (stripped?): nothing to judge"
    bad=1
  fi
  checker=$(grep -oE 'bert::results::[A-Za-z_]+' <<<"$symbols" | sort -u |
            grep -vxE 'bert::results::(EventType|MLLogger|format_mllog_line|pyjson|key)' || true)
  if [ -n "$checker" ]; then
    echo "$bin links results/ beyond the log writer:" $checker
    bad=1
  fi
  writers=$(grep -oE 'bert::data::(write_shard|FixedShardWriter|h5::(write_plain|write_rows|write_vlen|create_plain))' <<<"$symbols" |
            sort -u || true)
  if [ -n "$writers" ]; then
    echo "$bin links the shard writers:" $writers
    bad=1
  fi
done
[ $bad = 0 ] && echo "the trainer links the log writer and the shard readers only"
exit $bad
