/* AVX-512 SGEMM micro-kernel, register tile MR x NR = 32 x 14.
 * Contract: kernels/gemm/gemm_internal.h. Per step p of k, two 16-float vectors of the A
 * micro-panel are loaded and each of the 14 B values is broadcast once and used by two FMAs:
 * 28 zmm accumulators + 2 A + 1 broadcast = 31 of the 32 zmm registers, 28 FMAs per 16 loads,
 * so two FMA ports stay busy while the load ports have slack. Edge tiles (m < 32 or n < 14) go
 * through a small tile buffer and the shared edge store, so C outside m x n is never touched. */
#include <immintrin.h>

#include "kernels/gemm/gemm_internal.h"

#define MR 32
#define NR 14

void ns_sgemm_ukr_avx512_32x14(int64_t k, float alpha, const float *a, int64_t cs_a, const float *b,
                               int64_t rs_b, int64_t cs_b, float beta, float *c, int64_t ldc,
                               int64_t m, int64_t n) {
    __m512 c0[NR], c1[NR];
#pragma GCC unroll 14
    for (int j = 0; j < NR; j++)
        c0[j] = _mm512_setzero_ps(), c1[j] = _mm512_setzero_ps();

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
        __m512 a0 = _mm512_loadu_ps(a), a1 = _mm512_loadu_ps(a + 16);                              \
        /* Both cache lines of the A step 8 iterations ahead (L2 -> L1). */                        \
        _mm_prefetch((const char *)(a + 8 * cs_a), _MM_HINT_T0);                                   \
        _mm_prefetch((const char *)(a + 8 * cs_a + 16), _MM_HINT_T0);                              \
        _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) {                                    \
            __m512 bj = _mm512_set1_ps(b[j * CS]);                                                 \
            c0[j] = _mm512_fmadd_ps(a0, bj, c0[j]);                                                \
            c1[j] = _mm512_fmadd_ps(a1, bj, c1[j]);                                                \
        }                                                                                          \
        a += cs_a;                                                                                 \
        b += rs_b;                                                                                 \
    }
    if (cs_b == 1)
        KLOOP(1)
    else
        KLOOP(cs_b)
#undef KLOOP

    __m512 va = _mm512_set1_ps(alpha);
    if (m == MR && n == NR) {
        if (beta == 0.0f) {
#pragma GCC unroll 14
            for (int j = 0; j < NR; j++) {
                _mm512_storeu_ps(c + j * ldc, _mm512_mul_ps(va, c0[j]));
                _mm512_storeu_ps(c + j * ldc + 16, _mm512_mul_ps(va, c1[j]));
            }
        } else {
            __m512 vb = _mm512_set1_ps(beta);
#pragma GCC unroll 14
            for (int j = 0; j < NR; j++) {
                float *cj = c + j * ldc;
                _mm512_storeu_ps(
                    cj, _mm512_fmadd_ps(vb, _mm512_loadu_ps(cj), _mm512_mul_ps(va, c0[j])));
                _mm512_storeu_ps(cj + 16, _mm512_fmadd_ps(vb, _mm512_loadu_ps(cj + 16),
                                                          _mm512_mul_ps(va, c1[j])));
            }
        }
    } else {
        float ct[MR * NR];
#pragma GCC unroll 14
        for (int j = 0; j < NR; j++) {
            _mm512_storeu_ps(ct + j * MR, _mm512_mul_ps(va, c0[j]));
            _mm512_storeu_ps(ct + j * MR + 16, _mm512_mul_ps(va, c1[j]));
        }
        ns_gemm_edge_store_s(ct, MR, beta, c, ldc, m, n);
    }
}
