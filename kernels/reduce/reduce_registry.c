/* Registry descriptors of the reduce family (see kernels/registry.h). Each (operation, variant,
 * mode) is one name, in three ISAs. run() is exactly the library's per-thread work
 * (ns_red_team_part / ns_amax_team_part): every thread of the harness's team reduces its static
 * share into its own partial; the combine of those partials (nthreads or <= 1024 values, as
 * likwid-bench's sum leaves per-thread results uncombined) is done by check(), outside the timed
 * region. Inputs are uniform in +-[0.5, 1) (normal numbers; no denormal operand ever), first
 * touched in parallel by the thread that will read them, with the kernel's own partition.
 * check() requires two things. (1) The result bitwise equal (NaN to NaN) to a rerun of the same
 * partition and combine with the plain-C micro-kernels of the timed kernels' slot layout
 * (ns_reduce_ukrs_plain_c), which equal the SIMD ones bitwise by the micro-kernel contract: a
 * wrong result fails here whatever its size. (2) Its error against a double-double reference
 * within the a-priori bound ns_red_bound (gamma_h S plain, u |s| + gamma_{h+1}^2 S compensated, h
 * the depth of the addition tree; never an absolute tolerance), whose formula, with h and u,
 * check.why names. That bound grows with h and the condition S/|s|: for SP sums at DRAM sizes it
 * exceeds |s| (1659 |s| for ssum at n = 314572800, where 0 or -s would pass it), and
 * check.why then says it certifies nothing, leaving (1) as the check. Both run after the timed
 * region; at n = 314572800 (1.2 GB of SP) the rerun took 0.3-1.4 s on the 2-vCPU VM, the
 * reference 1.4-3 s.
 *
 * Names: _kahan is the suite's name for the compensated variant (Sum2/Dot2 of Ogita-Rump-Oishi,
 * Neumaier-style; not Kahan's algorithm: the names are kept for the baselines) and _dpacc for SP
 * input accumulated in DP (NodescaleSumWide); reduce_internal.h, NS_VAR_COMP and NS_VAR_WIDE,
 * states both.
 *
 * FLOPs count the useful work of the operation, as BLAS and the field count it, whatever the
 * variant executes: sum n, dot 2n, nrm2 2n (square and add). The compensated variants count the
 * same n and 2n although they execute about 7 and 11 operations per element, so their GFLOP/s
 * and arithmetic intensity compare with the plain kernels' directly; SP-into-DP the same as its
 * plain kind (conversions not counted). i?amax counts n, one compare per element, which BLAS
 * operation counts do not call FLOPs (its roofline has no compute roof).
 *
 * Bytes: every element read once; nothing is written, so "minimal" and "with write-allocate"
 * coincide. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/alloc.h"
#include "kernels/reduce/reduce_internal.h"
#include "kernels/reduce/reduce_kernels.h"

typedef struct rk_cfg {
    ns_red_op op;
    int variant, mode;
    int amax; /* 1: i?amax (op gives the precision: DSUM = dp, SSUM = sp) */
    const char *isa;
} rk_cfg;

typedef struct rk_state {
    const rk_cfg *cfg;
    ns_red_job job;
    int threads;
    void *x, *y;
    ns_dd *parts;
    ns_dd *rerun; /* check(): the partials of the plain-C rerun */
    ns_amax_part *aparts;
    int64_t lo[NS_RED_MAX_THREADS], hi[NS_RED_MAX_THREADS]; /* fast mode: each thread's share */
} rk_state;

static int arrays(const rk_cfg *c) {
    return ns_red_op_dot(c->op) ? 2 : 1;
}

static double rk_flops(const rk_cfg *c, const ns_params *p) {
    double n = (double)p->n;
    if (c->amax) return n; /* compares, see the header */
    int dot = ns_red_op_dot(c->op), sq = ns_red_op_sumsq(c->op);
    return dot || sq ? 2 * n : n; /* useful FLOPs, every variant alike */
}
static double rk_bytes(const rk_cfg *c, const ns_params *p) {
    return (double)p->n * arrays(c) * (ns_red_op_sp(c->op) ? 4.0 : 8.0);
}

