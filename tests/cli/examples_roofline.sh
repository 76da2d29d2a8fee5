#!/usr/bin/env bash
# The committed examples cannot go stale against the roofline builder: `nodescale roofline
# RESULTS.json --no-plot --out DIR` on each run folder of examples/ writes back a results.json
# byte for byte identical to the committed one (doubles are written with 17 digits, so a rebuild
# of a rebuilt file is exact), and the folder's report.md shows, for every kernel, the fraction
# of its roof and the roof (compute or bandwidth:LEVEL) that results.json holds.
# After changing the builder: run that command, copy DIR/results.json back, rewrite report.md
# from it (ns_report_markdown), and see examples/providers/README.md.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

n=0
while IFS= read -r r; do
  n=$((n + 1))
  out=$tmp/$n
  if ! "$ns" roofline "$r" --no-plot --out "$out" >"$tmp/log" 2>&1; then
    fail "roofline $r: exit $?"; tail -3 "$tmp/log"; continue
  fi
  cmp -s "$out/results.json" "$r" ||
    fail "$r: a rebuild changes it (stale: rebuild it as this test's header says); $(diff <(jq -S .roofline "$r") <(jq -S .roofline "$out/results.json") | head -4)"
  md=$(dirname "$r")/report.md
  [ -f "$md" ] || continue
  rows=0
  while IFS=$'\t' read -r id pct roof; do
    rows=$((rows + 1))
    row=$(grep -F "| $id |" "$md" | head -1)
    [ -n "$row" ] || { fail "$md: no row for $id"; continue; }
    grep -qF "| $pct | $roof |" <<<"$row" || fail "$md: $id row is not '$pct | $roof': $row"
  done < <(jq -r '.results[] | select(.fraction_of_roof != null and .family != "peak") |
                  [.id, ((.fraction_of_roof * 1000 | round) / 10 | tostring | if test("\\.") then . else . + ".0" end) + "%",
                   (if .roof_limit == "compute" then "compute" else "bandwidth:" + .level end)] | @tsv' "$r")
  [ $rows -gt 0 ] || fail "$r: no kernel with a fraction of its roof"
done < <(find examples -name results.json | sort)
[ $n -gt 0 ] || fail "no results.json under examples/"

[ $fails -eq 0 ] && echo "examples_roofline: ok ($n results files)"
[ $fails -eq 0 ]
