#!/usr/bin/env bash
# What the roofline pictures say, read from the gnuplot script and data that draw them
# (NODESCALE_KEEP_PLOT_TMP=1), on a real 1-thread quick run (tests/fixtures/roofline/
# quick_1thread.json): a bandwidth ceiling found without a plateau is drawn unlike a detected
# plateau and the key says which is which; the roofline pictures write sizes
# without exponents, place the point numbers apart, have a key for the level colours and name
# the kernels without FLOPs (#14). Trial 10, also on the committed 2-thread example run
# (examples/providers/vm-2core-run1): each point's own compute roof is drawn in both pictures
# (a sum's ADD-only ceiling, #1); every compute ceiling drawn is labelled with its mix and
# GFLOP/s, one colour per mix (#5); the key names the kernel of each bandwidth roof
# (#7); "kernel, fewer thr" only where such a point is drawn (#12). The key
# outside the frame, one dash per thread count.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/roofline.sh
fixture=tests/fixtures/roofline/quick_1thread.json
# A second input with 64 points of DP: the fixture's FLOP kernels listed four times (new ids),
# more than one picture's first 780 px can list: the picture must grow, not cut the list.
python3 - "$fixture" "$tmp/many.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
dp = [r for r in d["results"] if r.get("precision") == "dp" and (r.get("flops") or 0) > 0]
for i in range(3):
    for r in dp:
        c = copy.deepcopy(r)
        c["id"] = r["id"] + "x%d" % i
        if i == 0 and c["name"] == "stream_sum":
            c["working_set_bytes"] = 1048575  # 1 MiB less 1 B: "1 MiB", as report.md prints it
        d["results"].append(c)
json.dump(d, open(sys.argv[2], "w"))
PY

