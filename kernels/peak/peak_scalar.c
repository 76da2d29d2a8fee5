/* FMA-peak recurrences in plain C (baseline x86-64, no FMA instructions: x * A + B is a
 * multiply and an add), the fallback when neither AVX2+FMA nor AVX-512 is available. */
#include "kernels/peak/peak.h"

double ns_peak_dp_plain(ns_peak_mix mix, int64_t iters) {
    double x[NS_PEAK_CHAINS_YMM], s = 0;
    for (int c = 0; c < NS_PEAK_CHAINS_YMM; c++)
        x[c] = NS_PEAK_X0;
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < NS_PEAK_CHAINS_YMM; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? x[c] * NS_PEAK_A + NS_PEAK_B : x[c] + NS_PEAK_B;
        }
    for (int c = 0; c < NS_PEAK_CHAINS_YMM; c++)
        s += x[c];
    return s;
}

float ns_peak_sp_plain(ns_peak_mix mix, int64_t iters) {
    float x[NS_PEAK_CHAINS_YMM], s = 0;
    for (int c = 0; c < NS_PEAK_CHAINS_YMM; c++)
        x[c] = (float)NS_PEAK_X0;
    for (int64_t i = 0; i < iters; i++)
        for (int c = 0; c < NS_PEAK_CHAINS_YMM; c++) {
            int fma = mix == NS_MIX_FMA || (mix == NS_MIX_FMA_ADD && (c & 1) == 0);
            x[c] = fma ? x[c] * (float)NS_PEAK_A + (float)NS_PEAK_B : x[c] + (float)NS_PEAK_B;
        }
    for (int c = 0; c < NS_PEAK_CHAINS_YMM; c++)
        s += x[c];
    return s;
}
