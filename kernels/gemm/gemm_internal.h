/* Internal interface of the own GEMM: the micro-kernel contract (fixed once for every ISA and
 * precision), the per-ISA micro-kernel table, and the entry point that takes the ISA explicitly
 * (so a registry descriptor or a test that forces an ISA really runs that ISA's micro-kernel).
 *
 * Micro-kernel contract (BLIS's, van Zee & van de Geijn, TOMS 41(3) 2015, section 3):
 *
 *   C(0:m, 0:n) := alpha * A_r * B_r + beta * C(0:m, 0:n)      (beta == 0: C is not read)
 *
 *   A_r  an MR x k micro-panel: element (i, p) at a[p * cs_a + i]. cs_a == MR for a packed
 *        panel; cs_a == lda when the driver passes unpacked column-major A (then m == MR).
 *        Rows m..MR-1 of a packed panel hold zeros.
 *   B_r  a k x NR micro-panel: element (p, j) at b[p * rs_b + j * cs_b]. Packed: rs_b = NR,
 *        cs_b = 1, columns n..NR-1 zero. In place (small shapes): op(B) itself, rs_b/cs_b its
 *        strides, and then n == NR, or n == NR_SHORT for a micro-kernel that has a short
 *        column count (the table's nr_short: with n <= NR_SHORT it reads only NR_SHORT columns
 *        of B, so an edge panel of exactly that width is read in place, not copied).
 *   C    column-major with leading dimension ldc; only the m x n block (m <= MR, n <= NR) is
 *        read or written, so edge tiles are handled inside the micro-kernel for every residue.
 *   a, b, c need only element alignment. k may be 0 (then C := beta * C). */
#ifndef NS_GEMM_INTERNAL_H
#define NS_GEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/registry.h"

typedef void (*ns_dgemm_ukr_fn)(int64_t k, double alpha, const double *a, int64_t cs_a,
                                const double *b, int64_t rs_b, int64_t cs_b, double beta, double *c,
                                int64_t ldc, int64_t m, int64_t n);
typedef void (*ns_sgemm_ukr_fn)(int64_t k, float alpha, const float *a, int64_t cs_a,
                                const float *b, int64_t rs_b, int64_t cs_b, float beta, float *c,
                                int64_t ldc, int64_t m, int64_t n);

/* Packing of one full B micro-panel of NR columns from op(B) = B not transposed (column-major,
 * leading dimension ldb in elements): element (p, j), p < kb, j < NR, of the panel at
 * b[j * ldb + p] goes to dst[p * NR + j]. The portable packing does this element by element;
 * an ISA may supply a vectorised one (the micro-kernel table's pack_b, NULL: none). */
typedef void (*ns_gemm_pack_fn)(void *dst, const void *b, int64_t ldb, int64_t kb);
void ns_gemm_pack_b14_avx512_d(void *dst, const void *b, int64_t ldb, int64_t kb);
void ns_gemm_pack_b14_avx512_s(void *dst, const void *b, int64_t ldb, int64_t kb);

/* Micro-kernels. File kernels/gemm/<path>/?gemm_ukr_<MR>x<NR>.c defines the one named here. */
void ns_dgemm_ukr_avx512_16x14(int64_t k, double alpha, const double *a, int64_t cs_a,
                               const double *b, int64_t rs_b, int64_t cs_b, double beta, double *c,
                               int64_t ldc, int64_t m, int64_t n);
void ns_sgemm_ukr_avx512_32x14(int64_t k, float alpha, const float *a, int64_t cs_a, const float *b,
                               int64_t rs_b, int64_t cs_b, float beta, float *c, int64_t ldc,
                               int64_t m, int64_t n);
void ns_dgemm_ukr_avx2_8x6(int64_t k, double alpha, const double *a, int64_t cs_a, const double *b,
                           int64_t rs_b, int64_t cs_b, double beta, double *c, int64_t ldc,
                           int64_t m, int64_t n);
void ns_sgemm_ukr_avx2_16x6(int64_t k, float alpha, const float *a, int64_t cs_a, const float *b,
                            int64_t rs_b, int64_t cs_b, float beta, float *c, int64_t ldc,
                            int64_t m, int64_t n);
void ns_dgemm_ukr_scalar_4x4(int64_t k, double alpha, const double *a, int64_t cs_a,
                             const double *b, int64_t rs_b, int64_t cs_b, double beta, double *c,
                             int64_t ldc, int64_t m, int64_t n);
