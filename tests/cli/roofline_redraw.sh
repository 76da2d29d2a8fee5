#!/usr/bin/env bash
# `nodescale roofline` redraws from the synthetic fixture (tests/fixtures/roofline, not a
# measurement): with --out it writes results.json (strict JSON, roofline section, no NaN) and
# the SVG and PNG pictures; without --out it leaves the input untouched and draws next to it;
# when gnuplot fails nothing is written.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh

$bin roofline "$fixture" --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr" ||
  { echo "FAIL: exit $? with --out"; cat "$tmp/stderr"; exit 1; }
for f in roofline_dp roofline_sp roofline_cache_aware_dp roofline_cache_aware_sp \
         bandwidth_vs_working_set; do
  [ -s "$tmp/out/$f.svg" ] && grep -q '<svg' "$tmp/out/$f.svg" || { echo "FAIL: $f.svg"; fails=$((fails + 1)); }
  [ -s "$tmp/out/$f.png" ] && [ "$(head -c 4 "$tmp/out/$f.png" | tail -c 3)" = PNG ] ||
    { echo "FAIL: $f.png"; fails=$((fails + 1)); }
done
if ls "$tmp/out" | grep -q '\.tmp'; then echo "FAIL: temporary files left"; fails=$((fails + 1)); fi
# roofline.svg (the picture report.md embeds) is the DP roofline, with --out too.
cmp -s "$tmp/out/roofline.svg" "$tmp/out/roofline_dp.svg" ||
  { echo "FAIL: --out roofline.svg"; fails=$((fails + 1)); }

# Strict JSON (NaN/Infinity rejected) with the roofline section and a roof for every point.
python3 - "$tmp/out/results.json" <<'PY' || fails=$((fails + 1))
import json, sys
def bad(c): raise ValueError("non-finite constant " + c)
d = json.load(open(sys.argv[1]), parse_constant=bad)
r = d["roofline"]
assert r["status"] == "ok", r["status"]
assert r["bytes_policy"] == "minimal"
levels = {(c["level"], c["threads"]) for c in d["ceilings"]["bandwidth"]}
for lv in ("L1", "L2", "L3", "DRAM"):
    for t in (1, 2):
        assert (lv, t) in levels, (lv, t)
assert not any(c["suspect"] for c in d["ceilings"]["bandwidth"] if c["level"] == "DRAM")
for p in d["results"]:
    assert p["roof_gflops"] is not None, p["id"]
    assert p["roof_limit"] == "compute" if p["family"] == "gemm" else p["roof_limit"].startswith("bandwidth:"), p
    assert 0 < p["fraction_of_roof"] <= 1, p
assert r["ridge_points"], "no ridge points"
m = [p for p in r["points"] if p.get("measured_ai_flop_per_byte") is not None]
assert len(m) == 2 and all(p["roof_gflops_at_measured_ai"] > 0 for p in m), m
PY

# Without --out: the input is not modified, the pictures appear in its folder.
cp "$fixture" "$tmp/in.json"
sum=$(md5sum <"$tmp/in.json")
$bin roofline "$tmp/in.json" >/dev/null 2>&1 || { echo "FAIL: exit $? without --out"; fails=$((fails + 1)); }
[ "$(md5sum <"$tmp/in.json")" = "$sum" ] || { echo "FAIL: input modified"; fails=$((fails + 1)); }
[ -s "$tmp/roofline_dp.png" ] || { echo "FAIL: no picture next to the input"; fails=$((fails + 1)); }
# A redraw in place replaces roofline.svg too: in a run's folder it began as the old DP picture
# (a hard link to it, as runs made it before trial 5 #7); it must equal the new one after.
echo '<svg>old</svg>' >"$tmp/roofline_dp.svg"
rm -f "$tmp/roofline.svg" && ln "$tmp/roofline_dp.svg" "$tmp/roofline.svg"
$bin roofline "$tmp/in.json" >/dev/null 2>&1 || { echo "FAIL: exit $? on redraw"; fails=$((fails + 1)); }
cmp -s "$tmp/roofline.svg" "$tmp/roofline_dp.svg" && ! grep -q old "$tmp/roofline.svg" ||
  { echo "FAIL: redraw in place left roofline.svg stale"; fails=$((fails + 1)); }

# gnuplot missing or failing: exit 1 with a reason, and nothing written (all or nothing):
# no results.json, no picture, and no --out folder it created. (TMPDIR: a failed gnuplot's
# script is kept there, roofline_gnuplot_failed.sh.)
for gp in /nonexistent/gnuplot /bin/false; do
  TMPDIR=$tmp NODESCALE_GNUPLOT=$gp $bin roofline "$fixture" --out "$tmp/nogp" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 1 ] && grep -q 'nothing written' "$tmp/err" && [ ! -e "$tmp/nogp" ] ||
    { echo "FAIL: gnuplot $gp: exit $rc"; cat "$tmp/err"; ls -R "$tmp/nogp" 2>/dev/null; fails=$((fails + 1)); }
  mkdir -p "$tmp/existing"
  TMPDIR=$tmp NODESCALE_GNUPLOT=$gp $bin roofline "$fixture" --out "$tmp/existing" >/dev/null 2>&1
  [ -z "$(ls -A "$tmp/existing")" ] || { echo "FAIL: gnuplot $gp: files left"; ls "$tmp/existing"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "roofline redraw: ok"
exit $((fails > 0))
