#!/usr/bin/env bash
# GEMM block sizes on machines without an L2 or an L3 (HWLOC_SYNTHETIC topologies): every level
# hwloc reports is used and recorded, only a missing one is defaulted, block_sizes_from names
# it, a missing level is recorded as null (never an invented size), and NC keeps the 256 columns
# the threading rule assumes however small the L3.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

# ctx TOPOLOGY: a 1-thread DGEMM bench there (its context.gemm has dp and sp) into $tmp/r.json
ctx() {
  HWLOC_SYNTHETIC="$1" "$ns" bench dgemm --n 64 --threads 1 --samples 3 --min-time 0.001 \
    --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err" || { fail "$1: exit $?: $(head -3 "$tmp/err")"; return 1; }
}
check() { # WHAT JQ-EXPRESSION (true = pass)
  if [ "$(jq -r "$2" "$tmp/r.json")" = true ]; then echo "ok: $1"; else
    fail "$1: $(jq -c '.context.gemm.dp, .context.gemm.sp' "$tmp/r.json")"; fi
}

if ctx "pack:1 l3:1(size=64MiB) l1d:2(size=64KiB) core:1 pu:1"; then
  check "no L2: L1d and L3 used, L2 defaulted and named" \
    '[.context.gemm.dp, .context.gemm.sp] | all(.block_sizes_from == "hwloc caches; L2 missing: default 1 MiB"
       and .l1d_bytes == 65536 and .l2_bytes == null and .l3_bytes == 67108864)'
fi
if ctx "pack:1 l2:2(size=2MiB) l1d:1(size=48KiB) core:1 pu:1"; then
  check "no L3: l3_bytes null, NC from 4x L2" \
    '[.context.gemm.dp, .context.gemm.sp] | all(.block_sizes_from == "hwloc caches; no L3: NC from 4x L2"
       and .l1d_bytes == 49152 and .l2_bytes == 2097152 and .l3_bytes == null and .nc >= 256)'
fi
if ctx "pack:1 l2:1(size=256KiB) l1d:2(size=48KiB) core:1 pu:1"; then
  check "256 KiB LLC: NC kept at the 256-column floor (a multiple of NR)" \
    '[.context.gemm.dp, .context.gemm.sp] | all(.nc >= 256 and .nc % .nr == 0 and .l3_bytes == null
       and (.block_sizes_from | endswith("; NC raised to the 256-column floor")))'
fi
if ctx "pack:1 core:2 pu:1"; then
  check "no caches at all: defaults named, no size recorded" \
    '[.context.gemm.dp, .context.gemm.sp] | all((.block_sizes_from | startswith("defaults (hwloc reported no cache sizes)"))
       and .l1d_bytes == null and .l2_bytes == null and .l3_bytes == null)'
fi

[ $fails -eq 0 ] && echo "gemm caches: all passed" || echo "gemm caches: $fails failed"
[ $fails -eq 0 ]
