/* Plain-C DGEMM micro-kernel (the fallback for CPUs without AVX2+FMA), register tile 8 x 4.
 * Contract: kernels/gemm/gemm_internal.h. Written so the compiler can keep the 32 accumulators
 * in SSE2 registers at baseline x86-64; no intrinsics. Every tile, full or edge, is formed in a
 * local buffer and written through the shared edge store (beta == 0: C not read). */
#include "kernels/gemm/gemm_internal.h"

#define MR 8
#define NR 4

void ns_dgemm_ukr_scalar_8x4(int64_t k, double alpha, const double *a, int64_t cs_a,
                             const double *b, int64_t rs_b, int64_t cs_b, double beta, double *c,
                             int64_t ldc, int64_t m, int64_t n) {
    double acc[NR][MR] = {{0}};
    /* The k loop, once with B rows contiguous (packed, rs_b = NR; or op(B) rows in place)
     * and once with B read in place down its columns (rs_b = 1, cs_b = ldb). */
#define KLOOP(CS)                                                                                  \
    for (int64_t p = 0; p < k; p++) {                                                              \
        for (int j = 0; j < NR; j++)                                                               \
            for (int i = 0; i < MR; i++)                                                           \
                acc[j][i] += a[i] * b[j * CS];                                                     \
        a += cs_a;                                                                                 \
        b += rs_b;                                                                                 \
    }
    if (cs_b == 1)
        KLOOP(1)
    else
        KLOOP(cs_b)
#undef KLOOP
    double ct[MR * NR];
    for (int j = 0; j < NR; j++)
        for (int i = 0; i < MR; i++)
            ct[i + j * MR] = alpha * acc[j][i];
    ns_gemm_edge_store_d(ct, MR, beta, c, ldc, m, n);
}
