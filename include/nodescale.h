/* nodescale.h: the hand-tuned kernels of the nodescale suite as a C library (libnodescale).
 *
 *   #include <nodescale.h>      cc prog.c $(pkg-config --cflags --libs nodescale)
 *
 * GEMM follows cblas_?gemm's argument order and meaning exactly (sizes and leading dimensions
 * as int64_t); reductions follow BLAS level-1 naming. All functions are thread-safe and use
 * OpenMP with omp_get_max_threads() threads unless stated otherwise. Pointers need only element
 * alignment.
 *
 * Threads: one library team at a time per process. A call that would open a team while another
 * call's team runs (callers on several threads) runs on its calling thread alone, so concurrent
 * callers never stack teams; a fast-mode reduction then gives its 1-thread result (see Mode
 * below). In a child of fork() (before any exec) every call runs on one thread when the parent
 * had more than one thread then: libgomp cannot open a team in a child of a process that ran a
 * parallel region, the caller's own included, and a second thread is the sign this library
 * takes (conservative). A child of a single-threaded parent keeps its teams. This needs the
 * library loaded before the fork (it marks the child from a pthread_atfork handler). A child
 * that loads it after the fork (dlopen, Python's ctypes in a worker of the "fork" start method)
 * in a process that ran an OpenMP parallel region before the fork must call
 * omp_set_num_threads(1) before its first call here: otherwise a call that opens a team waits
 * forever. The library cannot tell that case from a process that has not forked.
 *
 * On a shared machine set OMP_WAIT_POLICY=passive (or OMP_NUM_THREADS=1) in the environment
 * before the program starts. The teams are libgomp's, whose default wait policy (OMP_WAIT_POLICY
 * unset) spins before it sleeps: when another process keeps a CPU busy, a team thread that has to
 * wait for that CPU costs about one scheduler period (8-12 ms) per call, whatever its size. A
 * library cannot change the policy once libgomp has started. (In a program itself built with
 * clang -fopenmp the library's OpenMP calls go to LLVM's libomp, loaded first: what is said here
 * of libgomp then holds for libomp; README.md, section "Library".) Measurements: README.md, section
 * "Library", and `make bench-wait_policy`.
 *
 * Stack: a call needs about 10 KiB of the calling thread's stack at most (measured: the first
 * GEMM call, which reads the cache sizes through hwloc; later GEMM calls and every reduction
 * under 6 KiB), so a thread stack of 32 KiB is enough; the library's team threads need as
 * little (OMP_STACKSIZE). Buffers (GEMM's packing buffers, a team's partials, the gather buffer
 * of a strided reduction) come from the heap. The library is built with -fstack-clash-protection
 * where the compiler has it, so a stack that is still too small faults instead of being overrun.
 *
 * ISA (GEMM and reductions alike): the widest cpuid reports, or NODESCALE_ISA (avx512 | avx2 |
 * scalar), read once, at the first call of any function here. An unknown value, or an ISA this
 * CPU cannot run, prints one warning line on stderr (once) and takes the widest cpuid reports. */
#ifndef NODESCALE_H
#define NODESCALE_H

#include <stdint.h>

/* The version of this header (the Makefile reads it from here: its one source, also of the
 * .pc file and the installed libnodescale.so.MAJOR.MINOR.PATCH). A program may compare it with
 * nodescale_version(), the version of the library it runs with. A header without these macros
 * predates nodescale_version() and NodescaleConjNoTrans. */
#define NODESCALE_VERSION_MAJOR 0
#define NODESCALE_VERSION_MINOR 1
#define NODESCALE_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; only what is marked NODESCALE_API is exported. */
#if defined(__GNUC__) || defined(__clang__)
#define NODESCALE_API __attribute__((visibility("default")))
#else
#define NODESCALE_API
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (a static string; never NULL). */
NODESCALE_API const char *nodescale_version(void);

