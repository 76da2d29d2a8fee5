#!/usr/bin/env bash
# Trial 5 #8: every file a run writes is named in `run --help` and in README's table of the
# report folder. The files are those the run's writers produce, made here without measuring:
# the roofline pictures (`nodescale roofline --out` on the synthetic fixture), the cluster plots
# (`cluster --plot-dir`), and results.json, report.md, report.html, results.csv, sweep.csv,
# run.log, roofline.svg, gbench.json.
# (report.md's "Files:" line: tests/unit/test_report.c.)
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh

$bin roofline "$fixture" --out "$tmp/r" >/dev/null 2>&1 || { echo "FAIL: roofline --out"; exit 1; }
$bin cluster --preset gb300-nvl72 --search --json "$tmp/c.json" --plot-dir "$tmp/c" \
  >/dev/null 2>&1 || { echo "FAIL: cluster --plot-dir"; exit 1; }
files=$( (ls -1 "$tmp/r"; ls -1 "$tmp/c"
  printf '%s\n' report.md report.html results.csv sweep.csv run.log gbench.json) | sort -u)
# A run's 25 files (as in a real run's folder), and gbench.json.
[ "$(echo "$files" | wc -l)" -eq 26 ] || { echo "FAIL: not the files of a run:" $files; exit 1; }
$bin run --help >"$tmp/help"
# README: the table under "Reading the report", up to the results[] paragraph.
sed -n '/^## Reading the report/,/^Each `results\[\]` entry/p' README.md >"$tmp/readme"
for f in $files; do
  stem=${f%.*} ext=${f##*.}
  for doc in help readme; do
    grep -qw -- "$stem" "$tmp/$doc" && grep -q -- "\.$ext\b" "$tmp/$doc" ||
      { echo "FAIL: $f not named in $doc"; fails=$((fails + 1)); }
  done
  grep -q -- "\`$stem\`\|\`$f\`" "$tmp/readme" || { echo "FAIL: README table lacks $f"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "run files: ok ($(echo $files | wc -w) files)"
exit $((fails > 0))
