/* Internal contract of the reduction kernels: the per-ISA micro-kernel table, the compensated
 * partial types, the fixed combine trees and the static partition that the library drivers
 * (reduce.c), the registry descriptors (reduce_registry.c) and the tests share.
 *
 * Micro-kernel contract. A micro-kernel reduces one contiguous, unit-stride range of n >= 0
 * elements. It keeps L independent "slots" (L = SIMD lanes x accumulator registers, enough to
 * cover the add/FMA latency times the issue width); element i of the range goes to slot i mod L
 * and each slot accumulates its elements in order. At the end the L slots are combined by the
 * fixed halving tree of ns_tree_* (slot j += slot j + h, h = L/2, L/4, ..., 1). The result is
 * therefore a function of the range's contents and of L only: not of its address, its
 * alignment or the thread that ran it. The plain-C kernels use the AVX-512 kernels' L, so the
 * two give bitwise identical results (the tests check this); AVX2 has fewer registers and a
 * smaller L, and plain-C kernels of its L (ns_reduce_ukrs_plain_c) equal it likewise. */
#ifndef NS_REDUCE_INTERNAL_H
#define NS_REDUCE_INTERNAL_H

#include <stdint.h>

#include "kernels/registry.h"

/* A compensated partial: the value s + c, with c the accumulated rounding errors of s. */
typedef struct ns_dd {
    double s, c;
} ns_dd;
typedef struct ns_ff {
    float s, c;
} ns_ff;

typedef struct ns_reduce_ukrs {
    const char *isa;
    int slots_d;    /* L of the DP kernels and of the SP kernels that accumulate in DP */
    int slots_s;    /* L of the SP kernels that accumulate in SP */
    int slots_comp; /* L of the compensated kernels (DP; SP has twice as many) */
    double (*dsum)(int64_t n, const double *x);
    ns_dd (*dsum_comp)(int64_t n, const double *x);
    double (*ddot)(int64_t n, const double *x, const double *y);
    ns_dd (*ddot_comp)(int64_t n, const double *x, const double *y);
    /* sum of (scale * x_i)^2 with one FMA per element; scale == 1 is the unscaled pass */
    double (*dsumsq)(int64_t n, const double *x, double scale);
    float (*ssum)(int64_t n, const float *x);
    ns_ff (*ssum_comp)(int64_t n, const float *x);
    double (*ssum_wide)(int64_t n, const float *x); /* SP input, DP slots */
    float (*sdot)(int64_t n, const float *x, const float *y);
    ns_ff (*sdot_comp)(int64_t n, const float *x, const float *y);
    double (*sdot_wide)(int64_t n, const float *x, const float *y);
    double (*ssumsq_wide)(int64_t n,
                          const float *x); /* squares of floats never over/underflow in DP */
    /* Index (0-based, within the range) of the first element of largest |x_i|; the first NaN
     * if any is NaN. *amax receives |x| there (NaN for a NaN). n >= 1. */
    int64_t (*idamax)(int64_t n, const double *x, double *amax);
    int64_t (*isamax)(int64_t n, const float *x, float *amax);
} ns_reduce_ukrs;

/* The slot counts (L) of the two SIMD layouts: the bitwise-equality contract holds between
 * kernels of the same counts, so the SIMD tables, the plain-C tables and the tests take them
 * from here. AVX-512: 8 registers of 8 DP / 16 SP lanes, the compensated kernels 8 pairs of DP
 * registers (the plain-C "scalar" kernels use this layout). AVX2: 8 registers of 4 DP / 8 SP
 * lanes, the compensated kernels 4 pairs (16 ymm cannot hold 8 pairs and TwoSum's temporaries). */
#define NS_RED_SLOTS_AVX512_D 64
#define NS_RED_SLOTS_AVX512_S 128
#define NS_RED_SLOTS_AVX512_COMP 64
#define NS_RED_SLOTS_AVX2_D 32
#define NS_RED_SLOTS_AVX2_S 64
#define NS_RED_SLOTS_AVX2_COMP 16

