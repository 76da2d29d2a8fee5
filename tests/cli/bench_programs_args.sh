#!/usr/bin/env bash
# The bench/bench_* programs' arguments: each refuses what it cannot take with one line
# "nodescale bench-X: error: ...", exit 2, nothing on stdout, before measuring: any argument of
# the programs without options (a mistyped option started a full run), --only outside
# compute|bandwidth|L1|L2|L3|DRAM, more threads than the affinity mask's CPUs, one thread for the
# all-reduce (it printed a table of nan), a --min-time of 0 (sub-resolution samples). bench_gemm
# judges its targets only on n in 256..4096. bench_gate removes its temporary folder on every
# exit and quotes the paths of its wrapper script. No speed is asserted.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh
b=$PWD/bin/bench
[ -x "$b/bench_gemm" ] || { echo "skip: bin/bench not built"; exit 77; }

# description, a pattern the one-line message must hold, then the command
expect2() {
  local what=$1 want=$2; shift 2
  timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "^nodescale bench-[a-z_]*: error: " "$tmp/err" ||
     ! grep -Eq -- "$want" "$tmp/err" || [ -s "$tmp/out" ]; then
    fail "$what: rc=$rc, $lines stderr lines, $(wc -c <"$tmp/out") bytes on stdout:"; cat "$tmp/err"
  else
    echo "ok: $what: $(cat "$tmp/err")"
  fi
}

# programs without options refuse any argument instead of starting a full run
for x in reduce ceilings allreduce cluster wait_policy; do
  expect2 "bench_$x --rounds 2" "no options \('--rounds' given" "$b/bench_$x" --rounds 2
done
expect2 "bench_gemm --bogus" "unknown argument '--bogus'" "$b/bench_gemm" --bogus
expect2 "bench_roofline --bogus" "unknown argument '--bogus' \(usage: bench_roofline" "$b/bench_roofline" --bogus

# bench_roofline names the bad argument and why; --only is one of the listed words
for w in L4 l1 "" L1,DRAM; do
  expect2 "bench_roofline --only '$w'" "--only '$w' is not one of compute, bandwidth" \
    "$b/bench_roofline" --only "$w" --rounds 2
done
for w in 1 3x 33; do
  expect2 "bench_roofline --rounds $w" "--rounds '$w' is not a whole number of 2 to 32" \
    "$b/bench_roofline" --rounds "$w"
done
expect2 "bench_roofline --isa sse" "--isa 'sse' is not avx2 or avx512" "$b/bench_roofline" --isa sse
expect2 "bench_roofline --rounds" "--rounds needs a value" "$b/bench_roofline" --rounds
expect2 "bench_roofline --only" "--only needs a value" "$b/bench_roofline" --only
expect2 "bench_roofline --isa" "--isa needs a value" "$b/bench_roofline" --isa

# bench_gemm's lists: an empty or repeated item, a list over 255 characters; --samples gives its range
expect2 "bench_gemm --threads 1,1" "--threads 1,1: lists 1 twice" "$b/bench_gemm" --threads 1,1
expect2 "bench_gemm --sizes 256," "--sizes 256,: has an empty item" "$b/bench_gemm" --sizes 256,
expect2 "bench_gemm --sizes ,256" "--sizes ,256: has an empty item" "$b/bench_gemm" --sizes ,256
expect2 "bench_gemm --sizes of 279 characters" "is longer than 255 characters" \
  "$b/bench_gemm" --sizes "$(printf '256,%.0s' {1..69})256"
expect2 "bench_gemm --samples 1001" "--samples wants an integer in 9\.\.1000" "$b/bench_gemm" --samples 1001

# --min-time 0 (sub-resolution samples)
expect2 "bench_gemm --min-time 0" "--min-time wants seconds in \[1e-6, 10\]" \
  "$b/bench_gemm" --sizes 64 --no-ml --prec dp --threads 1 --min-time 0

# one thread: nothing to reduce across (no table of nan)
expect2 "bench_allreduce on one thread" "one thread: nothing to reduce across.*needs >= 2 threads" \
  env OMP_NUM_THREADS=1 "$b/bench_allreduce"

# more threads than the affinity mask's CPUs
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
  expect2 "bench_gemm --threads 2 on one CPU" "--threads 2 is more than the 1 CPUs" \
    taskset -c 0 "$b/bench_gemm" --sizes 64 --no-ml --prec dp --threads 1,2
  expect2 "bench_allreduce OMP_NUM_THREADS=2 on one CPU" "OMP_NUM_THREADS=2 is more than the 1 CPUs" \
    env OMP_NUM_THREADS=2 taskset -c 0 "$b/bench_allreduce"
  expect2 "bench_allreduce on one CPU" "one thread: nothing to reduce across" \
    env -u OMP_NUM_THREADS taskset -c 0 "$b/bench_allreduce"
