#!/usr/bin/env bash
# nodescale cluster: failed writes (exit 1 with a reason), options the seed002 preset cannot
# honour, ranges of the efficiency keys, no nan in the output, and the all-reduce fit forms.
set -uo pipefail
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# $1 = wanted exit status, $2 = what stderr must contain; the rest = arguments. Exactly one line
# on stderr; on exit 2 nothing on stdout.
expect() {
  local want_rc=$1 want=$2; shift 2
  $ns cluster "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines; lines=$(wc -l <"$tmp/err")
  if [ $rc -ne "$want_rc" ] || [ "$lines" -ne 1 ] || ! grep -q -- "$want" "$tmp/err" \
     || { [ "$want_rc" -eq 2 ] && [ -s "$tmp/out" ]; }; then
    fail "cluster $* -> rc=$rc (want $want_rc), $lines stderr lines: $(head -c 300 "$tmp/err")"
  fi
}

# 1. A write that fails is exit 1 with one line, never exit 0. The JSON goes through a link to
# /dev/full, so that a rename (the atomic write) could only replace the link.
if [ -c /dev/full ]; then
  ln -s /dev/full "$tmp/full.json"
  expect 1 "cannot write $tmp/full.json" --preset h100-sxm --chips 512 --json "$tmp/full.json"
  [ -L "$tmp/full.json" ] || fail "--json through a link to /dev/full replaced the link"
  $ns cluster --preset h100-sxm --chips 512 >/dev/full 2>"$tmp/err"
  rc=$?
  { [ $rc -eq 1 ] && grep -q "cannot write the standard output" "$tmp/err"; } ||
    fail "cluster >/dev/full -> rc=$rc: $(cat "$tmp/err")"
  $ns cluster --preset h100-sxm --chips 512 --json - >/dev/full 2>"$tmp/err"
  [ $? -eq 1 ] || fail "cluster --json - >/dev/full did not exit 1"
  $ns cluster --preset seed002 >/dev/full 2>"$tmp/err"
  [ $? -eq 1 ] || fail "cluster --preset seed002 >/dev/full did not exit 1"
fi

# 2. seed002 prints its table only: the options it would ignore are refused, nothing written.
expect 2 "--json does not apply to the seed002" --preset seed002 --json "$tmp/s.json"
[ -e "$tmp/s.json" ] && fail "seed002 --json wrote a file"
expect 2 "--json does not apply to the seed002" --preset seed002 --json -
expect 2 "--plot-dir does not apply" --preset seed002 --plot-dir "$tmp/plots"
[ -e "$tmp/plots" ] && fail "seed002 --plot-dir made the folder"
expect 2 "--search does not apply" --preset seed002 --search
expect 2 "does not apply to the seed002" --preset seed002 --search --top 3
# A chip preset beside seed002 replaced its chip without a word, and flags it
# ignores passed.
expect 2 "the seed002 preset takes no other preset" --preset seed002 --preset h100-sxm --chips 512
expect 2 "the seed002 preset takes no other preset" --preset h100-sxm --preset seed002 --chips 512
for f in "--tp 8" "--step-cv 0.3" "--chip-mtbf-h 10" "--usd-per-chip-h 2" "--layers 4" \
         "--recompute full" "--gemm-efficiency 0.5" "--allreduce-road scaleup"; do
  # shellcheck disable=SC2086
  expect 2 "${f%% *} does not apply to the seed002" --preset seed002 --chips 512 $f
done
# The refusals name their cause: the toy chip's bf16-only peak (and the flag that
# gives another), and --allreduce/--node before their file is read (a bad fit was reported).
for p in fp8 fp16 fp32 tf32 fp64; do
  expect 2 "needs a chip peak for $p: the toy chip has bf16 only; give --precision bf16, or --peak-tflop-per-s" \
    --preset seed002 --precision $p
done
$ns cluster --preset seed002 --precision fp8 --peak-tflop-per-s 2000 >"$tmp/out" 2>&1 ||
  fail "seed002 --precision fp8 with a peak refused: $(head -1 "$tmp/out")"