static int sup_avx512(void) {
    return ns_cpu_has_avx512();
}
static int sup_avx2(void) {
    return ns_cpu_has_avx2_fma();
}
static int sup_scalar(void) {
    return 1;
}

/* Deterministic hash to +-[0.5, 1): normal, mixed signs, reproducible. */
static double value(uint64_t i, uint64_t stream) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull + stream * 0xbf58476d1ce4e5b9ull + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double v = 0.5 + (double)(z >> 12) * 0x1p-53; /* [0.5, 1) */
    return (z & 1) ? -v : v;
}

/* Operands the way the read ceiling's are allocated (kernels/alloc.h: 2 MiB aligned and on
 * transparent huge pages where the system allows): with 4 KiB pages the hardware prefetcher stops
 * at every page boundary, which cost a DRAM-sized sum 15% against stream_load on this VM. */
static void *alloc_array(int64_t n, size_t size) {
    return ns_alloc_array(((size_t)(n > 0 ? n : 1) * size + 63) / 64 * 64);
}

static void rk_destroy(void *sv) {
    rk_state *s = sv;
    if (!s) return;
    free(s->x);
    free(s->y);
    free(s->parts);
    free(s->rerun);
    free(s->aparts);
    free(s);
}

static void *rk_create(const rk_cfg *c, const ns_params *p) {
    if (p->n < 0 || p->threads < 1 || p->threads > NS_RED_MAX_THREADS) {
        errno = EINVAL;
        return NULL;
    }
    const ns_reduce_ukrs *u = ns_reduce_ukrs_for(c->isa);
    if (!u) { /* this CPU cannot run the ISA: not a lack of memory */
        errno = ENOTSUP;
        return NULL;
    }
    rk_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    size_t size = ns_red_op_sp(c->op) ? sizeof(float) : sizeof(double);
    s->cfg = c;
    s->threads = p->threads;
    s->x = alloc_array(p->n, size);
    s->y = arrays(c) == 2 ? alloc_array(p->n, size) : NULL;
    s->parts = calloc(NS_RED_PARTS_MAX, sizeof *s->parts);
    s->rerun = calloc(NS_RED_PARTS_MAX, sizeof *s->rerun);
    s->aparts = calloc((size_t)NS_RED_MAX_THREADS * NS_RED_PAD, sizeof *s->aparts);
    s->job = (ns_red_job){c->op, c->variant, c->mode, p->n, s->x, s->y, 1, 1, 1.0, u};
    if (!s->x || (arrays(c) == 2 && !s->y) || !s->parts || !s->rerun || !s->aparts) {
        rk_destroy(s);
        errno = ENOMEM;
        return NULL;
    }
    int mode = c->amax ? NS_RED_FAST : c->mode;
    for (int t = 0; t < p->threads; t++)
        ns_red_split(p->n, mode, t, p->threads, &s->lo[t], &s->hi[t]);
#pragma omp parallel num_threads(p->threads)
    {
        int64_t lo, hi;
        ns_red_split(p->n, mode, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        for (int64_t i = lo; i < hi; i++) {
            if (size == sizeof(float)) {
                ((float *)s->x)[i] = (float)value((uint64_t)i, 1);
                if (s->y) ((float *)s->y)[i] = (float)value((uint64_t)i, 2);
            } else {
                ((double *)s->x)[i] = value((uint64_t)i, 1);
                if (s->y) ((double *)s->y)[i] = value((uint64_t)i, 2);
            }
        }
    }
    return s;
}

static void rk_run(void *sv, int tid, int nthreads) {
    rk_state *s = sv;
    if (!s->cfg->amax && s->job.mode == NS_RED_FAST && nthreads == s->threads)
        s->parts[tid * NS_RED_PAD] = ns_red_share(&s->job, s->lo[tid], s->hi[tid]); /* as below */
    else if (s->cfg->amax)
        ns_amax_team_part(s->job.u, ns_red_op_sp(s->cfg->op), s->job.n, s->x, 1, tid, nthreads,
                          s->aparts);
    else
        ns_red_team_part(&s->job, tid, nthreads, s->parts);
}

/* The reduction again, outside the timed region: the same partition, the plain-C micro-kernels
 * of the timed kernels' slot layout (bitwise equal to them: reduce_internal.h) and the same
 * combine; on the run's team size, one share per thread. */
static double rerun_plain_c(rk_state *s) {
    ns_red_job j = s->job;
    j.u = ns_reduce_ukrs_plain_c(s->job.u);
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (int t = 0; t < s->threads; t++)
        ns_red_team_part(&j, t, s->threads, s->rerun);
    return ns_red_team_finish(&j, s->threads, s->rerun);
}

static void rk_check(void *sv, ns_check *out) {
    rk_state *s = sv;
    const char *kind = ns_red_op_sp(s->cfg->op) ? "sp" : "dp";
    if (s->cfg->amax) {
        ns_amax_part got = ns_amax_team_finish(s->threads, s->aparts);
        int64_t want = -1;
        if (s->job.n > 0) {
            double m;
            float mf;
            want = ns_red_op_sp(s->cfg->op) ? ns_red_c_isamax(s->job.n, s->x, &mf)
                                            : ns_red_c_idamax(s->job.n, s->x, &m);
        }
        out->ok = got.index == want;
        out->error = out->ok ? 0.0 : 1.0; /* exact: 0 same index, 1 another */
        out->bound = 0.5;
        snprintf(out->why, sizeof out->why,
                 "%s index %lld vs plain-C reference %lld (exact: error 0 same, 1 other)", kind,
                 (long long)got.index, (long long)want);
        return;
    }
    if (!ns_reduce_ukrs_plain_c(s->job.u)) { /* a SIMD table reduce_ukr_c.c has no twin of */
        out->ok = 0;
        out->error = out->bound = NAN;
        snprintf(out->why, sizeof out->why,
                 "%s: no plain-C kernels of the %s slot layout (%d DP, %d SP, %d compensated) to "
                 "check against (reduce_ukr_c.c)",
                 kind, s->job.u->isa, s->job.u->slots_d, s->job.u->slots_s, s->job.u->slots_comp);
        return;
    }
    double got = ns_red_team_finish(&s->job, s->threads, s->parts);
    double again = rerun_plain_c(s);
    int same = !memcmp(&got, &again, sizeof got) || (isnan(got) && isnan(again));
    double team_value = got;
    if (s->job.op == NS_OP_DSUMSQ) got = sqrt(got); /* inputs are in the one-pass range */
    if (s->job.op == NS_OP_SSUMSQ) got = (float)sqrt(got);
    double sum_abs, ref = ns_red_reference(&s->job, &sum_abs);
    double bound = ns_red_bound(&s->job, s->threads, sum_abs, ref);
    double err = fabs(got - ref);
    char formula[96], line[256]; /* the longest text below fits; why keeps what fits in it */
    ns_red_bound_text(&s->job, s->threads, formula, sizeof formula);
    out->ok = same && err <= bound;
    out->error = ref != 0.0 ? err / fabs(ref) : err;
    out->bound = ref != 0.0 ? bound / fabs(ref) : bound;
    if (!same)
        snprintf(line, sizeof line,
                 "%s: %.17g, not bitwise the plain-C rerun's %.17g (same partition and combine)",
                 kind, team_value, again);
    else if (ref != 0.0)
        snprintf(line, sizeof line,
                 "%s: bitwise = plain C; rel. error vs double-double ref.; "
                 "bound (%s)/|s|%s, S/|s| %.3g",
                 kind, formula, out->bound >= 1 ? " >= 1, certifies nothing" : "",
                 sum_abs / fabs(ref));
    else
        snprintf(line, sizeof line,
                 "%s: bitwise = plain C; absolute error (exact result 0); bound %s", kind, formula);
    snprintf(out->why, sizeof out->why, "%.*s", (int)sizeof out->why - 1, line);
}

/* One descriptor: its configuration and the per-descriptor entry points (the registry's
 * create/flops/bytes take only the parameters, so each descriptor needs its own). */
#define RK(ID, NAME, ISA, PREC, OP, VAR, MODE, AMAX, MIX)                                          \
    static const rk_cfg cfg_##ID = {OP, VAR, MODE, AMAX, #ISA};                                    \
    static double flops_##ID(const ns_params *p) {                                                 \
        return rk_flops(&cfg_##ID, p);                                                             \
    }                                                                                              \
    static double bytes_##ID(const ns_params *p) {                                                 \
        return rk_bytes(&cfg_##ID, p);                                                             \
    }                                                                                              \
    static void *create_##ID(const ns_params *p) {                                                 \
        return rk_create(&cfg_##ID, p);                                                            \
    }                                                                                              \
    const ns_kernel ns_k_##ID = {NAME,      "reduce",    #ISA,       PREC,       MIX,              \
                                 "minimal", NS_RUN_TEAM, flops_##ID, bytes_##ID, bytes_##ID,       \
                                 sup_##ISA, create_##ID, rk_run,     rk_check,   rk_destroy,       \
                                 NULL,       NULL,        NULL,       NULL};

