/* The reduction drivers: the public nodescale_?sum/?dot/?nrm2/i?amax functions, and the team
 * functions the registry times. A reduction is split into a static partition (reduce_internal.h),
 * each share is reduced by the variant's algorithm over the ISA's micro-kernels, and the
 * partials meet in a fixed pairwise tree.
 *
 *   plain       one micro-kernel call per share (L independent slots, then the slot tree)
 *   pairwise    shares split in halves down to NS_RED_PAIRWISE_LEAF elements, leaves by the
 *               micro-kernel: Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 *               SIAM 2002, section 4.2 (cascade summation)
 *   compensated Sum2/Dot2 of Ogita-Rump-Oishi (registry names _kahan): every slot carries a
 *               compensation, partials combine likewise; reduce_internal.h, NS_VAR_COMP
 *   wide        SP input, DP slots and tree, one rounding to SP at the end (registry names
 *               _dpacc; reduce_internal.h, NS_VAR_WIDE)
 *   deterministic: the shares are fixed blocks whose length depends on n only, and the tree runs
 *               over the blocks, so the result is bitwise the same for any number of threads.
 * Strided input is gathered into a per-thread heap buffer per leaf and always takes the pairwise
 * shape.
 *
 * Stack: a call may run on a small thread stack (a few KiB of frames: nodescale.h). Nothing here
 * keeps an array sized by the largest team on the stack: a team's partials come from the heap,
 * sized by the team, and the 1-thread paths need none. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/nodescale.h"
#include "kernels/reduce/reduce_internal.h"
#include "kernels/registry.h"
#include "kernels/team_claim.h"

/* Elements below which another thread costs more than it saves. Kept at 32768 after asking
 * whether ~15 us calls gain from a second thread: ddot, 1 and 2 threads interleaved in one
 * process on the 2-CPU VM (21 and 31 rounds, medians of 15 batches of 20 calls), n = 65536 took
 * 15.6-15.7 us on 1 thread and 0.66x that on 2 (median ratio; range 0.61-0.98 but one round at
 * 777x, when the other CPU was busy: see nodescale.h on OMP_WAIT_POLICY); n = 131072 0.42-0.44x. */
#define MIN_PER_THREAD 32768

static const ns_reduce_ukrs *by_name(const char *isa) {
    if (!strcmp(isa, "avx512")) return ns_cpu_has_avx512() ? &ns_reduce_ukrs_avx512 : NULL;
    if (!strcmp(isa, "avx2")) return ns_cpu_has_avx2_fma() ? &ns_reduce_ukrs_avx2 : NULL;
    if (!strcmp(isa, "scalar")) return &ns_reduce_ukrs_scalar;
    return NULL;
}

static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;
static const ns_reduce_ukrs *dispatched;
static void dispatch_init(void) {
    dispatched = by_name(ns_isa_dispatch()); /* never NULL, and always runnable */
}

const ns_reduce_ukrs *ns_reduce_ukrs_for(const char *isa) {
    if (isa) return by_name(isa);
    pthread_once(&dispatch_once, dispatch_init); /* once: the public API asks on every call */
    return dispatched;
}

/* ---- partition ------------------------------------------------------------------------------ */

int64_t ns_red_det_block(int64_t n) {
    int64_t b = (n + NS_RED_DET_MAX_BLOCKS - 1) / NS_RED_DET_MAX_BLOCKS;
    if (b < NS_RED_DET_MIN_BLOCK) b = NS_RED_DET_MIN_BLOCK;
    return (b + NS_RED_ALIGN - 1) / NS_RED_ALIGN * NS_RED_ALIGN;
}

void ns_red_split(int64_t n, int mode, int tid, int nthreads, int64_t *lo, int64_t *hi) {
    int64_t unit = mode == NS_RED_DET ? ns_red_det_block(n) : NS_RED_ALIGN;
    int64_t units = (n + unit - 1) / unit;
    int64_t a, b;
    if (units < INT64_MAX / NS_RED_MAX_THREADS) { /* the common case: no 128-bit division */
        a = units * tid / nthreads * unit;
        b = units * (tid + 1) / nthreads * unit;
    } else {
        a = (int64_t)((__int128)units * tid / nthreads) * unit;
        b = (int64_t)((__int128)units * (tid + 1) / nthreads) * unit;
    }
    *lo = a < n ? a : n;
    *hi = b < n ? b : n;
}