extern const ns_reduce_ukrs ns_reduce_ukrs_scalar;
extern const ns_reduce_ukrs ns_reduce_ukrs_avx2;
extern const ns_reduce_ukrs ns_reduce_ukrs_avx512;

/* The plain-C kernels (reduce_ukr_c.c) with u's slot counts, so bitwise equal to u's kernels on
 * any range: ns_reduce_ukrs_scalar for the AVX-512 and plain-C layout, a plain-C table with the
 * AVX2 kernels' counts for AVX2. NULL for a layout neither has. The registry's check() reruns a
 * timed reduction with them. */
const ns_reduce_ukrs *ns_reduce_ukrs_plain_c(const ns_reduce_ukrs *u);

/* The plain-C max-abs kernels (reduce_ukr_c.c), also the fallback of the SIMD ones for NaNs. */
int64_t ns_red_c_idamax(int64_t n, const double *x, double *amax);
int64_t ns_red_c_isamax(int64_t n, const float *x, float *amax);
/* isamax over chunks of at most 2^30 elements (SIMD kernels keep 32-bit lane indices). */
int64_t ns_red_isamax_chunked(int64_t n, const float *x, float *amax,
                              int64_t (*chunk)(int64_t, const float *, float *));

/* The table for isa ("avx512", "avx2", "scalar"); NULL when this CPU cannot run it. isa NULL:
 * the table the public functions use, for ns_isa_dispatch() (never NULL). */
const ns_reduce_ukrs *ns_reduce_ukrs_for(const char *isa);

/* Error-free transformations (Knuth's TwoSum, branch-free: no |a| >= |b| test) and the combine
 * of two compensated partials (Neumaier: the error of s1 + s2 joins the compensations). */
static inline ns_dd ns_dd_combine(ns_dd a, ns_dd b) {
    double t = a.s + b.s, z = t - a.s;
    double e = (a.s - (t - z)) + (b.s - z);
    return (ns_dd){t, (a.c + b.c) + e};
}
static inline ns_ff ns_ff_combine(ns_ff a, ns_ff b) {
    float t = a.s + b.s, z = t - a.s;
    float e = (a.s - (t - z)) + (b.s - z);
    return (ns_ff){t, (a.c + b.c) + e};
}

/* The fixed slot trees (see the contract above). L is a power of two; a[] is overwritten. */
static inline double ns_tree_d(double *a, int L) {
    for (int h = L / 2; h >= 1; h /= 2)
        for (int j = 0; j < h; j++)
            a[j] += a[j + h];
    return a[0];
}
static inline float ns_tree_s(float *a, int L) {
    for (int h = L / 2; h >= 1; h /= 2)
        for (int j = 0; j < h; j++)
            a[j] += a[j + h];
    return a[0];
}
static inline ns_dd ns_tree_dd(ns_dd *a, int L) {
    for (int h = L / 2; h >= 1; h /= 2)
        for (int j = 0; j < h; j++)
            a[j] = ns_dd_combine(a[j], a[j + h]);
    return a[0];
}
static inline ns_ff ns_tree_ff(ns_ff *a, int L) {
    for (int h = L / 2; h >= 1; h /= 2)
        for (int j = 0; j < h; j++)
            a[j] = ns_ff_combine(a[j], a[j + h]);
    return a[0];
}

/* ---- Static partition (shared by the drivers, the registry's create() and its run()) ------ */

enum { NS_RED_FAST = 0, NS_RED_DET = 1 };

