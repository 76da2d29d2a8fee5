/* AVX2+FMA DGEMM micro-kernel, register tile MR x NR = 8 x 6 (BLIS's Haswell 6x8 tile, with
 * vectors along the columns of column-major C). Contract: kernels/gemm/gemm_internal.h. Per
 * step p of k: two 4-double A vectors, six broadcasts of B, 12 FMAs into 12 ymm accumulators
 * (12 + 2 + 1 = 15 of the 16 ymm registers). Same design as the AVX-512 kernels: k unrolled 4x,
 * the C tile prefetched before the k loop, and edge tiles stored with masks (vmaskmovpd), so C
 * outside the m x n block is never touched. */
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

    /* Touch the C tile early so its lines arrive while the k loop runs (as the AVX-512 kernel). */
    if (m == MR && n == NR) {
#pragma GCC unroll 6
        for (int j = 0; j < NR; j++) {
            _mm_prefetch((const char *)(c + j * ldc), _MM_HINT_T0);
            _mm_prefetch((const char *)(c + j * ldc + MR - 1), _MM_HINT_T0);
        }
    }

    /* The k loop, once with B rows contiguous (packed, rs_b = NR; or op(B) rows in place)
     * and once with B read in place down its columns (rs_b = 1, cs_b = ldb). Unrolled 4x in
     * k, as the AVX-512 kernel: the counter, compare and branch are paid once per 4 steps (a
     * and b still advance every step, by run-time strides); 95 instructions per 4 steps in
     * objdump at GCC 12 -O3, against 4 x 26. */
#define KLOOP(CS)                                                                                  \
    _Pragma("GCC unroll 4") for (int64_t p = 0; p < k; p++) {                                      \
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

    /* Store: columns beyond n are skipped; in an edge tile (m < MR) rows beyond m are masked off
     * (vmaskmovpd neither reads nor writes, nor faults on, masked elements, so C's neighbours
     * and guard pages are safe), full columns use plain loads and stores (a vmaskmovpd store is
     * slower on some cores). beta == 0 never reads C. */
    __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    __m256i k0 = _mm256_cmpgt_epi64(_mm256_set1_epi64x(m), lane);
    __m256i k1 = _mm256_cmpgt_epi64(_mm256_set1_epi64x(m - 4), lane);
#pragma GCC unroll 6
    for (int j = 0; j < NR; j++) {
        if (j >= n) break;
        double *cj = c + j * ldc;
        __m256d r0 = _mm256_mul_pd(va, c0[j]), r1 = _mm256_mul_pd(va, c1[j]);
        if (m == MR) {
            if (beta != 0.0) {
                r0 = _mm256_fmadd_pd(vb, _mm256_loadu_pd(cj), r0);
                r1 = _mm256_fmadd_pd(vb, _mm256_loadu_pd(cj + 4), r1);
            }
            _mm256_storeu_pd(cj, r0);
            _mm256_storeu_pd(cj + 4, r1);
        } else {
            if (beta != 0.0) {
                r0 = _mm256_fmadd_pd(vb, _mm256_maskload_pd(cj, k0), r0);
                r1 = _mm256_fmadd_pd(vb, _mm256_maskload_pd(cj + 4, k1), r1);
            }
            _mm256_maskstore_pd(cj, k0, r0);
            _mm256_maskstore_pd(cj + 4, k1, r1);
        }
    }
}
