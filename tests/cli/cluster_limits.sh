#!/usr/bin/env bash
# nodescale cluster at its chip-count limit: 2^30 chips in one DP group of one-chip domains ends
# (it once looped forever in the all-reduce's ⌊log2 n⌋) with a finite row; the limit is stated
# when refused; counts of one read "1 chip".
set -uo pipefail
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. The largest accepted chip count, everything data-parallel across 2^30 one-chip domains.
big=1073741824
timeout 30 $ns cluster --preset h100-sxm --chips $big --tp 1 --pp 1 --cp 1 --dp $big \
  --global-batch-seqs $big --micro-batch-seqs 1 --domain-chips 1 --json "$tmp/big.json" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
  fail "cluster --chips $big -> rc=$rc (124: timed out): $(head -c 300 "$tmp/err")"
else
  python3 - "$tmp/big.json" <<'PY' || fail "cluster --chips 2^30: bad JSON row"
import json, math, sys
def bad(c): raise ValueError("non-finite JSON constant " + c)
d = json.load(open(sys.argv[1]), parse_constant=bad)
p = d["points"][0]
assert p["chips"] == 1 << 30 and p["dp"] == 1 << 30, p
assert all(math.isfinite(p[k]) and p[k] > 0 for k in ("step_s", "tokens_per_s", "mfu")), p
PY
  grep -q "scale-up: 1 chip at" "$tmp/out" || fail "header does not say 'scale-up: 1 chip at'"
fi

# 2. Above the limit: refused with the limit in the reason (exit 2, one line, nothing out).
for n in $((big + 1)) 2147483647; do
  $ns cluster --preset h100-sxm --chips $n >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ] \
     || ! grep -q "1\.\.1073741824" "$tmp/err"; then
    fail "cluster --chips $n -> rc=$rc: $(head -c 300 "$tmp/err")"
  fi
done

# 3. One chip is "1 chip" wherever a count is printed; several are "chips".
$ns cluster --preset h100-sxm --chips 1,8 --domain-chips 1 >"$tmp/out" 2>"$tmp/err" \
  || fail "cluster --chips 1,8 failed: $(head -c 300 "$tmp/err")"
grep -q "note: 1 chip: the preset layout" "$tmp/out" || fail "note does not say '1 chip:'"
grep -q "note: 8 chips: the preset layout" "$tmp/out" || fail "note does not say '8 chips:'"
grep -q "scaling against 1 chip (" "$tmp/out" || fail "scaling does not say 'against 1 chip'"
grep -Eq "(^|[^0-9])1 chips" "$tmp/out" && fail "output says '1 chips'"

[ $fails -eq 0 ] && echo "cluster limit checks ok"
exit $((fails > 0))
