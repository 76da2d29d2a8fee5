#!/usr/bin/env bash
# Bad input to every command of the spine: a one-line reason on stderr, exit status 2, nothing
# written. Also --help exits 0 for every command.
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

expect2() { # description, then the command (a timeout: a broken check would start measuring)
  local what=$1; shift
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "error:" "$tmp/err"; then
    echo "FAIL: $what: rc=$rc, $lines stderr lines:"; cat "$tmp/err"; fails=$((fails + 1))
  else
    echo "ok: $what: $(cat "$tmp/err")"
  fi
}

expect2 "no command" $ns
expect2 "unknown command" $ns frobnicate
expect2 "unknown run flag" $ns run --fast
expect2 "threads not a number" $ns run --threads two
expect2 "threads zero" $ns run --threads 0
expect2 "threads negative" $ns run --threads -1
expect2 "more threads than CPUs" $ns run --threads 1024
expect2 "threads past NS_MAX_THREADS" $ns run --threads 1025
expect2 "threads with junk" $ns run --threads 2x
expect2 "missing --out value" $ns run --out
expect2 "unwritable --out" $ns run --quick --out /proc/nodescale-cannot
# An --out longer than a path can be is refused as such, never cut to another folder's name.
expect2 "--out too long" $ns run --quick --out "$tmp/$(printf 'd/%.0s' {1..2100})x"
grep -q "error: --out $tmp/d/d/.*characters cut.*: File name too long" "$tmp/err" ||
  { echo "FAIL: --out too long: not named as --out: $(cut -c1-160 "$tmp/err")"; fails=$((fails + 1)); }
[ -e "$tmp/d" ] && { echo "FAIL: --out too long: a folder was left"; fails=$((fails + 1)); }
expect2 "unknown kernel in --kernels" $ns run --kernels stream_triad,nope
expect2 "bad format" $ns run --format xml
expect2 "malformed --events" $ns run --quick --events "PAPI_TOT_CYC,,X"
expect2 "bench without kernel" $ns bench
expect2 "bench unknown kernel" $ns bench nope
expect2 "bench bad size" $ns bench stream_triad --n 12abc
expect2 "bench negative size" $ns bench stream_triad --n -5
expect2 "bench absurd size" $ns bench stream_triad --n 1T
expect2 "bench working set beyond memory" $ns bench stream_triad --n 100G
expect2 "bench unknown isa" $ns bench stream_triad --isa sse9
expect2 "bench two kernels" $ns bench stream_triad stream_copy
expect2 "bench --m on non-GEMM" $ns bench stream_triad --m 5
expect2 "bench unwritable json" $ns bench stream_sum --n 1024 --json /proc/x/y.json

expect2 "unknown NODESCALE_ISA (run)" env NODESCALE_ISA=bogus $ns run --quick --out "$tmp/isa"
expect2 "unknown NODESCALE_ISA (bench)" env NODESCALE_ISA=sse9 $ns bench dgemm --n 64
expect2 "no variant for forced ISA" env NODESCALE_ISA=scalar $ns bench peak_dp_fma_add
expect2 "bench --json to a folder" $ns bench stream_sum --n 1024 --json /tmp
expect2 "bench --json where no file can be made" $ns bench stream_sum --n 1024 --json /proc/x.json
fx=tests/fixtures/roofline/synthetic_results.json
expect2 "compare --labels too few" $ns compare $fx $fx --labels a --out "$tmp/cmp"
expect2 "compare --labels empty name" $ns compare $fx $fx --labels a, --out "$tmp/cmp"
expect2 "a folder as a results file" $ns gate /tmp /tmp
[ -e "$tmp/cmp" ] && { echo "FAIL: compare wrote despite bad --labels"; fails=$((fails + 1)); }
[ -e "$tmp/isa" ] && { echo "FAIL: run wrote a folder despite a bad NODESCALE_ISA"; fails=$((fails + 1)); }
grep -q "no variant for ISA" "$tmp/err" 2>/dev/null || true

[ -e /proc/nodescale-cannot ] && { echo "FAIL: something was created"; fails=$((fails + 1)); }

# run refuses before measuring: --kernels selects STREAM/reduction kernels by whole name;
# OMP_NUM_THREADS above the CPUs; an --out folder holding a previous run stays untouched.
expect2 "--kernels names a GEMM kernel" $ns run --quick --kernels dgemm --out "$tmp/k1"
expect2 "--kernels names a peak kernel" $ns run --quick --kernels stream_triad,peak_dp_fma --out "$tmp/k2"
expect2 "--kernels prefix of a name" $ns run --quick --kernels stream_tri --out "$tmp/k3"
expect2 "OMP_NUM_THREADS above the CPUs" env OMP_NUM_THREADS=$(($(nproc) + 1)) $ns run --quick --out "$tmp/o1"
for d in k1 k2 k3 o1; do
  [ -e "$tmp/$d" ] && { echo "FAIL: $d was created"; fails=$((fails + 1)); }
done

