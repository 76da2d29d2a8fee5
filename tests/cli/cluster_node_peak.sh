#!/usr/bin/env bash
# nodescale cluster --node as the chip takes the compute peak as it takes the DRAM bandwidth: the
# highest FMA ceiling the roofline does not flag suspect (roofline.ceilings_used.compute[]),
# else the suspect one, and either way a warning names the suspect ceiling and why:
# with the other node warnings (stdout, or stderr and results under --json -), for the run
# precision only, and not when --peak-tflop-per-s replaced that peak.
set -euo pipefail
cd "$(dirname "$0")/../.."
ns=bin/nodescale
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The synthetic node with its GEMMs measured in fp32 as well (--precision fp32 needs an fp32
# GEMM table).
fx=$tmp/fx.json
jq '.results += [.results[] | select(.family == "gemm") | .name = "sgemm" | .precision = "sp"
      | .id |= sub("^dgemm/(?<a>[^/]*)/dp/"; "sgemm/\(.a)/sp/")]' \
  tests/fixtures/results_synthetic.json >"$fx"
why="its measurement was disturbed (CV 46%)"

# No ceiling flagged: the highest FMA ceiling, and no warning.
$ns cluster --node $fx --chips 8 --precision fp32 >"$tmp/plain.txt" 2>"$tmp/plain.err"
grep -q "fp32 dense peak 400 GFLOP/s per chip" "$tmp/plain.txt"
if grep -q "suspect" "$tmp/plain.err" "$tmp/plain.txt"; then
  echo "a warning without a suspect ceiling"; exit 1; fi

# The 2-thread AVX-512 SP FMA ceiling flagged suspect, a trusted 2-thread AVX2 one beside it: the
# trusted one is the peak, and the warning names the one passed over and why.
jq --arg why "$why" '.ceilings.compute += [{"name": "peak_fma", "precision": "sp", "isa": "avx2",
      "mix": "fma", "threads": 2, "gflops": 250.0}]
    | .roofline = {"ceilings_used": {"compute": [{"name": "peak_fma", "precision": "sp",
      "isa": "avx512", "mix": "fma", "threads": 2, "gflops": 400.0, "suspect": true,
      "suspect_reason": $why}]}}' $fx >"$tmp/one.json"
$ns cluster --node "$tmp/one.json" --chips 8 --precision fp32 >"$tmp/one.txt" 2>"$tmp/one.err"
grep -q "fp32 dense peak 250 GFLOP/s per chip" "$tmp/one.txt" ||
  { echo "a suspect compute ceiling was taken over a trusted one"; cat "$tmp/one.txt"; exit 1; }
grep -qF "warning: the chip's fp32 peak is the compute ceiling peak_fma (avx2, 2 threads, 250 GFLOP/s), not the higher peak_fma (avx512, 2 threads, 400 GFLOP/s), which the roofline flags suspect ($why); if that one is right" "$tmp/one.txt" ||
  { echo "no warning for the suspect ceiling passed over"; cat "$tmp/one.txt"; exit 1; }
if grep -q "fp64 peak" "$tmp/one.txt" "$tmp/one.err"; then echo "a warning for an unflagged precision"; exit 1; fi
# A trusted ceiling on fewer threads than the GEMMs is no peak for them (a 1-thread peak under
# 2-thread GEMMs gave HFU 122%): the suspect 2-thread one is taken, with a warning.
jq --arg why "$why" '.ceilings.compute += [{"name": "peak_fma", "precision": "sp", "isa": "avx512",
      "mix": "fma", "threads": 1, "gflops": 250.0}]
    | .roofline = {"ceilings_used": {"compute": [{"name": "peak_fma", "precision": "sp",
      "isa": "avx512", "mix": "fma", "threads": 2, "gflops": 400.0, "suspect": true,
      "suspect_reason": $why}]}}' $fx >"$tmp/t1.json"
$ns cluster --node "$tmp/t1.json" --chips 8 --precision fp32 >"$tmp/t1.txt" 2>&1
grep -q "fp32 dense peak 400 GFLOP/s per chip" "$tmp/t1.txt" && grep -q "flags suspect" "$tmp/t1.txt" ||
  { echo "a 1-thread peak taken for 2-thread GEMMs"; cat "$tmp/t1.txt"; exit 1; }
# A long reason is cut, at a space and marked, never the advice after it.
long=$(for i in $(seq 40); do printf '%s; ' "$why"; done)
jq --arg why "$long" '.roofline.ceilings_used.compute[0].suspect_reason = $why' "$tmp/one.json" >"$tmp/long.json"
$ns cluster --node "$tmp/long.json" --chips 8 --precision fp32 --json - 2>/dev/null |
  jq -r .node.peak_warning >"$tmp/long.txt"
