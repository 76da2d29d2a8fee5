#!/usr/bin/env bash
# Under an address-space limit too small for OpenBLAS's start-up buffers (128 MiB per thread),
# OpenBLAS 0.3.21's constructor retries a failed mmap forever: `bench dgemm --n 3000` under
# ulimit -v 300000 spun 9 minutes in dlopen, while recording the peers in its results, and
# ignored SIGTERM. OpenBLAS is now not loaded there, with the reason in the peer's status. (A
# second SIGINT/SIGTERM ends a measuring command at once: tests/cli/stop_signal_twice.sh.)
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

(ulimit -v 300000; timeout -k 5 120 "$ns" bench dgemm --n 2500 --threads 1 --samples 1 \
    --min-time 0.001 --json "$tmp/b.json") >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "bench dgemm under ulimit -v 300000: exit $rc: $(tail -2 "$tmp/out")"
if [ -f "$tmp/b.json" ]; then
    st=$(jq -r '.context.gemm.peers[] | select(.name == "openblas") | .status' "$tmp/b.json")
    case $st in "not loaded: its start-up reserves 128 MiB per thread"*) ;;
        *) fail "openblas status under ulimit -v 300000: '$st'" ;; esac
fi
# OpenBLAS reserves a buffer per thread it will use and one more at the first call (a 1-thread
# cblas_dgemm under ulimit -v 300000 hung in blas_memory_alloc): with one thread everywhere,
# 600000 KiB is room enough and it is loaded; 300000 KiB is not, and the command ends.
(ulimit -v 600000; OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 timeout -k 5 120 "$ns" bench dgemm \
    --n 300 --threads 1 --samples 3 --json "$tmp/one.json") >"$tmp/one.out" 2>&1 ||
    fail "bench dgemm under ulimit -v 600000, one thread: $(tail -2 "$tmp/one.out")"
[ -f "$tmp/one.json" ] && st=$(jq -r '.context.gemm.peers[] | select(.name == "openblas") |
    .status' "$tmp/one.json") && [ "$st" = ok ] ||
    fail "one thread under ulimit -v 600000: openblas status '${st:-}'"
(ulimit -v 300000; OMP_NUM_THREADS=1 timeout -k 5 60 "$ns" bench dgemm --isa openblas --n 256 \
    --samples 3 --min-time 0.001) >"$tmp/ob.out" 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 2 ] ||
    fail "bench dgemm --isa openblas under ulimit -v 300000: exit $rc (hung?): $(tail -1 "$tmp/ob.out")"
grep -q "cv nan" "$tmp/out" && fail "one sample printed 'cv nan': $(cat "$tmp/out")"

[ $fails -eq 0 ] && echo "openblas_rlimit: all passed" || echo "openblas_rlimit: $fails failed"
[ $fails -eq 0 ]
