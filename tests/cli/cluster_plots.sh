#!/usr/bin/env bash
# cluster_scaling (gnuplot script and data, written with or without gnuplot): every chip count
# is a labelled tic, and a configuration that does not fit in memory (Llama 3 405B on 8 H100s)
# is off the MFU and FLOP/s lines, drawn apart and named in the key (trial 3 #17).
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
[ -x "$ns" ] || { echo "skip: $ns not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$ns cluster --preset h100-sxm --chips 8,1024,16384 --json "$tmp/c.json" --plot-dir "$tmp/p" \
  >"$tmp/out" 2>"$tmp/err"
[ -s "$tmp/p/cluster_scaling.gp" ] && [ -s "$tmp/p/cluster_scaling.dat" ] ||
  { echo "FAIL: no cluster_scaling.gp/.dat"; cat "$tmp/err"; exit 1; }

python3 - "$tmp/c.json" "$tmp/p/cluster_scaling.dat" "$tmp/p/cluster_scaling.gp" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
gp = open(sys.argv[3]).read()
bad = []
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
rc=$?
[ $rc -eq 0 ] && echo "cluster_plots: ok"
exit $rc
