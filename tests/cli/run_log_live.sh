#!/usr/bin/env bash
# run.log is written line by line: while a run goes it holds what the console showed, and a
# second Ctrl-C (which ends the run at once) leaves it. It was fully buffered: 0 bytes after 33
# progress lines, and an empty run.log after two SIGINTs.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

"$ns" run --quick --threads 1 --out "$tmp/r" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 300); do # up to 60 s for the first progress lines (a loaded machine is slow)
    [ "$(grep -c . "$tmp/err" 2>/dev/null)" -ge 5 ] && break
    sleep 0.2
done
[ "$(grep -c . "$tmp/err")" -ge 5 ] || fail "fewer than 5 console lines within 60 s"
sleep 0.5
[ -s "$tmp/r/run.log" ] || fail "run.log is empty while the console shows $(grep -c . "$tmp/err") lines"
kill -INT $pid; sleep 0.7; kill -INT $pid 2>/dev/null # the run may have ended
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "two SIGINTs: exit $rc (want 130)"
grep -q "^command:" "$tmp/r/run.log" || fail "run.log after two SIGINTs lacks the command line"
[ "$(grep -c . "$tmp/r/run.log")" -ge 3 ] || fail "run.log after two SIGINTs: $(wc -l <"$tmp/r/run.log") lines"

[ $fails -eq 0 ] && echo "run_log_live: all passed" || echo "run_log_live: $fails failed"
[ $fails -eq 0 ]
