#!/usr/bin/env bash
# Names from the inputs cannot break the reports: compare --labels with '|', '<x>', '&' keeps
# compare.md's table columns and writes no raw HTML; gate --markdown with a benchmark id holding
# backticks and '|' keeps the code span and the cells; a control character in an id prints as
# \xNN in gate's terminal table and Markdown.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
g=tests/fixtures/gate
fx=tests/fixtures/fleet

# Cells of a table row: split at '|' not preceded by a backslash.
cells() { sed 's/\\|/E/g' | awk -F'|' '{print NF}'; }

$ns compare $fx/provider_x.json $fx/provider_y.json --labels 'a|b,<x>&"y' --out "$tmp/c" \
  >/dev/null 2>"$tmp/e" || { echo "FAIL: compare --labels"; cat "$tmp/e"; fails=$((fails + 1)); }
md="$tmp/c/compare.md"
grep -q '^| a\\|b | ' "$md" || { echo "FAIL: '|' in a label not escaped"; fails=$((fails + 1)); }
grep -q '&lt;x&gt;&amp;"y' "$md" || { echo "FAIL: <x>& in a label not escaped"; fails=$((fails + 1)); }
grep -q '<x>' "$md" && { echo "FAIL: raw <x> in compare.md"; fails=$((fails + 1)); }
# Every row of the benchmark table has as many cells as its header.
hdr=$(grep '^| benchmark |' "$md" | cells)
bad=$(grep '^| `' "$md" | cells | grep -vc "^$hdr\$")
[ "$bad" -eq 0 ] || { echo "FAIL: $bad compare.md rows with a wrong cell count"; fails=$((fails + 1)); }

# gate: ids with a backtick, a '|' and a control character.
for f in base cand; do
  jq '.results[0].id = "red`uce|x" | .results[1].id = "ctl\u0001id"' $g/b24_$f.json >"$tmp/$f.json"
done
$ns gate "$tmp/base.json" "$tmp/cand.json" --markdown "$tmp/g.md" >"$tmp/g.txt" 2>"$tmp/e"
[ $? -le 1 ] || { echo "FAIL: gate on the edited fixtures"; cat "$tmp/e"; fails=$((fails + 1)); }
grep -qF '| ``red`uce\|x`` |' "$tmp/g.md" || { echo "FAIL: backtick id code span"; grep red "$tmp/g.md"; fails=$((fails + 1)); }
grep -qF '`ctl\x01id`' "$tmp/g.md" || { echo "FAIL: control character in gate.md"; fails=$((fails + 1)); }
grep -qF 'ctl\x01id' "$tmp/g.txt" || { echo "FAIL: control character in the table not as \\x01"; fails=$((fails + 1)); }
LC_ALL=C grep -q $'\x01' "$tmp/g.txt" "$tmp/g.md" && { echo "FAIL: raw control character"; fails=$((fails + 1)); }
hdr=$(grep '^| benchmark |' "$tmp/g.md" | cells)
bad=$(grep '^| `' "$tmp/g.md" | cells | grep -vc "^$hdr\$")
[ "$bad" -eq 0 ] || { echo "FAIL: $bad gate.md rows with a wrong cell count"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "md_escape: ok"
exit $((fails > 0))
