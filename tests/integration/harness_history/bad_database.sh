# A results database that cannot be written: one written by a newer harness, a corrupt file, a location
# that cannot hold one. `harness run` says so in one line, ends as it would have (exit 0), and the set's
# folder is complete (summary.md, report.html, state.json); the database is left as it was. history and
# compare on such a database: one line, exit 2.
source "$(dirname "$0")/lib.sh" "$@"
sys=$(fast_system fastA "$WORK/set")
"$HARNESS" run "$sys" > "$WORK/stdout" 2>&1 || fail "the set itself"

check_case() {  # NAME DB_PATH PATTERN
  local name=$1 db=$2 pattern=$3
  rm -f "$WORK/set/summary.md" "$WORK/set/report.html"
  BERT_RESULTS_DB=$db "$HARNESS" run --resume "$WORK/set" > "$WORK/$name.out" 2>&1
  expect_rc 0 $? "$name: the set's end"
  [ "$(grep -c 'results database' "$WORK/$name.out")" = 1 ] || fail "$name: not one line about the database: $(cat "$WORK/$name.out")"
  grep -q "^warning: results database $db: $pattern.*; this set is not recorded there (its folder $WORK/set is complete)$" \
    "$WORK/$name.out" || fail "$name: unclear warning: $(grep 'results database' "$WORK/$name.out")"
  for f in summary.md report.html state.json; do [ -s "$WORK/set/$f" ] || fail "$name: $f missing"; done
  expect_grep "not recorded in the results database" "$WORK/set/summary.md"
}

"$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 99"); c.execute("CREATE TABLE future (x)"); c.commit()' \
  "$WORK/newer.db"
check_case newer "$WORK/newer.db" "written by a newer harness (schema version 99; this harness knows up to [0-9]*)"
[ "$("$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' "$WORK/newer.db")" = 99 ] ||
  fail "the newer database was changed"

head -c 16384 /dev/urandom > "$WORK/corrupt.db"
cp "$WORK/corrupt.db" "$WORK/corrupt.orig"
check_case corrupt "$WORK/corrupt.db" "file is not a database"
cmp -s "$WORK/corrupt.db" "$WORK/corrupt.orig" || fail "the corrupt file was changed"

echo "a file, not a folder" > "$WORK/blocker"
check_case unwritable "$WORK/blocker/results.db" "cannot create its folder $WORK/blocker"
check_case read_only_fs /proc/bert-results.db "cannot open"

# The readers: one line, exit 2.
BERT_RESULTS_DB=$WORK/corrupt.db "$HARNESS" history > "$WORK/h.out" 2> "$WORK/h.err"
expect_rc 2 $? "history on a corrupt database"
[ "$(wc -l < "$WORK/h.err")" = 1 ] || fail "history: more than one line: $(cat "$WORK/h.err")"
expect_grep "harness history: results database $WORK/corrupt.db: file is not a database" "$WORK/h.err"
BERT_RESULTS_DB=$WORK/none.db "$HARNESS" compare 1 2 > /dev/null 2> "$WORK/c.err"
expect_rc 2 $? "compare without a database"
expect_grep "harness compare: results database $WORK/none.db: no such file" "$WORK/c.err"
"$HARNESS" compare 1 77 > /dev/null 2> "$WORK/c2.err"
expect_rc 2 $? "compare with an unknown id"
expect_grep "no set #77 (harness history lists them)" "$WORK/c2.err"
"$HARNESS" compare "$WORK/nowhere" 1 > /dev/null 2> "$WORK/c3.err"
expect_rc 2 $? "compare with neither a folder nor an id"
expect_grep "nowhere: neither a folder" "$WORK/c3.err"
echo PASS
