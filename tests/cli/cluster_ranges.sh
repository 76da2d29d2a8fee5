#!/usr/bin/env bash
# Preset files obey the ranges of the flags they stand for, and an all-reduce fit must be a
# plausible measurement (#9): a chip peak outside 1e-9..1e9 TFLOP/s, a GEMM
# efficiency below 1e-6, a GEMM shape that is not an integer, an alpha, beta, residual or rank
# count no measurement gives, are refused with exit 2 and one line; the extremes accepted
# print no inf or nan.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/cli/lib/common.sh

# $1 = wanted exit status, $2 = what stderr must contain (2: one line, nothing on stdout; 0: no
# inf or nan anywhere); the rest = arguments.
expect() {
  local want_rc=$1 want=$2; shift 2
  $ns cluster "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc -ne "$want_rc" ] || { [ -n "$want" ] && ! grep -q -- "$want" "$tmp/err"; } ||
     { [ "$want_rc" -eq 2 ] && { [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; }; } ||
     grep -qiwE 'inf|nan|-nan' "$tmp/out" "$tmp/err"; then
    fail "cluster $* -> rc=$rc (want $want_rc): $(head -c 300 "$tmp/err") $(grep -iwE 'inf|nan' "$tmp/out" | head -2)"
  fi
}

# 1. Presets: the chip's peak and GEMM efficiency in the flags' ranges; shapes are integers.
chip() { echo "{\"chip\": {\"name\": \"X\", $1}}" >"$tmp/$2.json"; }
chip '"peak_tflop_per_s": {"bf16": 1e308}' big
chip '"peak_tflop_per_s": {"bf16": 1e-300}' tiny
chip '"peak_tflop_per_s": {"bf16": 1000}, "gemm_efficiency": 1e-300' efftiny
chip '"peak_tflop_per_s": {"bf16": 1000}, "gemm_efficiency": [{"m": 1.5, "n": 8, "k": 8, "eff": 0.5}]' mfrac
chip '"peak_tflop_per_s": {"bf16": 1000}, "gemm_efficiency": [{"m": 1e308, "n": 8, "k": 8, "eff": 0.5}]' mbig
chip '"peak_tflop_per_s": {"bf16": 1000}, "gemm_efficiency": [{"m": 8, "n": 8, "k": 8, "eff": 1e-300}]' ptiny
chip '"peak_tflop_per_s": {"bf16": 1e-9}, "gemm_efficiency": 1e-6' lowest
chip '"peak_tflop_per_s": {"bf16": 1e9}' highest
expect 2 "peak_tflop_per_s.bf16 must be a number in 1e-09..1e+09" --preset "$tmp/big.json" --preset llama3-405b --chips 8,16384
expect 2 "peak_tflop_per_s.bf16 must be a number in 1e-09..1e+09" --preset "$tmp/tiny.json" --preset llama3-405b --chips 8,16384
expect 2 "gemm_efficiency must be a number in 1e-06..1" --preset "$tmp/efftiny.json" --preset llama3-405b --chips 8,16384
for f in mfrac mbig ptiny; do
  expect 2 "gemm_efficiency\[0\] needs m, n, k integers in 1..2147483647 and eff in 1e-06..1" \
    --preset "$tmp/$f.json" --preset llama3-405b --chips 8,16384
done
expect 0 "" --preset h100-sxm --preset "$tmp/lowest.json" --preset llama3-405b --chips 8,16384
expect 0 "" --preset h100-sxm --preset "$tmp/highest.json" --preset llama3-405b --chips 8,16384 --json "$tmp/h.json"
grep -qiwE 'inf|nan' "$tmp/h.json" && fail "inf or nan in the JSON at the highest peak"
# The flag's message states the range it checks (was "(0, 1]" for a 1e-6 lower limit).
expect 2 "--gemm-efficiency wants a number in 1e-06..1" --preset h100-sxm --preset llama3-405b \
  --gemm-efficiency 1e-7

# 2. All-reduce fits: alpha, beta, residual and ranks in a measurement's range.
fit() { echo "$1" >"$tmp/fit.json"; }
fit '{"alpha_s": 1e308, "beta_s_per_byte": 1e-10}'
expect 2 "alpha_s 1e+308 is not 0 nor in 1e-12..1 s" --preset h100-sxm --allreduce "$tmp/fit.json" --chips 8,1024
fit '{"alpha_s": 1e-6, "beta_s_per_byte": 1e308}'
expect 2 "beta_s_per_byte 1e+308 is not in" --preset h100-sxm --allreduce "$tmp/fit.json" --chips 8,1024
fit '{"alpha_s": 1e-300, "beta_s_per_byte": 1e-300}'
expect 2 "alpha_s 1e-300 is not 0 nor in" --preset h100-sxm --allreduce "$tmp/fit.json" --chips 8,1024
fit '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "max_rel_residual": 1e308}'
expect 2 "max_rel_residual must be a number in 0..1000" --preset h100-sxm --allreduce "$tmp/fit.json" \
  --chips 8,1024 --allreduce-accept-poor-fit
fit '{"alpha_s": 1e-6, "beta_s_per_byte": 1e-10, "ranks": 1e308}'
expect 2 "ranks must be an integer in 2..1073741824" --preset h100-sxm --allreduce "$tmp/fit.json" --chips 8
fit '{"alpha_s": 1, "beta_s_per_byte": 1e-3, "max_rel_residual": 0.3}'
expect 0 "" --preset h100-sxm --allreduce "$tmp/fit.json" --chips 8,1024
fit '{"alpha_s": 0, "beta_s_per_byte": 1e-15, "ranks": 1073741824}'
expect 0 "" --preset h100-sxm --allreduce "$tmp/fit.json" --chips 8,1024

[ $fails -eq 0 ] && echo "cluster_ranges: ok"
exit $((fails > 0))
