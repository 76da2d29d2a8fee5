/* FMA-peak (compute ceiling) kernels: per thread, enough independent dependency chains of one
 * instruction mix that the issue ports, not the latency, limit the rate (latency 4 cycles x 2
 * FMA ports needs >= 8 chains). AVX-512 has 32 vector registers: 16 chains; AVX2 and scalar
 * code have 16: 12 chains, leaving room for the two constants so nothing spills.
 *
 * Recurrences (chosen so values stay normal and bounded for any iteration count):
 *   fma:     x = x * A + B           (2 flops per lane)       x -> B / (1 - A)
 *   add:     x = x + B               (1 flop per lane)        grows by B per step
 *   fma_add: half the chains fma, half add, interleaved 1:1  (1.5 flops per lane on average)
 * Every micro-kernel returns the sum over chains and lanes of the final x, which check()
 * compares with the closed form, so no compiler can delete the work. */
#ifndef NS_PEAK_H
#define NS_PEAK_H

#include <stdint.h>

#define NS_PEAK_CHAINS_ZMM 16 /* AVX-512 */
#define NS_PEAK_CHAINS_YMM 12 /* AVX2, scalar instructions, plain C */
#define NS_PEAK_A 0.9999999
#define NS_PEAK_B 1e-7
#define NS_PEAK_X0 0.5

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
/* Plain C (baseline ISA, multiply and add), kernels/peak/peak_scalar.c. */
double ns_peak_dp_plain(ns_peak_mix mix, int64_t iters);
float ns_peak_sp_plain(ns_peak_mix mix, int64_t iters);

#endif