/* Values equal CBLAS's enums, so a caller may cast CBLAS_LAYOUT / CBLAS_TRANSPOSE directly. The
 * accepted values are these: 101 and 102 for the layout; 111, 112, 113 (netlib's CBLAS) and 114
 * (OpenBLAS's CblasConjNoTrans) for a transpose. Any other value is an invalid argument. */
typedef enum { NodescaleRowMajor = 101, NodescaleColMajor = 102 } nodescale_layout;
typedef enum {
    NodescaleNoTrans = 111,
    NodescaleTrans = 112,
    NodescaleConjTrans = 113,  /* same as NodescaleTrans for real data */
    NodescaleConjNoTrans = 114 /* same as NodescaleNoTrans for real data */
} nodescale_transpose;

/* ---- GEMM: C := alpha * op(A) * op(B) + beta * C --------------------------------------------
 * op(A) is m x k, op(B) is k x n, C is m x n, each stored in `layout` with leading dimension
 * lda/ldb/ldc (>= the stored row length: for column-major, the number of rows of the stored
 * matrix). beta == 0: C is not read (NaN/Inf in C do not propagate). alpha == 0 or k == 0:
 * C := beta * C without reading A or B, and with beta == 1 C is not touched at all (reference
 * BLAS; C may be read-only). m == 0 or n == 0: nothing is touched. A, B and C may each be NULL
 * exactly when the call does not touch it (the cases above); otherwise NULL is an invalid
 * argument (8, 10, 13).
 * Returns 0, or a positive BLAS xerbla-style parameter number (1-based position of the first
 * invalid argument) without touching C, or NODESCALE_ERR_NOMEM (negative) when the packing
 * buffers cannot be allocated: C untouched, nothing printed, the call may be retried.
 * Threads: omp_get_max_threads(), at most 2*m*n*k / 2e6 (one per ~2 MFLOP, so one for problems
 * under ~4 MFLOP); one inside any parallel region (even a 1-thread one), while another call's
 * team runs, and in a forked child (see Threads above). ISA: as above. Block sizes
 * from hwloc's cache sizes, overridden by NODESCALE_GEMM_MC / _KC / _NC. Algorithm: Goto/BLIS five
 * loops with packing; van Zee & van de Geijn, "BLIS: A Framework for Rapidly Instantiating BLAS
 * Functionality", ACM TOMS 41(3), 2015, section 3. */
/* GEMM return value: the packing buffers could not be allocated (C untouched). Parameter
 * errors are positive, so every nonzero return is a failure and C was not written. */
#define NODESCALE_ERR_NOMEM (-1)
NODESCALE_API int nodescale_dgemm(nodescale_layout layout, nodescale_transpose transa,
                                  nodescale_transpose transb, int64_t m, int64_t n, int64_t k,
                                  double alpha, const double *a, int64_t lda, const double *b,
                                  int64_t ldb, double beta, double *c, int64_t ldc);
NODESCALE_API int nodescale_sgemm(nodescale_layout layout, nodescale_transpose transa,
                                  nodescale_transpose transb, int64_t m, int64_t n, int64_t k,
                                  float alpha, const float *a, int64_t lda, const float *b,
                                  int64_t ldb, float beta, float *c, int64_t ldc);

