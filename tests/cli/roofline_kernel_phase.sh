#!/usr/bin/env bash
# `nodescale roofline` on a real --quick run (tests/fixtures/roofline/quick_1thread.json,
# trimmed): the sweep's L2 plateau of stream_load read 106 GB/s while the kernel phase measured
# the same kernel at 1 MiB (L2) at 131.7 GB/s median (135.4 fastest), so every L2 kernel sat
# 20-29% above its roof. Now no sweep kernel is above its own level's roof, the L2 ceiling says
# it came from the kernel phase, every kernel above its roof (zero-FLOP ones too) names the
# cause, and rebuilding the rebuilt file changes no byte.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
fixture=tests/fixtures/roofline/quick_1thread.json

$ns roofline "$fixture" --out "$tmp/a" --no-plot >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: exit $?"; cat "$tmp/err"; exit 1; }
python3 - "$tmp/a/results.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
curves = {(p["kernel"], p["isa"], p["precision"], p["threads"]) for p in d["sweep"]}
l2 = [c for c in d["ceilings"]["bandwidth"]
      if c["level"] == "L2" and c["kernel"] == "stream_load" and c["threads"] == 1]
assert len(l2) == 1, l2
assert l2[0]["source"] == "kernel phase", l2[0]
assert l2[0]["result_id"] == "stream_load/avx512/dp/t1/n=131072", l2[0]
assert abs(l2[0]["sweep_gbytes_per_s"] - 106.1) < 0.1, l2[0]
bad = []
for r in d["results"]:
    f = r.get("fraction_of_roof")
    if f is None:
        continue
    if (r["name"], r["isa"], r["precision"], r["threads"]) in curves and f > 1:
        bad.append("%s: %.3f of its roof, a ceiling kernel" % (r["id"], f))
    if f > 1 and "above the roof by" not in r["roof_status"]:
        bad.append("%s: %.3f of its roof, no cause: %s" % (r["id"], f, r["roof_status"]))
assert not bad, "\n".join(bad)
PY
$ns roofline "$tmp/a/results.json" --out "$tmp/b" --no-plot >/dev/null 2>&1 ||
  { echo "FAIL: rebuild exit $?"; fails=$((fails + 1)); }
cmp -s "$tmp/a/results.json" "$tmp/b/results.json" ||
  { echo "FAIL: rebuilding the rebuilt file changed it"; diff "$tmp/a/results.json" "$tmp/b/results.json" | head; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "roofline kernel phase: ok"
exit $((fails > 0))
