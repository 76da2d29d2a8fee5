/* FMA-peak micro-kernels, avx2 (see kernels/peak/peak.h for the recurrences). */
#include <immintrin.h>

#include "kernels/peak/peak.h"

#define C NS_PEAK_CHAINS_YMM

double ns_peak_dp_avx2(ns_peak_mix mix, int64_t iters) {
    const __m256d a = _mm256_set1_pd(NS_PEAK_A), b = _mm256_set1_pd(NS_PEAK_B);
    __m256d x[C];
    for (int c = 0; c < C; c++) x[c] = _mm256_set1_pd(NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm256_fmadd_pd(x[c], a, b) : _mm256_add_pd(x[c], b);
        }
    double lanes[4], s = 0;
    for (int c = 0; c < C; c++) {
        _mm256_storeu_pd(lanes, x[c]);
        for (int l = 0; l < 4; l++) s += lanes[l];
    }
    return s;
}

float ns_peak_sp_avx2(ns_peak_mix mix, int64_t iters) {
    const __m256 a = _mm256_set1_ps((float)NS_PEAK_A), b = _mm256_set1_ps((float)NS_PEAK_B);
    __m256 x[C];
    for (int c = 0; c < C; c++) x[c] = _mm256_set1_ps((float)NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm256_fmadd_ps(x[c], a, b) : _mm256_add_ps(x[c], b);
        }
    float lanes[8], s = 0;
    for (int c = 0; c < C; c++) {
        _mm256_storeu_ps(lanes, x[c]);
        for (int l = 0; l < 8; l++) s += lanes[l];
    }
    return s;
}
