#!/usr/bin/env bash
# `nodescale run` also writes report.html (report.md rendered by libcmark-gfm, its pictures as
# relative <img> links) and results.csv, sweep.csv: read back with Python's csv module, every
# row and every column equals results.json's value (a number as printed with %.17g, which reads
# back as the same double, null as an empty cell), in results[] and sweep[] order. Nothing
# "nan", no temporary file left.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

"$ns" run --quick --threads 1 --kernels stream_triad --out "$tmp/q" >/dev/null 2>"$tmp/err" ||
  fail "run --quick --threads 1 --kernels stream_triad: exit $?: $(tail -2 "$tmp/err")"
for f in report.html results.csv sweep.csv; do
  [ -s "$tmp/q/$f" ] || fail "run left no $f"
done
ls "$tmp/q"/*.tmp* >/dev/null 2>&1 && fail "temporary files left: $(ls "$tmp/q"/*.tmp*)"
grep -qE '(^|[^A-Za-z])[Nn][Aa][Nn]([^A-Za-z]|$)' "$tmp/q/report.html" "$tmp/q/results.csv" \
  "$tmp/q/sweep.csv" && fail "nan in report.html or the CSV files"

python3 - "$tmp/q" <<'PY' || fail "results.csv or sweep.csv differ from results.json"
import csv, json, os, re, sys
d = sys.argv[1]
doc = json.load(open(os.path.join(d, "results.json")))

def want(v):
    if v is None: return ""
    if isinstance(v, bool): raise ValueError("boolean in a CSV column")
    if isinstance(v, int): return str(v)
    if isinstance(v, float): return "%.17g" % v
    return v

def check(name, rows, cols):
    with open(os.path.join(d, name), newline="") as f:
        got = list(csv.reader(f))
    assert got[0] == [c for c, _ in cols], (name, got[0])
    assert len(got) == 1 + len(rows), (name, len(got), len(rows))
    for r, g in zip(rows, got[1:]):
        w = [want(get(r)) for _, get in cols]
        assert g == w, (name, r.get("id", r.get("kernel")), g, w)
        # The cells are the values: numbers parse back to the very same double.
        for (c, get), cell in zip(cols, g):
            v = get(r)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                assert float(cell) == v, (name, c, cell, v)

def key(k): return lambda r: r.get(k)
def param(k): return lambda r: r.get("params", {}).get(k)
def time(k): return lambda r: r.get("time_s", {}).get(k)

res = [(k, key(k)) for k in "id name family isa precision mix threads".split()]
res += [(k, param(k)) for k in "m n k".split()]
res += [(k, key(k)) for k in "working_set_bytes flops bytes".split()]
res += [("time_median_s", time("median")), ("time_min_s", time("min")),
        ("time_max_s", time("max")), ("cv", time("cv"))]
res += [(k, key(k)) for k in ("gflops gbytes_per_s ai_flop_per_byte roof_gflops roof_gbytes_per_s "
                              "fraction_of_roof fraction_of_roof_fastest roof_limit roof_status "
                              "level status").split()]
check("results.csv", doc["results"], res)
assert any(r["name"] == "stream_triad" for r in doc["results"])
sw = [(k, key(k)) for k in ("working_set_bytes kernel isa precision threads n gbytes_per_s "
                            "gbytes_per_s_median").split()]
sw += [("status", lambda r: r.get("status") or "ok")]  # a good point carries none
check("sweep.csv", doc["sweep"], sw)
PY

h=$tmp/q/report.html
grep -q '^<!DOCTYPE html>' "$h" && grep -q '<meta charset="utf-8">' "$h" &&
  grep -q '<title>nodescale report: ' "$h" || fail "report.html: no doctype, charset or title"
grep -q '<table>' "$h" && grep -q '<h2>Kernels</h2>' "$h" || fail "report.html: no tables"
grep -q 'stream_triad' "$h" || fail "report.html: no stream_triad"
# Each picture shown is a relative link to a file of the folder.
for src in $(grep -o '<img src="[^"]*"' "$h" | sed 's/.*src="//; s/"$//'); do
  case $src in */*|*:*) fail "picture $src not relative to the folder" ;; esac
  [ -f "$tmp/q/$src" ] || fail "report.html shows $src, not in the folder"
done
if command -v gnuplot >/dev/null; then
  grep -q '<img src="roofline.svg"' "$h" || fail "report.html: no roofline picture"
fi
[ $fails -eq 0 ] && echo "run_html_csv: ok"
exit $((fails > 0))
