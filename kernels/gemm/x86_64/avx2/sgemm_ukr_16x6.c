/* AVX2+FMA SGEMM micro-kernel, register tile MR x NR = 16 x 6 (BLIS's Haswell 6x16 sgemm tile, with
 * vectors along the columns of column-major C). Contract: kernels/gemm/gemm_internal.h. Per
 * step p of k: two 8-float A vectors, six broadcasts of B, 12 FMAs into 12 ymm accumulators
 * (12 + 2 + 1 = 15 of the 16 ymm registers). Same design as the AVX-512 kernels: k unrolled 4x,
 * the C tile prefetched before the k loop, and edge tiles stored with masks (vmaskmovps), so C
 * outside the m x n block is never touched. */
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

    /* Store: columns beyond n are skipped; in an edge tile (m < MR) rows beyond m are masked off
     * (vmaskmovps neither reads nor writes, nor faults on, masked elements, so C's neighbours
     * and guard pages are safe), full columns use plain loads and stores (a vmaskmovps store is
     * slower on some cores). beta == 0 never reads C. */
    __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i k0 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)m), lane);
    __m256i k1 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)m - 8), lane);
#pragma GCC unroll 6
    for (int j = 0; j < NR; j++) {
        if (j >= n) break;
        float *cj = c + j * ldc;
        __m256 r0 = _mm256_mul_ps(va, c0[j]), r1 = _mm256_mul_ps(va, c1[j]);
        if (m == MR) {
            if (beta != 0.0f) {
                r0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cj), r0);
                r1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cj + 8), r1);
            }
            _mm256_storeu_ps(cj, r0);
            _mm256_storeu_ps(cj + 8, r1);
        } else {
            if (beta != 0.0f) {
                r0 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(cj, k0), r0);
                r1 = _mm256_fmadd_ps(vb, _mm256_maskload_ps(cj + 8, k1), r1);
            }
            _mm256_maskstore_ps(cj, k0, r0);
            _mm256_maskstore_ps(cj + 8, k1, r1);
        }
    }
}
