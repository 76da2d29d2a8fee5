/* Plain-C DGEMM micro-kernel (the fallback for CPUs without AVX2+FMA), register tile 4 x 4.
 * Contract: kernels/gemm/gemm_internal.h. No intrinsics: GCC/Clang vectors of 2 doubles, which
 * baseline x86-64 compiles to SSE2. The 16 accumulators are 8 vectors, and with the 2 A vectors
 * and a B broadcast they fit the 16 xmm registers (an 8 x 4 tile, 16 accumulator vectors, did
 * not: GCC spilled every k step). Written as scalar loops, GCC vectorised the k loop across
 * steps instead, and spilled as well. Every tile, full or edge, is formed in a local buffer and
 * written through the shared edge store (beta == 0: C not read). */
#include <string.h>

#include "kernels/gemm/gemm_internal.h"

#define MR 4
#define NR 4

typedef double v2d __attribute__((vector_size(16)));

void ns_dgemm_ukr_scalar_4x4(int64_t k, double alpha, const double *a, int64_t cs_a,
                             const double *b, int64_t rs_b, int64_t cs_b, double beta, double *c,
                             int64_t ldc, int64_t m, int64_t n) {
    v2d c0[NR], c1[NR]; /* rows 0-1 and 2-3 of column j */
    for (int j = 0; j < NR; j++)
        c0[j] = (v2d){0, 0}, c1[j] = (v2d){0, 0};
    /* The k loop, once with B rows contiguous (packed, rs_b = NR; or op(B) rows in place)
     * and once with B read in place down its columns (rs_b = 1, cs_b = ldb). */
#define KLOOP(CS)                                                                                  \
    for (int64_t p = 0; p < k; p++) {                                                              \
        v2d a0, a1;                                                                                \
        memcpy(&a0, a, sizeof a0), memcpy(&a1, a + 2, sizeof a1);                                  \
        for (int j = 0; j < NR; j++) {                                                             \
            v2d bj = {b[j * CS], b[j * CS]};                                                       \
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
    double ct[MR * NR];
    v2d va = {alpha, alpha};
    for (int j = 0; j < NR; j++) {
        v2d r0 = va * c0[j], r1 = va * c1[j];
        memcpy(ct + j * MR, &r0, sizeof r0), memcpy(ct + j * MR + 2, &r1, sizeof r1);
    }
    ns_gemm_edge_store_d(ct, MR, beta, c, ldc, m, n);
}
