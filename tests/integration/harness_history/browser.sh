# report.html and the history page in a real browser (Debian's chromium, headless): each renders to a
# screenshot, its script runs without an error on the console, its DOM holds the runs and the charts,
# and the page loads nothing from the network (chromium's net log: no request the page started other
# than file://). Control pages prove the checks can fail: one with a script error, one loading an image
# from a URL.
source "$(dirname "$0")/lib.sh" "$@"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || fail "chromium is not installed (scripts/setup --test installs it)"

# browse PAGE TAG: dump-dom, console and net log of PAGE into $WORK/TAG.*; then a screenshot.
browse() {
  local page=$1 tag=$2
  local flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$WORK/profile_$tag" --no-first-run
               --disable-background-networking --disable-component-update --disable-default-apps --disable-extensions
               --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 --window-size=1200,2000)
  timeout 120 "$CHROMIUM" "${flags[@]}" --log-net-log="$WORK/$tag.netlog.json" --dump-dom "file://$page" \
    > "$WORK/$tag.dom.html" 2> "$WORK/$tag.console" || fail "$tag: chromium --dump-dom failed: $(tail -5 "$WORK/$tag.console")"
  timeout 120 "$CHROMIUM" "${flags[@]}" --screenshot="$WORK/$tag.png" "file://$page" > /dev/null 2>&1 ||
    fail "$tag: chromium --screenshot failed"
}

# Console errors of the page (chromium logs them as CONSOLE lines): count.
console_errors() { grep -E 'CONSOLE.*(Uncaught|Error|error)' "$WORK/$1.console" | grep -c . ; }

# Requests the page itself started (not chromium's own background traffic) to anything but file://.
page_requests() {
  "$PY" - "$WORK/$1.netlog.json" <<'PYEOF'
import json, sys
log = json.load(open(sys.argv[1]))
names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
urls = set()
for e in log["events"]:
    p = e.get("params", {})
    if names.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p:
        if p.get("initiator") != "not an origin" and not p["url"].startswith("file:"):
            urls.add(p["url"])
print(len(urls))
for u in sorted(urls): print(u, file=sys.stderr)
PYEOF
}

png_ok() {  # a PNG of some size
  "$PY" -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(0 if d[:8]==b"\x89PNG\r\n\x1a\n" and len(d) > 20000 else 1)' "$1"
}

sys=$(fast_system fastA "$WORK/set")
"$HARNESS" run "$sys" > "$WORK/stdout" 2>&1 || fail "the set"
"$HARNESS" history --html "$WORK/history.html" 2> /dev/null || fail "history --html"

browse "$WORK/set/report.html" report
png_ok "$WORK/report.png" || fail "report.html: no screenshot"
[ "$(console_errors report)" = 0 ] || fail "report.html: console errors: $(grep CONSOLE "$WORK/report.console")"
[ "$(page_requests report 2> "$WORK/report.urls")" = 0 ] || fail "report.html loads from the network: $(cat "$WORK/report.urls")"
[ "$(grep -c '<tr class="run">' "$WORK/report.dom.html")" = 5 ] || fail "report.html: the DOM lacks the runs"
grep -q '<body data-charts="[2-9]"' "$WORK/report.dom.html" || fail "report.html: its script did not count 2 or more charts"
grep -q '<polyline' "$WORK/report.dom.html" || fail "report.html: no chart line in the DOM"

browse "$WORK/history.html" history
png_ok "$WORK/history.png" || fail "history.html: no screenshot"
[ "$(console_errors history)" = 0 ] || fail "history.html: console errors"
[ "$(page_requests history 2> /dev/null)" = 0 ] || fail "history.html loads from the network"
grep -q '<tr class="set">' "$WORK/history.dom.html" || fail "history.html: the DOM lacks the sets"
grep -q '<body data-charts="2"' "$WORK/history.dom.html" || fail "history.html: not two charts"

# The controls: a script error and a network load are seen.
sed 's#<body>#<body><script>no_such_function();</script>#' "$WORK/set/report.html" > "$WORK/control_error.html"
browse "$WORK/control_error.html" control_error
[ "$(console_errors control_error)" -ge 1 ] || fail "the console check misses a script error"
sed 's#<body>#<body><img src="http://example.invalid/probe.png">#' "$WORK/set/report.html" > "$WORK/control_net.html"
browse "$WORK/control_net.html" control_net
[ "$(page_requests control_net 2> /dev/null)" -ge 1 ] || fail "the network check misses a page's request"
echo PASS
