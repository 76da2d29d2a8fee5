#!/usr/bin/env bash
# `nodescale roofline` rejects bad input with exit 2 and one line on stderr, and writes nothing.
set -u
cd "$(dirname "$0")/../.."
bin=bin/nodescale
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect2() { # description, then the command
  local what=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL $what: exit $rc, want 2"; fail=1; fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q '^nodescale roofline: error: ' "$tmp/err"; then
    echo "FAIL $what: stderr is not one error line:"; cat "$tmp/err"; fail=1
  fi
}

expect2 "no argument" $bin roofline
expect2 "missing file" $bin roofline "$tmp/nope.json"
printf '{"schema": "nodescale/1", "sweep": [' >"$tmp/trunc.json"
expect2 "truncated JSON" $bin roofline "$tmp/trunc.json"
printf '{"schema": "other/2"}\n' >"$tmp/schema.json"
expect2 "wrong schema" $bin roofline "$tmp/schema.json"
printf '{"schema": "nodescale/1", "x": NaN}\n' >"$tmp/nan.json"
expect2 "NaN in JSON" $bin roofline "$tmp/nan.json"
printf '[1, 2]\n' >"$tmp/array.json"
expect2 "not an object" $bin roofline "$tmp/array.json"
expect2 "unknown option" $bin roofline tests/fixtures/roofline/synthetic_results.json --frobnicate
expect2 "--out without a value" $bin roofline tests/fixtures/roofline/synthetic_results.json --out
expect2 "two inputs" $bin roofline "$tmp/a.json" "$tmp/b.json"

# Nothing was written next to the bad inputs.
if ls "$tmp" | grep -q -E '\.(svg|png)$|results\.json'; then
  echo "FAIL: files written for bad input:"; ls "$tmp"; fail=1
fi
$bin roofline --help | grep -q 'usage: nodescale roofline' || { echo "FAIL: --help"; fail=1; }
[ $fail -eq 0 ] && echo "roofline bad input: ok"
exit $fail
