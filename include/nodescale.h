/* nodescale.h: the hand-tuned kernels of the nodescale suite as a C library (libnodescale).
 *
 *   #include <nodescale.h>      cc prog.c $(pkg-config --cflags --libs nodescale)
 *
 * GEMM follows cblas_?gemm's argument order and meaning exactly (sizes and leading dimensions
 * as int64_t); reductions follow BLAS level-1 naming. All functions are thread-safe and use
 * OpenMP with omp_get_max_threads() threads unless stated otherwise. Pointers need only element
 * alignment. */
#ifndef NODESCALE_H
#define NODESCALE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values equal CBLAS's enums, so a caller may cast CBLAS_LAYOUT / CBLAS_TRANSPOSE directly. */
typedef enum { NodescaleRowMajor = 101, NodescaleColMajor = 102 } nodescale_layout;
typedef enum {
    NodescaleNoTrans = 111,
    NodescaleTrans = 112,
    NodescaleConjTrans = 113 /* same as NodescaleTrans for real data */
} nodescale_transpose;

/* ---- GEMM: C := alpha * op(A) * op(B) + beta * C --------------------------------------------
 * op(A) is m x k, op(B) is k x n, C is m x n, each stored in `layout` with leading dimension
 * lda/ldb/ldc (>= the stored row length: for column-major, the number of rows of the stored
 * matrix). beta == 0: C is not read (NaN/Inf in C do not propagate). alpha == 0 or k == 0:
 * C := beta * C without reading A or B. m == 0 or n == 0: nothing is touched.
 * Returns 0, or a positive BLAS xerbla-style parameter number (1-based position of the first
 * invalid argument) without touching C. Threads: omp_get_max_threads() (one inside a parallel
 * region, and for problems under ~4 MFLOP). ISA: the widest cpuid reports, or NODESCALE_ISA
 * (avx512 | avx2 | scalar), read at the first call. Block sizes from hwloc's cache sizes,
 * overridden by NODESCALE_GEMM_MC / _KC / _NC. Algorithm: Goto/BLIS five loops with packing;
 * van Zee & van de Geijn, "BLIS: A Framework for Rapidly Instantiating BLAS Functionality",
 * ACM TOMS 41(3), 2015, section 3. */
int nodescale_dgemm(nodescale_layout layout, nodescale_transpose transa,
                    nodescale_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                    const double *a, int64_t lda, const double *b, int64_t ldb, double beta,
                    double *c, int64_t ldc);
int nodescale_sgemm(nodescale_layout layout, nodescale_transpose transa,
                    nodescale_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                    float *c, int64_t ldc);

/* ---- Reductions (declared with the reduction kernels) ---------------------------------------- */

#ifdef __cplusplus
}
#endif
#endif
