#!/usr/bin/env bash
# What each peak kernel executes, in instruction terms: `nodescale list` names
# it per variant, and a result carries it as `executes`; the scalar ISA's fma ceiling is packed
# SSE2 multiply then add (no FMA), the scalar_fma mix scalar FMA instructions. Names, ISAs, mixes
# and ids stay as they were (NODESCALE_ISA=scalar, older results files, gate ids).
set -euo pipefail
cd "$(dirname "$0")/../.."
need_jq=1
. tests/cli/lib/common.sh

$ns list >"$tmp/list.txt"
grep -qE '^  peak_dp_fma/scalar +fma +no FMA: mulpd then addpd on xmm \(packed SSE2' "$tmp/list.txt" ||
  { echo "list does not say the scalar ISA's fma peak is SSE2 mulpd + addpd"; exit 1; }
grep -qE '^  peak_sp_fma/scalar +fma +no FMA: mulps then addps' "$tmp/list.txt"
grep -qE '^  peak_dp_scalar_fma/avx2 +scalar_fma +scalar FMA: vfmadd\*sd' "$tmp/list.txt" ||
  { echo "list does not say peak_dp_scalar_fma runs scalar FMA instructions"; exit 1; }
grep -q "ISA \`scalar\` is baseline x86-64, not scalar instructions" "$tmp/list.txt"
# The variants table keeps its names and ISAs.
grep -qE '^peak_dp_fma +peak +dp +fma .* scalar\*' "$tmp/list.txt"

NODESCALE_ISA=scalar $ns bench peak_dp_fma --threads 1 --samples 3 --min-time 0.001 \
  --json "$tmp/b.json" >/dev/null
jq -e '.results[0] | .id == "peak_dp_fma/scalar/dp/t1/n=4096" and .isa == "scalar"
       and .mix == "fma" and (.executes | startswith("no FMA: mulpd then addpd"))' \
  "$tmp/b.json" >/dev/null || { echo "result lacks executes, or its id/isa/mix changed"; exit 1; }
echo "peak executes ok"
