#!/usr/bin/env bash
# The bandwidth-vs-working-set picture keeps its ceilings' labels apart, and off the curves'
# points, in the SVG gnuplot really writes: each label's box is measured there, from its anchor,
# its font size and the advance widths of the font fontconfig gives for 'sans' (what renders
# it), not from roofline/plot.c's estimate of 7 px a character. Input: the committed 2-thread
# example run with its 2-thread points past 600 MiB set to 97% of the 2-thread L3 ceiling
# (stream_triad) and half of it (stream_sum), so that the 2-thread DRAM ceiling sits 3% under
# L3's and the two labels, side by side, meet unless one moves up (a DRAM label centred over or
# anchored right of a wide bar was drawn across the L3 label).
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh
font=$(fc-match -f '%{file}' sans 2>/dev/null)
[ -f "$font" ] ||
  { echo "skip: no font for 'sans' (fc-match) to measure the labels with"; exit 77; }
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
$bin roofline "$tmp/in.json" --out "$tmp/out" >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: exit $?: $(tail -n 1 "$tmp/err")"; exit 1; }
python3 - "$tmp/out/bandwidth_vs_working_set.svg" "$font" <<'PY' || fails=$((fails + 1))
import re, struct, sys


def font_metrics(path):
    """The advance width of a text (in em), the ascent and the descent (em) of a TrueType or
    OpenType font: its head, hhea, hmtx and cmap (format 4) tables; kerning left out."""
    d = open(path, "rb").read()
    tables = {}
    for i in range(struct.unpack(">H", d[4:6])[0]):
        tag, _, off, _ = struct.unpack(">4sIII", d[12 + 16 * i:28 + 16 * i])
        tables[tag.decode("latin-1")] = off
    upem = struct.unpack(">H", d[tables["head"] + 18:tables["head"] + 20])[0]
    hh = tables["hhea"]
    asc, desc = struct.unpack(">hh", d[hh + 4:hh + 8])
    nh = struct.unpack(">H", d[hh + 34:hh + 36])[0]
    adv = [struct.unpack(">H", d[tables["hmtx"] + 4 * i:tables["hmtx"] + 4 * i + 2])[0]
           for i in range(nh)]
    cm, sub = tables["cmap"], None
    for i in range(struct.unpack(">H", d[cm + 2:cm + 4])[0]):
        pid, eid, off = struct.unpack(">HHI", d[cm + 4 + 8 * i:cm + 12 + 8 * i])
        if pid == 3 and eid == 1 and struct.unpack(">H", d[cm + off:cm + off + 2])[0] == 4:
            sub = cm + off
    if sub is None:
        sys.exit("FAIL: no Unicode cmap in %s" % path)
    n2 = struct.unpack(">H", d[sub + 6:sub + 8])[0]
    seg = n2 // 2
    ends = struct.unpack(">%dH" % seg, d[sub + 14:sub + 14 + n2])
    starts = struct.unpack(">%dH" % seg, d[sub + 16 + n2:sub + 16 + 2 * n2])
    deltas = struct.unpack(">%dh" % seg, d[sub + 16 + 2 * n2:sub + 16 + 3 * n2])
    ro = sub + 16 + 3 * n2
    roffs = struct.unpack(">%dH" % seg, d[ro:ro + n2])

    def glyph(c):
        for k in range(seg):
            if ends[k] >= c:
                if starts[k] > c:
                    return 0
                if not roffs[k]:
                    return (c + deltas[k]) & 0xFFFF
                p = ro + 2 * k + roffs[k] + 2 * (c - starts[k])
                g = struct.unpack(">H", d[p:p + 2])[0]
                return (g + deltas[k]) & 0xFFFF if g else 0
        return 0

    width = lambda text: sum(adv[min(glyph(ord(ch)), nh - 1)] for ch in text) / upem
    return width, asc / upem, -desc / upem


svg_path, font = sys.argv[1:3]
width, asc, desc = font_metrics(font)
svg = open(svg_path).read()
unesc = lambda s: (s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
                   .replace("&apos;", "'").replace("&amp;", "&"))
# The panels' plot frames (x0, x1, y0, y1; px, y down), left to right.
frames = sorted(set((float(x0), float(x1), float(y0), float(y1)) for x0, y0, y1, x1 in re.findall(
    r"d='M([0-9.]+),([0-9.]+) L[0-9.]+,([0-9.]+) L([0-9.]+),[0-9.]+ L[0-9.]+,[0-9.]+ "
    r"L[0-9.]+,[0-9.]+ Z", svg)))
if len(frames) != 2:
    sys.exit("FAIL: want the 1- and 2-thread panels, found frames %s" % frames)
panel = lambda x: next((k for k, f in enumerate(frames) if f[0] - 1 <= x <= f[1] + 1), -1)
# The ceilings' labels ("L3 37.2 GB/s, stream_triad"): the box of their glyphs.
labels = []
for m in re.finditer(r'<g transform="translate\(([0-9.]+),([0-9.]+)\)" [^>]*font-size="([0-9.]+)"'
                     r'\s*text-anchor="(\w+)">\s*<text>([^<]*)</text>', svg):
    x, y, size, anchor, text = float(m[1]), float(m[2]), float(m[3]), m[4], unesc(m[5])
    if " GB/s, " not in text:
        continue
    w = width(text) * size
    left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
    labels.append((panel(x), text, (left, left + w, y - asc * size, y + desc * size)))
# The sweep points' markers (pt 7: a disc of radius `scale`).
marks = [(panel(float(x)), (float(x) - float(r), float(x) + float(r), float(y) - float(r),
                            float(y) + float(r))) for x, y, r in re.findall(
    r"<use xlink:href='#gpPt6' transform='translate\(([0-9.]+),([0-9.]+)\) scale\(([0-9.]+)\)'",
    svg)]
meet = lambda a, b: a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]
bad = []
for i, (p, t, b) in enumerate(labels):
    if "plateau" in t or "kernel phase" in t:
        bad.append("a label says what its bar's style says: %s" % t)
    bad += ["labels %r and %r overlap" % (t, u)
            for q, u, c in labels[i + 1:] if q == p and meet(b, c)]
    on = [c for q, c in marks if q == p and meet(b, c)]
    if on:
        bad.append("label %r lies on %d point(s), the first at %s" % (t, len(on), on[0][:3:2]))
# The case the input makes: the 2-thread L3 and DRAM labels share a stretch of the x axis, so
# only a lift keeps them apart; and some label has points under its stretch of the x axis.
two = {t.split()[0]: b for p, t, b in labels if p == 1}
if "L3" not in two or "DRAM" not in two:
    bad.append("want an L3 and a DRAM label in the 2-thread panel: %s" % labels)
elif not (two["L3"][0] < two["DRAM"][1] and two["DRAM"][0] < two["L3"][1]):
    bad.append("the 2-thread L3 and DRAM labels share no stretch of the x axis: the input no "
               "longer tests their lift")
if not any(q == p and b[0] < c[1] and c[0] < b[1] for p, _, b in labels for q, c in marks):
    bad.append("no label has points under it: the point check tests nothing")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
PY
[ $fails -eq 0 ] && echo "roofline_sweep_labels: ok"
exit $((fails > 0))