int ns_red_threads(int64_t n) {
    /* Inside any parallel region, even a 1-thread one (inactive, so omp_in_parallel() is 0):
     * the caller chose its team; a nested one would oversubscribe or surprise. */
    if (omp_get_level() > 0 || ns_team_forked()) return 1;
    int64_t t = n / MIN_PER_THREAD;
    int max = omp_get_max_threads();
    if (t > max) t = max;
    if (t > NS_RED_MAX_THREADS) t = NS_RED_MAX_THREADS;
    return t < 1 ? 1 : (int)t;
}

/* ---- one share --------------------------------------------------------------------------------
 */

/* 1 when the job accumulates in SP arithmetic (its partials are float values). */
static int acc_sp(const ns_red_job *j) {
    return (j->op == NS_OP_SSUM || j->op == NS_OP_SDOT) && j->variant != NS_VAR_WIDE;
}

static ns_dd combine(const ns_red_job *j, ns_dd a, ns_dd b) {
    int comp = j->variant == NS_VAR_COMP;
    if (acc_sp(j)) {
        if (!comp) return (ns_dd){(float)a.s + (float)b.s, 0.0};
        ns_ff r = ns_ff_combine((ns_ff){(float)a.s, (float)a.c}, (ns_ff){(float)b.s, (float)b.c});
        return (ns_dd){r.s, r.c};
    }
    return comp ? ns_dd_combine(a, b) : (ns_dd){a.s + b.s, 0.0};
}

/* The micro-kernel on n contiguous elements. */
static ns_dd leaf_unit(const ns_red_job *j, int64_t n, const void *xv, const void *yv) {
    const ns_reduce_ukrs *u = j->u;
    const double *xd = xv, *yd = yv;
    const float *xs = xv, *ys = yv;
    int comp = j->variant == NS_VAR_COMP, wide = j->variant == NS_VAR_WIDE;
    switch (j->op) {
    case NS_OP_DSUM:
        return comp ? u->dsum_comp(n, xd) : (ns_dd){u->dsum(n, xd), 0.0};
    case NS_OP_DDOT:
        return comp ? u->ddot_comp(n, xd, yd) : (ns_dd){u->ddot(n, xd, yd), 0.0};
    case NS_OP_DSUMSQ:
        return (ns_dd){u->dsumsq(n, xd, j->scale), 0.0};
    case NS_OP_SSUM:
        if (comp) {
            ns_ff r = u->ssum_comp(n, xs);
            return (ns_dd){r.s, r.c};
        }
        return (ns_dd){wide ? u->ssum_wide(n, xs) : u->ssum(n, xs), 0.0};
    case NS_OP_SDOT:
        if (comp) {
            ns_ff r = u->sdot_comp(n, xs, ys);
            return (ns_dd){r.s, r.c};
        }
        return (ns_dd){wide ? u->sdot_wide(n, xs, ys) : u->sdot(n, xs, ys), 0.0};
    case NS_OP_SSUMSQ:
        return (ns_dd){u->ssumsq_wide(n, xs), 0.0};
    }
    return (ns_dd){NAN, 0.0};
}

/* Address of logical element i (BLAS convention: a negative stride starts at the far end). */
static const char *elem(const void *x, int64_t n, int64_t inc, int64_t i, size_t size) {
    int64_t k = inc > 0 ? i * inc : (n - 1 - i) * -inc;
    return (const char *)x + k * (int64_t)size;
}

/* The gather buffer of strided input: 2 x NS_RED_PAIRWISE_LEAF doubles (32 KiB), one per thread,
 * made at the thread's first strided reduction, reused, and freed by a pthread key destructor
 * when the thread exits (the pattern of GEMM's pack buffers; the .so is NODELETE, so the
 * destructor stays mapped). It was a 32 KiB array on the stack of every thread, the caller's
 * included. */
static _Thread_local double *gather_tls;
static void *(*red_alloc)(size_t) = malloc; /* ns_red_set_alloc */
static pthread_once_t gather_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t gather_key;
static int gather_key_ok;

