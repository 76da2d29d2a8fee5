#!/usr/bin/env bash
# roofline --out DIR whose longest file (a picture, with the temporary suffix of an atomic
# write) would not fit the 4096-byte path limit is refused up front: exit 2, one line "File
# name too long", no folder made, nothing in TMPDIR (gnuplot failed late, on a path it could not
# open, and left its temporary folder). And a gnuplot failure whose message is too long to say
# "the script and its data are kept" keeps nothing: the temporary folder goes.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
src=examples/providers/vm-2core-run1/results.json
mkdir "$tmp/t"
d=$(python3 -c '
import sys
p = sys.argv[1] + "/long"
while len(p) < 4082 - 201: p += "/" + "d" * 200
print(p + "/" + "e" * (4082 - len(p) - 1))' "$tmp")
[ ${#d} -eq 4082 ] || fail "test setup: a path of ${#d} characters"
TMPDIR=$tmp/t $ns roofline $src --out "$d" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "long --out: exit $rc, want 2"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "long --out: want one line: $(cut -c1-200 "$tmp/err")"
grep -q "^nodescale roofline: error: --out: .*File name too long$" "$tmp/err" ||
  fail "long --out: $(cut -c1-200 "$tmp/err")"
[ -e "$tmp/long" ] && fail "long --out: a folder was made"
[ -s "$tmp/out" ] && fail "long --out: a summary was printed"
[ -n "$(ls -A "$tmp/t")" ] && fail "long --out: TMPDIR holds $(ls "$tmp/t")"

# a gnuplot (at a path of 300 characters) that fails with a message of 600: the error line
# cannot hold it all
g=$tmp/$(printf 'g%.0s' {1..150})/$(printf 'h%.0s' {1..150})
mkdir -p "$g"
printf '#!/bin/sh\nprintf "%%0600d\\n" 0 >&2\nexit 1\n' >"$g/gp"
chmod +x "$g/gp"
TMPDIR=$tmp/t NODESCALE_GNUPLOT=$g/gp $ns roofline $src --out "$tmp/o" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "failing gnuplot: exit $rc, want 1: $(cat "$tmp/err")"
if grep -q "the script and its data are kept" "$tmp/err"; then
  [ -n "$(ls -A "$tmp/t")" ] || fail "failing gnuplot: the message says kept, TMPDIR is empty"
else
  [ -z "$(ls -A "$tmp/t")" ] || fail "failing gnuplot: TMPDIR holds $(ls "$tmp/t"), the message names nothing kept: $(cut -c1-300 "$tmp/err")"
fi
[ $fails -eq 0 ] && echo "roofline_long_out: ok"
exit $((fails > 0))
