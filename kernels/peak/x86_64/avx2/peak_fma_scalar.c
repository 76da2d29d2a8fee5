/* FMA-peak micro-kernels with scalar instructions (vfmadd231sd/ss, vaddsd/ss), the ceiling of
 * code the compiler did not vectorise (see kernels/peak/peak.h for the recurrences). */
#include <immintrin.h>

#include "kernels/peak/peak.h"

#define C NS_PEAK_CHAINS_YMM

double ns_peak_dp_scalar_fma(ns_peak_mix mix, int64_t iters) {
    const __m128d a = _mm_set_sd(NS_PEAK_A), b = _mm_set_sd(NS_PEAK_B);
    __m128d x[C];
    for (int c = 0; c < C; c++) x[c] = _mm_set_sd(NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm_fmadd_sd(x[c], a, b) : _mm_add_sd(x[c], b);
        }
    double s = 0;
    for (int c = 0; c < C; c++) s += _mm_cvtsd_f64(x[c]);
    return s;
}

float ns_peak_sp_scalar_fma(ns_peak_mix mix, int64_t iters) {
    const __m128 a = _mm_set_ss((float)NS_PEAK_A), b = _mm_set_ss((float)NS_PEAK_B);
    __m128 x[C];
    for (int c = 0; c < C; c++) x[c] = _mm_set_ss((float)NS_PEAK_X0);
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < C; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? _mm_fmadd_ss(x[c], a, b) : _mm_add_ss(x[c], b);
        }
    float s = 0;
    for (int c = 0; c < C; c++) s += _mm_cvtss_f32(x[c]);
    return s;
}
