#!/usr/bin/env bash
# Trial 7 #2, #14, #17: `roofline --out DIR` never mixes runs: DIR holding another run's files
# that roofline would not rewrite (report.md, run.log, cluster_*) is refused untouched, and so is
# one holding pictures with --no-plot (the hint to redraw in place only for a folder holding a
# results.json); DIR is created with its parents; a picture of an earlier
# --out that this one does not draw goes; TMPDIR that cannot be used falls back to /tmp. A run's
# folder is still redrawn in place (roofline_redraw.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh

# A run's folder (the fixture as its results.json, and another run's report and log).
mkdir "$tmp/run"
cp "$fixture" "$tmp/run/results.json"
echo 'old report' >"$tmp/run/report.md"
echo 'old log' >"$tmp/run/run.log"
echo 'old cluster' >"$tmp/run/cluster_scaling.dat"
for keep in report.md run.log cluster_scaling.dat; do
  (cd "$tmp/run" && ls -l --time-style=full-iso) >"$tmp/before"
  $bin roofline "$fixture" --out "$tmp/run" >/dev/null 2>"$tmp/e"
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "error: --out .* holds $keep" "$tmp/e" ||
    { echo "FAIL: --out into a run folder holding $keep: exit $rc: $(cat "$tmp/e")"; fails=$((fails + 1)); }
  (cd "$tmp/run" && ls -l --time-style=full-iso) | cmp -s - "$tmp/before" ||
    { echo "FAIL: the run folder was changed"; fails=$((fails + 1)); }
  # the hint to redraw a run's folder in place (it holds a results.json)
  grep -q "redrawn in place: nodescale roofline $tmp/run/results.json" "$tmp/e" ||
    { echo "FAIL: --out into a run folder holding $keep: no in-place hint: $(cat "$tmp/e")"; fails=$((fails + 1)); }
  mv "$tmp/run/$keep" "$tmp/$keep" # the next one alone
done

# A compare's or a fleet's folder has no results.json to redraw: no such hint.
mkdir "$tmp/cmp" "$tmp/fl"
echo '{}' >"$tmp/cmp/compare.json"
echo '{}' >"$tmp/fl/fleet.json"
for d in cmp fl; do
  $bin roofline "$fixture" --out "$tmp/$d" >/dev/null 2>"$tmp/e"
  rc=$?
  [ $rc -eq 2 ] && grep -q "error: --out .* holds .*choose a new folder$" "$tmp/e" ||
    { echo "FAIL: --out into a $d folder: exit $rc: $(cat "$tmp/e")"; fails=$((fails + 1)); }
done

# Missing parents are created.
$bin roofline "$fixture" --out "$tmp/a/b/c" >/dev/null 2>"$tmp/e" ||
  { echo "FAIL: --out with missing parents: $(cat "$tmp/e")"; fails=$((fails + 1)); }
[ -s "$tmp/a/b/c/results.json" ] && [ -s "$tmp/a/b/c/roofline_dp.svg" ] ||
  { echo "FAIL: --out a/b/c: $(ls -R "$tmp/a")"; fails=$((fails + 1)); }

# Again into that folder (its own files only): accepted; a picture it does not draw goes.
echo '<svg>stale</svg>' >"$tmp/a/b/c/bandwidth_vs_working_set.svg"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("sweep"); print(json.dumps(d))' \
  "$fixture" >"$tmp/nosweep.json"
$bin roofline "$tmp/nosweep.json" --out "$tmp/a/b/c" >/dev/null 2>"$tmp/e" ||
  { echo "FAIL: --out into its own folder: $(cat "$tmp/e")"; fails=$((fails + 1)); }
grep -q stale "$tmp/a/b/c/bandwidth_vs_working_set.svg" 2>/dev/null &&
  { echo "FAIL: a stale picture stayed beside the new results.json"; fails=$((fails + 1)); }

# --no-plot into a folder with pictures: they would not match: refused.
$bin roofline "$fixture" --no-plot --out "$tmp/a/b/c" >/dev/null 2>"$tmp/e"
rc=$?
[ $rc -eq 2 ] && grep -q "holds .*svg.*--no-plot" "$tmp/e" ||
  { echo "FAIL: --no-plot over pictures: exit $rc: $(cat "$tmp/e")"; fails=$((fails + 1)); }

# A refused or failed --out leaves no folder it made (missing parents included).
NODESCALE_GNUPLOT=/nonexistent/gnuplot $bin roofline "$fixture" --out "$tmp/x/y/z" >/dev/null 2>&1 &&
  { echo "FAIL: roofline with a missing gnuplot succeeded"; fails=$((fails + 1)); }
[ -e "$tmp/x" ] && { echo "FAIL: a failed --out left $(find "$tmp/x")"; fails=$((fails + 1)); }

# Standard output that cannot be written: exit 1, no "wrote" line, no folder left, and a run's
# folder redrawn in place keeps its results.json (it said "wrote", then removed it).
$bin roofline "$fixture" --out "$tmp/full" >/dev/full 2>"$tmp/e"
rc=$?
[ $rc -eq 1 ] && ! grep -q wrote "$tmp/e" && [ ! -e "$tmp/full" ] ||
  { echo "FAIL: roofline >/dev/full: exit $rc, $(cat "$tmp/e"), left $(ls "$tmp/full" 2>&1)"; fails=$((fails + 1)); }

# TMPDIR that does not exist: the pictures are staged in /tmp instead.
TMPDIR=/nonexistent-fx $bin roofline "$fixture" --out "$tmp/t" >/dev/null 2>"$tmp/e" ||
  { echo "FAIL: TMPDIR=/nonexistent: $(cat "$tmp/e")"; fails=$((fails + 1)); }
[ -s "$tmp/t/roofline_dp.svg" ] || { echo "FAIL: TMPDIR=/nonexistent: no pictures"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "roofline out: ok"
exit $((fails > 0))
