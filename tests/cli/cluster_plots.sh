#!/usr/bin/env bash
# cluster_scaling (gnuplot script and data, written with or without gnuplot): every chip count
# is a labelled tic, and a configuration that does not fit in memory (Llama 3 405B on 8 H100s)
# is off the MFU and FLOP/s lines, drawn apart and named in the key. Trial 10 #11:
# its MFU and FLOP/s markers differ and both are in the key; the MFU axis is fitted to the data;
# in cluster_breakdown its bar is crossed out and its tic says so; with gnuplot, a .png beside
# each .svg.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

$ns cluster --preset h100-sxm --chips 8,1024,16384 --json "$tmp/c.json" --plot-dir "$tmp/p" \
  >"$tmp/out" 2>"$tmp/err"
[ -s "$tmp/p/cluster_scaling.gp" ] && [ -s "$tmp/p/cluster_scaling.dat" ] ||
  { echo "FAIL: no cluster_scaling.gp/.dat"; cat "$tmp/err"; exit 1; }

python3 - "$tmp/c.json" "$tmp/p/cluster_scaling.dat" "$tmp/p/cluster_scaling.gp" \
  "$tmp/p/cluster_breakdown.dat" "$tmp/p/cluster_breakdown.gp" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
fits = {p["chips"]: p["fits"] for p in d["points"]}
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
gp = open(sys.argv[3]).read()
brows = [l.split() for l in open(sys.argv[4]) if l.strip() and not l.startswith("#")]
bgp = open(sys.argv[5]).read()
bad = []
# The configuration that does not fit, in both pictures.
nofit = [m.group(0) for m in re.finditer(r"using 1:\(\$5 == 0 \? [^)]*\) axes (x1y1|x1y2) with "
                                         r"points pt (\d+)[^\n]*", gp)]
pts = [re.search(r"pt (\d+)", l).group(1) for l in nofit]
if len(nofit) != 2 or len(set(pts)) != 2 or any("notitle" in l for l in nofit):
    bad.append(f"t10#11: the MFU and FLOP/s markers of what does not fit are not two shapes, "
               f"each in the key: {nofit}")
mfu = [float(r[1]) for r in rows]
top = re.search(r"set yrange \[0:([^\]]+)\]", gp)
if not top or not (max(mfu) * 100 <= float(top.group(1)) <= 1.5 * max(mfu) * 100):
    bad.append(f"t10#11: the MFU axis ({top and top.group(0)}) is not fitted to MFU up to "
               f"{100 * max(mfu):.1f}%")
for i, r in enumerate(brows):
    if len(r) < 11 or int(r[10]) != {True: 1, False: 0}.get(fits.get(int(r[0])), -1):
        bad.append(f"t10#11: breakdown row {r[0]}: no fits column matching the JSON")
    elif int(r[10]) == 0 and not re.search(r"set object \d+ rect from %d-[\d.]+, graph 0 to "
                                            r"%d\+[\d.]+, graph 1 front fs pattern" % (i, i), bgp):
        bad.append(f"t10#11: the breakdown bar of {r[0]} chips (does not fit) is not crossed out")
if "xtic($11 == 0 ? strcol(1).' (no fit)' : strcol(1))" not in bgp or \
        "'does not fit in memory: not runnable'" not in bgp:
    bad.append("t10#11: the breakdown does not say which configuration does not fit")
fits = {p["chips"]: p["fits"] for p in d["points"]}
if fits.get(8) is not False or fits.get(1024) is not True:
    bad.append(f"the scenario changed (fits: {fits}): the test tests nothing")
for r in rows:
    chips, flag = int(r[0]), int(r[4]) if len(r) > 4 else None
    want = {True: 1, False: 0}.get(fits.get(chips), -1)
    if flag != want:
        bad.append(f"{chips} chips: fits column {flag}, JSON says {fits.get(chips)}")
    if not re.search(r"set xtics \(.*'%d' %d\b" % (chips, chips), gp):
        bad.append(f"{chips} chips: no labelled tic")
if "using 1:($5 != 0 ? $2*100 : 1/0)" not in gp or "using 1:($5 != 0 ? $3 : 1/0)" not in gp:
    bad.append("the MFU and FLOP/s lines do not leave out what does not fit")
if not re.search(r"using 1:\(\$5 == 0 \? \$2\*100 : 1/0\).*title 'does not fit in memory", gp):
    bad.append("no key entry for a configuration that does not fit")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || fails=$((fails + 1))
if command -v gnuplot >/dev/null || [ -n "${NODESCALE_GNUPLOT:-}" ]; then
  for f in cluster_breakdown cluster_scaling; do
    [ -s "$tmp/p/$f.svg" ] && head -c 8 "$tmp/p/$f.png" 2>/dev/null | grep -q PNG ||
      { echo "FAIL: t10#11: no $f.svg and .png"; fails=$((fails + 1)); }
  done
fi
# Names are drawn as written, not as gnuplot enhanced text (_ ^ @ { } were
# subscripts, superscripts and dropped braces): every terminal is noenhanced.
python3 - tests/fixtures/results_synthetic.json "$tmp/inj.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.setdefault("context", {}).setdefault("cpu", {})["model"] = "Xeon_Gold^2 @GPVAL {x}"
json.dump(d, open(sys.argv[2], "w"))
PY
$ns cluster --node "$tmp/inj.json" --chips 1,2 --plot-dir "$tmp/pn" >"$tmp/out2" 2>"$tmp/err2" ||
  { echo "FAIL: t15#10: cluster --node with an odd CPU name"; cat "$tmp/err2"; fails=$((fails + 1)); }
for f in cluster_breakdown cluster_scaling; do
  n=$(grep -c "set terminal" "$tmp/pn/$f.gp" 2>/dev/null)
  e=$(grep "set terminal" "$tmp/pn/$f.gp" 2>/dev/null | grep -c noenhanced)
  [ "${n:-0}" -ge 3 ] && [ "$n" = "$e" ] ||
    { echo "FAIL: t15#10: $f.gp has $e noenhanced of ${n:-0} terminals"; fails=$((fails + 1)); }
  if command -v gnuplot >/dev/null && [ -z "${NODESCALE_GNUPLOT:-}" ]; then
    grep -q "Xeon_Gold^2 @GPVAL {x}" "$tmp/pn/$f.svg" ||
      { echo "FAIL: t15#10: $f.svg does not draw the name as written"; fails=$((fails + 1)); }
  fi
done
[ $fails -eq 0 ] && echo "cluster_plots: ok"
exit $((fails > 0))