mkdir -p "$tmp/prev"
echo '{"previous": true}' >"$tmp/prev/results.json"
echo 'old report' >"$tmp/prev/report.md"
expect2 "--out holding a previous run" $ns run --quick --out "$tmp/prev"
if [ "$(cat "$tmp/prev/results.json")" != '{"previous": true}' ] ||
   [ "$(cat "$tmp/prev/report.md")" != 'old report' ] || [ -e "$tmp/prev/run.log" ]; then
  echo "FAIL: the previous run's folder was changed"; ls -l "$tmp/prev"; fails=$((fails + 1))
fi

# OMP_NUM_THREADS is the default thread count of bench too (it was recorded but ignored).
OMP_NUM_THREADS=1 $ns bench stream_triad --n 65536 --samples 9 --min-time 0.001 --json "$tmp/b.json" \
  >/dev/null 2>&1 || { echo "FAIL: bench with OMP_NUM_THREADS=1"; fails=$((fails + 1)); }
if [ "$(jq '.results[0].threads' "$tmp/b.json" 2>/dev/null)" != 1 ]; then
  echo "FAIL: OMP_NUM_THREADS=1 ran $(jq '.results[0].threads' "$tmp/b.json") threads"; fails=$((fails + 1))
else
  echo "ok: bench honours OMP_NUM_THREADS=1"
fi
expect2 "bench: OMP_NUM_THREADS above the CPUs" env OMP_NUM_THREADS=$(($(nproc) + 1)) $ns bench stream_triad

# An option given twice was silently last-wins; cluster checked only the last --chips.
r=tests/fixtures/results_synthetic.json
expect2 "bench --n twice" $ns bench stream_triad --n 1000 --n=2000
expect2 "run --out twice" $ns run --quick --out "$tmp/r1" --out "$tmp/r2"
expect2 "gate --threshold twice" $ns gate --threshold 5% --threshold 10% $r $r
expect2 "compare --labels twice" $ns compare --labels a,b --labels c,d $r $r --out "$tmp/c"
expect2 "compare --min-spread twice" $ns compare --min-spread 0.05 --min-spread 0.5 $r $r --out "$tmp/c"
expect2 "roofline --out twice" $ns roofline $r --out "$tmp/a" --out "$tmp/b"
expect2 "cluster --chips banana then 1024" $ns cluster --preset h100-sxm --chips banana --chips 1024
expect2 "cluster --chips 0 then 1024" $ns cluster --preset h100-sxm --chips 0 --chips 1024
expect2 "cluster --chips 8,8" $ns cluster --preset h100-sxm --chips 8,8
expect2 "cluster --node twice" $ns cluster --node $r --node $r
expect2 "fleet --timeout-s twice" $ns fleet --timeout-s 5 --timeout-s 6
expect2 "NODESCALE_EVENTS with an event twice" env NODESCALE_EVENTS=PAPI_TOT_CYC,PAPI_TOT_CYC \
  $ns bench stream_triad --n 1000 --samples 3 --threads 1 --json "$tmp/ev.json"
[ -e "$tmp/a" ] || [ -e "$tmp/b" ] || [ -e "$tmp/c" ] || [ -e "$tmp/ev.json" ] || [ -e "$tmp/r1" ] &&
  { echo "FAIL: a refused repeat wrote output"; fails=$((fails + 1)); }
# Documented as repeatable: --preset (cluster) and --history (gate).
$ns cluster --preset h100-sxm --preset h100-sxm --chips 8 >/dev/null 2>&1 ||
  { echo "FAIL: cluster --preset twice refused"; fails=$((fails + 1)); }
$ns gate --history $r --history $r $r $r >/dev/null 2>"$tmp/err"
grep -q 'more than once' "$tmp/err" && { echo "FAIL: gate --history twice refused"; fails=$((fails + 1)); }

# A bad NODESCALE_SW_EVENTS was taken as perf; a long bad NODESCALE_EVENTS was
# echoed whole; OMP_NUM_THREADS=0 made libgomp complain once per re-exec; --list-presets listed
# any *.json in NODESCALE_PRESETS.
expect2 "NODESCALE_SW_EVENTS=bogus" env NODESCALE_SW_EVENTS=bogus $ns bench stream_triad --n 1000 \
  --samples 3 --threads 1 --json "$tmp/sw.json"
long=$(printf 'PAPI_NOPE_%04d,' $(seq 1 200))
expect2 "long NODESCALE_EVENTS" env NODESCALE_EVENTS="$long" $ns bench stream_triad --n 1000 \
  --samples 3 --threads 1 --json "$tmp/sw.json"
[ "$(wc -c <"$tmp/err")" -lt 300 ] || { echo "FAIL: long NODESCALE_EVENTS echoed whole"; fails=$((fails + 1)); }
for v in 0 1x; do
  OMP_NUM_THREADS=$v $ns bench stream_triad --n 1000 >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && [ "$(grep -c 'Invalid value' "$tmp/err")" -le 1 ] &&
    [ "$(grep -c 'error:' "$tmp/err")" -eq 1 ] ||
    { echo "FAIL: OMP_NUM_THREADS=$v: exit $rc:"; cat "$tmp/err"; fails=$((fails + 1)); }