static void gather_free(void *p) {
    free(p);
    if (p == gather_tls) gather_tls = NULL;
}

static void gather_key_init(void) {
    gather_key_ok = pthread_key_create(&gather_key, gather_free) == 0;
}

/* This thread's gather buffer, or NULL when it cannot be allocated. */
static double *gather_buf(void) {
    if (gather_tls) return gather_tls;
    pthread_once(&gather_key_once, gather_key_init);
    gather_tls = red_alloc(2 * NS_RED_PAIRWISE_LEAF * sizeof(double));
    /* Without a key the buffer is kept until the process exits (one per thread). */
    if (gather_tls && gather_key_ok) pthread_setspecific(gather_key, gather_tls);
    return gather_tls;
}

void ns_red_set_alloc(void *(*alloc)(size_t)) {
    red_alloc = alloc ? alloc : malloc;
}

/* 1 when the job reads strided input (gathered per leaf). */
static int job_strided(const ns_red_job *j) {
    return j->incx != 1 || (ns_red_op_dot(j->op) && j->incy != 1);
}

/* Strided input: gathered into this thread's gather buffer (leaves are at most
 * NS_RED_PAIRWISE_LEAF elements on this path). NaN when the buffer cannot be allocated: the
 * public API gets every team thread's buffer first and returns NODESCALE_ERR_NOMEM then. */
static ns_dd leaf_gather(const ns_red_job *j, int64_t lo, int64_t hi) {
    size_t size = ns_red_op_sp(j->op) ? sizeof(float) : sizeof(double);
    int dot = ns_red_op_dot(j->op);
    double *bx = gather_buf();
    if (!bx) return (ns_dd){NAN, 0.0};
    double *by = bx + NS_RED_PAIRWISE_LEAF;
    for (int64_t i = lo; i < hi; i++) {
        memcpy((char *)bx + (i - lo) * (int64_t)size, elem(j->x, j->n, j->incx, i, size), size);
        if (dot)
            memcpy((char *)by + (i - lo) * (int64_t)size, elem(j->y, j->n, j->incy, i, size), size);
    }
    return leaf_unit(j, hi - lo, bx, by);
}

static ns_dd leaf(const ns_red_job *j, int64_t lo, int64_t hi) {
    size_t size = ns_red_op_sp(j->op) ? sizeof(float) : sizeof(double);
    int dot = ns_red_op_dot(j->op);
    if (!job_strided(j))
        return leaf_unit(j, hi - lo, (const char *)j->x + lo * (int64_t)size,
                         dot ? (const char *)j->y + lo * (int64_t)size : NULL);
    return leaf_gather(j, lo, hi);
}

static int pairwise_shape(const ns_red_job *j) {
    return j->variant == NS_VAR_PAIRWISE || job_strided(j);
}

static ns_dd share(const ns_red_job *j, int64_t lo, int64_t hi) {
    if (!pairwise_shape(j) || hi - lo <= NS_RED_PAIRWISE_LEAF) return leaf(j, lo, hi);
    int64_t half = ((hi - lo) / 2 + NS_RED_ALIGN - 1) / NS_RED_ALIGN * NS_RED_ALIGN;
    return combine(j, share(j, lo, lo + half), share(j, lo + half, hi));
}

/* The fixed combine tree over the k partials p[0], p[stride], ..., p[(k - 1) stride]. */
static ns_dd tree(const ns_red_job *j, const ns_dd *p, int64_t k, int64_t stride) {
    if (k == 1) return p[0];
    return combine(j, tree(j, p, k / 2, stride), tree(j, p + k / 2 * stride, k - k / 2, stride));
}

/* Deterministic mode on one thread: the tree of tree() over blocks first .. first + k - 1 of
 * length b, each block's share computed where tree() would read its partial (the same result
 * bitwise as ns_red_team_part + ns_red_team_finish on one thread, without an array of
 * partials). */
static ns_dd det_tree(const ns_red_job *j, int64_t first, int64_t k, int64_t b) {
    if (k == 1) {
        int64_t lo = first * b, hi = lo + b < j->n ? lo + b : j->n;
        return share(j, lo, hi);
    }
    return combine(j, det_tree(j, first, k / 2, b), det_tree(j, first + k / 2, k - k / 2, b));
}

