#!/usr/bin/env bash
# The bandwidth-vs-working-set picture keeps its ceilings' labels apart: a DRAM label centred
# over (or anchored right of) a wide bar at a rate close to the L3 ceiling's was drawn across the
# L3 label (seen at stop 15). Input: the committed 2-thread example run with its 2-thread points
# past 600 MiB set to 97% of the 2-thread L3 ceiling (stream_triad) and half of it (stream_sum),
# so that the 2-thread DRAM ceiling sits 3% under L3's and the two labels meet unless one moves.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh
python3 - examples/providers/vm-2core-run1/results.json "$tmp/in.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l3 = next(c["gbytes_per_s"] for c in d["ceilings"]["bandwidth"]
          if c["threads"] == 2 and c["level"] == "L3" and c["kernel"] == "stream_triad")
for e in d["sweep"]:
    if e["threads"] == 2 and e["working_set_bytes"] >= 600 * 2**20:
        e["gbytes_per_s"] = l3 * (0.97 if e["kernel"] == "stream_triad" else 0.5)
json.dump(d, open(sys.argv[2], "w"))
PY
mkdir "$tmp/t"
TMPDIR="$tmp/t" NODESCALE_KEEP_PLOT_TMP=1 $bin roofline "$tmp/in.json" --out "$tmp/out" \
  >/dev/null 2>"$tmp/err" || { echo "FAIL: exit $?: $(tail -n 1 "$tmp/err")"; exit 1; }
gp=$(ls "$tmp"/t/nodescale-roofline-*/roofline.gp | head -1)
python3 - "$gp" <<'PY' || fails=$((fails + 1))
import re, sys
gp = open(sys.argv[1]).read()
body = re.search(r"\n# ---- bandwidth_vs_working_set\n(.*?)(?=\n# ---- |\Z)", gp, re.S).group(1)
panel = body.split("set title '2 threads'")[1].split("plot ")[0]
labels = {m.group(1): float(m.group(2)) for m in re.finditer(
    r"set label \d+ '((?:L3|DRAM) [^']*)' .* offset 0,([0-9.]+) ", panel)}
dram = [v for k, v in labels.items() if k.startswith("DRAM")]
l3 = [v for k, v in labels.items() if k.startswith("L3")]
if len(dram) != 1 or len(l3) != 1:
    sys.exit("FAIL: want one L3 and one DRAM label in the 2-thread panel: %s" % labels)
if abs(dram[0] - l3[0]) < 0.5:
    sys.exit("FAIL: the L3 and DRAM labels, 3%% apart in rate, are drawn on one line: %s" % labels)
PY
[ $fails -eq 0 ] && echo "roofline_sweep_labels: ok"
exit $((fails > 0))
