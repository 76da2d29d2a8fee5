/* AVX2+FMA SGEMM micro-kernel, register tile MR x NR = 16 x 6 (BLIS's Haswell 6x16 sgemm tile, with
 * vectors along the columns of column-major C). Contract: kernels/gemm/gemm_internal.h. Per
 * step p of k: two 8-float A vectors, six broadcasts of B, 12 FMAs into 12 ymm accumulators
 * (12 + 2 + 1 = 15 of the 16 ymm registers). Edge tiles go through a tile buffer and the shared
 * edge store, so C outside the m x n block is never touched. */
#include <immintrin.h>

#include "kernels/gemm/gemm_internal.h"

#define MR 16
#define NR 6

void ns_sgemm_ukr_avx2_16x6(int64_t k, float alpha, const float *a, int64_t cs_a, const float *b,
                            int64_t rs_b, int64_t cs_b, float beta, float *c, int64_t ldc,
                            int64_t m, int64_t n) {
    __m256 c0[NR], c1[NR];
#pragma GCC unroll 6
    for (int j = 0; j < NR; j++)
        c0[j] = _mm256_setzero_ps(), c1[j] = _mm256_setzero_ps();

        /* The k loop, once with B rows contiguous (packed, rs_b = NR; or op(B) rows in place)
         * and once with B read in place down its columns (rs_b = 1, cs_b = ldb). */
#define KLOOP(CS)                                                                                  \
    for (int64_t p = 0; p < k; p++) {                                                              \
        __m256 a0 = _mm256_loadu_ps(a), a1 = _mm256_loadu_ps(a + 8);                               \
        _mm_prefetch((const char *)(a + 8 * cs_a), _MM_HINT_T0);                                   \
        _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) {                                    \
            __m256 bj = _mm256_broadcast_ss(b + j * CS);                                           \
            c0[j] = _mm256_fmadd_ps(a0, bj, c0[j]);                                                \
            c1[j] = _mm256_fmadd_ps(a1, bj, c1[j]);                                                \
        }                                                                                          \
        a += cs_a;                                                                                 \
        b += rs_b;                                                                                 \
    }
    if (cs_b == 1)
        KLOOP(1)
    else
        KLOOP(cs_b)
#undef KLOOP

    __m256 va = _mm256_set1_ps(alpha);
    if (m == MR && n == NR) {
        if (beta == 0.0f) {
#pragma GCC unroll 6
            for (int j = 0; j < NR; j++) {
                _mm256_storeu_ps(c + j * ldc, _mm256_mul_ps(va, c0[j]));
                _mm256_storeu_ps(c + j * ldc + 8, _mm256_mul_ps(va, c1[j]));
            }
        } else {
            __m256 vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
            for (int j = 0; j < NR; j++) {
                float *cj = c + j * ldc;
                _mm256_storeu_ps(
                    cj, _mm256_fmadd_ps(vb, _mm256_loadu_ps(cj), _mm256_mul_ps(va, c0[j])));
                _mm256_storeu_ps(
                    cj + 8, _mm256_fmadd_ps(vb, _mm256_loadu_ps(cj + 8), _mm256_mul_ps(va, c1[j])));
            }
        }
    } else {
        float ct[MR * NR];
#pragma GCC unroll 6
        for (int j = 0; j < NR; j++) {
            _mm256_storeu_ps(ct + j * MR, _mm256_mul_ps(va, c0[j]));
            _mm256_storeu_ps(ct + j * MR + 8, _mm256_mul_ps(va, c1[j]));
        }
        ns_gemm_edge_store_s(ct, MR, beta, c, ldc, m, n);
    }
}