int64_t ns_red_nparts(const ns_red_job *j, int nthreads) {
    if (j->mode != NS_RED_DET) return nthreads;
    int64_t b = ns_red_det_block(j->n);
    return (j->n + b - 1) / b;
}

ns_dd ns_red_share_general(const ns_red_job *j, int64_t lo, int64_t hi) {
    return share(j, lo, hi);
}

void ns_red_team_part(const ns_red_job *j, int tid, int nthreads, ns_dd *parts) {
    int64_t lo, hi;
    ns_red_split(j->n, j->mode, tid, nthreads, &lo, &hi);
    if (j->mode != NS_RED_DET) {
        parts[tid * NS_RED_PAD] = share(j, lo, hi);
        return;
    }
    int64_t b = ns_red_det_block(j->n);
    for (int64_t s = lo; s < hi; s += b)
        parts[s / b] = share(j, s, s + b < hi ? s + b : hi);
}

/* The value of the combined (sum, compensation) pair. Once the sum is Inf or NaN its TwoSum
 * errors are Inf - Inf = NaN: the result is then the sum alone, which is the plain sum's IEEE
 * result (+-Inf, or NaN for Inf - Inf or a NaN). */
static double final_value(const ns_red_job *j, ns_dd r) {
    if (acc_sp(j)) {
        float s = (float)r.s;
        return isfinite(s) ? s + (float)r.c : s;
    }
    return isfinite(r.s) ? r.s + r.c : r.s;
}

double ns_red_team_finish(const ns_red_job *j, int nthreads, const ns_dd *parts) {
    int64_t k = ns_red_nparts(j, nthreads);
    if (k == 0) return 0.0;
    return final_value(j, tree(j, parts, k, j->mode == NS_RED_DET ? 1 : NS_RED_PAD));
}

int ns_red_run(const ns_red_job *j, double *out) {
    if (j->n == 0) return *out = 0.0, 0;
    int strided = job_strided(j);
    if (strided && !gather_buf()) return NODESCALE_ERR_NOMEM;
    int t = ns_red_threads(j->n);
    /* One library team at a time (team_claim.h): without the claim, the calling thread alone;
     * with it, it is dropped once the team has joined. */
    if (t > 1 && !ns_team_claim()) t = 1;
    /* The team's partials, sized by the team (a fixed array for the largest team was 64 KiB of
     * the caller's stack). Without them, one thread, which needs none. */
    ns_dd *parts = NULL;
    if (t > 1) {
        int64_t np = ns_red_nparts(j, t), nfast = (int64_t)t * NS_RED_PAD;
        parts = red_alloc((size_t)(np > nfast ? np : nfast) * sizeof *parts);
        if (!parts) ns_team_release(), t = 1;
    }
    if (t == 1) {
        /* One thread, fast mode: its share is the whole range and the tree over one partial is
         * that partial; deterministic mode: det_tree. Both give ns_red_team_part +
         * ns_red_team_finish's result bitwise, without the partition's divisions and copies. */
        ns_dd r = j->mode != NS_RED_DET ? ns_red_share(j, 0, j->n)
                                        : det_tree(j, 0, ns_red_nparts(j, 1), ns_red_det_block(j->n));
        *out = final_value(j, r);
        return 0;
    }
    int nomem = 0;
#pragma omp parallel num_threads(t)
    {
        /* The runtime may give fewer threads than asked: partition by the team we got. */
        int nt = omp_get_num_threads();
#pragma omp single
        t = nt;
        if (strided && !gather_buf()) {
#pragma omp atomic write
            nomem = 1;
        }
        ns_red_team_part(j, omp_get_thread_num(), nt, parts);
    }
    ns_team_release();
    if (!nomem) *out = ns_red_team_finish(j, t, parts);
    free(parts);
    return nomem ? NODESCALE_ERR_NOMEM : 0;
}

/* ---- error bounds --------------------------------------------------------------------------- */

static double ceil_log2(double v) {
    return v <= 1 ? 0 : ceil(log2(v));
}

