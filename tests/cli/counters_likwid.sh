#!/usr/bin/env bash
# likwid marker regions: in a `make LIKWID=1` build, likwid-perfctr -m sees one
# region per kernel variant ("stream_triad_avx512", ...). Skips (77) with the reason when the
# binary is not a LIKWID build, likwid-perfctr is missing, or likwid cannot count on this CPU
# (no PMU, unsupported model, no MSR access), printing likwid's own message.
set -u
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v likwid-perfctr >/dev/null || { echo "skip: likwid-perfctr not installed"; exit 77; }
ldd $ns 2>/dev/null | grep -q liblikwid ||
  { echo "skip: bin/nodescale is not a LIKWID build (make clean && make LIKWID=1)"; exit 77; }
timeout 120 likwid-perfctr -m -g FLOPS_DP -C 0 $ns bench stream_triad --n 1000000 --threads 1 \
  >"$tmp/out" 2>&1
rc=$?
if grep -qE "Unsupported Processor|Cannot get access to MSRs|no PMU|Cannot access directory" \
    "$tmp/out"; then
  echo "skip: likwid cannot count here: $(grep -m1 -E 'ERROR|Cannot' "$tmp/out")"
  exit 77
fi
[ $rc -eq 0 ] || { echo "FAIL: likwid-perfctr rc=$rc"; tail -n 20 "$tmp/out"; exit 1; }
grep -q "Region stream_triad_" "$tmp/out" ||
  { echo "FAIL: no stream_triad_* marker region in likwid-perfctr output"; tail -n 30 "$tmp/out"; exit 1; }
grep -m1 "Region stream_triad_" "$tmp/out"
echo "ok: likwid marker region reported"
