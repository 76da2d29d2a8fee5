#!/usr/bin/env bash
# compare refuses what would mislead, with exit 2, one line and nothing written: the same file
# given twice (also through a link), an --out folder already holding compare.json or a file of a
# run, roofline or fleet (and run and roofline refuse compare's folder), and a compare
# report given as an input, a name given twice in --labels (it was renamed a#2), a bare
# --min-spread 5 (5% or 500%?); --min-spread takes the gate's syntax, 0.05 or 5% (5 was read as
# 500% and 5% refused); a class without benchmarks has distinguishes null with a status.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/compare.sh

refused() { # name, pattern, command...
  local name=$1 pat=$2
  shift 2
  "$@" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  [ $rc -eq 2 ] || { echo "FAIL: $name: exit $rc, want 2"; fails=$((fails + 1)); }
  [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "$pat" "$tmp/e" ||
    { echo "FAIL: $name: message"; cat "$tmp/e"; fails=$((fails + 1)); }
  [ -s "$tmp/o" ] && { echo "FAIL: $name: wrote to stdout"; fails=$((fails + 1)); }
}

$bin compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/c" >/dev/null 2>"$tmp/e" ||
  { echo "FAIL: compare"; cat "$tmp/e"; fails=$((fails + 1)); }
jq -e '[.classes[] | select(.benchmarks == 0)] | length > 0 and
       all(.distinguishes == null and
           .distinguishes_status == "no benchmark of this class in the inputs")' \
  "$tmp/c/compare.json" >/dev/null || { echo "FAIL: distinguishes_status"; fails=$((fails + 1)); }
jq -e '[.classes[] | select(.benchmarks > 0)] | all(has("distinguishes_status") | not)' \
  "$tmp/c/compare.json" >/dev/null || { echo "FAIL: status on a measured class"; fails=$((fails + 1)); }

ln -s "$PWD/$fx/provider_x.json" "$tmp/x_link.json"
refused "same file twice" 'error: .*same file' $bin compare $fx/provider_x.json $fx/provider_x.json --out "$tmp/s"
refused "same file through a link" 'error: .*same file' $bin compare $fx/provider_x.json "$tmp/x_link.json" --out "$tmp/s"
[ -e "$tmp/s" ] && { echo "FAIL: same file: --out created"; fails=$((fails + 1)); }

cp "$tmp/c/compare.json" "$tmp/before.json"
refused "--out holding compare.json" 'error: .*already holds compare.json' \
  $bin compare $fx/provider_y.json $fx/provider_z.json --out "$tmp/c"
cmp -s "$tmp/c/compare.json" "$tmp/before.json" || { echo "FAIL: compare.json overwritten"; fails=$((fails + 1)); }

# One list of report-folder names for run, roofline, fleet and compare: compare
# refuses a folder holding a run's or roofline's file, and run and roofline refuse compare's
# folder, each leaving the folder as it was.
for f in results.json run.log roofline_dp.svg; do
  rm -rf "$tmp/o13" && mkdir "$tmp/o13" && echo stale >"$tmp/o13/$f"
  refused "compare --out holding $f" "error: --out .* already holds $f of a run, roofline or fleet" \
    $bin compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/o13"
  [ "$(ls "$tmp/o13")" = "$f" ] || { echo "FAIL: compare --out holding $f: wrote"; fails=$((fails + 1)); }
done
for f in compare.md compare.svg compare.dat; do
  rm -rf "$tmp/o13" && mkdir "$tmp/o13" && echo stale >"$tmp/o13/$f"
  refused "run --out holding $f" "error: --out .* already holds $f" \
    timeout -s INT 20 $bin run --quick --threads 1 --out "$tmp/o13"
  refused "roofline --out holding $f" "error: --out .* holds $f" \
    $bin roofline $fx/provider_x.json --no-plot --out "$tmp/o13"
  [ "$(ls "$tmp/o13")" = "$f" ] || { echo "FAIL: --out holding $f: written into"; fails=$((fails + 1)); }
done

# --out naming a regular file: refused by the one mkdir -p (review14 #1: compare's own mkdir -p
# took the file for a folder, and failed later writing compare.json into it), the file as it was.
echo keep >"$tmp/afile"
refused "--out a regular file" "error: cannot create $tmp/afile: Not a directory" \
  $bin compare $fx/provider_x.json $fx/provider_y.json --out "$tmp/afile"
[ "$(cat "$tmp/afile")" = keep ] || { echo "FAIL: --out a regular file: file changed"; fails=$((fails + 1)); }

refused "compare report as input" 'error: .*is a compare report, not a results or fleet file' \
  $bin compare $fx/provider_x.json "$tmp/c/compare.json" --out "$tmp/r"

refused "duplicate --labels" "error: --labels names 'a' twice" \
  $bin compare --labels a,a $fx/provider_x.json $fx/provider_y.json --out "$tmp/l"
refused "duplicate --labels among three" "error: --labels names 'b' twice" \
  $bin compare --labels b,a,b $fx/provider_x.json $fx/provider_y.json $fx/provider_z.json --out "$tmp/l"
[ -e "$tmp/l" ] && { echo "FAIL: duplicate --labels: --out created"; fails=$((fails + 1)); }
$bin compare --labels ab,a $fx/provider_x.json $fx/provider_y.json --out "$tmp/l2" >/dev/null 2>&1 ||
  { echo "FAIL: --labels ab,a refused"; fails=$((fails + 1)); }

refused "--min-spread 5" "error: --min-spread: '5' is ambiguous (5% or 500%?)" \
  $bin compare --min-spread 5 $fx/provider_x.json $fx/provider_y.json --out "$tmp/m"
refused "--min-spread 5%x" "error: --min-spread: '5%x' is not a fraction" \
  $bin compare --min-spread 5%x $fx/provider_x.json $fx/provider_y.json --out "$tmp/m"
[ -e "$tmp/m" ] && { echo "FAIL: --min-spread refused: --out created"; fails=$((fails + 1)); }
for v in 5% 0.05; do
  $bin compare --min-spread $v $fx/provider_x.json $fx/provider_y.json --out "$tmp/m$v" >/dev/null 2>"$tmp/e" &&
    jq -e '.min_spread == 0.05' "$tmp/m$v/compare.json" >/dev/null ||
    { echo "FAIL: --min-spread $v"; cat "$tmp/e"; fails=$((fails + 1)); }
done

[ $fails -eq 0 ] && echo "compare_refusals: ok"
exit $((fails > 0))
