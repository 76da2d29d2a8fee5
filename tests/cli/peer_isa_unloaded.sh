#!/usr/bin/env bash
# `bench dgemm --isa openblas` when OpenBLAS is not loaded (here: an address-space limit too
# small for its start-up buffers) said "no variant for ISA 'openblas' that this CPU can run"
# (trial 13, defect 10): it names the peer's status instead, exit 2, nothing written.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

[ -e /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0 ] ||
    [ -e /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0 ] ||
    { echo "skip: OpenBLAS not installed"; exit 77; }
(ulimit -v 300000; unset OPENBLAS_NUM_THREADS OMP_NUM_THREADS; timeout -k 5 60 "$ns" bench dgemm \
    --isa openblas --n 64 --threads 1 --samples 1 --min-time 0.001 --json "$tmp/p.json") \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
   ! grep -q "^nodescale bench: error: dgemm --isa openblas: OpenBLAS not loaded: its start-up reserves 128 MiB per thread" "$tmp/err" ||
   [ -e "$tmp/p.json" ]; then
    fail "bench dgemm --isa openblas under ulimit -v 300000: exit $rc: $(cat "$tmp/err")"
fi
[ $fails -eq 0 ] && echo "peer_isa_unloaded: all passed" || echo "peer_isa_unloaded: $fails failed"
[ $fails -eq 0 ]
