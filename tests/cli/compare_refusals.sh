#!/usr/bin/env bash
# compare refuses what would mislead, with exit 2, one line and nothing written: the same file
# given twice (also through a link), an --out folder already holding compare.json, and a compare
# report given as an input; a class without benchmarks has distinguishes null with a status.
set -u
cd "$(dirname "$0")/../.."
bin=bin/nodescale
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq not installed (scripts/install-deps.sh)"; exit 77; }
fx=tests/fixtures/fleet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

refused() { # name, pattern, command...
  local name=$1 pat=$2
  shift 2
  "$@" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: $name: exit $rc, want 2"; fail=1; }
  [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "$pat" "$tmp/e" ||
    { echo "FAIL: $name: message"; cat "$tmp/e"; fail=1; }
  [ -s "$tmp/o" ] && { echo "FAIL: $name: wrote to stdout"; fail=1; }
}

$bin compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/c" >/dev/null 2>"$tmp/e" ||
  { echo "FAIL: compare"; cat "$tmp/e"; fail=1; }
jq -e '[.classes[] | select(.benchmarks == 0)] | length > 0 and
       all(.distinguishes == null and
           .distinguishes_status == "no benchmark of this class in the inputs")' \
  "$tmp/c/compare.json" >/dev/null || { echo "FAIL: distinguishes_status"; fail=1; }
jq -e '[.classes[] | select(.benchmarks > 0)] | all(has("distinguishes_status") | not)' \
  "$tmp/c/compare.json" >/dev/null || { echo "FAIL: status on a measured class"; fail=1; }

ln -s "$PWD/$fx/provider_x.json" "$tmp/x_link.json"
refused "same file twice" 'error: .*same file' $bin compare $fx/provider_x.json $fx/provider_x.json --out "$tmp/s"
refused "same file through a link" 'error: .*same file' $bin compare $fx/provider_x.json "$tmp/x_link.json" --out "$tmp/s"
[ -e "$tmp/s" ] && { echo "FAIL: same file: --out created"; fail=1; }

cp "$tmp/c/compare.json" "$tmp/before.json"
refused "--out holding compare.json" 'error: .*already holds compare.json' \
  $bin compare $fx/provider_y.json $fx/provider_z.json --out "$tmp/c"
cmp -s "$tmp/c/compare.json" "$tmp/before.json" || { echo "FAIL: compare.json overwritten"; fail=1; }

refused "compare report as input" 'error: .*is a compare report, not a results or fleet file' \
  $bin compare $fx/provider_x.json "$tmp/c/compare.json" --out "$tmp/r"

[ $fail -eq 0 ] && echo "compare_refusals: ok"
exit $fail