/* ---- Reductions: sum, dot, nrm2, max-abs with index -------------------------------------------
 * x has n elements at stride incx (y: incy). A negative stride reads the vector backwards: x
 * points at the element of lowest address and logical element i is x[(n - 1 - i) * |incx|].
 * For ?dot that is BLAS's convention (reference ddot.f). For ?sum, ?nrm2 and i?amax it is a
 * nodescale extension where BLAS differs: reference dasum.f, dnrm2.f and idamax.f, and
 * OpenBLAS, return 0 for incx <= 0, while here ?sum and ?nrm2 reduce the same n elements as
 * stride |incx| does (in the reverse order, so the last bits may differ), and i?amax returns the
 * logical index, counted from the far end: the element is x[(n - 1 - index) * |incx|], and a tie
 * goes to the element of highest address (x = {9, 1, 2, 3}, n = 4, incx = -1: index 3, the 9;
 * BLAS's 0 would be the first element of lowest address). Every function
 * returns 0, or the 1-based position of the first invalid argument (n < 0, a NULL array with
 * n > 0, a zero stride, an unknown variant or mode, a NULL result) without writing the result,
 * or NODESCALE_ERR_NOMEM (strided input only: a thread's 32 KiB gather buffer, kept per thread
 * until it exits, could not be allocated; the result is not written, the call may be retried).
 * n == 0 gives 0 (sum, dot, nrm2) and index -1 (i?amax). NaN and Inf propagate as in IEEE
 * arithmetic. Inputs are read only; results depend on the ISA chosen at run time (above).
 *
 * Threads: min(n / 32768, omp_get_max_threads(), 1024), at least 1 (i?amax and nrm2 too), and
 * one inside any parallel region (even a 1-thread one), while another call's team runs, and in a
 * forked child (Threads above), or when the team's partials cannot be allocated; the runtime may
 * give fewer.
 *
 * Error bounds (the ones the tests check, ns_red_bound in kernels/reduce/reduce.c), with u the
 * unit roundoff of the accumulation (2^-53 DP, 2^-24 SP), gamma_h = h u / (1 - h u) (infinite
 * once h u >= 1/2), S = sum |x_i| (dot: sum |x_i y_i|) and s the exact result. Source: Higham,
 * "Accuracy and Stability of Numerical Algorithms", 2nd ed., SIAM 2002, section 4.2 (any
 * summation order: |err| <= gamma_h S, h the depth of its addition tree); for compensated, Ogita,
 * Rump, Oishi (below); the relative error is the bound over |s|, i.e. proportional to the
 * condition S / |s|:
 *   plain        |err| <= gamma_h S, h = ceil(m / L) + log2 L + ceil(log2 P) + 1, where L is
 *                the micro-kernel's independent accumulators (64 DP / 128 SP for AVX-512 and
 *                plain C, 32 / 64 for AVX2; compensated: 64 / 128, AVX2 16 / 32; wide and nrm2
 *                accumulate in DP: the DP count), m the longest
 *                share (a thread's range, or in deterministic mode one block of
 *                max(8192, n / 1024) elements, rounded up to a multiple of 64) and P the number
 *                of shares (threads, or blocks); the final 1 is the fused product of a dot and
 *                the final s + c. With L slots, an SP sum of 2^25 ones is exact.
 *   pairwise     for m > 2048, as plain with m replaced by 2048 and h increased by
 *                ceil(log2(m / 2048)) + 1 (section 4.2). Strided input always takes this shape.
 *   compensated  |err| <= u |s| + gamma_{h+1}^2 S, h as plain: Sum2/Dot2 of Ogita, Rump, Oishi,
 *                "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005 (Alg. 4.4/5.3;
 *                bound Prop. 4.5/Thm. 5.3, with the tree depth h in place of n - 1): about twice
 *                the working precision, until the condition reaches 1/u. The suite's benchmark
 *                names it _kahan (dsum_kahan, ...: not Kahan's algorithm); the one full statement
 *                is kernels/reduce/reduce_internal.h, NS_VAR_COMP.
 *   wide         (s forms only) SP input accumulated in DP, rounded once to SP (benchmark names
 *                ssum_dpacc, sdot_dpacc): |err| <= 2^-24 |s| + gamma_h(2^-53) S.
 *   nrm2         |err| <= (gamma_h / 2 + u (+ 2^-24 for snrm2)) |s| (1 + 1e-7) + n 2^-1074
 *                + 2^-150 (snrm2) or 2^-1075 (dnrm2),
 *                u = 2^-53 and h as plain or pairwise (both accumulate in DP): the sum of
 *                squares has nonnegative terms, so its relative error is <= gamma_h (section
 *                4.2); the correctly rounded sqrt halves it and adds u, snrm2's rounding to SP
 *                2^-24; the factor 1 + 1e-7 covers the products of those terms (second order);
 *                n 2^-1074 covers squares below the normal range; 2^-150 / 2^-1075, half the
 *                smallest subnormal, the rounding of a result in the subnormal range (absolute,
 *                not relative; 2^-1075 is computed as 2^-1074). dnrm2's rescaling pass
 *                scales by a power of two, which is exact (the split into an unscaled and a
 *                scaled pass is discussed in Anderson, "Algorithm 978: Safe Scaling in the
 *                Level 1 BLAS", ACM TOMS 44(1), 2017).
 * Mode: NodescaleFast partitions the work by thread; the result is reproducible for a fixed thread
 * count but may differ in the last bits between thread counts (a call that ran on one thread
 * because another call's team was running gives the 1-thread result). NodescaleDeterministic fixes
 * the blocks and the combine tree by n alone: bitwise the same result for any number of threads
 * and any run (on the same ISA); it costs one micro-kernel call per block. */
