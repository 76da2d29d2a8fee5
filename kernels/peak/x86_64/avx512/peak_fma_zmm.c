/* FMA-peak micro-kernels, avx512 (see kernels/peak/peak.h for the recurrences). */
#include <immintrin.h>

#include "kernels/peak/peak.h"

#define C NS_PEAK_CHAINS_ZMM

double ns_peak_dp_avx512(ns_peak_mix mix, int64_t iters) {
    const __m512d a = _mm512_set1_pd(NS_PEAK_A), b = _mm512_set1_pd(NS_PEAK_B);
    __m512d x[C];
    for (int c = 0; c < C; c++) x[c] = _mm512_set1_pd(NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm512_fmadd_pd(x[c], a, b) : _mm512_add_pd(x[c], b);
        }
    double lanes[8], s = 0;
    for (int c = 0; c < C; c++) {
        _mm512_storeu_pd(lanes, x[c]);
        for (int l = 0; l < 8; l++) s += lanes[l];
    }
    return s;
}

float ns_peak_sp_avx512(ns_peak_mix mix, int64_t iters) {
    const __m512 a = _mm512_set1_ps((float)NS_PEAK_A), b = _mm512_set1_ps((float)NS_PEAK_B);
    __m512 x[C];
    for (int c = 0; c < C; c++) x[c] = _mm512_set1_ps((float)NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm512_fmadd_ps(x[c], a, b) : _mm512_add_ps(x[c], b);
        }
    float lanes[16], s = 0;
    for (int c = 0; c < C; c++) {
        _mm512_storeu_ps(lanes, x[c]);
        for (int l = 0; l < 16; l++) s += lanes[l];
    }
    return s;
}
