#!/usr/bin/env bash
# Trial 5 #10: every option `run --help` lists is documented in README.md (--cluster-preset
# was not), and the option README describes behaves so: an unknown --cluster-preset is refused
# before anything is measured (exit 2, one line, nothing written).
set -u
cd "$(dirname "$0")/../.."
bin=bin/nodescale
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
opts=$($bin run --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ "$(echo "$opts" | wc -l)" -ge 8 ] || { echo "FAIL: run --help lists too few options:" $opts; exit 1; }
for o in $opts; do
  grep -q -- "$o\b" README.md || { echo "FAIL: README does not document run $o"; fail=1; }
done
$bin run --cluster-preset no-such-chip --out "$tmp/r" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -q '^nodescale run: error: --cluster-preset' "$tmp/err" && [ ! -e "$tmp/r" ] ||
  { echo "FAIL: unknown --cluster-preset: exit $rc"; cat "$tmp/err"; fail=1; }
[ $fail -eq 0 ] && echo "README run options: ok ($(echo $opts | wc -w) options)"
exit $fail
