#!/usr/bin/env bash
# A machine whose hwloc reports caches that break the cache check every reader applies (here a
# topology given by HWLOC_SYNTHETIC whose L3 is smaller than its L2) must still write a results
# file its own readers take: the writer leaves the L3 out of context.cpu.caches, names it in
# context.cpu.caches_dropped with the reason, warns once on stderr, and roofline and gate read
# the file.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh
command -v lstopo-no-graphics >/dev/null || { echo "skip: lstopo-no-graphics (hwloc) not installed"; exit 77; }
HWLOC_SYNTHETIC="pack:1 l3:1(size=2097152) l2:2(size=4194304) l1d:2(size=49152) core:2 pu:1" \
  lstopo-no-graphics --of xml >"$tmp/topo.xml" 2>/dev/null
grep -q 'cache_size="2097152"' "$tmp/topo.xml" || { echo "skip: lstopo wrote no L3"; exit 77; }
HWLOC_XMLFILE=$tmp/topo.xml "$ns" bench dsum --n 4096 --threads 1 --samples 3 --min-time 0.001 \
  --json "$tmp/b.json" >"$tmp/out" 2>"$tmp/err" || fail "bench: exit $?: $(tail -2 "$tmp/err")"
[ "$(jq -c '[.context.cpu.caches[] | .level] | sort' "$tmp/b.json")" = "[1,2]" ] ||
  fail "want the L1 and L2 only: $(jq -c .context.cpu.caches "$tmp/b.json")"
[ "$(jq -c '[.context.cpu.caches_dropped[] | [.level, .size_bytes]]' "$tmp/b.json")" = "[[3,2097152]]" ] ||
  fail "want the L3 in caches_dropped: $(jq -c .context.cpu.caches_dropped "$tmp/b.json")"
jq -e '.context.cpu.caches_dropped[0].reason | test("not larger than L2")' "$tmp/b.json" >/dev/null ||
  fail "caches_dropped gives no reason: $(jq -c .context.cpu.caches_dropped "$tmp/b.json")"
[ "$(grep -c 'warning: L3 cache' "$tmp/err")" = 1 ] || fail "want one warning: $(cat "$tmp/err")"
"$ns" roofline "$tmp/b.json" --no-plot --out "$tmp/r" >"$tmp/out" 2>&1 ||
  fail "roofline refused the file: $(tail -1 "$tmp/out")"
"$ns" gate "$tmp/b.json" "$tmp/b.json" >"$tmp/out" 2>&1
[ $? -ne 2 ] || fail "gate refused the file: $(tail -1 "$tmp/out")"
[ $fails -eq 0 ] && echo "context_cache_order: ok"
[ $fails -eq 0 ]