typedef enum {
    NodescaleSumPlain = 0,       /* independent accumulators, fixed pairwise combine */
    NodescaleSumPairwise = 1,    /* cascade (pairwise) summation over 2048-element leaves */
    NodescaleSumCompensated = 2, /* Sum2; Dot2 for dot (Error bounds above) */
    NodescaleSumWide = 3         /* s forms: SP input accumulated in DP */
} nodescale_sum_variant;
typedef enum { NodescaleFast = 0, NodescaleDeterministic = 1 } nodescale_reduce_mode;

/* sum_i x_i */
NODESCALE_API int nodescale_dsum(int64_t n, const double *x, int64_t incx,
                                 nodescale_sum_variant variant, nodescale_reduce_mode mode,
                                 double *result);
NODESCALE_API int nodescale_ssum(int64_t n, const float *x, int64_t incx,
                                 nodescale_sum_variant variant, nodescale_reduce_mode mode,
                                 float *result);
/* sum_i x_i * y_i, each product fused into its accumulator (FMA: one rounding per term) */
NODESCALE_API int nodescale_ddot(int64_t n, const double *x, int64_t incx, const double *y,
                                 int64_t incy, nodescale_sum_variant variant,
                                 nodescale_reduce_mode mode, double *result);
NODESCALE_API int nodescale_sdot(int64_t n, const float *x, int64_t incx, const float *y,
                                 int64_t incy, nodescale_sum_variant variant,
                                 nodescale_reduce_mode mode, float *result);
/* sqrt(sum_i x_i^2), never overflowing or underflowing when the norm is representable.
 * dnrm2: one FMA pass of x_i^2; only when that sum overflows or falls below 2^-920 a second pass
 * finds max |x_i| and a third sums (x_i 2^-e)^2 with 2^e near max |x_i| (exact scaling).
 * snrm2: squares of floats are accumulated in DP, where they can neither overflow nor underflow,
 * so one pass always suffices. Variants: plain or pairwise (snrm2 also wide, the same as
 * plain); compensated is rejected. Error bound: nrm2 above. */
NODESCALE_API int nodescale_dnrm2(int64_t n, const double *x, int64_t incx,
                                  nodescale_sum_variant variant, nodescale_reduce_mode mode,
                                  double *result);
NODESCALE_API int nodescale_snrm2(int64_t n, const float *x, int64_t incx,
                                  nodescale_sum_variant variant, nodescale_reduce_mode mode,
                                  float *result);
/* *index = the 0-based logical index of the first element of largest |x_i| (ties: the smallest
 * index). NaN policy: if any element is NaN, the index of the first NaN (a NaN ranks above
 * every number, Inf included). Exact, so the same for any thread count: no variant or mode. */
NODESCALE_API int nodescale_idamax(int64_t n, const double *x, int64_t incx, int64_t *index);
NODESCALE_API int nodescale_isamax(int64_t n, const float *x, int64_t incx, int64_t *index);

#ifdef __cplusplus
}
#endif
#endif
