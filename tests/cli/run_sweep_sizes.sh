#!/usr/bin/env bash
# The console's sweep lines print the working set as report.md does: "7.5 KiB",
# "1 MiB", not "%.0f KiB" ("8 KiB" for the 7.5 KiB point, "1024 KiB" for 1 MiB). Reads the
# first lines of a quick 1-thread run (stream_load from 4 KiB in 2x steps reaches 1 MiB within
# seconds), then stops it.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

"$ns" run --quick --threads 1 --out "$tmp/r" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 300); do # up to 60 s for the 1 MiB point
    grep -q "sweep stream_load .* t1 .*MiB" "$tmp/out" "$tmp/err" 2>/dev/null && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.2
done
kill -INT $pid 2>/dev/null; sleep 0.05; kill -INT $pid 2>/dev/null
wait $pid 2>/dev/null
lines=$(cat "$tmp/out" "$tmp/err" | grep "sweep stream_load")
[ -n "$lines" ] || fail "no sweep line: $(tail -3 "$tmp/err")"
grep -q "t1 *1 MiB " <<<"$lines" || fail "no '1 MiB' sweep line: $(tail -2 <<<"$lines")"
if grep -Eq "[0-9]{4,} KiB" <<<"$lines"; then fail "a working set printed as >= 1000 KiB: $(grep -E '[0-9]{4,} KiB' <<<"$lines" | head -1)"; fi

[ $fails -eq 0 ] && echo "run_sweep_sizes: all passed" || echo "run_sweep_sizes: $fails failed"
[ $fails -eq 0 ]