#define NS_RED_ALIGN 64           /* thread and block boundaries are multiples of 64 elements */
#define NS_RED_DET_MIN_BLOCK 8192 /* elements; deterministic-mode blocks are at least this long */
#define NS_RED_DET_MAX_BLOCKS 1024
#define NS_RED_PAIRWISE_LEAF 2048 /* elements per leaf of the pairwise variant */
#define NS_RED_MAX_THREADS NS_MAX_THREADS /* every team the CLI accepts (registry.h) */
#define NS_RED_PAD 4 /* per-thread partials sit 64 bytes apart (no false sharing) */
#define NS_RED_PARTS_MAX                                                                           \
    (NS_RED_MAX_THREADS * NS_RED_PAD > NS_RED_DET_MAX_BLOCKS ? NS_RED_MAX_THREADS * NS_RED_PAD     \
                                                             : NS_RED_DET_MAX_BLOCKS)

/* Deterministic mode: element block length for n elements. A function of n only (never of the
 * thread count), so the blocks, and the combine tree over them, are the same for any team. */
int64_t ns_red_det_block(int64_t n);

/* Elements [*lo, *hi) of thread tid of nthreads for n elements in mode (NS_RED_FAST: 64-element
 * aligned equal shares; NS_RED_DET: whole blocks, equal counts of blocks). */
void ns_red_split(int64_t n, int mode, int tid, int nthreads, int64_t *lo, int64_t *hi);

/* ---- One reduction as the drivers run it ---------------------------------------------------- */

typedef enum {
    NS_OP_DSUM,
    NS_OP_DDOT,
    NS_OP_DSUMSQ,
    NS_OP_SSUM,
    NS_OP_SDOT,
    NS_OP_SSUMSQ
} ns_red_op;

/* The variants; each equals the public nodescale_sum_variant of the same number.
 *
 * NS_VAR_COMP (NodescaleSumCompensated; registry names d/s sum_kahan and d/s dot_kahan, the
 * suite's name for this variant, kept for the baselines that refer to it: the algorithm is not
 * Kahan's). This is the one statement of the compensated algorithm; the other files point here.
 * Sum2/Dot2, Ogita-Rump-Oishi 2005 Alg. 4.4/5.3; bound Prop. 4.5/Thm. 5.3 (T. Ogita, S. M.
 * Rump, S. Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005). Every slot
 * adds each element by an error-free transformation (Knuth's branch-free TwoSum; on AVX-512 the
 * branch-free FastTwoSum on max-abs/min-abs, the same result) and sums the errors in a separate
 * compensation: Neumaier's method without its branch. Dot2 first splits each product by
 * TwoProduct (FMA). Slots, leaves and threads combine as double-double (SP: float-float) pairs
 * (ns_dd_combine), and ns_red_bound applies the bound with the tree depth h in place of n - 1.
 *
 * NS_VAR_WIDE (NodescaleSumWide; registry names ssum_dpacc and sdot_dpacc, "DP accumulation",
 * the suite's name for this variant; micro-kernels ssum_wide/sdot_wide): SP input accumulated
 * in DP slots and trees, rounded once to SP at the end. SP sums and dots only. */
enum { NS_VAR_PLAIN = 0, NS_VAR_PAIRWISE = 1, NS_VAR_COMP = 2, NS_VAR_WIDE = 3 };

/* The operation's kind: a dot product (two arrays), a sum of squares (nrm2), SP input. */
static inline int ns_red_op_dot(ns_red_op op) {
    return op == NS_OP_DDOT || op == NS_OP_SDOT;
}
static inline int ns_red_op_sumsq(ns_red_op op) {
    return op == NS_OP_DSUMSQ || op == NS_OP_SSUMSQ;
}
static inline int ns_red_op_sp(ns_red_op op) {
    return op == NS_OP_SSUM || op == NS_OP_SDOT || op == NS_OP_SSUMSQ;
}

typedef struct ns_red_job {
    ns_red_op op;
    int variant; /* NS_VAR_*; SSUMSQ always accumulates in DP */
    int mode;    /* NS_RED_FAST | NS_RED_DET */
    int64_t n;
    const void *x, *y; /* y: dot only */
    int64_t incx, incy;
    double scale; /* DSUMSQ: the squares are of scale * x_i */
    const ns_reduce_ukrs *u;
} ns_red_job;

