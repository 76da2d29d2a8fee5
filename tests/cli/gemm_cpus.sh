#!/usr/bin/env bash
# A 2-thread GEMM result records the CPU of each of its threads (GEMM opens its own parallel
# region; results.json's cpu_of_thread once held the calling thread's CPU alone).
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
if [ "$(nproc)" -lt 2 ]; then
    echo "skip: fewer than 2 CPUs"
    exit 77
fi
fails=0
for k in dgemm sgemm; do
    $ns bench $k --n 256 --threads 2 --samples 2 --min-time 0.001 --json - 2>/dev/null |
        python3 -c '
import json, os, sys
r = json.load(sys.stdin)["results"][0]
cpus, n = r["cpu_of_thread"], os.cpu_count()
assert r["threads"] == 2 and len(cpus) == 2, cpus
assert all(isinstance(c, int) and 0 <= c < n for c in cpus), cpus
' || { echo "FAIL: $k --threads 2: cpu_of_thread is not 2 valid CPUs"; fails=$((fails + 1)); }
done
[ $fails -eq 0 ] && echo "gemm cpu_of_thread ok"
exit $((fails > 0))