/* The three ISAs of one (operation, variant, mode). MIX: the compute ceiling the arithmetic is
 * judged against (ns_kernel.mix): "add" for sums, "fma" for dot products and norms, NULL for
 * max-abs (compares, which no ceiling measures). */
#define RK3(ID, PREC, OP, VAR, MODE, AMAX, MIX)                                                    \
    RK(ID##_avx512, #ID, avx512, PREC, OP, VAR, MODE, AMAX, MIX)                                   \
    RK(ID##_avx2, #ID, avx2, PREC, OP, VAR, MODE, AMAX, MIX)                                       \
    RK(ID##_scalar, #ID, scalar, PREC, OP, VAR, MODE, AMAX, MIX)

enum { FAST = NS_RED_FAST, DET = NS_RED_DET };

RK3(dsum, NS_PREC_DP, NS_OP_DSUM, NS_VAR_PLAIN, FAST, 0, "add")
RK3(dsum_pairwise, NS_PREC_DP, NS_OP_DSUM, NS_VAR_PAIRWISE, FAST, 0, "add")
RK3(dsum_kahan, NS_PREC_DP, NS_OP_DSUM, NS_VAR_COMP, FAST, 0, "add")
RK3(dsum_det, NS_PREC_DP, NS_OP_DSUM, NS_VAR_PLAIN, DET, 0, "add")
RK3(ddot, NS_PREC_DP, NS_OP_DDOT, NS_VAR_PLAIN, FAST, 0, "fma")
RK3(ddot_kahan, NS_PREC_DP, NS_OP_DDOT, NS_VAR_COMP, FAST, 0, "fma")
RK3(ddot_det, NS_PREC_DP, NS_OP_DDOT, NS_VAR_PLAIN, DET, 0, "fma")
RK3(dnrm2, NS_PREC_DP, NS_OP_DSUMSQ, NS_VAR_PLAIN, FAST, 0, "fma")
RK3(idamax, NS_PREC_DP, NS_OP_DSUM, NS_VAR_PLAIN, FAST, 1, NULL)
RK3(ssum, NS_PREC_SP, NS_OP_SSUM, NS_VAR_PLAIN, FAST, 0, "add")
RK3(ssum_pairwise, NS_PREC_SP, NS_OP_SSUM, NS_VAR_PAIRWISE, FAST, 0, "add")
RK3(ssum_kahan, NS_PREC_SP, NS_OP_SSUM, NS_VAR_COMP, FAST, 0, "add")
RK3(ssum_dpacc, NS_PREC_SP, NS_OP_SSUM, NS_VAR_WIDE, FAST, 0, "add")
RK3(ssum_det, NS_PREC_SP, NS_OP_SSUM, NS_VAR_PLAIN, DET, 0, "add")
RK3(sdot, NS_PREC_SP, NS_OP_SDOT, NS_VAR_PLAIN, FAST, 0, "fma")
RK3(sdot_kahan, NS_PREC_SP, NS_OP_SDOT, NS_VAR_COMP, FAST, 0, "fma")
RK3(sdot_dpacc, NS_PREC_SP, NS_OP_SDOT, NS_VAR_WIDE, FAST, 0, "fma")
RK3(sdot_det, NS_PREC_SP, NS_OP_SDOT, NS_VAR_PLAIN, DET, 0, "fma")
RK3(snrm2, NS_PREC_SP, NS_OP_SSUMSQ, NS_VAR_PLAIN, FAST, 0, "fma")
RK3(isamax, NS_PREC_SP, NS_OP_SSUM, NS_VAR_PLAIN, FAST, 1, NULL)