static int job_slots(const ns_red_job *j) {
    if (j->variant == NS_VAR_COMP) return j->u->slots_comp * (acc_sp(j) ? 2 : 1);
    return acc_sp(j) ? j->u->slots_s : j->u->slots_d;
}

/* h: the most roundings any one term goes through (Higham 2002, section 4.2: the error of any
 * summation order is bounded by gamma_h * sum |x_i| with h the depth of its addition tree). */
static double depth(const ns_red_job *j, int nthreads) {
    double L = job_slots(j);
    int64_t longest = 0;
    if (j->mode == NS_RED_DET) {
        longest = ns_red_det_block(j->n);
    } else {
        for (int t = 0; t < nthreads; t++) {
            int64_t lo, hi;
            ns_red_split(j->n, j->mode, t, nthreads, &lo, &hi);
            if (hi - lo > longest) longest = hi - lo;
        }
    }
    double leaf_len = longest, levels = 0;
    if (pairwise_shape(j) && longest > NS_RED_PAIRWISE_LEAF) {
        leaf_len = NS_RED_PAIRWISE_LEAF;
        levels = ceil_log2((double)longest / NS_RED_PAIRWISE_LEAF) + 1;
    }
    double h =
        ceil(leaf_len / L) + log2(L) + levels + ceil_log2((double)ns_red_nparts(j, nthreads));
    return h + 1; /* the product of a dot (fused) and the final s + c */
}

/* The nrm2 bound adds the first-order terms (gamma_h / 2, u, 2^-24 for snrm2: their sum is rel
 * below). This factor covers what they leave out, all second order: the products of those terms
 * (the sqrt's rounding applied to a sum already off by delta, the SP rounding applied to that),
 * 1 - sqrt(1 - delta) exceeding delta / 2 by up to delta^2 / 8, and the few roundings of the
 * bound's own arithmetic. Together they stay under rel^2 relative to |s|, which 1e-7 rel covers
 * while rel <= 1e-7 (snrm2: h up to about 7e8). */
#define NRM2_BOUND_SLACK 1.0000001 /* 1 + 1e-7 */

static double gamma_n(double h, double u) {
    return h * u < 0.5 ? h * u / (1 - h * u) : INFINITY;
}

double ns_red_bound(const ns_red_job *j, int nthreads, double sum_abs, double exact) {
    double h = depth(j, nthreads);
    double u = acc_sp(j) ? 0x1p-24 : 0x1p-53;
    double final_round = ns_red_op_sp(j->op) && !acc_sp(j) ? 0x1p-24 * fabs(exact) : 0.0;
    if (ns_red_op_sumsq(j->op)) {
        /* nrm2: sumsq has relative error <= gamma_h (positive terms); sqrt halves it and adds
         * one rounding. exact is the norm, sum_abs the sum of squares. A result in the
         * subnormal range is rounded with an absolute error of up to half the smallest
         * subnormal (2^-150 SP, 2^-1075 DP), which no relative term covers. 2^-1075 is no
         * double: it is added as 2^-1074, the next one up. */
        double rel = gamma_n(h, u) / 2 + u + (ns_red_op_sp(j->op) ? 0x1p-24 : 0.0);
        double sub = ns_red_op_sp(j->op) ? 0x1p-150 : 0x1p-1074;
        return rel * fabs(exact) * NRM2_BOUND_SLACK + 0x1p-1074 * (double)j->n + sub;
    }
    if (j->variant == NS_VAR_COMP) {
        /* Sum2/Dot2's bound, with the tree depth h in place of n - 1 (reduce_internal.h,
         * NS_VAR_COMP). */
        double g = gamma_n(h + 1, u);
        return u * fabs(exact) + g * g * sum_abs + final_round;
    }
    return gamma_n(h, u) * sum_abs + final_round;
}

