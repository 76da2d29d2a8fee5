/* AVX-512 DGEMM micro-kernel, register tile MR x NR = 16 x 14 (the shape BLIS uses on Skylake-X).
 * Contract: kernels/gemm/gemm_internal.h. Per step p of k, two 8-double vectors of the A
 * micro-panel are loaded and each of the 14 B values is broadcast once and used by two FMAs:
 * 28 zmm accumulators + 2 A + 1 broadcast = 31 of the 32 zmm registers, 28 FMAs per 16 loads,
 * so two FMA ports stay busy while the load ports have slack. Edge tiles (m < 16 or n < 14) go
 * through a small tile buffer and the shared edge store, so C outside m x n is never touched. */
#include <immintrin.h>

#include "kernels/gemm/gemm_internal.h"

#define MR 16
#define NR 14

void ns_dgemm_ukr_avx512_16x14(int64_t k, double alpha, const double *a, int64_t cs_a,
                               const double *b, int64_t rs_b, int64_t cs_b, double beta, double *c,
                               int64_t ldc, int64_t m, int64_t n) {
    __m512d c0[NR], c1[NR];
#pragma GCC unroll 14
    for (int j = 0; j < NR; j++)
        c0[j] = _mm512_setzero_pd(), c1[j] = _mm512_setzero_pd();

    /* Touch the C tile early so its lines arrive while the k loop runs (BLIS does the same). */
    if (m == MR && n == NR) {
#pragma GCC unroll 14
        for (int j = 0; j < NR; j++) {
            _mm_prefetch((const char *)(c + j * ldc), _MM_HINT_T0);
            _mm_prefetch((const char *)(c + j * ldc + MR - 1), _MM_HINT_T0);
        }
    }

    /* The k loop, once with B rows contiguous (packed, rs_b = NR; or op(B) rows in place)
     * and once with B read in place down its columns (rs_b = 1, cs_b = ldb). */
#define KLOOP(CS)                                                                                  \
    for (int64_t p = 0; p < k; p++) {                                                              \
        __m512d a0 = _mm512_loadu_pd(a), a1 = _mm512_loadu_pd(a + 8);                              \
        /* Both cache lines of the A step 8 iterations ahead (L2 -> L1). */                        \
        _mm_prefetch((const char *)(a + 8 * cs_a), _MM_HINT_T0);                                   \
        _mm_prefetch((const char *)(a + 8 * cs_a + 8), _MM_HINT_T0);                               \
        _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) {                                    \
            __m512d bj = _mm512_set1_pd(b[j * CS]);                                                \
            c0[j] = _mm512_fmadd_pd(a0, bj, c0[j]);                                                \
            c1[j] = _mm512_fmadd_pd(a1, bj, c1[j]);                                                \
        }                                                                                          \
        a += cs_a;                                                                                 \
        b += rs_b;                                                                                 \
    }
    if (cs_b == 1)
        KLOOP(1)
    else
        KLOOP(cs_b)
#undef KLOOP

    __m512d va = _mm512_set1_pd(alpha);
    if (m == MR && n == NR) {
        if (beta == 0.0) {
#pragma GCC unroll 14
            for (int j = 0; j < NR; j++) {
                _mm512_storeu_pd(c + j * ldc, _mm512_mul_pd(va, c0[j]));
                _mm512_storeu_pd(c + j * ldc + 8, _mm512_mul_pd(va, c1[j]));
            }
        } else {
            __m512d vb = _mm512_set1_pd(beta);
#pragma GCC unroll 14
            for (int j = 0; j < NR; j++) {
                double *cj = c + j * ldc;
                _mm512_storeu_pd(
                    cj, _mm512_fmadd_pd(vb, _mm512_loadu_pd(cj), _mm512_mul_pd(va, c0[j])));
                _mm512_storeu_pd(
                    cj + 8, _mm512_fmadd_pd(vb, _mm512_loadu_pd(cj + 8), _mm512_mul_pd(va, c1[j])));
            }
        }
    } else {
        double ct[MR * NR];
#pragma GCC unroll 14
        for (int j = 0; j < NR; j++) {
            _mm512_storeu_pd(ct + j * MR, _mm512_mul_pd(va, c0[j]));
            _mm512_storeu_pd(ct + j * MR + 8, _mm512_mul_pd(va, c1[j]));
        }
        ns_gemm_edge_store_d(ct, MR, beta, c, ldc, m, n);
    }
}
