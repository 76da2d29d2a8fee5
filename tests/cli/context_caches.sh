#!/usr/bin/env bash
# A results file whose cache list breaks the cache check every reader applies (a size of 0, a
# level not larger than the one below) is refused by every reader (ns_results_check), so a
# machine whose hwloc reports such caches must not write one: context.cpu.caches leaves them
# out, context.cpu.caches_dropped names them with the reason, one warning per process, and
# roofline and gate read the file. The topologies are given by HWLOC_SYNTHETIC / HWLOC_XMLFILE.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
command -v lstopo-no-graphics >/dev/null || { echo "skip: lstopo-no-graphics (hwloc) not installed"; exit 77; }

# topo SPEC XML: the synthetic topology SPEC as hwloc XML.
topo() { HWLOC_SYNTHETIC="$1" lstopo-no-graphics --of xml >"$2" 2>/dev/null; }
# bench_on XML JSON ERR: a small `bench --json` on the topology XML, stderr in ERR.
bench_on() {
  HWLOC_XMLFILE=$1 "$ns" bench dsum --n 4096 --threads 1 --samples 3 --min-time 0.001 \
    --json "$2" >"$tmp/out" 2>"$3" || fail "bench on $(basename "$1"): exit $?: $(tail -2 "$3")"
}
# readable JSON: roofline and gate take the file.
readable() {
  "$ns" roofline "$1" --no-plot --out "$tmp/r-$(basename "$1" .json)" >"$tmp/out" 2>&1 ||
    fail "roofline refused $(basename "$1"): $(tail -1 "$tmp/out")"
  "$ns" gate "$1" "$1" >"$tmp/out" 2>&1
  [ $? -ne 2 ] || fail "gate refused $(basename "$1"): $(tail -1 "$tmp/out")"
}

# An L3 of unknown size (0 bytes): left out.
topo "pack:1 l3:1(size=33554432) l2:2(size=2097152) l1d:2(size=49152) core:2 pu:1" "$tmp/zero.xml"
grep -q 'cache_size="33554432"' "$tmp/zero.xml" || { echo "skip: lstopo wrote no L3 to edit"; exit 77; }
sed -i 's/cache_size="33554432"/cache_size="0"/' "$tmp/zero.xml"
bench_on "$tmp/zero.xml" "$tmp/zero.json" "$tmp/zero.err"
[ "$(jq '[.context.cpu.caches[] | select(.size_bytes == 0)] | length' "$tmp/zero.json")" = 0 ] ||
  fail "a cache of 0 bytes recorded: $(jq -c .context.cpu.caches "$tmp/zero.json")"
[ "$(jq -c '[.context.cpu.caches[] | .level] | sort' "$tmp/zero.json")" = "[1,2]" ] ||
  fail "zero: want the L1 and L2 only: $(jq -c .context.cpu.caches "$tmp/zero.json")"
readable "$tmp/zero.json"

# An L3 smaller than the L2: left out, named with its reason, one warning.
topo "pack:1 l3:1(size=2097152) l2:2(size=4194304) l1d:2(size=49152) core:2 pu:1" "$tmp/order.xml"
grep -q 'cache_size="2097152"' "$tmp/order.xml" || { echo "skip: lstopo wrote no L3"; exit 77; }
bench_on "$tmp/order.xml" "$tmp/order.json" "$tmp/order.err"
[ "$(jq -c '[.context.cpu.caches[] | .level] | sort' "$tmp/order.json")" = "[1,2]" ] ||
  fail "order: want the L1 and L2 only: $(jq -c .context.cpu.caches "$tmp/order.json")"
[ "$(jq -c '[.context.cpu.caches_dropped[] | [.level, .size_bytes]]' "$tmp/order.json")" = "[[3,2097152]]" ] ||
  fail "want the L3 in caches_dropped: $(jq -c .context.cpu.caches_dropped "$tmp/order.json")"
jq -e '.context.cpu.caches_dropped[0].reason | test("not larger than L2")' "$tmp/order.json" >/dev/null ||
  fail "caches_dropped gives no reason: $(jq -c .context.cpu.caches_dropped "$tmp/order.json")"
[ "$(grep -c 'warning: L3 cache' "$tmp/order.err")" = 1 ] || fail "want one warning: $(cat "$tmp/order.err")"
readable "$tmp/order.json"

# Two caches left out (L2 and L3 smaller than L1): one warning per process, not one per cache.
topo "pack:1 l3:1(size=16384) l2:2(size=32768) l1d:2(size=49152) core:2 pu:1" "$tmp/two.xml"
bench_on "$tmp/two.xml" "$tmp/two.json" "$tmp/two.err"
[ "$(jq '.context.cpu.caches_dropped | length' "$tmp/two.json")" = 2 ] ||
  fail "want 2 caches dropped: $(jq -c .context.cpu.caches_dropped "$tmp/two.json")"
[ "$(grep -c 'warning: L[0-9] cache' "$tmp/two.err")" = 1 ] ||
  fail "want one warning: $(grep -c 'warning: L[0-9] cache' "$tmp/two.err")"

[ $fails -eq 0 ] && echo "context_caches: ok"
[ $fails -eq 0 ]
