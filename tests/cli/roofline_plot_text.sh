#!/usr/bin/env bash
# What the roofline pictures say, read from the gnuplot script and data that draw them
# (NODESCALE_KEEP_PLOT_TMP=1), on a real 1-thread quick run (tests/fixtures/roofline/
# quick_1thread.json): a bandwidth ceiling found without a plateau is drawn unlike a detected
# plateau and the key says which is which (trial 3 #12).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh
fixture=tests/fixtures/roofline/quick_1thread.json

mkdir "$tmp/t"
TMPDIR="$tmp/t" NODESCALE_KEEP_PLOT_TMP=1 $bin roofline "$fixture" --out "$tmp/out" \
  >"$tmp/stdout" 2>"$tmp/stderr" || { echo "FAIL: exit $?"; cat "$tmp/stderr"; exit 1; }
gp=$(ls "$tmp"/t/nodescale-roofline-*/roofline.gp 2>/dev/null | head -1)
[ -s "$gp" ] || { echo "FAIL: no gnuplot script kept"; cat "$tmp/stderr"; exit 1; }

python3 - "$gp" "$tmp/out/results.json" <<'PY' || fail=1
import json, re, sys
gp = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
pics = dict(re.findall(r"\n# ---- (\S+)\n(.*?)(?=\n# ---- |\Z)", gp, re.S))
bad = []

# 12: every ceiling lies in a bar file of its kind: solid (lw 8) for a detected plateau,
# dashed for one found another way; the key names both kinds.
sweep = pics["bandwidth_vs_working_set"]
solid = set(re.findall(r"'([^']+\.dat)' u 1:2 w l lw 8 ", sweep))
dashed = set(re.findall(r"'([^']+\.dat)' u 1:2 w l lw 4 dt \(6,4\) ", sweep))
def pairs(files):
    out = set()
    for f in files:
        for line in open(f):
            if line.strip():
                x, y = map(float, line.split())
                out.add((round(x), round(y, 6)))
    return out
ps, pd = pairs(solid), pairs(dashed)
kinds = set()
for c in d["ceilings"]["bandwidth"]:
    key = (round(c["working_set_min_bytes"]), round(c["gbytes_per_s"], 6))
    plateau = c["source"] == "plateau"
    kinds.add(plateau)
    if key not in (ps if plateau else pd) or key in (pd if plateau else ps):
        bad.append(f"12: {c['level']} {c['kernel']} ({c['source']}) not drawn as a "
                   f"{'plateau' if plateau else 'non-plateau'} bar")
if False not in kinds:
    bad.append("12: the fixture has no ceiling without a plateau: the test tests nothing")
if "title 'plateau found'" not in sweep or "title 'no plateau:" not in sweep:
    bad.append("12: the key does not name both kinds of bar")
if "dashed bars = no plateau found" not in sweep:
    bad.append("12: the title does not say what the dashed bars are")
used = {(u["level"], u["threads"], u["kernel"]) for u in d["roofline"]["ceilings_used"]["bandwidth"]}
for c in d["ceilings"]["bandwidth"]:
    if c["source"] == "interior" and (c["level"], c["threads"], c["kernel"]) in used:
        if not re.search(r"set label \d+ '%s [\d.]+ GB/s \(no plateau: median\)" % c["level"], sweep):
            bad.append(f"12: the label of the {c['level']} roof does not say no plateau")

for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

[ $fail -eq 0 ] && echo "roofline_plot_text: ok"
exit $fail
