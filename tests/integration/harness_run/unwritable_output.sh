# An output directory that cannot be created: one clear message, exit 2, nothing launched.
source "$(dirname "$0")/lib.sh" "$@"
echo "a file" > "$WORK/file"
"$DRIVER" --out "$WORK/file/out" --nexp 1 -- sh -c "touch '$WORK/launched'" > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 2 $? "harness run into an unwritable place"
expect_grep "$WORK/file/out: cannot create the output directory" "$WORK/stderr"
[ "$(wc -l < "$WORK/stderr")" = 1 ] || fail "expected one error line"
[ -e "$WORK/launched" ] && fail "something was launched"
# A set already in the directory is never overwritten without --resume.
"$DRIVER" --out "$WORK/out" --nexp 1 -- "$FAKE" --config "$WORK/out/run.yaml" --step-ms 1 > /dev/null 2>&1
expect_rc 0 $? "first set"
"$DRIVER" --out "$WORK/out" --nexp 1 -- "$FAKE" --config "$WORK/out/run.yaml" > "$WORK/stdout" 2> "$WORK/stderr"
expect_rc 2 $? "second set into the same directory"
expect_grep "already holds an experiment set" "$WORK/stderr"
echo PASS
