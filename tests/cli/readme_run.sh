#!/usr/bin/env bash
# Every option `run --help` lists is documented in README.md (--cluster-preset
# was not), and the option README describes behaves so: an unknown --cluster-preset is refused
# before anything is measured (exit 2, one line, nothing written).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
opts=$("$ns" run --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ "$(echo "$opts" | wc -l)" -ge 8 ] || { echo "FAIL: run --help lists too few options:" $opts; exit 1; }
for o in $opts; do
  grep -q -- "$o\b" README.md || { echo "FAIL: README does not document run $o"; fails=$((fails + 1)); }
done
"$ns" run --cluster-preset no-such-chip --out "$tmp/r" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q '^nodescale run: error: --cluster-preset' "$tmp/err" && [ ! -e "$tmp/r" ] ||
  { echo "FAIL: unknown --cluster-preset: exit $rc"; cat "$tmp/err"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "README run options: ok ($(echo $opts | wc -w) options)"
exit $((fails > 0))
