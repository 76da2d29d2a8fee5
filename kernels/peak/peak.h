/* FMA-peak (compute ceiling) kernels: per thread, enough independent dependency chains of one
 * instruction mix that the issue ports, not the latency, limit the rate (latency 4 cycles x 2
 * FMA ports needs >= 8 chains). AVX-512 has 32 vector registers: 16 chains; AVX2 and the
 * baseline (SSE2) code have 16: 12 chains, leaving room for the two constants so nothing spills.
 * The baseline ("scalar" ISA) kernel is packed SSE2 without FMA: 12 chains of 2 DP / 4 SP lanes,
 * each step a multiply then an add (8 cycles of latency on Intel, 6 on Zen): 12 chains keep two
 * mul/add ports busy on Intel and Zen's two multiply plus two add pipes. It is the ceiling of
 * code compiled for baseline x86-64, which GCC vectorises with SSE2.
 *
 * Recurrences (A = 1 - 2^-12 and B = 2^-12 are exact in both precisions; the fixed point is 1):
 *   fma:     x = x * A + B           (2 flops per lane)       x -> 1, monotonically
 *   add:     x = x + B               (1 flop per lane)        grows by B per step, exactly
 *   fma_add: half the chains fma, half add, interleaved 1:1  (1.5 flops per lane on average)
 * From X0 = 0.5 the fma chain is 1 - 0.5 (1 - 2^-12)^i in exact arithmetic, 1 - 0.18 at the
 * default NS_PEAK_DEFAULT_ITERS = 4096 iterations. Rounded, it stops changing once (1 - x) 2^-12 is under half an ulp:
 * SP after about 34K iterations at 1 - x = 2^-13, DP after about 116K at 1 - x = 2^-42. The
 * add chain is exact until x reaches 2^12 (SP, after 2^24 - 2^11 steps) or 2^41 (DP), where
 * B becomes half an ulp and x stays. Values stay normal and bounded for any iteration count.
 * Every micro-kernel returns the sum over chains and lanes of the final x; check() replays the
 * recurrence in the kernel's precision with its own rounding (fused or not), so no compiler
 * can delete the work and a wrong iteration count or value fails. */
#ifndef NS_PEAK_H
#define NS_PEAK_H

#include <stdint.h>

#define NS_PEAK_CHAINS_ZMM 16 /* AVX-512 */
#define NS_PEAK_CHAINS_YMM 12 /* AVX2, scalar instructions, SSE2 (baseline) */
#define NS_PEAK_A (1.0 - 0x1p-12)
#define NS_PEAK_B 0x1p-12
#define NS_PEAK_X0 0.5
/* Iterations per thread that run and bench measure a peak kernel at (bench --n): a repetition of
 * microseconds, which the timing loop repeats to its sample length; the fma chain is then still
 * far from its fixed point (above). */
#define NS_PEAK_DEFAULT_ITERS 4096

typedef enum { NS_MIX_FMA = 0, NS_MIX_FMA_ADD = 1, NS_MIX_ADD = 2 } ns_peak_mix;

/* iters iterations of the mix on all CHAINS chains of full vectors; returns the sum of all
 * final lane values. */
double ns_peak_dp_avx512(ns_peak_mix mix, int64_t iters);
float ns_peak_sp_avx512(ns_peak_mix mix, int64_t iters);
double ns_peak_dp_avx2(ns_peak_mix mix, int64_t iters);
float ns_peak_sp_avx2(ns_peak_mix mix, int64_t iters);
/* Scalar instructions (vfmadd231sd/ss, vaddsd/ss): one lane per chain. */
double ns_peak_dp_scalar_fma(ns_peak_mix mix, int64_t iters);
float ns_peak_sp_scalar_fma(ns_peak_mix mix, int64_t iters);
/* Baseline x86-64 (packed SSE2 multiply and add, 2 DP / 4 SP lanes per chain), the "scalar"
 * ISA's ceiling, kernels/peak/peak_scalar.c. */
double ns_peak_dp_plain(ns_peak_mix mix, int64_t iters);
float ns_peak_sp_plain(ns_peak_mix mix, int64_t iters);

#endif
