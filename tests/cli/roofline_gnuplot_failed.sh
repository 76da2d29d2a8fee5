#!/usr/bin/env bash
# When gnuplot failed, roofline's message named a temporary script it had already
# deleted. The script the message names (and its data) is kept for the user to open; --out
# holds nothing (exit 1).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
mkdir "$tmp/t"
TMPDIR=$tmp/t NODESCALE_GNUPLOT=/bin/false $ns roofline examples/providers/vm-2core-run1/results.json \
  --out "$tmp/o" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, want 1"
gp=$(grep -o "gnuplot failed on [^ ]*\.gp" "$tmp/err" | sed 's/^gnuplot failed on //')
[ -n "$gp" ] || fail "no script named: $(cat "$tmp/err")"
[ -n "$gp" ] && [ -s "$gp" ] || fail "the named script $gp is not there"
[ -n "$gp" ] && [ -s "$(dirname "$gp")/d0.dat" ] || fail "the script's data are not kept"
grep -q "the script and its data are kept; nothing written" "$tmp/err" || fail "stderr: $(cat "$tmp/err")"
[ -e "$tmp/o" ] && [ -n "$(ls -A "$tmp/o")" ] && fail "--out holds files"
[ $fails -eq 0 ] && echo "roofline_gnuplot_failed: ok"
exit $((fails > 0))