/* Number of partials the team writes: nthreads (fast) or the number of blocks (deterministic). */
int64_t ns_red_nparts(const ns_red_job *j, int nthreads);

/* The variant's algorithm over elements [lo, hi) (one thread's work, no combine with others). */
ns_dd ns_red_share_general(const ns_red_job *j, int64_t lo, int64_t hi);

/* ns_red_share_general, with the common case inline: a plain DP sum or dot over unit stride goes
 * straight to the micro-kernel. At L1 sizes a call reduces a few thousand elements in ~80 ns,
 * and each extra call level and check costs about 1% of that. The result is the same bitwise. */
static inline ns_dd ns_red_share(const ns_red_job *j, int64_t lo, int64_t hi) {
    if (j->variant == NS_VAR_PLAIN && j->incx == 1) {
        const double *x = (const double *)j->x + lo;
        if (j->op == NS_OP_DSUM) return (ns_dd){j->u->dsum(hi - lo, x), 0.0};
        if (j->op == NS_OP_DDOT && j->incy == 1)
            return (ns_dd){j->u->ddot(hi - lo, x, (const double *)j->y + lo), 0.0};
    }
    return ns_red_share_general(j, lo, hi);
}

/* Thread tid's share, called by every thread of a team of nthreads: writes its partial(s)
 * into parts[] (fast: parts[tid * NS_RED_PAD]; deterministic: parts[b] for its blocks b). */
void ns_red_team_part(const ns_red_job *j, int tid, int nthreads, ns_dd *parts);

/* After every thread's ns_red_team_part: the fixed combine tree over the partials; the value
 * (for SP accumulation, a float value held in a double). */
double ns_red_team_finish(const ns_red_job *j, int nthreads, const ns_dd *parts);

/* The whole reduction on min(omp_get_max_threads(), a size-based cap) threads, its value into
 * *out. Returns 0, or NODESCALE_ERR_NOMEM (*out untouched) when strided input finds no gather
 * buffer. */
int ns_red_run(const ns_red_job *j, double *out);

/* For tests: the allocator of the gather buffers and of a team's partials (NULL: malloc). */
void ns_red_set_alloc(void *(*alloc)(size_t));

/* Threads the drivers use for n elements (1 when called inside a parallel region). */
int ns_red_threads(int64_t n);

/* The a-priori bound on |computed - exact| for job j run on nthreads threads, given
 * sum_abs = sum |x_i| (dot: sum |x_i y_i|; sumsq: sum x_i^2) and the exact value. See
 * include/nodescale.h for the formulas and their sources. */
double ns_red_bound(const ns_red_job *j, int nthreads, double sum_abs, double exact);

/* The formula ns_red_bound applies to job j on nthreads threads, with its h and u, as one line
 * into buf (e.g. "gamma_h S, h = 135, u = 2^-53"; S = sum |terms|, s the exact value).
 * Returns snprintf's count. */
int ns_red_bound_text(const ns_red_job *j, int nthreads, char *buf, size_t len);

/* The exact value to about 2^-106 relative to sum |terms| (double-double accumulation of the
 * terms, products split by TwoProduct; per thread, then combined); for sumsq jobs the norm.
 * *sum_abs (may be NULL) receives sum |terms| (sumsq: the sum of squares). For checks and tests. */
double ns_red_reference(const ns_red_job *j, double *sum_abs);

/* max |x| with index over a team: thread tid's candidate (parts[tid * NS_RED_PAD]); the merge (NaN
 * first, then the largest, ties to the smaller index). sp: x is float. */
typedef struct ns_amax_part {
    int64_t index;
    double value;
} ns_amax_part;
void ns_amax_team_part(const ns_reduce_ukrs *u, int sp, int64_t n, const void *x, int64_t incx,
                       int tid, int nthreads, ns_amax_part *parts);
ns_amax_part ns_amax_team_finish(int nthreads, const ns_amax_part *parts);

#endif