printf '{"fit": {"alpha_s": 1, "beta_s_per_byte": 1e-20}}' >"$tmp/badfit.json"
expect 2 "--allreduce does not apply to the seed002" --preset seed002 --allreduce "$tmp/badfit.json"
expect 2 "--allreduce does not apply to the seed002" --preset seed002 --allreduce "$tmp/none.json"
expect 2 "--node does not apply to the seed002" --preset seed002 --node "$tmp/none.json"
$ns cluster --preset seed002 --chips 512 --pue 1.2 --eta-b 0.02 --peak-tflop-per-s 1000 \
  >"$tmp/out" 2>&1 || fail "seed002 refused the flags its table uses: $(head -1 "$tmp/out")"

# 3. eta's range, and no negative MFU.
expect 2 "is not an MFU in (0, 1]" --preset seed002 --eta-a 0.01
expect 2 "--eta-a wants a number in" --preset seed002 --eta-a 2
expect 2 "--eta-a wants a number in" --preset seed002 --eta-a -1
expect 2 "--eta-b wants a number in" --preset seed002 --eta-b -0.5
$ns cluster --preset seed002 >"$tmp/out" 2>&1 || fail "seed002 failed"
grep -q "MFU 62.0%" "$tmp/out" || fail "seed002 table changed: $(head -1 "$tmp/out")"

# 4. Failures faster than a checkpoint leave goodput 0: "never" with the reason, no nan, and
# the JSON status names the cause (not a missing token budget).
$ns cluster --preset h100-sxm --chips 512 --chip-mtbf-h 0.0001 >"$tmp/out" 2>&1 || fail "mtbf run"
grep -qi nan "$tmp/out" && fail "nan printed: $(grep -i nan "$tmp/out" | head -1)"
grep -q " never " "$tmp/out" && grep -q "never: goodput 0" "$tmp/out" ||
  fail "goodput 0 not shown as never: $(cat "$tmp/out")"
$ns cluster --preset h100-sxm --chips 512 --train-tokens 0 >"$tmp/out" 2>&1 || fail "no budget"
grep -qi nan "$tmp/out" && fail "nan printed with no token budget"
grep -q "no token budget" "$tmp/out" || fail "no token budget not stated"
$ns cluster --preset h100-sxm --chips 512 --chip-mtbf-h 0.0001 --json "$tmp/m.json" >/dev/null ||
  fail "mtbf json"
python3 - "$tmp/m.json" <<'PY' || fail "goodput-0 JSON"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["time_to_train_s"] is None and p["cost_usd"] is None
assert p["time_to_train_s_status"].startswith("never: goodput 0"), p["time_to_train_s_status"]
assert p["status"].startswith("never"), p["status"]
PY

# 7. Every null in the JSON has a status beside it (a *_status or "status").
$ns cluster --preset h100-sxm --chips 8,512 --json "$tmp/a.json" >/dev/null || fail "8,512 json"
$ns cluster --node tests/fixtures/results_synthetic.json --chips 64 --search \
  --json "$tmp/n.json" >/dev/null 2>&1 || fail "node json"
python3 - "$tmp/a.json" "$tmp/n.json" <<'PY' || fail "a null without a status"
import json, sys
def walk(o, path):
    if isinstance(o, dict):
        for k, v in o.items():
            assert v is not None or k + "_status" in o or "status" in o, path + "." + k
            walk(v, path + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, "%s[%d]" % (path, i))
for f in sys.argv[1:]:
    d = json.load(open(f))
    walk(d, f)
pts = json.load(open(sys.argv[1]))["points"]
assert pts[1]["amdahl_bound_vs_first"] is None
assert pts[1]["amdahl_bound_vs_first_status"].startswith("n/a")
assert pts[1]["gustafson_bound_vs_first_status"].startswith("n/a")
n = json.load(open(sys.argv[2]))["points"][0]
assert n["fits"] is None and n["fits_status"].startswith("capacity unknown"), n
PY

# 5. The all-reduce fit as --help documents it: bare at the top level, or under "fit"; checked.
echo '{"alpha_s":1e-6,"beta_s_per_byte":1e-10}' >"$tmp/bare.json"
$ns cluster --preset h100-sxm --chips 512 --allreduce "$tmp/bare.json" >"$tmp/out" 2>"$tmp/err" ||
  fail "bare fit refused: $(cat "$tmp/err")"
