#!/usr/bin/env bash
# A results file whose cache list has a size of 0 is refused by every reader
# (ns_results_check). A machine whose hwloc reports a cache of unknown size (0; here a topology
# given by HWLOC_XMLFILE whose L3 is 0 bytes) must not write such a file: context.cpu.caches
# leaves that cache out, and roofline reads the file.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
command -v lstopo-no-graphics >/dev/null || { echo "skip: lstopo-no-graphics (hwloc) not installed"; exit 77; }
HWLOC_SYNTHETIC="pack:1 l3:1(size=33554432) l2:2(size=2097152) l1d:2(size=49152) core:2 pu:1" \
  lstopo-no-graphics --of xml >"$tmp/topo.xml" 2>/dev/null
grep -q 'cache_size="33554432"' "$tmp/topo.xml" || { echo "skip: lstopo wrote no L3 to edit"; exit 77; }
sed -i 's/cache_size="33554432"/cache_size="0"/' "$tmp/topo.xml"
HWLOC_XMLFILE=$tmp/topo.xml "$ns" bench dsum --n 4096 --threads 1 --samples 3 --min-time 0.001 \
  --json "$tmp/b.json" >"$tmp/out" 2>&1 || fail "bench: exit $?: $(tail -2 "$tmp/out")"
[ "$(jq '[.context.cpu.caches[] | select(.size_bytes == 0)] | length' "$tmp/b.json")" = 0 ] ||
  fail "a cache of 0 bytes recorded: $(jq -c .context.cpu.caches "$tmp/b.json")"
[ "$(jq '[.context.cpu.caches[] | .level] | sort' -c "$tmp/b.json")" = "[1,2]" ] ||
  fail "want the L1 and L2 only: $(jq -c .context.cpu.caches "$tmp/b.json")"
"$ns" roofline "$tmp/b.json" --no-plot --out "$tmp/r" >"$tmp/out" 2>&1 ||
  fail "roofline refused the file: $(tail -1 "$tmp/out")"
# Two caches left out (L2 and L3 smaller than L1): one warning per process, not one per cache.
HWLOC_SYNTHETIC="pack:1 l3:1(size=16384) l2:2(size=32768) l1d:2(size=49152) core:2 pu:1" \
  lstopo-no-graphics --of xml >"$tmp/topo2.xml" 2>/dev/null
HWLOC_XMLFILE=$tmp/topo2.xml "$ns" bench dsum --n 4096 --threads 1 --samples 3 --min-time 0.001 \
  --json "$tmp/b2.json" >"$tmp/out2" 2>&1 || fail "bench (2 dropped): exit $?: $(tail -2 "$tmp/out2")"
[ "$(jq '.context.cpu.caches_dropped | length' "$tmp/b2.json")" = 2 ] ||
  fail "want 2 caches dropped: $(jq -c .context.cpu.caches_dropped "$tmp/b2.json")"
[ "$(grep -c 'warning: L[0-9] cache' "$tmp/out2")" = 1 ] ||
  fail "want one warning: $(grep -c 'warning: L[0-9] cache' "$tmp/out2")"
[ $fails -eq 0 ] && echo "context_cache_sizes: ok"
[ $fails -eq 0 ]
