#!/usr/bin/env bash
# gnuplot runs without a shell and every name goes into its scripts quoted (#3,
# #14). An output folder holding a quote, or starting with '-', is an ordinary folder to
# `cluster --plot-dir` and `compare --out`; a CPU model or preset chip name with a quote or a
# newline plots fine and an injection attempt in one stays text (no file is created). With a
# gnuplot that fails, compare neither claims compare.svg ("wrote") nor names it in compare.md.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
command -v gnuplot >/dev/null || { echo "skip: no gnuplot"; exit 77; }
R1=examples/providers/vm-2core-run1/results.json
R2=examples/providers/vm-2core-run2/results.json

# 1. A quote in --plot-dir / --out: one folder of that name, the plots in it, no command run.
q="$tmp/q'; touch $tmp/PWN1; '"
$ns cluster --preset h100-sxm --chips 8,512 --plot-dir "$q" >/dev/null 2>"$tmp/err" ||
  fail "cluster --plot-dir with a quote: $(cat "$tmp/err")"
[ -s "$q/cluster_scaling.svg" ] || fail "no cluster_scaling.svg in the quoted folder"
c="$tmp/c'; touch $tmp/PWN2; '"
$ns compare "$R1" "$R2" --out "$c" >/dev/null 2>"$tmp/err" ||
  fail "compare --out with a quote: $(cat "$tmp/err")"
[ -s "$c/compare.svg" ] || fail "no compare.svg in the quoted folder"
# A folder starting with '-' (was "cd: Illegal option -1").
(cd "$tmp" && "$ns" cluster --preset h100-sxm --chips 8 --plot-dir -1 >/dev/null \
  2>"$tmp/err") || fail "cluster --plot-dir -1: $(cat "$tmp/err")"
[ -s "$tmp/-1/cluster_breakdown.svg" ] || fail "no plots in -1/"

# 2. Names from input files: a CPU model (--node) and a preset chip name.
python3 - "$R1" "$tmp" <<'PY'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
d = json.load(open(src))
d["context"]["cpu"]["model"] = "Xeon'; system('touch %s/PWN4'); print '" % tmp
json.dump(d, open(tmp + "/inj_res.json", "w"))
p = json.load(open("cluster/presets/h100-sxm.json"))
for name, chip in (("inj", "x'; system('touch %s/PWN3'); print '" % tmp),
                   ("quote", "H100 'SXM'\nsecond line")):
    p["chip"]["name"] = chip
    json.dump(p, open("%s/%s.json" % (tmp, name), "w"))
PY
$ns cluster --node "$tmp/inj_res.json" --plot-dir "$tmp/pn" >/dev/null 2>"$tmp/err" ||
  fail "cluster --node with a quoted CPU model: $(cat "$tmp/err")"
[ -s "$tmp/pn/cluster_scaling.svg" ] || fail "no plot for the quoted CPU model"
$ns cluster --preset "$tmp/inj.json" --preset llama3-405b --chips 8,512 --plot-dir "$tmp/pi" \
  >/dev/null 2>"$tmp/err" || fail "cluster with an injection in the chip name: $(cat "$tmp/err")"
$ns cluster --preset "$tmp/quote.json" --preset llama3-405b --chips 8,512 --plot-dir "$tmp/pq" \
  >/dev/null 2>"$tmp/err" || fail "cluster with a quote and a newline in the chip name: $(cat "$tmp/err")"
[ -s "$tmp/pq/cluster_breakdown.svg" ] && [ -s "$tmp/pq/cluster_scaling.png" ] ||
  fail "no plots for the chip name with a quote and a newline"
grep -q "H100 ''SXM'' second line" "$tmp/pq/cluster_scaling.gp" ||
  fail "the chip name is not one quoted string: $(grep title "$tmp/pq/cluster_scaling.gp")"
for f in PWN1 PWN2 PWN3 PWN4; do
  [ -e "$tmp/$f" ] && fail "$f was created: a name ran a command"
done

# 3. compare with a gnuplot that fails: no "svg" claimed, no "Plot: compare.svg", no svg left.
mkdir "$tmp/bin" && printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/gnuplot" && chmod +x "$tmp/bin/gnuplot"
NODESCALE_GNUPLOT="$tmp/bin/gnuplot" $ns compare "$R1" "$R2" --out "$tmp/cng" >/dev/null \
  2>"$tmp/err" || fail "compare with a failing gnuplot: $(cat "$tmp/err")"
grep -q "wrote .*compare.{md,json,dat,gp}$" "$tmp/err" || fail "wrote line: $(cat "$tmp/err")"
grep -q "Plot: compare.svg" "$tmp/cng/compare.md" && fail "compare.md names compare.svg"
[ -e "$tmp/cng/compare.svg" ] && fail "compare.svg is left"
$ns compare "$R1" "$R2" --out "$tmp/cok" >/dev/null 2>"$tmp/err"
grep -q "wrote .*compare.{md,json,dat,gp,svg}$" "$tmp/err" && grep -q "Plot: compare.svg" \
  "$tmp/cok/compare.md" || fail "with gnuplot: $(cat "$tmp/err")"

[ $fails -eq 0 ] && echo "plot_quoting: ok"
exit $((fails > 0))
