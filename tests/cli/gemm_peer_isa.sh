#!/usr/bin/env bash
# With NODESCALE_ISA narrowing the own kernels, OpenBLAS is loaded with a matching
# core type (avx2: Haswell; scalar: Prescott, its narrowest) and records it; a user's
# OPENBLAS_CORETYPE is kept; each peer records the ISA its kernels use (context.gemm.peers[].isa),
# and the roofline gives a peer wider than the run's compute ceilings no roof rather than a
# fraction above 1 against a narrower one.
set -u
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

peer() { # ENV... : context.gemm.peers[] of a 1-thread DGEMM bench, one compact line per peer
  env "$@" "$ns" bench dgemm --n 64 --threads 1 --samples 3 --min-time 0.001 --json "$tmp/r.json" \
    >"$tmp/out" 2>"$tmp/err" || { fail "$*: exit $?: $(head -3 "$tmp/err")"; return 1; }
}
expect() { # WHAT JQ-EXPRESSION
  if [ "$(jq -r "$2" "$tmp/r.json")" = true ]; then echo "ok: $1"; else
    fail "$1: $(jq -c '.context.gemm.peers' "$tmp/r.json")"; fi
}
ob='(.context.gemm.peers[] | select(.name == "openblas"))'

if ! grep -qw avx512f /proc/cpuinfo; then
  echo "note: no AVX-512 here: the forced-ISA core types are not checked"
elif peer NODESCALE_ISA=avx512 && [ "$(jq -r "$ob.available" "$tmp/r.json")" != true ]; then
  echo "note: OpenBLAS not loaded here ($(jq -r "$ob.status" "$tmp/r.json")): core types not checked"
else
  expect "avx512: SkylakeX" "$ob | .isa == \"avx512\" and (.version | test(\" SkylakeX \"))"
  peer NODESCALE_ISA=avx2 && expect "avx2: Haswell set and recorded" \
    "$ob | .isa == \"avx2\" and (.version | test(\" Haswell \")) and (.note | startswith(\"OPENBLAS_CORETYPE=Haswell set for loading: the own kernels run avx2\"))"
  peer NODESCALE_ISA=scalar && expect "scalar: Prescott (SSE3) set and recorded" \
    "$ob | .isa == \"sse\" and (.version | test(\" Prescott \")) and (.note | test(\"OPENBLAS_CORETYPE=Prescott\"))"
  peer NODESCALE_ISA=avx2 OPENBLAS_CORETYPE=SkylakeX && expect "the user's OPENBLAS_CORETYPE kept" \
    "$ob | .isa == \"avx512\" and .note == \"OPENBLAS_CORETYPE=SkylakeX set by the user (kept)\""
  blis='(.context.gemm.peers[] | select(.name == "blis"))'
  if [ "$(jq -r "$blis.available" "$tmp/r.json")" = true ]; then
    expect "BLIS records its configuration's ISA" \
      "$blis | (.version | test(\"config haswell\") | not) or .isa == \"avx2\""
  fi
fi

# The roofline: the 1-thread fixture with its compute ceilings relabelled avx2 (a NODESCALE_ISA=avx2
# run) and OpenBLAS recorded as running avx512: no roof for it (and for the own avx512 kernel),
# while BLIS (avx2) keeps its fraction against the avx2 roof.
jq '(.ceilings.compute[] | select(.isa == "avx512")).isa = "avx2"
    | (.context.gemm.peers[] | select(.name == "openblas")).isa = "avx512"
    | (.context.gemm.peers[] | select(.name == "blis")).isa = "avx2"' \
  tests/fixtures/roofline/quick_1thread.json >"$tmp/q.json"
if "$ns" roofline "$tmp/q.json" --out "$tmp/rl" --no-plot >"$tmp/out" 2>"$tmp/err"; then
  r="$tmp/rl/results.json"
  ok=$(jq -r '[.results[] | select(.id == "dgemm/openblas/dp/t1/m=256,n=256,k=256")][0]
    | .fraction_of_roof == null and .peer_isa == "avx512"
      and (.roof_status | startswith("no roof: it runs avx512 kernels (context.gemm.peers), wider than the widest FMA-only compute ceiling for dp at 1 thread (avx2)"))' "$r")
  [ "$ok" = true ] && echo "ok: roofline: OpenBLAS at avx512 not judged against the avx2 roof" \
    || fail "roofline openblas: $(jq -c '.results[] | select(.id == "dgemm/openblas/dp/t1/m=256,n=256,k=256") | {fraction_of_roof, peer_isa, roof_status}' "$r")"
  ok=$(jq -r '[.results[] | select(.id == "dgemm/blis/dp/t1/m=256,n=256,k=256")][0]
    | .fraction_of_roof > 0 and .peer_isa == "avx2" and .roof_status == "ok"' "$r")
  [ "$ok" = true ] && echo "ok: roofline: BLIS at avx2 judged against the avx2 roof" \
    || fail "roofline blis: $(jq -c '.results[] | select(.id == "dgemm/blis/dp/t1/m=256,n=256,k=256") | {fraction_of_roof, peer_isa, roof_status}' "$r")"
else
  fail "roofline: exit $?: $(head -3 "$tmp/err")"
fi

# A NODESCALE_ISA=scalar run: its "scalar" ceilings are baseline SSE2 (2 DP lanes), as wide as
# OpenBLAS's Prescott ("sse"), which is judged; BLIS's AVX2 kernels get no roof.
jq '(.ceilings.compute[] | select(.isa == "avx512")).isa = "scalar"
    | (.context.gemm.peers[] | select(.name == "openblas")).isa = "sse"
    | (.context.gemm.peers[] | select(.name == "blis")).isa = "avx2"' \
  tests/fixtures/roofline/quick_1thread.json >"$tmp/s.json"
if "$ns" roofline "$tmp/s.json" --out "$tmp/rls" --no-plot >"$tmp/out" 2>"$tmp/err"; then
  ok=$(jq -r '[.results[] | select(.family == "gemm")]
    | (map(select(.isa == "openblas")) | length > 0 and all(.fraction_of_roof > 0 and .peer_isa == "sse"))
      and (map(select(.isa == "blis")) | length > 0 and all(.fraction_of_roof == null
           and (.roof_status | startswith("no roof: it runs avx2 kernels"))))' "$tmp/rls/results.json")
  [ "$ok" = true ] && echo "ok: roofline, scalar run: OpenBLAS (sse) judged, BLIS (avx2) not" \
    || fail "roofline scalar: $(jq -c '.results[] | select(.family == "gemm" and .isa != "avx512") | {id, fraction_of_roof, peer_isa, roof_status}' "$tmp/rls/results.json")"
else
  fail "roofline (scalar): exit $?: $(head -3 "$tmp/err")"
fi

[ $fails -eq 0 ] && echo "gemm peer isa: all passed" || echo "gemm peer isa: $fails failed"
[ $fails -eq 0 ]