grep -q " \[\.\.\.\]); if that one is right the chip is underrated: measure again on a quiet node, or give --peak-tflop-per-s$" "$tmp/long.txt" ||
  { echo "t15#18: the long peak warning lost its advice or its cut mark"; cat "$tmp/long.txt"; exit 1; }
# Not the run precision: no warning.
$ns cluster --node "$tmp/one.json" --chips 8 --precision fp64 >"$tmp/p64.txt" 2>&1
if grep -q "peak is the compute ceiling" "$tmp/p64.txt"; then
  echo "a warning about the fp32 peak in an fp64 model"; exit 1; fi

# Only suspect SP FMA ceilings (flagged in ceilings.compute[] itself): the highest is taken, with
# a warning naming it and why.
jq '(.ceilings.compute[] | select(.precision == "sp" and .mix == "fma"))
      |= . + {"suspect": true, "suspect_reason": "its fastest sample is 2x its median"}' \
  $fx >"$tmp/all.json"
$ns cluster --node "$tmp/all.json" --chips 8 --precision fp32 --json - >"$tmp/all.out.json" 2>"$tmp/all.err"
jq -e '.points[0]' "$tmp/all.out.json" >/dev/null
jq -e '.. | .peak_warning? // empty | test("flags suspect")' "$tmp/all.out.json" >/dev/null ||
  { echo "the JSON report does not carry the peak warning"; exit 1; }
grep -qF "warning: the chip's fp32 peak is the compute ceiling peak_fma (avx512, 2 threads, 400 GFLOP/s), which the roofline flags suspect (its fastest sample is 2x its median)" "$tmp/all.err" ||
  { echo "no warning for a suspect peak taken"; cat "$tmp/all.err"; exit 1; }
$ns cluster --node "$tmp/all.json" --chips 8 --precision fp32 2>/dev/null | grep -q "fp32 dense peak 400 GFLOP/s per chip"
# --peak-tflop-per-s replaced the suspect peak: nothing to warn about.
if $ns cluster --node "$tmp/all.json" --chips 8 --precision fp32 --peak-tflop-per-s 0.3 2>&1 |
    grep -q "peak is the compute ceiling"; then
  echo "a peak warning though --peak-tflop-per-s replaced the peak"; exit 1; fi

# Trial 15 #2: --precision is applied before --node reads the GEMM table, so the table is the
# run precision's, whatever the flags' order; a precision the node has no GEMM of is refused.
for order in "--precision fp64 --node $tmp/one.json" "--node $tmp/one.json --precision fp64"; do
  # shellcheck disable=SC2086
  $ns cluster $order --chips 8 --json - 2>/dev/null >"$tmp/prec.json"
  jq -e '.precision == "fp64" and .node.gemm_precision == "fp64"' "$tmp/prec.json" >/dev/null ||
    { echo "t15#2: $order: the GEMM table is not the run precision's"; jq -c '[.precision, .node.gemm_precision]' "$tmp/prec.json"; exit 1; }
done
set +e
$ns cluster --node tests/fixtures/results_synthetic.json --chips 8 --precision fp32 \
  --json "$tmp/no.json" >"$tmp/no.out" 2>"$tmp/no.err"
rc=$?
set -e
[ $rc -eq 2 ] && [ ! -e "$tmp/no.json" ] && [ "$(wc -l <"$tmp/no.err")" -eq 1 ] &&
  grep -q "error: --precision fp32: --node .* has no fp32 GEMM on a roof (its GEMM table is fp64)" "$tmp/no.err" ||
  { echo "t15#2: --precision fp32 on a node with fp64 GEMMs only: rc $rc"; cat "$tmp/no.err"; exit 1; }

# The memory bandwidth's source says --mem-bw-gbytes-per-s whenever the flag is given, also when
# it gives the node's own 20 GB/s (told apart by the flag, not by comparing the two values).
for bw in 20 35; do
  $ns cluster --node tests/fixtures/results_synthetic.json --chips 8 --mem-bw-gbytes-per-s $bw \
    >"$tmp/bw.txt" 2>&1
  grep -q "^memory bandwidth per chip $bw GB/s: --mem-bw-gbytes-per-s (the node's 20 GB/s" "$tmp/bw.txt" ||
    { echo "--mem-bw-gbytes-per-s $bw: source not the flag"; grep "^memory" "$tmp/bw.txt"; exit 1; }
done
$ns cluster --node tests/fixtures/results_synthetic.json --chips 8 >"$tmp/bw.txt" 2>&1
grep -q "^memory bandwidth per chip 20 GB/s: the DRAM ceiling of stream_triad" "$tmp/bw.txt" ||
  { echo "no --mem-bw-gbytes-per-s: source not the node's ceiling"; grep "^memory" "$tmp/bw.txt"; exit 1; }

echo "cluster --node peak ok"