check() {
  local input=$1
rm -rf "$tmp/t" "$tmp/out"; mkdir "$tmp/t"
TMPDIR="$tmp/t" NODESCALE_KEEP_PLOT_TMP=1 $bin roofline "$input" --out "$tmp/out" \
  >"$tmp/stdout" 2>"$tmp/stderr" || { echo "FAIL: exit $?"; cat "$tmp/stderr"; exit 1; }
gp=$(ls "$tmp"/t/nodescale-roofline-*/roofline.gp 2>/dev/null | head -1)
[ -s "$gp" ] || { echo "FAIL: no gnuplot script kept"; cat "$tmp/stderr"; exit 1; }

python3 - "$gp" "$tmp/out/results.json" "$input" <<'PY' || fails=$((fails + 1))
import json, re, sys
gp = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
# Each picture's body, once (it is written twice: SVG, then PNG).
pics = {n: re.search(r"set output '[^']*'\n(.*?)\nset output\n", b, re.S).group(1)
        for n, b in re.findall(r"\n# ---- (\S+)\n(.*?)(?=\n# ---- |\Z)", gp, re.S)}
bad = []
many = sys.argv[3].endswith("many.json")
example = "examples/" in sys.argv[3]

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
    lo = c["working_set_min_bytes"]
    if lo == c["working_set_max_bytes"]:  # one working set (kernel phase): drawn as a tick
        lo /= 1.2
    # As the bar file holds it (%.9g), so a rate ending in ...5 at the 7th decimal rounds alike.
    key = (round(lo), round(float("%.9g" % c["gbytes_per_s"]), 6))
    plateau = c["source"] == "plateau"
    kinds.add(plateau)
    if key not in (ps if plateau else pd) or key in (pd if plateau else ps):
        bad.append(f"12: {c['level']} {c['kernel']} ({c['source']}) not drawn as a "
                   f"{'plateau' if plateau else 'non-plateau'} bar")
if False not in kinds and not example:
    bad.append("12: the fixture has no ceiling without a plateau: the test tests nothing")
if "title 'plateau found" not in sweep or "title 'no plateau:" not in sweep:
    bad.append("12: the key does not name both kinds of bar")
if "dashed: no plateau found" not in sweep:
    bad.append("12: the title does not say what the dashed bars are")
used = {(u["level"], u["threads"], u["kernel"]) for u in d["roofline"]["ceilings_used"]["bandwidth"]}
# Its label is short (labels covered the data): the dashed bar says no plateau.
for c in d["ceilings"]["bandwidth"]:
    if c["source"] == "interior" and (c["level"], c["threads"], c["kernel"]) in used:
        if not re.search(r"set label \d+ '%s [\d.]+ GB/s, %s( \(suspect\))?' " % (
                c["level"], c["kernel"]), sweep):
            bad.append(f"12: no short label of the {c['level']} roof")

# A ceiling's bar has the colour of its kernel's curve; #8: one y range for all
# panels, holding every point; a bar's label inside the plot area (7 px a character, a panel's
# plot area 1300/panels - 110 px across); capacity labels beside their line, not on it.
curves = dict((t.split()[0], lc) for f, lc, t in re.findall(
    r"'([^']+\.dat)' u 1:2 smooth unique w lp [^']*lc rgb '([^']+)' title '([^']+)'", sweep))
for f, lc in re.findall(r"'([^']+\.dat)' u 1:2 w l (?:lw 8|lw 4 dt \(6,4\)) lc rgb '#60([^']+)'",
                        sweep):
    for x, y in pairs([f]):
        for c in d["ceilings"]["bandwidth"]:
            if abs(c["gbytes_per_s"] - y) <= 1e-6 * y and curves.get(c["kernel"], "")[1:] != lc:
                bad.append(f"t10#9: the bar of {c['level']} {c['kernel']} is #{lc}, its curve "
                           f"{curves.get(c['kernel'])}")
yr = re.findall(r"set yrange \[([^:]+):([^\]]+)\]", sweep)
sw = [s["gbytes_per_s"] for s in d["sweep"] if (s.get("gbytes_per_s") or 0) > 0]
if len(yr) != 1 or not (float(yr[0][0]) <= min(sw) and max(sw) <= float(yr[0][1])):
    bad.append(f"t10#8: the panels do not share one y range holding every point: {yr}")
xr = re.search(r"set xrange \[([^:]+):([^\]]+)\]", sweep)
npanel = len(re.findall(r"set title '\d+ threads?'", sweep))
if not xr:
    bad.append("t10#8: no x range set: the labels cannot be kept inside")
else:
    import math
    x0, x1 = map(float, xr.groups())
    for t, x in re.findall(r"set label \d+ '([^']+ GB/s[^']*)' at ([\d.eE+-]+), \S+ center", sweep):
        mid = math.log(float(x) / x0) / math.log(x1 / x0)
        half = 3.5 * len(t) / (1300 / npanel - 110)
        if mid - half < 0 or mid + half > 1:
            bad.append(f"t10#8: the label '{t}' runs off the plot area")
for t, ox in re.findall(r"set label \d+ '([^']+)' at \S+, graph \S+ rotate by 90 \w+ offset ([^,]+),", sweep):
    if abs(float(ox)) < 1:
        bad.append(f"t10#8: the capacity label '{t}' sits on its line")

# 14: sizes without exponents ("1.01e+03 KiB" was 1008 KiB).
for name, body in pics.items():
    for m in re.findall(r"\d[eE][+-]?\d+ ?[KMGT]?i?B\b", body):
        bad.append(f"14: {name}: size with an exponent: {m}")
if not example and "stream_add avx512 1008 KiB t1" not in pics["roofline_dp"]:
    bad.append("14: stream_add's 1008 KiB not in the roofline_dp list")
# Sizes as every output prints them (ns_format_bytes): 1 MiB less 1 B is "1 MiB", never
# "1024 KiB".
for name, body in pics.items():
    if re.search(r"\b1024 [KMGT]iB\b", body):
        bad.append(f"14: {name}: a size printed as 1024 of a unit")
if many and "stream_sum avx512 1 MiB t1" not in pics["roofline_dp"]:
    bad.append("14: the stream_sum copy of 1 MiB less 1 B not in the roofline_dp list as 1 MiB")

# 14: point numbers placed apart. Boxes as plot.c estimates them: plot area 61..832 px
# across, 52..733 px up; a label 7 px a character and 12 px high, offset 0.8 character
# sideways and half a line up or down.
pts = [p for p in d["roofline"]["points"]
       if (p.get("ai_flop_per_byte") or 0) > 0 and (p.get("gflops") or 0) > 0]
for name in ("roofline_dp", "roofline_sp", "roofline_cache_aware_dp", "roofline_cache_aware_sp"):
    body = pics.get(name, "")
    xr = re.search(r"set xrange \[([^:]+):([^\]]+)\]", body)
    yr = re.search(r"set yrange \[([^:]+):([^\]]+)\]", body)
    labels = re.findall(r"set label (1\d\d\d) '(\d+)' at first (\S+), first (\S+) (left|right) "
                        r"offset (\S+),(\S+)", body)
    prec = name[-2:]
    n = sum(1 for p in pts if p["precision"] == prec)
    if len(labels) != min(n, 64):
        bad.append(f"14: {name}: {len(labels)} point numbers for {n} points")
    if not labels:
        continue
    import math
    x0, x1 = map(float, xr.groups()); y0, y1 = map(float, yr.groups())
    height = int(re.search(r"\n# ---- %s\n.*?size 1300,(\d+)" % name, gp, re.S).group(1))
    boxes = []
    for _, num, x, y, side, ox, oy in labels:
        px = 61 + 771 * math.log(float(x) / x0) / math.log(x1 / x0)
        py = 52 + (height - 99) * math.log(float(y) / y0) / math.log(y1 / y0)
        w = 7 * len(num)
        left = px + 5.6 if side == "left" else px - 5.6 - w
        yc = py + float(oy) * 12
        boxes.append((num, left, left + w, yc - 6, yc + 6))
    for i, a in enumerate(boxes):
        for j, b in enumerate(boxes[:i]):
            # many: 4 copies of each point; Those at one spot (a kernel and its
            # peer at the same AI and rate) must not share a label place either.
            if many and labels[i][2:4] != labels[j][2:4]:
                continue
            if a[1] < b[2] and b[1] < a[2] and a[3] < b[4] and b[3] < a[4]:
                bad.append(f"14: {name}: point numbers {b[0]} and {a[0]} overlap")
    # 14: a key entry per level colour of the points.
    for lv in sorted({p["level"] for p in pts if p["precision"] == prec and p.get("level")}):
        if f"title 'working set in {lv}'" not in body:
            bad.append(f"14: {name}: no key for the colour of {lv}")

# Trial 10 #1, #5, #7, #12: the roofs drawn and what the key and labels say of them.
used = d["roofline"]["ceilings_used"]
tmax = max(c["threads"] for c in used["compute"] + used["bandwidth"])
line = re.compile(r"(?:plot |\n     )(?:min\([^,]+, )?([\d.eE+-]+)(\*x\))? w l lw \S+ dt (\S+) "
                  r"lc rgb '([^']+)' title '([^']*)'")
for name in ("roofline_dp", "roofline_sp", "roofline_cache_aware_dp", "roofline_cache_aware_sp"):
    body = pics.get(name, "")
    prec = name[-2:]
    lines = line.findall(body)
    flat = [(float(v), dt, lc, t) for v, slant, dt, lc, t in lines if not slant]
    for p in pts:
        if (p["precision"] == prec and p["threads"] == tmax and p["roof_limit"] == "compute"
                and not any(abs(v - p["roof_gflops"]) <= 1e-6 * v for v, *_ in flat)):
            bad.append(f"t10#1: {name}: the roof of {p['id']} ({p['roof_gflops']:.4g} "
                       f"GFLOP/s) is not drawn")
    style = {}
    for c in used["compute"]:
        if c["precision"] != prec or c["threads"] != tmax:
            continue
        hit = [(dt, lc) for v, dt, lc, t in flat if abs(v - c["gflops"]) <= 1e-6 * v and
               t.startswith(c["mix"] + " ")]
        if not hit:
            bad.append(f"t10#5: {name}: the {c['mix']} ceiling is not drawn")
            continue
        style.setdefault(hit[0], set()).add(c["mix"])
        if not re.search(r"set label 9\d\d '%s %s GFLOP/s" % (re.escape(c["mix"]),
                                                            re.escape("%.4g" % c["gflops"])), body):
            bad.append(f"t10#5: {name}: the {c['mix']} ceiling has no label on the plot")
    for st, mixes in style.items():
        if len(mixes) > 1:
            bad.append(f"t10#5: {name}: mixes {sorted(mixes)} share one style {st}")
    for v, slant, dt, lc, t in lines:
        if slant:
            m = re.match(r"(\S+) \S+ GB/s \((\w+)\), (\d+) thr", t)
            want = [u["kernel"] for u in used["bandwidth"]
                    if m and u["level"] == m.group(1) and u["threads"] == int(m.group(3))]
            if not m or want != [m.group(2)]:
                bad.append(f"t10#7: {name}: the key '{t}' does not name the roof's kernel {want}")
    fewer = any(p["precision"] == prec and p["threads"] != tmax for p in pts)
    if fewer != ("title 'kernel, fewer thr'" in body):
        bad.append(f"t10#12: {name}: 'kernel, fewer thr' in the key: "
                   f"{not fewer}, points with fewer threads: {fewer}")

# The key lies outside the plot frame (not placed on the canvas over the frame's
# right part); the dash of every ceiling says its thread count whatever its mix (solid: the
# highest, dashed: fewer), as the plain picture's title says, and the mixes keep apart by colour.
counts = sorted({c["threads"] for c in used["compute"] + used["bandwidth"]})
for name in ("roofline_dp", "roofline_sp", "roofline_cache_aware_dp", "roofline_cache_aware_sp"):
    body = pics.get(name, "")
    if not body:
        continue
    keys = re.findall(r"^set key .*$", body, re.M)
    if len(keys) != 1 or not keys[0].startswith("set key outside") or " at " in keys[0]:
        bad.append(f"t13#15: {name}: the key is not outside the frame: {keys}")
    for v, slant, dt, lc, t in line.findall(body):
        m = re.search(r", (\d+) thr(?: \(suspect\))?$", t)
        if not m:
            bad.append(f"t13#15: {name}: the key '{t}' names no thread count")
        elif dt != ("1" if int(m.group(1)) == tmax else "2"):
            bad.append(f"t13#15: {name}: '{t}' drawn with dash {dt}, not the "
                       f"{'solid' if int(m.group(1)) == tmax else 'dashed'} of its thread count")
    title = re.search(r"^set title '([^']*)'", body, re.M).group(1)
    fewer = [n for n in counts if n != tmax]
    if "cache_aware" in name or not fewer:
        want = None
    else:
        want = "(solid: %d threads, dashed: %s thread%s)" % (
            tmax, ", ".join(map(str, fewer)), "" if fewer == [1] else "s")
    if (want and want not in title) or (not want and "dashed" in title):
        bad.append(f"t13#15: {name}: the title '{title}' does not say the styles drawn ({want})")

# Every point is named in the list beside the picture (none cut off as "... and N more").
for name in ("roofline_dp", "roofline_sp"):
    body = pics.get(name, "")
    n = sum(1 for p in pts if p["precision"] == name[-2:])
    for k in range(1, n + 1):
        if not re.search(r"set label %d '%d  " % (99 + k, k), body):
            bad.append(f"list: {name}: point {k} of {n} not named in the list")
    if "more kernels" in body:
        bad.append(f"list: {name}: the list is cut short")

# 14: kernels without FLOPs named in the list of their precision's picture.
for p in d["roofline"]["points"]:
    if p.get("ai_flop_per_byte") == 0:
        pat = r"set label \d+ '-  %s %s [^']* t%d: \d+%% of \S+ bandwidth roof'" % (
            p["name"], p["isa"], p["threads"])
        if not re.search(pat, pics["roofline_" + p["precision"]]):
            bad.append(f"14: {p['id']} (no FLOPs) not named in roofline_{p['precision']}")

for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
}
check "$fixture"
check "$tmp/many.json"
check examples/providers/vm-2core-run1/results.json

[ $fails -eq 0 ] && echo "roofline_plot_text: ok"
exit $((fails > 0))