int ns_red_bound_text(const ns_red_job *j, int nthreads, char *buf, size_t len) {
    double h = depth(j, nthreads);
    const char *u = acc_sp(j) ? "2^-24" : "2^-53";
    if (ns_red_op_sumsq(j->op))
        return snprintf(buf, len, "(gamma_h/2 + u%s)|s| + n 2^-1074 + %s, h = %.0f, u = 2^-53",
                        ns_red_op_sp(j->op) ? " + 2^-24" : "",
                        ns_red_op_sp(j->op) ? "2^-150" : "2^-1075", h);
    const char *wide = ns_red_op_sp(j->op) && !acc_sp(j) ? "2^-24|s| + " : "";
    if (j->variant == NS_VAR_COMP)
        return snprintf(buf, len, "%su|s| + gamma_{h+1}^2 S, h = %.0f, u = %s", wide, h, u);
    return snprintf(buf, len, "%sgamma_h S, h = %.0f, u = %s", wide, h, u);
}

/* ---- reference: double-double accumulation (about 106 bits) per thread, then combined --- */

static void dd_add(double *hi, double *lo, double v) {
    double t = *hi + v, z = t - *hi;
    *lo += (*hi - (t - z)) + (v - z);
    *hi = t;
}

/* One thread's share of the reference: double-double sum of the terms and sum |terms|. */
static void reference_range(const ns_red_job *j, int64_t lo_i, int64_t hi_i, double *out) {
    size_t size = ns_red_op_sp(j->op) ? sizeof(float) : sizeof(double);
    int dot = ns_red_op_dot(j->op);
    int sq = ns_red_op_sumsq(j->op);
    double hi = 0, lo = 0, sa = 0;
    for (int64_t i = lo_i; i < hi_i; i++) {
        const char *px = elem(j->x, j->n, j->incx, i, size);
        double a = size == sizeof(float) ? *(const float *)px : *(const double *)px, b = a;
        if (dot) {
            const char *py = elem(j->y, j->n, j->incy, i, size);
            b = size == sizeof(float) ? *(const float *)py : *(const double *)py;
        }
        if (dot || sq) {
            if (sq) a *= j->scale, b = a;
            double p = a * b;
            dd_add(&hi, &lo, p);
            dd_add(&hi, &lo, fma(a, b, -p));
            sa += fabs(p);
        } else {
            dd_add(&hi, &lo, a);
            sa += fabs(a);
        }
    }
    out[0] = hi, out[1] = lo, out[2] = sa;
}

double ns_red_reference(const ns_red_job *j, double *sum_abs) {
    double part[NS_RED_MAX_THREADS][3];
    int t = ns_red_threads(j->n);
#pragma omp parallel num_threads(t)
    {
        int64_t lo, hi;
        int nt = omp_get_num_threads(), id = omp_get_thread_num();
#pragma omp single
        t = nt;
        ns_red_split(j->n, NS_RED_FAST, id, nt, &lo, &hi);
        reference_range(j, lo, hi, part[id]);
    }
    double hi = 0, lo = 0, sa = 0;
    for (int k = 0; k < t; k++) {
        dd_add(&hi, &lo, part[k][0]);
        dd_add(&hi, &lo, part[k][1]);
        sa += part[k][2];
    }
    if (sum_abs) *sum_abs = sa;
    if (!ns_red_op_sumsq(j->op)) return hi + lo;
    double r = sqrt(hi);
    return r > 0 ? r + lo / (2 * r) : r;
}

/* ---- max |x| ------------------------------------------------------------------------------- */

void ns_amax_team_part(const ns_reduce_ukrs *u, int sp, int64_t n, const void *x, int64_t incx,
                       int tid, int nthreads, ns_amax_part *parts) {
    int64_t lo, hi;
    ns_red_split(n, NS_RED_FAST, tid, nthreads, &lo, &hi);
    ns_amax_part r = {-1, -1.0};
    if (lo < hi && incx == 1) {
        if (sp) {
            float m;
            r.index = lo + u->isamax(hi - lo, (const float *)x + lo, &m);
            r.value = m;
        } else {
            r.index = lo + u->idamax(hi - lo, (const double *)x + lo, &r.value);
        }
    } else {
        size_t size = sp ? sizeof(float) : sizeof(double);
        for (int64_t i = lo; i < hi; i++) {
            const char *p = elem(x, n, incx, i, size);
            double v = sp ? fabs((double)*(const float *)p) : fabs(*(const double *)p);
            if (isnan(v)) {
                r = (ns_amax_part){i, v};
                break;
            }
            if (v > r.value) r = (ns_amax_part){i, v};
        }
    }
    parts[tid * NS_RED_PAD] = r;
}