done
mkdir -p "$tmp/presets"
cp cluster/presets/h100-sxm.json "$tmp/presets/"
echo '[]' >"$tmp/presets/arr.json"
cp tests/fixtures/results_synthetic.json "$tmp/presets/res.json"
NODESCALE_PRESETS="$tmp/presets" $ns cluster --list-presets >"$tmp/out" 2>/dev/null
[ "$(grep -c '^  ' "$tmp/out")" -eq 1 ] && grep -q '^  h100-sxm$' "$tmp/out" ||
  { echo "FAIL: --list-presets lists non-presets:"; cat "$tmp/out"; fails=$((fails + 1)); }

# Trial 14b #12: --kernels with empty fields (strtok_r skipped them: ",," ran every kernel) or a
# name given twice. #13: a model preset (or cpu-node) as the run's cluster chip.
for k in ",," "stream_triad," ",stream_triad" "stream_triad,,stream_copy" \
  "stream_triad,stream_triad" "stream_triad,stream_copy,stream_triad"; do
  expect2 "run --kernels '$k'" $ns run --kernels "$k" --out "$tmp/k4"
done
expect2 "fleet --kernels ','" $ns fleet --kernels , --out "$tmp/k4"
for p in llama3-405b megatron-1t cpu-node; do
  expect2 "run --cluster-preset $p (not a chip)" $ns run --cluster-preset $p --out "$tmp/k4"
done
grep -q "names no chip" "$tmp/err" || { echo "FAIL: cpu-node: no reason"; fails=$((fails + 1)); }
# seed002's toy chip has no memory or network: the run's search failed after the measurement.
expect2 "run --cluster-preset seed002 (the toy law)" $ns run --cluster-preset seed002 --out "$tmp/k4"
grep -q "toy efficiency law" "$tmp/err" || { echo "FAIL: seed002: no reason"; fails=$((fails + 1)); }
# A chip preset that its cluster section would refuse (the model's params beside
# the llama3-405b shape) is refused before measuring, with the cluster's own reason.
sed 's/"chips": \[/"model": {"params": 1.6e12}, "chips": [/' cluster/presets/h100-sxm.json \
  >"$tmp/badp.json"
grep -q '"params"' "$tmp/badp.json" || { echo "FAIL: badp.json not made"; fails=$((fails + 1)); }
expect2 "run --cluster-preset badp.json (params beside the shape)" \
  $ns run --quick --cluster-preset "$tmp/badp.json" --out "$tmp/k4"
grep -q "cannot stand beside the model shape" "$tmp/err" ||
  { echo "FAIL: badp.json: not the cluster's reason"; fails=$((fails + 1)); }
[ -e "$tmp/k4" ] && { echo "FAIL: a refused --kernels/--cluster-preset made a folder"; fails=$((fails + 1)); }
# A valid list and chip preset pass these checks (the unwritable --out is what is refused).
$ns run --kernels stream_triad,sdot --cluster-preset h100-sxm --out /proc/nodescale-cannot 2>"$tmp/err"
grep -q "cannot write to folder" "$tmp/err" ||
  { echo "FAIL: valid --kernels/--cluster-preset refused:"; cat "$tmp/err"; fails=$((fails + 1)); }

# Numbers are decimal, with no blanks around them (strtod read hex and strtoll
# skipped leading blanks while a trailing blank was refused).
expect2 "cluster --chip-w 0x10" $ns cluster --preset h100-sxm --chip-w 0x10
expect2 "cluster --chip-w ' 700'" $ns cluster --preset h100-sxm --chip-w " 700"
expect2 "cluster --chip-w '700 '" $ns cluster --preset h100-sxm --chip-w "700 "
expect2 "cluster --chips ' 8'" $ns cluster --preset h100-sxm --chips " 8"
expect2 "gate --threshold 0x0.1" $ns gate --threshold 0x0.1 $r $r
expect2 "gate --noise-floor ' 0.001'" $ns gate --noise-floor " 0.001" $r $r
expect2 "fleet --timeout-s 0x10" $ns fleet --timeout-s 0x10 --out "$tmp/k5"
expect2 "bench --min-time 0x10" $ns bench stream_triad --n 1000 --min-time 0x10 --json "$tmp/k5.json"
expect2 "bench --samples ' 5'" $ns bench stream_triad --n 1000 --samples " 5" --json "$tmp/k5.json"
expect2 "bench --n ' 1000'" $ns bench stream_triad --n " 1000" --json "$tmp/k5.json"
[ -e "$tmp/k5" ] || [ -e "$tmp/k5.json" ] && { echo "FAIL: a refused number wrote output"; fails=$((fails + 1)); }
$ns cluster --preset h100-sxm --chips 8 --chip-w .7e3 >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: --chip-w .7e3 refused:"; cat "$tmp/err"; fails=$((fails + 1)); }

for c in run list bench roofline gate compare cluster fleet; do
  if ! $ns $c --help >/dev/null 2>&1; then echo "FAIL: $c --help"; fails=$((fails + 1)); fi
done
$ns --help >/dev/null || fails=$((fails + 1))

echo "$fails failures"
[ $fails -eq 0 ]
