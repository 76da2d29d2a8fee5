#!/usr/bin/env bash
# compare says what its verdict rests on (a threshold rule on one value per input, not a
# significance test), and warns in one line, in the printed report and in compare.json, when
# every input was measured on the same host: the differences are then run to run, not between
# providers (trial 4, defect 18: three runs of one VM compared with no warning).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/compare.sh

for p in x y z; do jq '.context.host = "vm"' $fx/provider_$p.json >"$tmp/$p.json"; done
$bin compare "$tmp/x.json" "$tmp/y.json" "$tmp/z.json" --out "$tmp/same" >"$tmp/same.md" 2>"$tmp/e" ||
  { echo "FAIL: compare"; cat "$tmp/e"; fails=$((fails + 1)); }
[ "$(grep -c 'all 3 inputs were measured on one host (vm)' "$tmp/same.md")" -eq 1 ] ||
  { echo "FAIL: no one-line same-host warning in the report"; fails=$((fails + 1)); }
jq -e '(.warning | test("one host \\(vm\\)")) and (.rule | test("threshold rule, not a significance test"))' \
  "$tmp/same/compare.json" >/dev/null || { echo "FAIL: compare.json warning/rule"; fails=$((fails + 1)); }
grep -q '^Rule: .*threshold rule, not a significance test' "$tmp/same.md" || { echo "FAIL: rule line"; fails=$((fails + 1)); }

# Different hosts: no warning; the rule is stated all the same.
$bin compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/diff" >"$tmp/diff.md" 2>"$tmp/e" ||
  { echo "FAIL: compare (different hosts)"; cat "$tmp/e"; fails=$((fails + 1)); }
grep -qi 'one host' "$tmp/diff.md" && { echo "FAIL: warning on different hosts"; fails=$((fails + 1)); }
jq -e '.warning == null and (.rule | length > 0)' "$tmp/diff/compare.json" >/dev/null ||
  { echo "FAIL: compare.json on different hosts"; fails=$((fails + 1)); }
# An input without a host cannot be claimed to be the same host.
jq 'del(.context.host)' $fx/provider_z.json >"$tmp/nohost.json"
$bin compare "$tmp/x.json" "$tmp/nohost.json" --out "$tmp/nh" >"$tmp/nh.md" 2>/dev/null
grep -qi 'one host' "$tmp/nh.md" && { echo "FAIL: warning with an input without host"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "compare_same_host: ok"
exit $((fails > 0))