ns_amax_part ns_amax_team_finish(int nthreads, const ns_amax_part *parts) {
    ns_amax_part best = {-1, -1.0};
    for (int t = 0; t < nthreads; t++) {
        ns_amax_part p = parts[t * NS_RED_PAD];
        if (p.index < 0) continue;
        if (isnan(best.value)) break; /* shares are in index order: the first NaN wins */
        if (isnan(p.value) || p.value > best.value) best = p;
    }
    return best;
}

static int64_t amax_run(int sp, int64_t n, const void *x, int64_t incx, double *value) {
    const ns_reduce_ukrs *u = ns_reduce_ukrs_for(NULL);
    int t = ns_red_threads(n);
    if (t > 1 && !ns_team_claim()) t = 1; /* one library team at a time (team_claim.h) */
    /* The team's candidates from the heap, sized by the team (a fixed array for the largest team
     * was 64 KiB of the caller's stack); without them, one thread. */
    ns_amax_part one, *parts = &one;
    if (t > 1 && !(parts = red_alloc((size_t)t * NS_RED_PAD * sizeof *parts)))
        ns_team_release(), t = 1, parts = &one;
    if (t == 1) {
        ns_amax_team_part(u, sp, n, x, incx, 0, 1, parts);
    } else {
#pragma omp parallel num_threads(t)
        {
            int nt = omp_get_num_threads();
#pragma omp single
            t = nt;
            ns_amax_team_part(u, sp, n, x, incx, omp_get_thread_num(), nt, parts);
        }
        ns_team_release();
    }
    ns_amax_part r = ns_amax_team_finish(t, parts);
    if (parts != &one) free(parts);
    if (value) *value = r.value;
    return r.index;
}

/* ---- public API (include/nodescale.h) ------------------------------------------------------- */

static int bad_variant(int v, int sp) {
    return v < NodescaleSumPlain || v > NodescaleSumWide || (v == NodescaleSumWide && !sp);
}
static int bad_mode(int m) {
    return m != NodescaleFast && m != NodescaleDeterministic;
}

/* Validates and fills the job; returns 0 or the xerbla-style position (pos_* of the caller). */
static int setup(ns_red_job *j, ns_red_op op, int64_t n, const void *x, int64_t incx, const void *y,
                 int64_t incy, int variant, int mode, const void *result) {
    int dot = ns_red_op_dot(op), sp = ns_red_op_sp(op);
    int shift = dot ? 2 : 0; /* y and incy sit between incx and variant */
    if (n < 0) return 1;
    if (!x && n > 0) return 2;
    if (incx == 0) return 3;
    if (dot && !y && n > 0) return 4;
    if (dot && incy == 0) return 5;
    if (bad_variant(variant, sp)) return 4 + shift;
    if (ns_red_op_sumsq(op) && variant == NodescaleSumCompensated)
        return 4 + shift;
    if (bad_mode(mode)) return 5 + shift;
    if (!result) return 6 + shift;
    const ns_reduce_ukrs *u = ns_reduce_ukrs_for(NULL);
    *j = (ns_red_job){op,   variant, mode == NodescaleDeterministic ? NS_RED_DET : NS_RED_FAST,
                      n,    x,       y,
                      incx, incy,    1.0,
                      u};
    return 0;
}

/* ns_red_run for an SP result (the value rounded to float). */
static int run_sp(const ns_red_job *j, float *result) {
    double r;
    int e = ns_red_run(j, &r);
    if (!e) *result = (float)r;
    return e;
}

int nodescale_dsum(int64_t n, const double *x, int64_t incx, nodescale_sum_variant variant,
                   nodescale_reduce_mode mode, double *result) {
    ns_red_job j;
    int e = setup(&j, NS_OP_DSUM, n, x, incx, NULL, 1, variant, mode, result);
    return e ? e : ns_red_run(&j, result);
}

int nodescale_ssum(int64_t n, const float *x, int64_t incx, nodescale_sum_variant variant,
                   nodescale_reduce_mode mode, float *result) {
    ns_red_job j;
    int e = setup(&j, NS_OP_SSUM, n, x, incx, NULL, 1, variant, mode, result);
    return e ? e : run_sp(&j, result);
}