else
  echo "note: taskset not usable, the one-CPU checks are left out"
fi

# sizes outside 256..4096 are printed, not judged: no MET/MISSED on the square line; a
# --min-time below 1000x the timer's resolution is raised to it, and the header says so
if timeout 60 "$b/bench_gemm" --sizes 64 --no-ml --prec dp --threads 1 --samples 9 \
     --min-time 1e-6 >"$tmp/out" 2>"$tmp/err"; then
  grep -Eq "samples per variant, >= (.* \(--min-time raised to 1000x the timer's resolution\)|1e-06 s each);" \
    "$tmp/out" || { fail "bench_gemm --min-time 1e-6: neither kept nor raised with a note:"; grep samples "$tmp/out"; }
  sq=$(grep "^  square" "$tmp/out")
  if ! grep -q "^64^3" "$tmp/out" || ! grep -q "outside 256..4096 printed, not judged" <<<"$sq" ||
     grep -Eq "MET|MISSED" <<<"$sq" || grep -qi nan "$tmp/out"; then
    fail "bench_gemm --sizes 64 judged a size outside the targets' domain:"; cat "$tmp/out"
  else
    echo "ok: bench_gemm --sizes 64: $sq"
  fi
else
  fail "bench_gemm --sizes 64: rc=$?"; cat "$tmp/err"
fi

# bench_gate in a checkout whose path has a blank, a quote and a '$(', against a stand-in
# nodescale that logs what it was run with: the slowed wrapper reaches it with the injected
# slowdown, and the temporary folder is gone after a run, after a failing bench and after an
# unknown kernel (refused before the folder is made).
d="$tmp/a b\$(false)'q"
mkdir -p "$d/bin"
cat >"$d/bin/nodescale" <<'EOF'
#!/bin/sh
case "$1" in
bench)
  while [ $# -gt 1 ]; do
    [ "$1" = --json ] && { echo "dir $(dirname "$2")" >>"$FAKE_LOG"; echo '{}' >"$2"; }
    shift
  done
  [ -z "${FAKE_FAIL:-}" ]; exit $? ;;
gate)
  if [ "$5" = --ab ]; then "$7" probe || exit 3; fi
  echo '{"benchmarks":[{"ratio":1.0}]}' >"$4"
  exit 0 ;;
probe) echo "probe ${NODESCALE_INJECT_SLOWDOWN:-unset}" >>"$FAKE_LOG"; exit 0 ;;
esac
exit 3
EOF
chmod +x "$d/bin/nodescale"
gone() { # every folder the log names is removed
  local dir
  while read -r dir; do [ -e "$dir" ] && { fail "$1: $dir left behind"; return; }; done \
    < <(sed -n 's/^dir //p' "$tmp/log" | sort -u)
  grep -q "^dir " "$tmp/log" || fail "$1: the stand-in logged no folder"
}
: >"$tmp/log"
if (cd "$d" && FAKE_LOG="$tmp/log" timeout 20 "$b/bench_gate" --kernel stream_triad \
      --iterations 1) >"$tmp/out" 2>"$tmp/err"; then
  grep -q "^probe stream_triad:0.1$" "$tmp/log" ||
    { fail "bench_gate: the slowed wrapper did not run nodescale with the slowdown:"; cat "$tmp/log" "$tmp/err"; }
  gone "bench_gate run"
  echo "ok: bench_gate in '$d': wrapper ran, folder removed"
else
  fail "bench_gate in '$d': rc=$?"; cat "$tmp/err"
fi
: >"$tmp/log"
(cd "$d" && FAKE_LOG="$tmp/log" FAKE_FAIL=1 timeout 20 "$b/bench_gate" --kernel stream_triad \
   --iterations 1) >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || { fail "bench_gate with a failing bench: rc=$rc, want 2"; cat "$tmp/err"; }
gone "bench_gate with a failing bench"
echo "ok: bench_gate with a failing bench: exit 2, folder removed"
(cd "$d" && expect2 "bench_gate --kernel nosuch" "unknown kernel 'nosuch'" \
   "$b/bench_gate" --kernel nosuch --iterations 1)

echo "$fails failures"
[ $fails -eq 0 ]
