#!/usr/bin/env bash
# Every file a run writes is named in `run --help` (ns_run_outputs, which report.md's "Files:"
# line prints too; README points to it). The files are those the run's writers produce, made
# here without measuring: the roofline pictures (`nodescale roofline --out` on the synthetic fixture), the cluster plots
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
# README keeps no copy of the list: it points to `run --help`.
sed -n '/^## Reading the report/,/^Each `results\[\]` entry/p' README.md >"$tmp/readme"
grep -qF '`nodescale run --help` lists its' "$tmp/readme" ||
  { echo "FAIL: README's \"Reading the report\" does not point to run --help"; fails=$((fails + 1)); }
for f in $files; do
  stem=${f%.*} ext=${f##*.}
  grep -qw -- "$stem" "$tmp/help" && grep -q -- "\.$ext\b" "$tmp/help" ||
    { echo "FAIL: $f not named in run --help"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "run files: ok ($(echo $files | wc -w) files)"
exit $((fails > 0))
