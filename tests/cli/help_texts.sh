#!/usr/bin/env bash
# Help texts true to the code: every bin/bench/bench_* answers --help (a usage line and its
# options on stdout, exit 0, within seconds: it must not start measuring); `nodescale bench
# --help` gives --threads' default as OMP_NUM_THREADS, else the affinity mask; `nodescale fleet
# --help` says the ceilings, the sweep and GEMM run whatever --kernels names, and --no-collectives
# says what it skips.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

n=0
for b in bin/bench/bench_*; do
  [ -x "$b" ] || continue
  n=$((n + 1))
  timeout 20 "$b" --help >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || { fail "$b --help: exit $rc"; cat "$tmp/err"; continue; }
  head -1 "$tmp/out" | grep -q "^usage: $(basename "$b")" || fail "$b --help: no usage line"
  [ "$(wc -l <"$tmp/out")" -ge 2 ] || fail "$b --help: no options or description"
  timeout 20 "$b" -h >/dev/null 2>&1 || fail "$b -h: exit $?"
done
[ $n -ge 7 ] || fail "only $n bench binaries built (make all)"

"$ns" bench --help >"$tmp/bench" 2>&1 || fail "nodescale bench --help: exit $?"
grep -A1 -- "--threads" "$tmp/bench" | tr -s ' \n' ' ' | grep -q "default: OMP_NUM_THREADS, else the CPUs in the affinity mask" ||
  fail "bench --help: --threads default does not name OMP_NUM_THREADS first"
"$ns" fleet --help >"$tmp/fleet" 2>&1 || fail "nodescale fleet --help: exit $?"
grep -A1 -- "--kernels" "$tmp/fleet" | tr -s ' \n' ' ' | grep -q "the ceilings, the sweep and GEMM always run" ||
  fail "fleet --help: --kernels does not say the ceilings, sweep and GEMM always run"
grep -A1 -- "--no-collectives" "$tmp/fleet" | tr -s ' \n' ' ' | grep -q "skip the MPI collectives (without it they run" ||
  fail "fleet --help: --no-collectives text"

[ $fails -eq 0 ] && echo "help_texts: ok ($n bench binaries)"
[ $fails -eq 0 ]