grep -q "scale-out: 10 GB/s per direction, α 1 µs" "$tmp/out" || fail "bare fit not applied"
echo '{"fit":{"alpha_s":1e-6,"beta_s_per_byte":1e-10,"ranks":0}}' >"$tmp/r0.json"
expect 2 "ranks must be an integer in 2.." --preset h100-sxm --chips 512 --allreduce "$tmp/r0.json"
echo '{"alpha_s":1e-6,"beta_s_per_byte":1e-10,"ranks":1.5}' >"$tmp/r15.json"
expect 2 "ranks must be an integer in 2.." --preset h100-sxm --chips 512 --allreduce "$tmp/r15.json"
echo '{"alpha_s":-1e-6,"beta_s_per_byte":1e-10}' >"$tmp/neg.json"
expect 2 "alpha_s >= 0" --preset h100-sxm --chips 512 --allreduce "$tmp/neg.json"
echo '{"alpha_s":1e-6,"beta_s_per_byte":0}' >"$tmp/b0.json"
expect 2 "beta_s_per_byte > 0" --preset h100-sxm --chips 512 --allreduce "$tmp/b0.json"

# 6. A --plot-dir that cannot be made is exit 2 before computing; a gnuplot that fails leaves
# no half-written plots and no folder this run made.
if [ -d /proc/self ]; then
  expect 2 "--plot-dir /proc/nodescale-x: cannot create it" --preset h100-sxm --chips 512 \
    --plot-dir /proc/nodescale-x
fi
NODESCALE_GNUPLOT=/bin/false expect 1 "gnuplot failed" --preset h100-sxm --chips 512 \
  --plot-dir "$tmp/p1/p2"
[ -e "$tmp/p1" ] && fail "failed plots left $(find "$tmp/p1")"
mkdir "$tmp/mine" && touch "$tmp/mine/keep"
NODESCALE_GNUPLOT=/bin/false expect 1 "gnuplot failed" --preset h100-sxm --chips 512 \
  --plot-dir "$tmp/mine"
[ "$(ls "$tmp/mine")" = keep ] || fail "failed plots left: $(ls "$tmp/mine")"
expect 2 "no chip count has a valid" --preset h100-sxm --chips 127 --plot-dir "$tmp/p3"
[ -e "$tmp/p3" ] && fail "a refused run left its --plot-dir"

# 8. A micro-batch or interleave flag alone does not pin the preset's degrees (8 chips cannot
# hold TP 8 x PP 16: the search takes that count); --top needs --search; the peak's range is
# stated; a preset's unknown key and empty GEMM table are refused.
$ns cluster --preset h100-sxm --chips 8,8192 --interleave 2 >"$tmp/out" 2>"$tmp/err" ||
  fail "--interleave 2 pinned the preset layout: $(cat "$tmp/err")"
grep -q "^note: 8 chips: the preset layout" "$tmp/out" || fail "--interleave 2: no search note"
$ns cluster --preset h100-sxm --micro-batch-seqs 1 >/dev/null 2>"$tmp/err" ||
  fail "--micro-batch-seqs 1 pinned the preset layout: $(cat "$tmp/err")"
expect 2 "not the chip count\|does not divide the chip count" --preset h100-sxm --chips 8 --tp 8 --pp 16
expect 2 "--top needs --search" --preset h100-sxm --top 5
expect 2 "--peak-tflop-per-s wants a number in 1e-09..1e+09" --preset h100-sxm \
  --peak-tflop-per-s 1e308
echo '{"chip": {"gemm_eficiency": 0.5}}' >"$tmp/typo.json"
expect 2 "unknown key 'chip.gemm_eficiency'" --preset h100-sxm --preset "$tmp/typo.json"
echo '{"chipz": {}}' >"$tmp/typo2.json"
expect 2 "unknown key 'chipz'" --preset h100-sxm --preset "$tmp/typo2.json"
echo '{"chip": {"gemm_efficiency": []}}' >"$tmp/empty.json"
expect 2 "non-empty array" --preset h100-sxm --preset "$tmp/empty.json"
for p in cluster/presets/*.json; do # every shipped preset still reads
  $ns cluster --preset h100-sxm --preset "$p" --chips 8 --search >/dev/null 2>"$tmp/err" ||
    grep -q "no peak\|seed002\|no dense peak" "$tmp/err" || fail "preset $p: $(cat "$tmp/err")"
done

if [ "$fails" -ne 0 ]; then echo "$fails failure(s)"; exit 1; fi
echo "cluster_input: ok"