void ns_sgemm_ukr_scalar_8x4(int64_t k, float alpha, const float *a, int64_t cs_a, const float *b,
                             int64_t rs_b, int64_t cs_b, float beta, float *c, int64_t ldc,
                             int64_t m, int64_t n);

/* Edge-tile store shared by the plain-C micro-kernels (the AVX2 and AVX-512 ones store edge
 * tiles with masks): ct holds alpha * A_r * B_r as an MR x NR
 * column-major tile (leading dimension mr); writes its m x n corner into C with beta semantics. */
void ns_gemm_edge_store_d(const double *ct, int mr, double beta, double *c, int64_t ldc, int64_t m,
                          int64_t n);
void ns_gemm_edge_store_s(const float *ct, int mr, float beta, float *c, int64_t ldc, int64_t m,
                          int64_t n);

/* ISA indices of the own GEMM. */
enum { NS_GEMM_AVX512 = 0, NS_GEMM_AVX2 = 1, NS_GEMM_SCALAR = 2, NS_GEMM_NISA = 3 };

/* Index of an ISA name ("avx512", "avx2", "scalar"), or -1. */
int ns_gemm_isa_index(const char *isa);

/* The thread count a call with these sizes and nthreads (<= 0: omp_get_max_threads()) runs on,
 * returned, and its ways over the jc, ic and jr loops in ways[0..2] (their product is the
 * count): at most 2mnk / 2e6 threads (one per ~2 MFLOP, so one below ~4 MFLOP; gemm.c's
 * GEMM_MIN_FLOPS_PER_THREAD), one inside a parallel region; ways from the shape (columns, then
 * rows, then jr; see gemm.c) unless NODESCALE_GEMM_JC_NT/_IC_NT/_JR_NT force them. */
int ns_gemm_ways(int isa, ns_precision prec, int64_t m, int64_t n, int64_t k, int nthreads,
                 int ways[3]);

/* What became of NODESCALE_GEMM_JC_NT/_IC_NT/_JR_NT in a call that ran on nt threads split
 * as ways (ns_gemm_ways's): "used JC_NT=2", "ignored JC_NT=3: product 3 is not the 2 threads
 * ...", bad values named; "" when none is set. Into buf (len bytes). */
void ns_gemm_env_ways_note(int nt, const int ways[3], char *buf, size_t len);

/* Tests only: reads NODESCALE_GEMM_JC_NT/_IC_NT/_JR_NT again (the library reads them once, at
 * the first GEMM call, as the block sizes). Not safe while another thread runs a GEMM. */
void ns_gemm_reread_env_ways(void);

/* Column-major GEMM with the ISA given by index (the caller checked it is runnable) and nthreads
 * OpenMP threads (<= 0: omp_get_max_threads()). transa/transb: 0 = no transpose, 1 = transpose.
 * Arguments are assumed valid (nodescale_?gemm checks them). Returns 0, or NODESCALE_ERR_NOMEM
 * when the packing buffers cannot be allocated (then C is untouched and nothing is printed). */
int ns_gemm_d_isa(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                  const double *a, int64_t lda, const double *b, int64_t ldb, double beta,
                  double *c, int64_t ldc, int nthreads);
int ns_gemm_s_isa(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k, float alpha,
                  const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                  int64_t ldc, int nthreads);

/* For tests: the number of per-thread packing buffers allocated and not yet freed (each thread's
 * buffer is freed when the thread exits), and a replacement for posix_memalign in the packing
 * allocation and in that of the group barriers of calls with more than 128 groups (NULL restores
 * posix_memalign; set it while no GEMM runs). */
long ns_gemm_buffers_live(void);
void ns_gemm_set_buffer_alloc(int (*alloc)(void **, size_t, size_t));

/* As ns_gemm_?_isa, and records where the call ran (for the registry descriptors; the public
 * API records nothing): cpus[t] = sched_getcpu() of thread t of the call's parallel region after
 * its share, for t < *ncpus, where *ncpus is the thread count the call ran on, at most max_cpus
 * (1 when it ran on the calling thread alone: small shapes, alpha = 0 or k = 0, or a runtime
 * that gave fewer threads than asked). Returns as ns_gemm_?_isa. */
int ns_gemm_d_isa_cpus(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k,
                       double alpha, const double *a, int64_t lda, const double *b, int64_t ldb,
                       double beta, double *c, int64_t ldc, int nthreads, int *cpus, int max_cpus,
                       int *ncpus);
int ns_gemm_s_isa_cpus(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k,
                       float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                       float beta, float *c, int64_t ldc, int nthreads, int *cpus, int max_cpus,
                       int *ncpus);

#endif