int nodescale_ddot(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy,
                   nodescale_sum_variant variant, nodescale_reduce_mode mode, double *result) {
    ns_red_job j;
    int e = setup(&j, NS_OP_DDOT, n, x, incx, y, incy, variant, mode, result);
    return e ? e : ns_red_run(&j, result);
}

int nodescale_sdot(int64_t n, const float *x, int64_t incx, const float *y, int64_t incy,
                   nodescale_sum_variant variant, nodescale_reduce_mode mode, float *result) {
    ns_red_job j;
    int e = setup(&j, NS_OP_SDOT, n, x, incx, y, incy, variant, mode, result);
    return e ? e : run_sp(&j, result);
}

/* The rescaling pass's exponent limit: 2^+-1000 keeps the scale 2^-e normal (2^-e overflows
 * for e < -1023, the subnormal max |x| = 2^-1074 has e = -1073). Clamped, max |x| scaled lies
 * in [2^-74, 2^24): its square is normal and the sum of squares cannot overflow. */
#define NRM2_SCALE_EXP_MAX 1000

/* Squares of x * 2^k for the power of two that brings max |x| near 1 (exact scaling): the
 * norm into *result, or NODESCALE_ERR_NOMEM (*result untouched). */
static int dnrm2_scaled(ns_red_job *j, double *result) {
    double amax, ss;
    amax_run(0, j->n, j->x, j->incx, &amax);
    if (amax == 0.0 || isinf(amax)) return *result = amax, 0;
    int e;
    frexp(amax, &e);
    if (e > NRM2_SCALE_EXP_MAX) e = NRM2_SCALE_EXP_MAX;
    if (e < -NRM2_SCALE_EXP_MAX) e = -NRM2_SCALE_EXP_MAX;
    j->scale = ldexp(1.0, -e);
    int rc = ns_red_run(j, &ss);
    if (!rc) *result = sqrt(ss) / j->scale;
    return rc;
}

int nodescale_dnrm2(int64_t n, const double *x, int64_t incx, nodescale_sum_variant variant,
                    nodescale_reduce_mode mode, double *result) {
    ns_red_job j;
    int e = setup(&j, NS_OP_DSUMSQ, n, x, incx, NULL, 1, variant, mode, result);
    if (e) return e;
    if (n == 0) {
        *result = 0.0;
        return 0;
    }
    double ss;
    e = ns_red_run(&j, &ss);
    if (e) return e;
    /* One unscaled pass suffices unless the sum overflowed or is so small that squares below
     * the normal range could matter (each loses < 2^-1074; against 2^-920 that is n * 2^-154).
     * Otherwise a second, scaled pass (Anderson, "Algorithm 978: Safe Scaling in the Level 1
     * BLAS", ACM TOMS 44(1), 2017, discusses the same split). */
    if (isinf(ss) || ss < 0x1p-920) return dnrm2_scaled(&j, result);
    *result = isnan(ss) ? ss : sqrt(ss);
    return 0;
}

int nodescale_snrm2(int64_t n, const float *x, int64_t incx, nodescale_sum_variant variant,
                    nodescale_reduce_mode mode, float *result) {
    ns_red_job j;
    int e = setup(&j, NS_OP_SSUMSQ, n, x, incx, NULL, 1, variant, mode, result);
    double ss;
    if (!e && !(e = ns_red_run(&j, &ss))) *result = (float)sqrt(ss);
    return e;
}

static int amax_api(int sp, int64_t n, const void *x, int64_t incx, int64_t *index) {
    if (n < 0) return 1;
    if (!x && n > 0) return 2;
    if (incx == 0) return 3;
    if (!index) return 4;
    *index = n == 0 ? -1 : amax_run(sp, n, x, incx, NULL);
    return 0;
}

int nodescale_idamax(int64_t n, const double *x, int64_t incx, int64_t *index) {
    return amax_api(0, n, x, incx, index);
}

int nodescale_isamax(int64_t n, const float *x, int64_t incx, int64_t *index) {
    return amax_api(1, n, x, incx, index);
}
