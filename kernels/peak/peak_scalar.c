/* FMA-peak recurrences for baseline x86-64 (the "scalar" ISA, used when neither AVX2+FMA nor
 * AVX-512 is available or NODESCALE_ISA=scalar): packed SSE2, no FMA, so x * A + B is a
 * multiply and an add (two roundings). Tile: 12 chains (NS_PEAK_CHAINS_YMM) x one xmm register,
 * 2 DP or 4 SP lanes each; 12 chains + 2 constants fit the 16 xmm registers, and 12 chains of
 * mul+add cover its latency on two ports (peak.h). Intrinsics, not plain C, so that the
 * compiler's vectoriser decides neither the width nor the number of independent chains. */
#include <emmintrin.h>

#include "kernels/peak/peak.h"

#define C NS_PEAK_CHAINS_YMM

double ns_peak_dp_plain(ns_peak_mix mix, int64_t iters) {
    const __m128d a = _mm_set1_pd(NS_PEAK_A), b = _mm_set1_pd(NS_PEAK_B);
    __m128d x[C];
    for (int c = 0; c < C; c++)
        x[c] = _mm_set1_pd(NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm_add_pd(_mm_mul_pd(x[c], a), b) : _mm_add_pd(x[c], b);
        }
    double lanes[2], s = 0;
    for (int c = 0; c < C; c++) {
        _mm_storeu_pd(lanes, x[c]);
        s += lanes[0] + lanes[1];
    }
    return s;
}

float ns_peak_sp_plain(ns_peak_mix mix, int64_t iters) {
    const __m128 a = _mm_set1_ps((float)NS_PEAK_A), b = _mm_set1_ps((float)NS_PEAK_B);
    __m128 x[C];
    for (int c = 0; c < C; c++)
        x[c] = _mm_set1_ps((float)NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm_add_ps(_mm_mul_ps(x[c], a), b) : _mm_add_ps(x[c], b);
        }
    float lanes[4], s = 0;
    for (int c = 0; c < C; c++) {
        _mm_storeu_ps(lanes, x[c]);
        for (int l = 0; l < 4; l++)
            s += lanes[l];
    }
    return s;
}
