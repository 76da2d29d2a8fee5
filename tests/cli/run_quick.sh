#!/usr/bin/env bash
# End to end: `nodescale run --quick` writes a report folder whose results.json is strict JSON
# (NaN/Infinity rejected), schema nodescale/1, with DP and SP compute ceilings, a working-set
# sweep, validated results for every kernel family present, and report.md and run.log beside it.
# Then Ctrl-C (SIGINT) during a run still leaves a valid results.json marked interrupted, and the
# step it cut short shows what it measured or "interrupted", never "nan".
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
bin/nodescale run --quick --out "$tmp/q" >"$tmp/stdout" 2>"$tmp/stderr" || { echo "run failed"; tail "$tmp/stderr"; exit 1; }
echo "run --quick took $(( $(date +%s) - start )) s"
[ "$(cat "$tmp/stdout")" = "$tmp/q" ] || { echo "stdout should be the folder: $(cat "$tmp/stdout")"; exit 1; }
for f in results.json report.md run.log; do [ -s "$tmp/q/$f" ] || { echo "missing $f"; exit 1; }; done
ls "$tmp/q"/*.tmp* 2>/dev/null && { echo "temporary files left behind"; exit 1; }

python3 - "$tmp/q/results.json" <<'PY' || exit 1
import json, sys
def bad(c): raise ValueError("non-finite constant " + c)
d = json.load(open(sys.argv[1]), parse_constant=bad)
assert d["schema"] == "nodescale/1"
ctx = d["context"]
for k in ["host", "date", "cpu", "os", "compiler", "cflags", "libraries", "env", "timer", "virtualized"]:
    assert k in ctx, k
assert ctx["timer"]["resolution_s"] > 0
assert len(ctx["load_avg"]) == 3 and all(x >= 0 for x in ctx["load_avg"]), ctx.get("load_avg")
assert ctx["cpu"]["caches"], "no caches from hwloc"
comp = d["ceilings"]["compute"]
for prec in ["dp", "sp"]:
    c = [x for x in comp if x["precision"] == prec and x["mix"] == "fma"]
    assert c and all(x["gflops"] > 0 for x in c), prec
assert len(d["sweep"]) >= 10
assert all(p["gbytes_per_s"] is None or p["gbytes_per_s"] > 0 for p in d["sweep"])
fam = {r["family"] for r in d["results"]}
assert {"peak", "stream"} <= fam, fam
for r in d["results"]:
    assert r["validated"] is True, r["id"]
    assert r["status"] == "ok", (r["id"], r["status"])
    assert len(r["samples_s"]) >= 9, r["id"]
    t = r["time_s"]
    assert 0 < t["min"] <= t["median"] <= t["max"], r["id"]
    if r["family"] != "peak":
        assert r["gbytes_per_s"] > 0, r["id"]
ids = [r["id"] for r in d["results"]]
assert len(ids) == len(set(ids)), "duplicate ids"
print("results.json ok:", len(d["results"]), "results,", len(d["sweep"]), "sweep points")
PY
grep -q "Compute ceilings" "$tmp/q/report.md" || { echo "report.md lacks ceilings"; exit 1; }
grep -q "^command: bin/nodescale run --quick" "$tmp/q/run.log" || { echo "run.log lacks the command"; exit 1; }

# `run --quick --out DIR` sent SIGINT after SECONDS (stderr to ERR); it must exit 130.
run_interrupted() { # SECONDS DIR ERR
  bin/nodescale run --quick --out "$2" >/dev/null 2>"$3" &
  local pid=$! rc
  sleep "$1"
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 130 ] || { echo "run interrupted after $1 s exited $rc, want 130"; exit 1; }
}

# Ctrl-C: interrupt after a few seconds; a valid, complete-so-far results.json must remain.
run_interrupted 4 "$tmp/int" /dev/null
python3 - "$tmp/int/results.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
assert d["interrupted"] is True
assert d["results"], "nothing kept"
print("interrupted run kept", len(d["results"]), "results")
PY

# Ctrl-C inside a step (trial 4 #25): peak_dp_fma, the first step, made 100x slower so that the
# SIGINT lands in its samples. Its progress line shows the rate of the samples it took (or
# "interrupted" when it took none), never "nan"; nothing the run writes says nan.
NODESCALE_INJECT_SLOWDOWN=peak_dp_fma:99 run_interrupted 1.5 "$tmp/cut" "$tmp/cut.err"
line=$(grep -m1 'ceiling peak_dp_fma ' "$tmp/cut.err")
echo "interrupted step: $line"
echo "$line" | grep -Eq '[0-9] GFLOP/s  \[interrupted after [0-9]+ of [0-9]+ samples\]$| interrupted  \[interrupted' ||
  { echo "the interrupted step's line shows neither its rate nor 'interrupted'"; exit 1; }
if grep -rliw nan "$tmp/cut.err" "$tmp/cut"; then
  echo "nan in the output of an interrupted run:"; grep -rniw nan "$tmp/cut.err" "$tmp/cut" | head -5; exit 1
fi
