#!/usr/bin/env bash
# `nodescale roofline` rejects bad input with exit 2 and one line on stderr, and writes nothing.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

expect2() { # description, then the command
  local what=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL $what: exit $rc, want 2"; fails=$((fails + 1)); fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q '^nodescale roofline: error: ' "$tmp/err"; then
    echo "FAIL $what: stderr is not one error line:"; cat "$tmp/err"; fails=$((fails + 1))
  fi
}

expect2 "no argument" "$ns" roofline
expect2 "missing file" "$ns" roofline "$tmp/nope.json"
printf '{"schema": "nodescale/1", "sweep": [' >"$tmp/trunc.json"
expect2 "truncated JSON" "$ns" roofline "$tmp/trunc.json"
printf '{"schema": "other/2"}\n' >"$tmp/schema.json"
expect2 "wrong schema" "$ns" roofline "$tmp/schema.json"
printf '{"schema": "nodescale/1", "x": NaN}\n' >"$tmp/nan.json"
expect2 "NaN in JSON" "$ns" roofline "$tmp/nan.json"
printf '[1, 2]\n' >"$tmp/array.json"
expect2 "not an object" "$ns" roofline "$tmp/array.json"
expect2 "unknown option" "$ns" roofline tests/fixtures/roofline/synthetic_results.json --frobnicate
expect2 "--out without a value" "$ns" roofline tests/fixtures/roofline/synthetic_results.json --out
expect2 "two inputs" "$ns" roofline "$tmp/a.json" "$tmp/b.json"

# A memory-bound result that counts 0 bytes (allowed by the results check: kernels without memory
# traffic do) is not register-resident: it is judged as a STREAM kernel, without crashing (trial
# 14b #1: SIGSEGV on a missing bandwidth roof) or a "(null)" level in its status.
if command -v jq >/dev/null; then
  jq '(.results[] | select(.name == "stream_triad_nt") | .bytes) = 0' \
    examples/providers/vm-2core-run1/results.json >"$tmp/bytes0.json"
  "$ns" roofline "$tmp/bytes0.json" --no-plot --out "$tmp/b0" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
    echo "FAIL bytes 0: exit $rc"; head -3 "$tmp/err"; fails=$((fails + 1))
  elif [ $rc -eq 0 ] && jq -e '[.results[] | select(.name == "stream_triad_nt") | .roof_status
        | test("register-resident|null")] | any' "$tmp/b0/results.json" >/dev/null; then
    echo "FAIL bytes 0: a STREAM result called register-resident or a (null) level"
    fails=$((fails + 1))
  fi
  rm -rf "$tmp/b0" "$tmp/bytes0.json"
fi

# Nothing was written next to the bad inputs.
if ls "$tmp" | grep -q -E '\.(svg|png)$|results\.json'; then
  echo "FAIL: files written for bad input:"; ls "$tmp"; fails=$((fails + 1))
fi
"$ns" roofline --help | grep -q 'usage: nodescale roofline' || { echo "FAIL: --help"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "roofline bad input: ok"
exit $((fails > 0))
