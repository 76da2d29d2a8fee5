/* AVX2+FMA DGEMM micro-kernel, register tile MR x NR = 8 x 6 (BLIS's Haswell 6x8 tile, with
 * vectors along the columns of column-major C). Contract: kernels/gemm/gemm_internal.h. Per
 * step p of k: two 4-double A vectors, six broadcasts of B, 12 FMAs into 12 ymm accumulators
 * (12 + 2 + 1 = 15 of the 16 ymm registers). Edge tiles go through a tile buffer and the shared
 * edge store, so C outside the m x n block is never touched. */
#include <immintrin.h>

#include "kernels/gemm/gemm_internal.h"

#define MR 8
#define NR 6

void ns_dgemm_ukr_avx2_8x6(int64_t k, double alpha, const double *a, int64_t cs_a, const double *b,
                           int64_t rs_b, int64_t cs_b, double beta, double *c, int64_t ldc,
                           int64_t m, int64_t n) {
    __m256d c0[NR], c1[NR];
#pragma GCC unroll 6
    for (int j = 0; j < NR; j++)
        c0[j] = _mm256_setzero_pd(), c1[j] = _mm256_setzero_pd();

        /* The k loop, once with B rows contiguous (packed, rs_b = NR; or op(B) rows in place)
         * and once with B read in place down its columns (rs_b = 1, cs_b = ldb). */
#define KLOOP(CS)                                                                                  \
    for (int64_t p = 0; p < k; p++) {                                                              \
        __m256d a0 = _mm256_loadu_pd(a), a1 = _mm256_loadu_pd(a + 4);                              \
        _mm_prefetch((const char *)(a + 8 * cs_a), _MM_HINT_T0);                                   \
        _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) {                                    \
            __m256d bj = _mm256_broadcast_sd(b + j * CS);                                          \
            c0[j] = _mm256_fmadd_pd(a0, bj, c0[j]);                                                \
            c1[j] = _mm256_fmadd_pd(a1, bj, c1[j]);                                                \
        }                                                                                          \
        a += cs_a;                                                                                 \
        b += rs_b;                                                                                 \
    }
    if (cs_b == 1)
        KLOOP(1)
    else
        KLOOP(cs_b)
#undef KLOOP

    __m256d va = _mm256_set1_pd(alpha);
    if (m == MR && n == NR) {
        if (beta == 0.0) {
#pragma GCC unroll 6
            for (int j = 0; j < NR; j++) {
                _mm256_storeu_pd(c + j * ldc, _mm256_mul_pd(va, c0[j]));
                _mm256_storeu_pd(c + j * ldc + 4, _mm256_mul_pd(va, c1[j]));
            }
        } else {
            __m256d vb = _mm256_set1_pd(beta);
#pragma GCC unroll 6
            for (int j = 0; j < NR; j++) {
                double *cj = c + j * ldc;
                _mm256_storeu_pd(
                    cj, _mm256_fmadd_pd(vb, _mm256_loadu_pd(cj), _mm256_mul_pd(va, c0[j])));
                _mm256_storeu_pd(
                    cj + 4, _mm256_fmadd_pd(vb, _mm256_loadu_pd(cj + 4), _mm256_mul_pd(va, c1[j])));
            }
        }
    } else {
        double ct[MR * NR];
#pragma GCC unroll 6
        for (int j = 0; j < NR; j++) {
            _mm256_storeu_pd(ct + j * MR, _mm256_mul_pd(va, c0[j]));
            _mm256_storeu_pd(ct + j * MR + 4, _mm256_mul_pd(va, c1[j]));
        }
        ns_gemm_edge_store_d(ct, MR, beta, c, ldc, m, n);
    }
}
