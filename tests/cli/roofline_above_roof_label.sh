#!/usr/bin/env bash
# The roofline pictures' kernel list says when a point is above its roof or measured against a
# suspect roof: on examples/providers/vm-2core-run1, whose 2-thread ddot sits at
# 121% of a DRAM roof that is suspect, the list line reads "... of roof (above it, roof
# suspect)", and a point below a trusted roof has no mark. A point just above its roof
# (vm-2core-run2's 2-thread stream_add at 100.15%) never reads "100%".
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh
for run in 1 2; do
  input=examples/providers/vm-2core-run$run/results.json
  mkdir "$tmp/t$run"
  TMPDIR="$tmp/t$run" NODESCALE_KEEP_PLOT_TMP=1 $bin roofline "$input" --out "$tmp/out$run" \
    >"$tmp/stdout" 2>"$tmp/stderr" || { echo "FAIL: exit $?"; cat "$tmp/stderr"; exit 1; }
  gp=$(ls "$tmp"/t$run/nodescale-roofline-*/roofline.gp 2>/dev/null | head -1)
  [ -s "$gp" ] || { echo "FAIL: no gnuplot script kept"; exit 1; }
  cp "$gp" "$tmp/run$run.gp"
done
python3 - "$tmp/run1.gp" "$tmp/out1/results.json" "$tmp/run2.gp" <<'PY' || fails=$((fails + 1))
import json, re, sys
gp = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
bad = []
lines = re.findall(r"set label \d+ '(\d+  [^']*: [\d.]+% of roof[^']*)'", gp)
if not lines:
    bad.append("no kernel list lines in the script")
pts = {p["id"]: p for p in d["roofline"]["points"]}
above = [p for p in pts.values() if p.get("above_roof") and p.get("roof_suspect")]
if not above:
    bad.append("the example has no point above a suspect roof: the test tests nothing")
if not any(l.endswith("of roof (above it, roof suspect)") for l in lines):
    bad.append("no list line says 'above it, roof suspect'")
lines2 = re.findall(r"set label \d+ '(\d+  [^']*: [\d.]+% of roof[^']*)'", open(sys.argv[3]).read())
if not any(": 100.1% of roof (above it" in l for l in lines2):
    bad.append("run 2's stream_add at 100.15% does not read 100.1%")
lines += lines2
for l in lines:
    pct = float(re.search(r": ([\d.]+)% of roof", l).group(1))
    if "above it" in l and not pct > 100:
        bad.append(f"above the roof but reads {pct}%: {l}")
    if pct > 100 and "above it" not in l:
        bad.append(f"above the roof without a mark: {l}")
    if pct < 100 and "above it" in l:
        bad.append(f"marked above the roof below it: {l}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $fails -eq 0 ] && echo "roofline_above_roof_label: ok"
[ $fails -eq 0 ]
