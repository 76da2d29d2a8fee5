/* AVX-512 SGEMM micro-kernel, register tile MR x NR = 32 x 14.
 * Contract: kernels/gemm/gemm_internal.h. Per step p of k, two 16-float vectors of the A
 * micro-panel are loaded and each of the 14 B values is broadcast once and used by two FMAs:
 * 28 zmm accumulators + 2 A + 1 broadcast = 31 of the 32 zmm registers, 28 FMAs per 16 loads,
 * so two FMA ports stay busy while the load ports have slack. Edge tiles (m < 32 or n < 14) are
 * stored with AVX-512 masks, so C outside m x n is never touched. */
#include <immintrin.h>

#include "kernels/gemm/gemm_internal.h"

#define MR 32
#define NR 14

/* Broadcast of B(p, j) for in-place B whose columns are cs bytes apart, from two bases (columns
 * 0 and 7) and the byte strides cs, 3 cs, 5 cs with x86 scaled addressing, so the unrolled k
 * loop holds 5 registers instead of 13 column offsets (which GCC spilled, doubling the loads per
 * broadcast). Inline asm fixes the addressing mode. The "m" operand declares the memory the asm
 * reads, 1 TiB from base on (every offset 6 cs can reach; Clang rejects an array of unknown
 * size), so the compiler may not move it past a store to B (under LTO or inlining); it names no
 * register and adds no instruction. */
#define BC(base, idx, scale, r)                                                                    \
    __asm__("vbroadcastss (%1,%2," #scale "), %0"                                                  \
            : "=v"(r)                                                                              \
            : "r"(base), "r"(idx), "m"(*(const char(*)[(size_t)1 << 40])(base)))
static inline __attribute__((always_inline)) __m512
bcol(const float *b0, const float *b7, int64_t cs, int64_t cs3, int64_t cs5, int j) {
    __m512 r;
    const float *base = j < 7 ? b0 : b7;
    switch (j % 7) {
    case 0:
        BC(base, (int64_t)0, 1, r);
        break;
    case 1:
        BC(base, cs, 1, r);
        break;
    case 2:
        BC(base, cs, 2, r);
        break;
    case 3:
        BC(base, cs3, 1, r);
        break;
    case 4:
        BC(base, cs, 4, r);
        break;
    case 5:
        BC(base, cs5, 1, r);
        break;
    default:
        BC(base, cs3, 2, r);
        break;
    }
    return r;
}
#undef BC

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
     * and once with B read in place down its columns (rs_b = 1, cs_b = ldb).
     * Unrolled 4x in k: the pointer and loop updates are paid once per 4 steps, which leaves the
     * 4-wide front end room beside a step's FMAs and loads (+1-6% in an interleaved test of the
     * micro-kernel alone on packed panels). */
#define KLOOP(CS, NCOL)                                                                            \
    _Pragma("GCC unroll 4") for (int64_t p = 0; p < k; p++) {                                      \
        __m512 a0 = _mm512_loadu_ps(a), a1 = _mm512_loadu_ps(a + 16);                              \
        /* Both cache lines of the A step 8 iterations ahead (L2 -> L1). */                        \
        _mm_prefetch((const char *)(a + 8 * cs_a), _MM_HINT_T0);                                   \
        _mm_prefetch((const char *)(a + 8 * cs_a + 16), _MM_HINT_T0);                              \
        _Pragma("GCC unroll 16") for (int j = 0; j < NCOL; j++) {                                  \
            __m512 bj = CS == 1 ? _mm512_set1_ps(b[j]) : bcol(b, b7, csb, cs3, cs5, j);            \
            c0[j] = _mm512_fmadd_ps(a0, bj, c0[j]);                                                \
            c1[j] = _mm512_fmadd_ps(a1, bj, c1[j]);                                                \
        }                                                                                          \
        a += cs_a;                                                                                 \
        b += rs_b;                                                                                 \
        b7 += rs_b;                                                                                \
    }
    /* Strided (in-place) B: see bcol. */
    const int64_t csb = cs_b * (int64_t)sizeof(float), cs3 = 3 * csb, cs5 = 5 * csb;
    const float *b7 = b + 7 * cs_b;
    /* An edge tile of at most 8 columns (n = 4096 = 292 x 14 + 8, 64 = 4 x 14 + 8) computes
     * only 8, not 14: no FMAs are spent on columns that are never stored. */
    if (cs_b == 1 && n > 8)
        KLOOP(1, NR)
    else if (n > 8)
        KLOOP(cs_b, NR)
    else if (cs_b == 1)
        KLOOP(1, 8)
    else
        KLOOP(cs_b, 8)
#undef KLOOP

    /* Store: rows beyond m are masked off (masked loads never fault, so C's neighbours and
     * guard pages are safe), columns beyond n are skipped; beta == 0 never reads C. Full and
     * edge tiles take this same path. */
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    int64_t m0 = m < 16 ? m : 16, m1 = m > 16 ? m - 16 : 0;
    __mmask16 k0 = (__mmask16)(m0 == 16 ? 0xFFFF : (1u << m0) - 1);
    __mmask16 k1 = (__mmask16)(m1 >= 16 ? 0xFFFF : (1u << m1) - 1);
#pragma GCC unroll 14
    for (int j = 0; j < NR; j++) {
        if (j >= n) break;
        float *cj = c + j * ldc;
        __m512 r0 = _mm512_mul_ps(va, c0[j]), r1 = _mm512_mul_ps(va, c1[j]);
        if (beta != 0.0f) {
            r0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(k0, cj), r0);
            r1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(k1, cj + 16), r1);
        }
        _mm512_mask_storeu_ps(cj, k0, r0);
        _mm512_mask_storeu_ps(cj + 16, k1, r1);
    }
}
