/* Plain-C SGEMM micro-kernel (the fallback for CPUs without AVX2+FMA), register tile 8 x 4.
 * Contract: kernels/gemm/gemm_internal.h. No intrinsics: GCC/Clang vectors of 4 floats, which
 * baseline x86-64 compiles to SSE2. The 32 accumulators are 8 vectors, and with the 2 A vectors
 * and a B broadcast they fit the 16 xmm registers. Written as scalar loops, GCC vectorised the
 * k loop across steps instead and spilled every step. Every tile, full or edge, is formed in a
 * local buffer and written through the shared edge store (beta == 0: C not read). */
#include <string.h>

#include "kernels/gemm/gemm_internal.h"

#define MR 8
#define NR 4

typedef float v4f __attribute__((vector_size(16)));

void ns_sgemm_ukr_scalar_8x4(int64_t k, float alpha, const float *a, int64_t cs_a, const float *b,
                             int64_t rs_b, int64_t cs_b, float beta, float *c, int64_t ldc,
                             int64_t m, int64_t n) {
    v4f c0[NR], c1[NR]; /* rows 0-3 and 4-7 of column j */
    for (int j = 0; j < NR; j++)
        c0[j] = (v4f){0, 0, 0, 0}, c1[j] = (v4f){0, 0, 0, 0};
    /* The k loop, once with B rows contiguous (packed, rs_b = NR; or op(B) rows in place)
     * and once with B read in place down its columns (rs_b = 1, cs_b = ldb). */
#define KLOOP(CS)                                                                                  \
    for (int64_t p = 0; p < k; p++) {                                                              \
        v4f a0, a1;                                                                                \
        memcpy(&a0, a, sizeof a0), memcpy(&a1, a + 4, sizeof a1);                                  \
        for (int j = 0; j < NR; j++) {                                                             \
            float s = b[j * CS];                                                                   \
            v4f bj = {s, s, s, s};                                                                 \
            c0[j] += a0 * bj;                                                                      \
            c1[j] += a1 * bj;                                                                      \
        }                                                                                          \
        a += cs_a;                                                                                 \
        b += rs_b;                                                                                 \
    }
    if (cs_b == 1)
        KLOOP(1)
    else
        KLOOP(cs_b)
#undef KLOOP
    float ct[MR * NR];
    v4f va = {alpha, alpha, alpha, alpha};
    for (int j = 0; j < NR; j++) {
        v4f r0 = va * c0[j], r1 = va * c1[j];
        memcpy(ct + j * MR, &r0, sizeof r0), memcpy(ct + j * MR + 4, &r1, sizeof r1);
    }
    ns_gemm_edge_store_s(ct, MR, beta, c, ldc, m, n);
}
