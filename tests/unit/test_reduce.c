/* Correctness of the reduction kernels (kernels/reduce): every operation, variant and mode on
 * every ISA this CPU runs, against a double-double reference and the a-priori bound
 * ns_red_bound (n * u * condition, never an absolute tolerance); well- and ill-conditioned sums;
 * SP sizes past 2^24; thread counts 1..4 (omp_set_num_threads and explicit teams); bitwise
 * determinism across thread counts; bitwise agreement of the AVX-512 and plain-C micro-kernels;
 * Inf, NaN and overflow in every variant; nrm2 with huge, tiny and subnormal values; i?amax ties
 * and NaN policy; n = 0 and bad arguments; the registry descriptors; the ring and tree thread
 * all-reduce; MXCSR probe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "harness/allreduce.h"
#include "harness/json.h"
#include "harness/stats.h"
#include "include/nodescale.h"
#include "kernels/reduce/allreduce.h"
#include "kernels/reduce/reduce_internal.h"
#include "kernels/reduce/reduce_kernels.h"
#include "kernels/registry.h"

/* ---- data ----------------------------------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return rng_state;
}
static double unif(void) { /* [0, 1) */
    return (double)(rnd() >> 11) * 0x1p-53;
}
/* +-[0.5, 1): well conditioned for dot/nrm2, cond ~ sqrt(n) for the sum of mixed signs */
static void fill_d(double *x, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        x[i] = (rnd() & 1 ? -1 : 1) * (0.5 + 0.5 * unif());
}
static void fill_s(float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((rnd() & 1 ? -1 : 1) * (0.5 + 0.5 * unif()));
}
/* Ill-conditioned: pairs +a, -a (exponents spread over 2^0..2^40) plus small terms, shuffled;
 * the exact sum is tiny against sum |x|. */
static void fill_ill_d(double *x, int64_t n) {
    int64_t h = n / 2;
    for (int64_t i = 0; i < h; i++) {
        x[i] = ldexp(0.5 + 0.5 * unif(), (int)(rnd() % 41));
        x[h + i] = -x[i];
    }
    for (int64_t i = 2 * h; i < n; i++)
        x[i] = 1.0;
    for (int64_t i = 0; i < n; i += 97)
        x[i] += 1e-3 * unif(); /* inexact cancellation */
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(rnd() % (uint64_t)(i + 1));
        double t = x[i];
        x[i] = x[j], x[j] = t;
    }
}

static const ns_reduce_ukrs *isas[3];
static int nisas;

static int setup_isas(void **state) {
    (void)state;
    const char *names[] = {"scalar", "avx2", "avx512"};
    nisas = 0;
    for (int i = 0; i < 3; i++)
        if (ns_reduce_ukrs_for(names[i])) isas[nisas++] = ns_reduce_ukrs_for(names[i]);
    return 0;
}

/* Runs job on an explicit team of t threads (every thread calls the team function). */
static double run_team(const ns_red_job *j, int t) {
    static ns_dd parts[NS_RED_PARTS_MAX];
#pragma omp parallel num_threads(t)
    ns_red_team_part(j, omp_get_thread_num(), t, parts);
    return ns_red_team_finish(j, t, parts);
}

/* got within the bound of job j on t threads, given the reference ref and sum |terms| sa. */
static void check_ref(const ns_red_job *j, int t, double got, double ref, double sa,
                      const char *what) {
    double bound = ns_red_bound(j, t, sa, ref);
    if (!(fabs(got - ref) <= bound))
        fail_msg("%s isa=%s op=%d var=%d mode=%d n=%lld t=%d: got %.17g ref %.17g err %.3g bound "
                 "%.3g",
                 what, j->u->isa, j->op, j->variant, j->mode, (long long)j->n, t, got, ref,
                 fabs(got - ref), bound);
}

static void check_job(const ns_red_job *j, int t, double got, const char *what) {
    double sa, ref = ns_red_reference(j, &sa);
    check_ref(j, t, got, ref, sa, what);
}

/* ---- tests ---------------------------------------------------------------------------------- */

/* Every op x variant x mode x ISA x thread count 1..4 x sizes around the tile edges. */
static void test_all_variants_bounded(void **state) {
    (void)state;
    static const int64_t ns[] = {1, 7, 64, 65, 129, 2049, 8191, 40009};
    int64_t nmax = 40009;
    double *xd = malloc(nmax * sizeof *xd), *yd = malloc(nmax * sizeof *yd);
    float *xs = malloc(nmax * sizeof *xs), *ys = malloc(nmax * sizeof *ys);
    fill_d(xd, nmax), fill_d(yd, nmax), fill_s(xs, nmax), fill_s(ys, nmax);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int op = NS_OP_DSUM; op <= NS_OP_SSUMSQ; op++) {
            int sp = op >= NS_OP_SSUM, sq = op == NS_OP_DSUMSQ || op == NS_OP_SSUMSQ;
            ns_red_job j = {op, 0, 0,   ns[k],  sp ? (void *)xs : xd, sp ? (void *)ys : yd,
                            1,  1, 1.0, isas[0]};
            double sa, ref = ns_red_reference(&j, &sa);
            for (int ii = 0; ii < nisas; ii++)
                for (int v = 0; v < 4; v++)
                    for (int mode = 0; mode < 2; mode++)
                        for (int t = 1; t <= 4; t++) {
                            if (v == NS_VAR_WIDE && !sp) continue;
                            if (sq && (v == NS_VAR_COMP || v == NS_VAR_WIDE)) continue;
                            j.u = isas[ii], j.variant = v, j.mode = mode;
                            double got = run_team(&j, t);
                            if (sq) got = sqrt(got);
                            check_ref(&j, t, got, ref, sa, "team");
                        }
        }
    free(xd), free(yd), free(xs), free(ys);
}

/* The public API on 1..4 threads (omp_set_num_threads), n large enough to use them all. */
static void test_api_threads(void **state) {
    (void)state;
    int64_t n = 4 * 32768 + 77;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    float *xs = malloc(n * sizeof *xs);
    fill_d(x, n), fill_d(y, n), fill_s(xs, n);
    int saved = omp_get_max_threads();
    for (int t = 1; t <= 4; t++) {
        omp_set_num_threads(t);
        for (int v = 0; v < 3; v++)
            for (int m = 0; m < 2; m++) {
                double r;
                float rs;
                ns_red_job j = {NS_OP_DSUM, v, m, n, x, NULL, 1, 1, 1.0, ns_reduce_ukrs_for(NULL)};
                assert_int_equal(nodescale_dsum(n, x, 1, v, m, &r), 0);
                check_job(&j, ns_red_threads(n), r, "dsum");
                j.op = NS_OP_DDOT, j.y = y;
                assert_int_equal(nodescale_ddot(n, x, 1, y, 1, v, m, &r), 0);
                check_job(&j, ns_red_threads(n), r, "ddot");
                ns_red_job js = {NS_OP_SSUM, v, m, n, xs, NULL, 1, 1, 1.0, j.u};
                assert_int_equal(nodescale_ssum(n, xs, 1, v, m, &rs), 0);
                check_job(&js, ns_red_threads(n), rs, "ssum");
            }
    }
    omp_set_num_threads(saved);
    free(x), free(y), free(xs);
}

/* Deterministic mode: bitwise the same for 1..4 threads, for every op and variant, and for two
 * runs; on AVX-512 also bitwise equal to the plain-C kernels (same slot layout). */
static void test_deterministic_bitwise(void **state) {
    (void)state;
    int64_t n = 3 * 8192 * 4 + 1234; /* several blocks, not a multiple of anything */
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    float *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys);
    fill_ill_d(x, n), fill_d(y, n), fill_s(xs, n), fill_s(ys, n);
    for (int ii = 0; ii < nisas; ii++)
        for (int op = NS_OP_DSUM; op <= NS_OP_SSUMSQ; op++)
            for (int v = 0; v < 4; v++) {
                int sp = op >= NS_OP_SSUM, sq = op == NS_OP_DSUMSQ || op == NS_OP_SSUMSQ;
                if ((v == NS_VAR_WIDE && !sp) || (sq && v >= NS_VAR_COMP)) continue;
                ns_red_job j = {op, v,   NS_RED_DET, n, sp ? (void *)xs : x, sp ? (void *)ys : y, 1,
                                1,  1.0, isas[ii]};
                double r1 = run_team(&j, 1);
                for (int t = 2; t <= 4; t++) {
                    double rt = run_team(&j, t);
                    if (memcmp(&r1, &rt, sizeof r1) != 0)
                        fail_msg("det isa=%s op=%d var=%d: t=1 %.17g, t=%d %.17g", isas[ii]->isa,
                                 op, v, r1, t, rt);
                }
                double again = run_team(&j, 3);
                assert_memory_equal(&r1, &again, sizeof r1);
            }
    /* The public API in deterministic mode across omp_set_num_threads. */
    int saved = omp_get_max_threads();
    double first = 0;
    for (int t = 1; t <= 4; t++) {
        double r;
        omp_set_num_threads(t);
        assert_int_equal(nodescale_dsum(n, x, 1, NodescaleSumPlain, NodescaleDeterministic, &r), 0);
        if (t == 1) first = r;
        assert_memory_equal(&first, &r, sizeof r);
    }
    omp_set_num_threads(saved);
    free(x), free(y), free(xs), free(ys);
}

/* SIMD micro-kernels and the plain-C ones of their slot layout (ns_reduce_ukrs_plain_c: the
 * scalar table for AVX-512, the AVX2-layout table for AVX2) agree bitwise on any range (the
 * contract; the registry's check() relies on it). */
static void simd_matches_plain_c(const ns_reduce_ukrs *z) {
    const ns_reduce_ukrs *c = ns_reduce_ukrs_plain_c(z);
    assert_non_null(c);
    assert_true(c->slots_d == z->slots_d && c->slots_s == z->slots_s &&
                c->slots_comp == z->slots_comp);
    int64_t nmax = 5000;
    double *x = malloc(nmax * sizeof *x), *y = malloc(nmax * sizeof *y);
    float *xs = malloc(nmax * sizeof *xs), *ys = malloc(nmax * sizeof *ys);
    fill_ill_d(x, nmax), fill_d(y, nmax), fill_s(xs, nmax), fill_s(ys, nmax);
    for (int64_t n = 0; n < nmax; n += 1 + n / 7) {
        double a = z->dsum(n, x), b = c->dsum(n, x);
        assert_memory_equal(&a, &b, sizeof a);
        a = z->ddot(n, x, y), b = c->ddot(n, x, y);
        assert_memory_equal(&a, &b, sizeof a);
        a = z->dsumsq(n, y, 1.0), b = c->dsumsq(n, y, 1.0);
        assert_memory_equal(&a, &b, sizeof a);
        a = z->dsumsq(n, y, 0x1p-600), b = c->dsumsq(n, y, 0x1p-600);
        assert_memory_equal(&a, &b, sizeof a);
        ns_dd p = z->dsum_comp(n, x), q = c->dsum_comp(n, x);
        assert_memory_equal(&p, &q, sizeof p);
        p = z->ddot_comp(n, x, y), q = c->ddot_comp(n, x, y);
        assert_memory_equal(&p, &q, sizeof p);
        float f = z->ssum(n, xs), g = c->ssum(n, xs);
        assert_memory_equal(&f, &g, sizeof f);
        f = z->sdot(n, xs, ys), g = c->sdot(n, xs, ys);
        assert_memory_equal(&f, &g, sizeof f);
        ns_ff pf = z->ssum_comp(n, xs), qf = c->ssum_comp(n, xs);
        assert_memory_equal(&pf, &qf, sizeof pf);
        pf = z->sdot_comp(n, xs, ys), qf = c->sdot_comp(n, xs, ys);
        assert_memory_equal(&pf, &qf, sizeof pf);
        a = z->ssum_wide(n, xs), b = c->ssum_wide(n, xs);
        assert_memory_equal(&a, &b, sizeof a);
        a = z->sdot_wide(n, xs, ys), b = c->sdot_wide(n, xs, ys);
        assert_memory_equal(&a, &b, sizeof a);
        a = z->ssumsq_wide(n, xs), b = c->ssumsq_wide(n, xs);
        assert_memory_equal(&a, &b, sizeof a);
    }
    free(x), free(y), free(xs), free(ys);
}

static void test_simd_matches_plain_c(void **state) {
    (void)state;
    const ns_reduce_ukrs *z = ns_reduce_ukrs_for("avx512"), *y = ns_reduce_ukrs_for("avx2");
    if (!z && !y) skip();
    if (z) simd_matches_plain_c(z);
    if (y) simd_matches_plain_c(y);
    assert_ptr_equal(ns_reduce_ukrs_plain_c(&ns_reduce_ukrs_scalar), &ns_reduce_ukrs_scalar);
}

/* Every micro-kernel table, whether this CPU runs it or not, has plain-C twins of its slot
 * layout (the registry's check() needs them): a new table without them fails here, not as a
 * measurement that cannot be checked. The slot counts are the named layouts. */
static void test_every_table_has_plain_c_twin(void **state) {
    (void)state;
    static const struct {
        const ns_reduce_ukrs *u;
        int d, s, comp;
    } t[] = {
        {&ns_reduce_ukrs_scalar, NS_RED_SLOTS_AVX512_D, NS_RED_SLOTS_AVX512_S,
         NS_RED_SLOTS_AVX512_COMP},
        {&ns_reduce_ukrs_avx512, NS_RED_SLOTS_AVX512_D, NS_RED_SLOTS_AVX512_S,
         NS_RED_SLOTS_AVX512_COMP},
        {&ns_reduce_ukrs_avx2, NS_RED_SLOTS_AVX2_D, NS_RED_SLOTS_AVX2_S, NS_RED_SLOTS_AVX2_COMP},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const ns_reduce_ukrs *u = t[i].u, *c = ns_reduce_ukrs_plain_c(u);
        assert_int_equal(u->slots_d, t[i].d);
        assert_int_equal(u->slots_s, t[i].s);
        assert_int_equal(u->slots_comp, t[i].comp);
        assert_non_null(c);
        assert_true(c->slots_d == u->slots_d && c->slots_s == u->slots_s &&
                    c->slots_comp == u->slots_comp);
    }
}

/* Ill-conditioned sums: every variant within its bound, and the compensated result within its
 * much tighter bound (about u |s| + (n u)^2 S), far below what plain achieves. */
static void test_ill_conditioned(void **state) {
    (void)state;
    int64_t n = 200001;
    double *x = malloc(n * sizeof *x);
    fill_ill_d(x, n);
    for (int ii = 0; ii < nisas; ii++)
        for (int v = 0; v < 3; v++)
            for (int t = 1; t <= 4; t += 3) {
                ns_red_job j = {NS_OP_DSUM, v, NS_RED_FAST, n, x, NULL, 1, 1, 1.0, isas[ii]};
                double got = run_team(&j, t);
                check_job(&j, t, got, "ill");
                if (v == NS_VAR_COMP) {
                    double sa, ref = ns_red_reference(&j, &sa);
                    assert_true(sa / fabs(ref) > 1e6); /* really ill-conditioned */
                    assert_true(fabs(got - ref) <= 4 * 0x1p-53 * fabs(ref) + 1e-20 * sa);
                }
            }
    free(x);
}

/* 2^25 SP ones sum to exactly 2^25 (each of the L slots stays below 2^24), and a
 * random SP vector past 2^24 is within its n*u bound in SP and in DP accumulation. */
static void test_sp_past_2_24(void **state) {
    (void)state;
    int64_t n = (int64_t)1 << 25;
    float *x = malloc(n * sizeof *x);
    for (int64_t i = 0; i < n; i++)
        x[i] = 1.0f;
    float r;
    int saved = omp_get_max_threads();
    for (int t = 1; t <= 4; t++) { /* OMP_NUM_THREADS=1,2,4 */
        omp_set_num_threads(t);
        for (int m = 0; m < 2; m++) {
            assert_int_equal(nodescale_ssum(n, x, 1, NodescaleSumPlain, m, &r), 0);
            assert_true(r == 33554432.0f);
            assert_int_equal(nodescale_sdot(n, x, 1, x, 1, NodescaleSumPlain, m, &r), 0);
            assert_true(r == 33554432.0f);
        }
    }
    omp_set_num_threads(saved);
    int64_t n2 = ((int64_t)1 << 24) + 3;
    for (int64_t i = 0; i < n2; i++)
        x[i] = (float)(0.5 + unif());
    ns_red_job j = {NS_OP_SSUM, 0, NS_RED_FAST, n2, x, NULL, 1, 1, 1.0, ns_reduce_ukrs_for(NULL)};
    double sa, ref = ns_red_reference(&j, &sa);
    for (int v = 0; v < 4; v++) {
        j.variant = v;
        assert_int_equal(nodescale_ssum(n2, x, 1, v, NodescaleFast, &r), 0);
        check_ref(&j, ns_red_threads(n2), r, ref, sa, "ssum 2^24+3");
    }
    free(x);
}

/* nrm2 never overflows or underflows when the norm is representable. */
static void test_nrm2_extremes(void **state) {
    (void)state;
    int64_t n = 10007;
    double *v = malloc(n * sizeof *v), *x = malloc(n * sizeof *x);
    float *xs = malloc(n * sizeof *xs);
    fill_d(v, n);
    ns_red_job j = {NS_OP_DSUMSQ, 0, 0, n, v, NULL, 1, 1, 1.0, ns_reduce_ukrs_for(NULL)};
    double base = ns_red_reference(&j, NULL);
    /* 2^k * v has norm 2^k * |v| exactly; k = 1000 overflows plain squares, -1000 underflows
     * them, -1060 makes every element subnormal. */
    const int ks[] = {0, 500, 1000, -500, -1000, -1060};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        for (int64_t e = 0; e < n; e++)
            x[e] = ldexp(v[e], ks[i]);
        double want = ldexp(base, ks[i]), r;
        for (int m = 0; m < 2; m++) {
            assert_int_equal(nodescale_dnrm2(n, x, 1, NodescaleSumPlain, m, &r), 0);
            double tol = ks[i] == -1060 ? 1e-2 : 1e-12; /* subnormal inputs carry few bits */
            if (!(fabs(r - want) <= tol * want)) fail_msg("dnrm2 k=%d: %g vs %g", ks[i], r, want);
        }
    }
    /* one huge element among ones; single values at the edges */
    for (int64_t e = 0; e < n; e++)
        x[e] = 1.0;
    x[17] = 1e300;
    double r;
    assert_int_equal(nodescale_dnrm2(n, x, 1, NodescaleSumPlain, NodescaleFast, &r), 0);
    assert_true(fabs(r - 1e300) <= 1e-15 * 1e300);
    x[17] = INFINITY;
    nodescale_dnrm2(n, x, 1, NodescaleSumPlain, NodescaleFast, &r);
    assert_true(isinf(r) && r > 0);
    x[18] = NAN;
    nodescale_dnrm2(n, x, 1, NodescaleSumPlain, NodescaleFast, &r);
    assert_true(isnan(r));
    memset(x, 0, n * sizeof *x);
    nodescale_dnrm2(n, x, 1, NodescaleSumPlain, NodescaleFast, &r);
    assert_true(r == 0.0);
    double one = DBL_MAX;
    nodescale_dnrm2(1, &one, 1, NodescaleSumPlain, NodescaleFast, &r);
    assert_true(r == DBL_MAX);
    one = 0x1p-1074;
    nodescale_dnrm2(1, &one, 1, NodescaleSumPlain, NodescaleFast, &r);
    assert_true(r == 0x1p-1074);
    /* snrm2: huge and tiny floats accumulate in DP without scaling */
    for (int64_t e = 0; e < n; e++)
        xs[e] = 1e38f;
    float rs;
    assert_int_equal(nodescale_snrm2(n, xs, 1, NodescaleSumPlain, NodescaleFast, &rs), 0);
    assert_true(isinf(rs)); /* 1e38 * sqrt(10007) exceeds FLT_MAX: correctly Inf */
    for (int64_t e = 0; e < n; e++)
        xs[e] = 1e36f;
    nodescale_snrm2(n, xs, 1, NodescaleSumPlain, NodescaleFast, &rs);
    assert_true(fabs(rs - 1e36 * sqrt((double)n)) <= 1e-6 * 1e36 * sqrt((double)n));
    for (int64_t e = 0; e < n; e++)
        xs[e] = 1e-40f; /* subnormal floats */
    nodescale_snrm2(n, xs, 1, NodescaleSumPlain, NodescaleFast, &rs);
    double ws = (double)1e-40f * sqrt((double)n);
    assert_true(fabs(rs - ws) <= 1e-6 * ws);
    free(v), free(x), free(xs);
}

/* A norm in the subnormal range is rounded with an absolute error of up to 2^-150 (SP) or
 * 2^-1075 (DP), which the relative terms of the bound do not cover (80000 floats
 * uniform in +-1e-41, snrm2 1.6342699e-39 against 1.63427039e-39 exact, 4.6x the bound that
 * lacked 2^-150): snrm2 on every ISA, variant, mode and team of 1..4, and the API. (DP's
 * 2^-1075 cannot be exceeded alone: the bound's n 2^-1074 is larger.) */
static void test_nrm2_subnormal_result(void **state) {
    (void)state;
    int64_t n = 80000;
    float *xs = malloc(n * sizeof *xs);
    for (int64_t i = 0; i < n; i++)
        xs[i] = (float)((2 * unif() - 1) * 1e-41);
    ns_red_job j = {NS_OP_SSUMSQ, 0, 0, n, xs, NULL, 1, 1, 1.0, isas[0]};
    double sa, ref = ns_red_reference(&j, &sa);
    assert_true(ref > 1.5e-39 && ref < 1.8e-39 && ref < FLT_MIN);
    for (int ii = 0; ii < nisas; ii++)
        for (int v = 0; v < 2; v++)
            for (int mode = 0; mode < 2; mode++)
                for (int t = 1; t <= 4; t++) {
                    j.u = isas[ii], j.variant = v, j.mode = mode;
                    float got = (float)sqrt(run_team(&j, t));
                    check_ref(&j, t, got, ref, sa, "snrm2 subnormal");
                }
    j.u = ns_reduce_ukrs_for(NULL);
    for (int m = 0; m < 2; m++) {
        float r;
        j.variant = 0, j.mode = m == NodescaleDeterministic ? NS_RED_DET : NS_RED_FAST;
        assert_int_equal(nodescale_snrm2(n, xs, 1, NodescaleSumPlain, m, &r), 0);
        check_ref(&j, ns_red_threads(n), r, ref, sa, "snrm2 subnormal API");
    }
    free(xs);
}

/* i?amax: first of ties; first NaN wins (even after an Inf); strides; every thread count. */
static void test_amax(void **state) {
    (void)state;
    int64_t n = 4 * 32768 + 5, idx;
    double *x = malloc(n * sizeof *x);
    float *xs = malloc(n * sizeof *xs);
    int saved = omp_get_max_threads();
    for (int t = 1; t <= 4; t++) {
        omp_set_num_threads(t);
        fill_d(x, n);
        fill_s(xs, n);
        x[70000] = -3.0, x[90000] = 3.0, x[130000] = -3.0; /* tie: the first */
        xs[70001] = 3.0f, xs[100000] = -3.0f;
        assert_int_equal(nodescale_idamax(n, x, 1, &idx), 0);
        assert_int_equal(idx, 70000);
        assert_int_equal(nodescale_isamax(n, xs, 1, &idx), 0);
        assert_int_equal(idx, 70001);
        x[100] = INFINITY, x[120000] = NAN, x[130001] = NAN;
        xs[5] = -INFINITY, xs[80000] = NAN;
        nodescale_idamax(n, x, 1, &idx);
        assert_int_equal(idx, 120000);
        nodescale_isamax(n, xs, 1, &idx);
        assert_int_equal(idx, 80000);
        x[120000] = 1, x[130001] = 1;
        nodescale_idamax(n, x, 1, &idx);
        assert_int_equal(idx, 100);
        /* stride 2 (logical index), stride -1 (BLAS: logical i is x[n-1-i]) */
        nodescale_idamax(n / 2, x, 2, &idx);
        assert_int_equal(idx, 50);
        nodescale_idamax(n, x, -1, &idx);
        assert_int_equal(idx, n - 1 - 100);
    }
    omp_set_num_threads(saved);
    /* every ISA's micro-kernel against plain C, ties across lanes and registers */
    for (int ii = 0; ii < nisas; ii++)
        for (int64_t m = 1; m < 300; m += 7) {
            for (int64_t i = 0; i < m; i++)
                x[i] = (double)(rnd() % 5), xs[i] = (float)(rnd() % 5);
            if (m % 3 == 0) /* a NaN somewhere (and a second one after it) */
                x[rnd() % m] = NAN, xs[rnd() % m] = NAN, x[m - 1] = NAN, xs[m - 1] = NAN;
            double a1, a2;
            float f1, f2;
            assert_int_equal(isas[ii]->idamax(m, x, &a1), ns_red_c_idamax(m, x, &a2));
            assert_int_equal(isas[ii]->isamax(m, xs, &f1), ns_red_c_isamax(m, xs, &f2));
        }
    free(x), free(xs);
}

/* One i?amax case on every ISA: index and value (NaN or not) equal plain C's. */
static void amax_same(int64_t n, const double *x, const float *xs, const char *what, int64_t p) {
    double a2;
    float f2;
    int64_t want = ns_red_c_idamax(n, x, &a2), wants = ns_red_c_isamax(n, xs, &f2);
    for (int ii = 0; ii < nisas; ii++) {
        double a1 = 0;
        float f1 = 0;
        int64_t got = isas[ii]->idamax(n, x, &a1), gots = isas[ii]->isamax(n, xs, &f1);
        if (got != want || (isnan(a1) ? !isnan(a2) : a1 != a2) || gots != wants ||
            (isnan(f1) ? !isnan(f2) : f1 != f2))
            fail_msg("i?amax isa=%s n=%lld %s at %lld: idamax %lld (%g) want %lld (%g), isamax "
                     "%lld (%g) want %lld (%g)",
                     isas[ii]->isa, (long long)n, what, (long long)p, (long long)got, a1,
                     (long long)want, a2, (long long)gots, (double)f1, (long long)wants,
                     (double)f2);
    }
}

/* Every n in 0..200 (below, at and past each ISA's vector block and its tail), on every ISA:
 * random values full of ties; all equal; the maximum at each position with a tie of the other
 * sign after it (and one before it that is smaller); a NaN at each position with an Inf before
 * it and a second NaN after it. The result must be plain C's: first maximum, first NaN. */
static void test_amax_small_n(void **state) {
    (void)state;
    enum { NMAX = 200 };
    double x[NMAX + 1];
    float xs[NMAX + 1];
    for (int64_t n = 0; n <= NMAX; n++) {
        for (int64_t i = 0; i < n; i++)
            x[i] = (double)(rnd() % 5) - 2, xs[i] = (float)(rnd() % 5) - 2;
        amax_same(n, x, xs, "random ties", -1);
        for (int64_t i = 0; i < n; i++)
            x[i] = i & 1 ? -1.5 : 1.5, xs[i] = i & 1 ? 1.5f : -1.5f;
        amax_same(n, x, xs, "all equal", -1);
        for (int64_t p = 0; p < n; p++) {
            for (int64_t i = 0; i < n; i++)
                x[i] = (double)(rnd() % 5) - 2, xs[i] = (float)(rnd() % 5) - 2;
            int64_t q = p + 1 + (int64_t)(rnd() % (uint64_t)(n - p));
            x[p] = -7.0, xs[p] = 7.0f;
            if (q < n) x[q] = 7.0, xs[q] = -7.0f;
            if (p > 0) x[p - 1] = 6.5, xs[p - 1] = -6.5f;
            amax_same(n, x, xs, "tie", p);
            x[p] = NAN, xs[p] = -NAN;
            if (p > 0) x[p - 1] = -INFINITY, xs[p - 1] = INFINITY;
            if (q < n) x[q] = -NAN, xs[q] = NAN;
            amax_same(n, x, xs, "NaN", p);
        }
    }
}

/* n = 0, strides, bad arguments (xerbla-style positions), results untouched on error. */
static void test_edges_and_errors(void **state) {
    (void)state;
    double x[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, r = 42;
    float xs[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, rs = 42;
    int64_t idx = 7;
    assert_int_equal(nodescale_dsum(0, NULL, 1, 0, 0, &r), 0);
    assert_true(r == 0.0);
    assert_int_equal(nodescale_ddot(0, NULL, 1, NULL, 1, 0, 0, &r), 0);
    assert_true(r == 0.0);
    assert_int_equal(nodescale_dnrm2(0, NULL, 1, 0, 0, &r), 0);
    assert_true(r == 0.0);
    assert_int_equal(nodescale_snrm2(0, NULL, 1, 0, 0, &rs), 0);
    assert_true(rs == 0.0f);
    assert_int_equal(nodescale_idamax(0, NULL, 1, &idx), 0);
    assert_int_equal(idx, -1);
    r = 42;
    assert_int_equal(nodescale_dsum(-1, x, 1, 0, 0, &r), 1);
    assert_int_equal(nodescale_dsum(3, NULL, 1, 0, 0, &r), 2);
    assert_int_equal(nodescale_dsum(3, x, 0, 0, 0, &r), 3);
    assert_int_equal(nodescale_dsum(3, x, 1, NodescaleSumWide, 0, &r), 4);
    assert_int_equal(nodescale_dsum(3, x, 1, 9, 0, &r), 4);
    assert_int_equal(nodescale_dsum(3, x, 1, 0, 7, &r), 5);
    assert_int_equal(nodescale_dsum(3, x, 1, 0, 0, NULL), 6);
    assert_int_equal(nodescale_ddot(3, x, 1, NULL, 1, 0, 0, &r), 4);
    assert_int_equal(nodescale_ddot(3, x, 1, x, 0, 0, 0, &r), 5);
    assert_int_equal(nodescale_ddot(3, x, 1, x, 1, 5, 0, &r), 6);
    assert_int_equal(nodescale_ddot(3, x, 1, x, 1, 0, 3, &r), 7);
    assert_int_equal(nodescale_ddot(3, x, 1, x, 1, 0, 0, NULL), 8);
    assert_int_equal(nodescale_dnrm2(3, x, 1, NodescaleSumCompensated, 0, &r), 4);
    assert_int_equal(nodescale_idamax(3, x, 0, &idx), 3);
    assert_true(r == 42);
    /* strides: x = 1..10; stride 3 -> 1 + 4 + 7 + 10; stride -2 (n = 5) sums 1,3,5,7,9 */
    assert_int_equal(nodescale_dsum(4, x, 3, 0, 0, &r), 0);
    assert_true(r == 22);
    assert_int_equal(nodescale_ssum(5, xs, -2, NodescaleSumWide, 0, &rs), 0);
    assert_true(rs == 25);
    /* dot with a negative stride pairs x[0] with y's last element (BLAS) */
    assert_int_equal(nodescale_ddot(2, x, 1, x, -1, 0, 0, &r), 0);
    assert_true(r == 1 * 2 + 2 * 1);
    /* strided against the reference at a size with many leaves, both signs */
    int64_t n = 30011;
    double *big = malloc(3 * n * sizeof *big);
    fill_d(big, 3 * n);
    for (int inc = -3; inc <= 3; inc += 6) {
        ns_red_job j = {NS_OP_DDOT, 0,
                        0,          n,
                        big,        big + 1,
                        inc,        inc > 0 ? 2 : -1,
                        1.0,        ns_reduce_ukrs_for(NULL)};
        assert_int_equal(nodescale_ddot(n, big, inc, big + 1, j.incy, 0, 0, &r), 0);
        check_job(&j, ns_red_threads(n), r, "strided ddot");
    }
    free(big);
}

/* ---- NODESCALE_ISA: read once by the public functions, in a child process (--api-child) ---- */

/* The child: every public reduction on data with a known result, on 1 and 2 threads (2 splits
 * the n below across threads). Prints "ill %a" (a compensated deterministic sum of ill-conditioned
 * data) for test_isa_forced; returns the number of wrong results. */
static int api_child(void) {
    enum { N = 100000 };
    static double x[N], y[N];
    static float xs[N], ys[N];
    double sum = 0, sq = 0;
    for (int i = 0; i < N; i++)
        x[i] = i % 7 - 3, y[i] = 1, ys[i] = 1;
    x[777] = 10, x[5000] = -10; /* max |x|: the first, 777 */
    for (int i = 0; i < N; i++)
        xs[i] = (float)x[i], sum += x[i], sq += x[i] * x[i]; /* exact: small integers */
    int bad = 0;
    for (int t = 1; t <= 2; t++) {
        omp_set_num_threads(t);
        for (int v = NodescaleSumPlain; v <= NodescaleSumWide; v++) {
            double r = NAN;
            float rs = NAN;
            if (v != NodescaleSumWide) {
                bad += nodescale_dsum(N, x, 1, v, NodescaleFast, &r) != 0 || r != sum;
                bad += nodescale_ddot(N, x, 1, y, 1, v, NodescaleDeterministic, &r) != 0 || r != sum;
            }
            bad += nodescale_ssum(N, xs, 1, v, NodescaleFast, &rs) != 0 || rs != (float)sum;
            bad += nodescale_sdot(N, xs, 1, ys, 1, v, NodescaleFast, &rs) != 0 || rs != (float)sum;
            if (v != NodescaleSumCompensated) {
                if (v != NodescaleSumWide)
                    bad += nodescale_dnrm2(N, x, 1, v, NodescaleFast, &r) != 0 ||
                           fabs(r - sqrt(sq)) > 1e-14 * sqrt(sq);
                bad += nodescale_snrm2(N, xs, 1, v, NodescaleFast, &rs) != 0 ||
                       fabs(rs - sqrt(sq)) > 1e-6 * sqrt(sq);
            }
        }
        int64_t idx = -2;
        bad += nodescale_idamax(N, x, 1, &idx) != 0 || idx != 777;
        idx = -2;
        bad += nodescale_isamax(N, xs, 1, &idx) != 0 || idx != 777;
    }
    double *ill = malloc(50000 * sizeof *ill), r = 0;
    fill_ill_d(ill, 50000);
    nodescale_dsum(50000, ill, 1, NodescaleSumCompensated, NodescaleDeterministic, &r);
    printf("ill %a\n", r);
    free(ill);
    if (bad) fprintf(stderr, "api-child: %d wrong results\n", bad);
    return bad;
}

/* Runs the child with NODESCALE_ISA=isa; its stdout and stderr into out. Returns its status. */
static int run_child(const char *isa, char *out, size_t cap) {
    char self[512], cmd[700];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(k > 0);
    self[k] = 0;
    snprintf(cmd, sizeof cmd, "NODESCALE_ISA=%s '%s' --api-child 2>&1", isa, self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t len = fread(out, 1, cap - 1, p);
    out[len] = 0;
    return pclose(p);
}

static int count(const char *s, const char *what) {
    int c = 0;
    for (const char *q = s; (q = strstr(q, what)); q++)
        c++;
    return c;
}

/* An unknown NODESCALE_ISA, or one this CPU cannot run, gives one warning (however many calls)
 * and the widest runnable ISA in every public reduction, the i?amax included (they crashed). */
static void test_isa_env(void **state) {
    (void)state;
    const char *cases[] = {"bogus", "avx512", "avx2", "scalar"};
    char out[4096];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int runnable = ns_reduce_ukrs_for(cases[i]) != NULL;
        int st = run_child(cases[i], out, sizeof out);
        if (st != 0) fail_msg("NODESCALE_ISA=%s: child status %d, output: %s", cases[i], st, out);
        if (count(out, "nodescale: warning: NODESCALE_ISA=") != !runnable)
            fail_msg("NODESCALE_ISA=%s: want %d warning, output: %s", cases[i], !runnable, out);
    }
}

/* Forcing the plain-C ISA gives bitwise the AVX-512 result in deterministic mode. */
static void test_isa_forced(void **state) {
    (void)state;
    if (!ns_cpu_has_avx512()) skip();
    char a[4096], b[4096];
    assert_int_equal(run_child("avx512", a, sizeof a), 0);
    assert_int_equal(run_child("scalar", b, sizeof b), 0);
    assert_non_null(strstr(a, "ill "));
    assert_string_equal(a, b);
}

/* Inf, NaN and overflow give the IEEE result (the plain sum's) in every variant, compensated
 * included: there the TwoSum error of an infinite sum is Inf - Inf = NaN and s + c was NaN where
 * the sum is +-Inf. DBL_MAX in a case stands for the format's overflow operand (1.7e308 in DP,
 * 3e38 in SP: two of them overflow). Small n and n = 100000 (values spread over the SIMD slots,
 * the threads' shares and the deterministic blocks, random +-[0.5, 1) elsewhere); every ISA,
 * both modes, teams of 1..3, and the public API (its ISA: ns_isa_dispatch) on 1 and 2 threads. */
static void check_nonfinite(const char *what, double got, double want) {
    if (isnan(want) ? !isnan(got) : got != want) fail_msg("%s: got %g want %g", what, got, want);
}

/* One op, ISA, variant and mode of a test_nonfinite case: teams of 1..3, the API on 1 and 2. */
static void nonfinite_job(ns_red_job *j, double want, const char *name) {
    int sp = j->op >= NS_OP_SSUM;
    char what[160];
    for (int t = 1; t <= 3; t++) {
        double got = run_team(j, t); /* wide: a DP value, which the API rounds to SP */
        snprintf(what, sizeof what, "%s op=%d isa=%s var=%d mode=%d team of %d", name, j->op,
                 j->u->isa, j->variant, j->mode, t);
        check_nonfinite(what, sp ? (float)got : got, want);
    }
    for (int t = 1; t <= 2; t++) { /* the API: the ISA NODESCALE_ISA selected at start-up */
        omp_set_num_threads(t);
        double r = 0;
        float rs = 0;
        const double *x = j->x, *y = j->y;
        const float *xs = j->x, *ys = j->y;
        int e = 0, v = j->variant, m = j->mode;
        int64_t n = j->n;
        switch (j->op) {
        case NS_OP_DSUM:
            e = nodescale_dsum(n, x, 1, v, m, &r);
            break;
        case NS_OP_DDOT:
            e = nodescale_ddot(n, x, 1, y, 1, v, m, &r);
            break;
        case NS_OP_SSUM:
            e = nodescale_ssum(n, xs, 1, v, m, &rs), r = rs;
            break;
        default:
            e = nodescale_sdot(n, xs, 1, ys, 1, v, m, &rs), r = rs;
            break;
        }
        assert_int_equal(e, 0);
        snprintf(what, sizeof what, "%s op=%d isa=%s var=%d mode=%d API on %d threads", name, j->op,
                 j->u->isa, v, m, t);
        check_nonfinite(what, r, want);
    }
}

static void test_nonfinite(void **state) {
    (void)state;
    static const struct {
        int k;
        double v[3], want;
    } cases[] = {
        {3, {1, INFINITY, 1}, INFINITY},
        {1, {INFINITY}, INFINITY},
        {1, {-INFINITY}, -INFINITY},
        {2, {INFINITY, -INFINITY}, NAN},
        {2, {DBL_MAX, DBL_MAX}, INFINITY},
        {2, {-DBL_MAX, -DBL_MAX}, -INFINITY},
        {3, {1, NAN, 1}, NAN},
        {2, {INFINITY, NAN}, NAN},
    };
    const int64_t big_n = 100000;
    double *x = malloc(big_n * sizeof *x), *y = malloc(big_n * sizeof *y);
    float *xs = malloc(big_n * sizeof *xs), *ys = malloc(big_n * sizeof *ys);
    int saved = omp_get_max_threads();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int large = 0; large < 2; large++) {
            int64_t n = large ? big_n : cases[c].k;
            if (large) fill_d(x, n);
            for (int64_t i = 0; i < n; i++)
                xs[i] = (float)x[i], y[i] = 1.0, ys[i] = 1.0f;
            for (int i = 0; i < cases[c].k; i++) {
                /* large: at (2i + 1) n / 2k, so a pair lands in different shares and blocks */
                int64_t at = large ? (2 * i + 1) * n / (2 * cases[c].k) : i;
                double v = cases[c].v[i];
                x[at] = fabs(v) == DBL_MAX ? copysign(1.7e308, v) : v;
                xs[at] = fabs(v) == DBL_MAX ? copysignf(3e38f, (float)v) : (float)v;
            }
            char name[64];
            snprintf(name, sizeof name, "case %zu n=%lld", c, (long long)n);
            static const ns_red_op ops[] = {NS_OP_DSUM, NS_OP_DDOT, NS_OP_SSUM, NS_OP_SDOT};
            for (int o = 0; o < 4; o++)
                for (int ii = 0; ii < nisas; ii++)
                    for (int v = 0; v < 4; v++)
                        for (int mode = 0; mode < 2; mode++) {
                            int sp = ops[o] >= NS_OP_SSUM;
                            if (v == NS_VAR_WIDE && !sp) continue;
                            ns_red_job j = {
                                ops[o], v, mode, n,       sp ? (void *)xs : x, sp ? (void *)ys : y,
                                1,      1, 1.0,  isas[ii]};
                            nonfinite_job(&j, cases[c].want, name);
                        }
        }
    omp_set_num_threads(saved);
    free(x), free(y), free(xs), free(ys);
}

/* Creates, runs and checks every reduction kernel this CPU supports with p = {n, threads}: as an
 * OpenMP team (team 1) or the team's shares one after another (team 0), and its counts from its
 * name alone: FLOPs n (sum, i?amax: compares) or 2n (dot, nrm2), in every variant; bytes and
 * working set n x arrays (2 for dot) x element size (4 for s and is names, else 8). Returns how
 * many. */
static size_t check_each_reduce(int64_t n, int threads, int team) {
    size_t count, seen = 0;
    const ns_kernel *const *t = ns_registry(&count);
    for (size_t i = 0; i < count; i++) {
        const ns_kernel *k = t[i];
        if (strcmp(k->family, "reduce") != 0 || !k->supported()) continue;
        seen++;
        ns_params p = {0, n, 0, threads};
        void *s = k->create(&p);
        if (!s) fail_msg("%s/%s: create refused %d threads", k->name, k->isa, threads);
        int dot = strstr(k->name, "dot") != NULL, nrm2 = strstr(k->name, "nrm2") != NULL;
        int sp = k->name[0] == 's' || !strncmp(k->name, "isamax", 6);
        double flops = (dot || nrm2 ? 2.0 : 1.0) * (double)n;
        double bytes = (double)n * (dot ? 2 : 1) * (sp ? 4 : 8);
        if (k->flops(&p) != flops || k->bytes(&p) != bytes || k->working_set(&p) != bytes)
            fail_msg("%s/%s: flops %g bytes %g working set %g, want %g, %g, %g", k->name, k->isa,
                     k->flops(&p), k->bytes(&p), k->working_set(&p), flops, bytes, bytes);
        if (team) {
#pragma omp parallel num_threads(threads)
            k->run(s, omp_get_thread_num(), threads);
        } else {
            for (int tid = 0; tid < threads; tid++)
                k->run(s, tid, threads);
        }
        ns_check c;
        k->check(s, &c);
        if (!c.ok)
            fail_msg("%s/%s t=%d: %s err %g bound %g", k->name, k->isa, threads, c.why, c.error,
                     c.bound);
        k->destroy(s);
    }
    return seen;
}

static void test_registry(void **state) {
    (void)state;
    for (int th = 1; th <= 2; th++)
        assert_true(check_each_reduce(20011, th, 1) >= 20);
}

/* Every thread count the CLI accepts (1..NS_MAX_THREADS) is one each reduction kernel runs on:
 * the kernels refused teams past 256 with EINVAL while run and bench accepted 4096, so `run` on a
 * node of more CPUs measured no reduction. The team's shares run one after another here. */
static void test_registry_max_threads(void **state) {
    (void)state;
    assert_true(check_each_reduce(100003, NS_MAX_THREADS, 0) >= 20);
}

static ns_check check_once(const char *name, int64_t n) {
    const ns_kernel *k = ns_registry_find(name, "scalar");
    assert_non_null(k);
    ns_params p = {0, n, 0, 1};
    void *s = k->create(&p);
    assert_non_null(s);
    k->run(s, 0, 1);
    ns_check c;
    k->check(s, &c);
    k->destroy(s);
    return c;
}

/* check.why names the bound ns_red_bound applies, with its h and u (every reduction
 * said "bound n*u*cond"); at n = 8192 in one deterministic block of 64 slots h = 128 + 6 + 1. */
static void test_registry_names_its_bound(void **state) {
    (void)state;
    const struct {
        const char *name, *formula;
    } want[] = {
        {"dsum_det", "bound (gamma_h S, h = 135, u = 2^-53)/|s|"},
        {"dsum_kahan", "bound (u|s| + gamma_{h+1}^2 S, h = "},
        {"ssum_dpacc", "bound (2^-24|s| + gamma_h S, h = "},
        {"ssum", "u = 2^-24)/|s|"},
        {"dnrm2", "bound ((gamma_h/2 + u)|s| + n 2^-1074 + 2^-1075, h = "},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ns_check c = check_once(want[i].name, 8192);
        if (!c.ok || !strstr(c.why, want[i].formula) || strstr(c.why, "n*u*cond"))
            fail_msg("%s: %s", want[i].name, c.why);
    }
}

/* A wrong result is rejected where the a-priori bound certifies nothing (at DRAM
 * sizes gamma_h S of an SP sum exceeds |s| 1000x, and a result of 0 passed it). At n = 2^23 on
 * 2 threads the SP bound exceeds |s|; check() must still reject the partials of a team that
 * never ran (result 0) and of one whose second thread never ran (half the array), because it
 * requires the result bitwise equal to a plain-C rerun; and a correct run passes, saying that
 * the bound certifies nothing. Every ISA this CPU runs. */
static void test_registry_check_rejects_wrong(void **state) {
    (void)state;
    const char *names[] = {"ssum", "sdot"};
    const char *isa[] = {"scalar", "avx2", "avx512"};
    ns_params p = {0, (int64_t)1 << 23, 0, 2};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (size_t a = 0; a < 3; a++) {
            const ns_kernel *k = ns_registry_find(names[i], isa[a]);
            assert_non_null(k);
            if (!k->supported()) continue;
            for (int ran = 0; ran <= 2; ran++) { /* threads of the team of 2 that ran */
                void *s = k->create(&p);
                assert_non_null(s);
                for (int tid = 0; tid < ran; tid++)
                    k->run(s, tid, 2);
                ns_check c;
                k->check(s, &c);
                k->destroy(s);
                if (!(c.bound >= 1))
                    fail_msg("%s/%s: bound %g not vacuous", k->name, k->isa, c.bound);
                if (ran == 2 && !(c.ok && strstr(c.why, "bitwise = plain C") &&
                                  strstr(c.why, ">= 1, certifies nothing")))
                    fail_msg("%s/%s correct: ok %d, %s", k->name, k->isa, c.ok, c.why);
                if (ran < 2 && (c.ok || !strstr(c.why, "not bitwise the plain-C rerun's")))
                    fail_msg("%s/%s %d of 2 threads ran: ok %d, error %g, bound %g, %s", k->name,
                             k->isa, ran, c.ok, c.error, c.bound, c.why);
            }
        }
}

/* FLOPs are the useful work, the compensated variants' like the plain ones' (they
 * counted the executed 7n and 11n); i?amax counts its n compares. */
static void test_registry_counts_useful_flops(void **state) {
    (void)state;
    const struct {
        const char *name;
        double per_el;
    } want[] = {{"dsum", 1},  {"dsum_kahan", 1}, {"ssum_kahan", 1}, {"dsum_det", 1},
                {"ddot", 2},  {"ddot_kahan", 2}, {"sdot_kahan", 2}, {"sdot_dpacc", 2},
                {"dnrm2", 2}, {"idamax", 1},     {"isamax", 1}};
    ns_params p = {0, 1000, 0, 2};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ns_kernel *k = ns_registry_find(want[i].name, "scalar");
        assert_non_null(k);
        if (k->flops(&p) != want[i].per_el * 1000)
            fail_msg("%s: %g flops for n = 1000", want[i].name, k->flops(&p));
    }
}

/* Ring and tree all-reduce: exact result for 1..4 threads, sizes not divisible by anything. */
static void test_allreduce(void **state) {
    (void)state;
    const int64_t counts[] = {1, 2, 15, 17, 1000, 65537};
    for (int p = 1; p <= 4; p++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int sched = 0; sched < 2; sched++) {
                int64_t n = counts[c];
                float *send[4], *recv[4];
                for (int t = 0; t < p; t++) {
                    send[t] = malloc(n * sizeof(float)), recv[t] = malloc(n * sizeof(float));
                    for (int64_t i = 0; i < n; i++)
                        send[t][i] = (float)(t * 10 + i % 7), recv[t][i] = -1;
                }
#pragma omp parallel num_threads(p)
                {
                    if (sched == 0)
                        ns_allreduce_ring(send, recv, n, omp_get_thread_num(), p);
                    else
                        ns_allreduce_tree(send, recv, n, omp_get_thread_num(), p);
                }
                for (int t = 0; t < p; t++)
                    for (int64_t i = 0; i < n; i++) {
                        float want = (float)(10 * p * (p - 1) / 2 + p * (i % 7));
                        if (recv[t][i] != want)
                            fail_msg("%s p=%d n=%lld thread %d elem %lld: %g != %g",
                                     sched ? "tree" : "ring", p, (long long)n, t, (long long)i,
                                     recv[t][i], want);
                    }
                for (int t = 0; t < p; t++)
                    free(send[t]), free(recv[t]);
            }
    /* the alpha-beta fit recovers an exact line */
    double s[] = {8, 64, 1024, 1 << 20}, tt[4], a, b, mr;
    for (int i = 0; i < 4; i++)
        tt[i] = 2e-6 + 1e-10 * s[i];
    assert_int_equal(ns_alpha_beta_fit(s, tt, 4, 0, &a, &b, &mr), 0);
    assert_true(fabs(a - 2e-6) < 1e-12 && fabs(b - 1e-10) < 1e-16 && mr < 1e-9);
}

/* The measurement's JSON: both schedules validated with at least 9 samples per size under
 * --quick, each sample at least min_sample_s long (reps x median), busbw by the nccl-tests
 * factor (null with a status for one thread, never 0), a fit with finite alpha and beta. Small
 * sizes only. */
static void test_allreduce_json(void **state) {
    (void)state;
    for (int p = 2; p <= 2; p++) {
        json_t *r = ns_allreduce_measure_upto(p, 1, 1 << 16, NULL);
        assert_non_null(r);
        assert_string_equal(json_string_value(json_object_get(r, "convention")),
                            "busbw = algbw * 2(n-1)/n (nccl-tests)");
        double min_s = ns_json_get_num(r, "min_sample_s");
        assert_true(min_s >= 2e-4 && min_s == ns_allreduce_min_sample_s(1));
        const char *sched[] = {"ring", "tree"};
        for (int s = 0; s < 2; s++) {
            json_t *a = json_object_get(r, sched[s]);
            assert_true(json_array_size(a) >= 5);
            for (size_t i = 0; i < json_array_size(a); i++) {
                json_t *pt = json_array_get(a, i);
                assert_true(json_is_true(json_object_get(pt, "validated")));
                /* --quick keeps 9 samples per size too (README: at least 9; it once kept 5) */
                size_t ns = json_array_size(json_object_get(pt, "samples_s"));
                if (ns < 9) fail_msg("%s point %zu: %zu samples, want >= 9", sched[s], i, ns);
                /* a sample lasts min_sample_s: reps were once sized from one cold call, and
                 * samples ran tens of times shorter */
                double reps = ns_json_get_num(pt, "reps");
                double med = ns_json_get_num(json_object_get(pt, "time_s"), "median");
                if (!(reps * med >= min_s))
                    fail_msg("%s point %zu: reps %g x median %.3g s = %.3g s < min_sample_s %.3g",
                             sched[s], i, reps, med, reps * med, min_s);
                double alg = ns_json_get_num(pt, "algbw_gbytes_per_s");
                assert_true(alg > 0);
                json_t *bus = json_object_get(pt, "busbw_gbytes_per_s");
                if (p == 1)
                    assert_true(json_is_null(bus) && json_object_get(pt, "status"));
                else
                    assert_true(fabs(json_real_value(bus) - alg) <= 1e-9 * alg); /* 2(2-1)/2 */
            }
        }
        json_t *fit = json_object_get(r, "fit");
        assert_true(isfinite(ns_json_get_num(fit, "alpha_s")));
        assert_true(isfinite(ns_json_get_num(fit, "beta_s_per_byte")));
        assert_true(ns_json_get_num(fit, "ranks") == p); /* read by cluster/node.c */
        char *text = json_dumps(r, 0);
        assert_null(strstr(text, "nan"));
        assert_null(strstr(text, "inf"));
        free(text);
        json_decref(r);
    }
}

/* One thread: nothing measured, null fits with the reason, and the cluster reader refuses the
 * section with that reason (a one-thread "fit" was once published as alpha and beta). */
static void test_allreduce_one_thread(void **state) {
    (void)state;
    json_t *r = ns_allreduce_measure(1, 1, NULL);
    assert_non_null(r);
    static const char why[] = "one thread: nothing to reduce across";
    assert_string_equal(json_string_value(json_object_get(r, "status")), why);
    assert_int_equal(json_array_size(json_object_get(r, "ring")), 0);
    assert_int_equal(json_array_size(json_object_get(r, "tree")), 0);
    const char *keys[] = {"fit", "fit_tree"};
    for (int i = 0; i < 2; i++) {
        json_t *fit = json_object_get(r, keys[i]);
        assert_true(json_is_null(json_object_get(fit, "alpha_s")));
        assert_true(json_is_null(json_object_get(fit, "beta_s_per_byte")));
        assert_string_equal(json_string_value(json_object_get(fit, "status")), why);
    }
    json_t *root = json_object();
    json_object_set_new(root, "allreduce", r);
    ns_cluster_input in;
    memset(&in, 0, sizeof in);
    char err[512] = "";
    assert_int_not_equal(ns_cluster_apply_allreduce(&in, root, 0, err, sizeof err), 0);
    assert_non_null(strstr(err, why));
    json_decref(root);
}

/* A fit whose largest relative residual is above the limit is flagged, one within it is not. */
static void test_allreduce_poor_fit(void **state) {
    (void)state;
    char buf[256];
    assert_null(ns_allreduce_poor_fit(0.2, buf, sizeof buf));
    assert_null(ns_allreduce_poor_fit(NS_ALLREDUCE_POOR_FIT, buf, sizeof buf));
    const char *st = ns_allreduce_poor_fit(0.93, buf, sizeof buf);
    assert_non_null(st);
    assert_int_equal(strncmp(st, "poor fit: ", 10), 0);
    assert_non_null(strstr(st, "0.93"));
}

/* MXCSR per thread: one entry per thread, FTZ/DAZ as the runtime left them (off by default).
 * Every entry starts with all bits set, so one the probe left unwritten shows FTZ and DAZ. */
static void test_fpstate(void **state) {
    (void)state;
    uint32_t m[4];
    memset(m, 0xff, sizeof m);
    assert_int_equal(ns_fpstate_per_thread(2, m), 2);
    for (int t = 0; t < 2; t++)
        if (m[t] & (NS_MXCSR_FTZ | NS_MXCSR_DAZ))
            fail_msg("thread %d: MXCSR 0x%x, FTZ/DAZ set or entry not written", t, m[t]);
    assert_int_equal(m[2], 0xffffffffu); /* nothing past the team */
    json_t *j = ns_fpstate_json(2);
    assert_non_null(j);
    assert_int_equal(json_array_size(j), 2);
    json_decref(j);
}

/* The public API on one thread takes a short path (ns_red_run: the whole range as one share, no
 * partition and no tree): its result must be bitwise the team-of-one result of the same job, for
 * every operation and variant. And no call may read cpuid again: in a VM each cpuid traps to the
 * hypervisor (~16 us for the probes, which made a 24 KiB nodescale_dsum 100x slower than its
 * micro-kernel); the probes run once per process. */
static void test_api_one_thread_path(void **state) {
    (void)state;
    omp_set_num_threads(1);
    const int64_t sizes[] = {1, 63, 64, 3072, 3077, 20000};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int64_t n = sizes[si];
        double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
        float *xs = malloc((size_t)n * sizeof *xs), *ys = malloc((size_t)n * sizeof *ys);
        assert_non_null(x), assert_non_null(y), assert_non_null(xs), assert_non_null(ys);
        fill_d(x, n), fill_d(y, n), fill_s(xs, n), fill_s(ys, n);
        for (int v = NodescaleSumPlain; v <= NodescaleSumWide; v++)
            for (int m = NodescaleFast; m <= NodescaleDeterministic; m++) {
                const ns_reduce_ukrs *u = ns_reduce_ukrs_for(NULL);
                double r = NAN;
                float rs = NAN;
                if (v != NodescaleSumWide) {
                    ns_red_job j = {NS_OP_DSUM, v, m, n, x, NULL, 1, 1, 1.0, u};
                    assert_int_equal(nodescale_dsum(n, x, 1, v, m, &r), 0);
                    if (r != run_team(&j, 1)) fail_msg("dsum n=%lld v=%d m=%d", (long long)n, v, m);
                    j = (ns_red_job){NS_OP_DDOT, v, m, n, x, y, 1, 1, 1.0, u};
                    assert_int_equal(nodescale_ddot(n, x, 1, y, 1, v, m, &r), 0);
                    if (r != run_team(&j, 1)) fail_msg("ddot n=%lld v=%d m=%d", (long long)n, v, m);
                }
                ns_red_job j = {NS_OP_SSUM, v, m, n, xs, NULL, 1, 1, 1.0, u};
                assert_int_equal(nodescale_ssum(n, xs, 1, v, m, &rs), 0);
                if (rs != (float)run_team(&j, 1)) fail_msg("ssum n=%lld v=%d m=%d", (long long)n, v, m);
                j = (ns_red_job){NS_OP_SDOT, v, m, n, xs, ys, 1, 1, 1.0, u};
                assert_int_equal(nodescale_sdot(n, xs, 1, ys, 1, v, m, &rs), 0);
                if (rs != (float)run_team(&j, 1)) fail_msg("sdot n=%lld v=%d m=%d", (long long)n, v, m);
            }
        free(x), free(y), free(xs), free(ys);
    }
    double c = 0, a = 1, b = 1;
    int64_t idx;
    for (int i = 0; i < 3; i++) {
        nodescale_dgemm(NodescaleRowMajor, NodescaleNoTrans, NodescaleNoTrans, 1, 1, 1, 1.0, &a, 1,
                        &b, 1, 0.0, &c, 1);
        nodescale_idamax(1, &a, 1, &idx);
    }
    assert_int_equal(ns_cpu_probe_count(), 1);
}

int main(int argc, char **argv) {
    /* Teams of up to 4 threads run on as few as 2 cores here: with the default spin-waiting
     * barriers an oversubscribed team runs 10x slower. The runtime reads the policy at start-up,
     * so set it and start again. */
    if (!getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "passive", 1);
        execv("/proc/self/exe", argv);
    }
    if (argc > 1 && !strcmp(argv[1], "--api-child")) return api_child() ? 1 : 0;
    if (getenv("TEST_FILTER")) cmocka_set_test_filter(getenv("TEST_FILTER")); /* e.g. "*nrm2*" */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_variants_bounded),
        cmocka_unit_test(test_api_threads),
        cmocka_unit_test(test_api_one_thread_path),
        cmocka_unit_test(test_deterministic_bitwise),
        cmocka_unit_test(test_simd_matches_plain_c),
        cmocka_unit_test(test_every_table_has_plain_c_twin),
        cmocka_unit_test(test_ill_conditioned),
        cmocka_unit_test(test_sp_past_2_24),
        cmocka_unit_test(test_nrm2_extremes),
        cmocka_unit_test(test_nrm2_subnormal_result),
        cmocka_unit_test(test_amax),
        cmocka_unit_test(test_amax_small_n),
        cmocka_unit_test(test_edges_and_errors),
        cmocka_unit_test(test_isa_env),
        cmocka_unit_test(test_isa_forced),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_registry_max_threads),
        cmocka_unit_test(test_registry_names_its_bound),
        cmocka_unit_test(test_registry_check_rejects_wrong),
        cmocka_unit_test(test_registry_counts_useful_flops),
        cmocka_unit_test(test_allreduce),
        cmocka_unit_test(test_allreduce_json),
        cmocka_unit_test(test_allreduce_one_thread),
        cmocka_unit_test(test_allreduce_poor_fit),
        cmocka_unit_test(test_fpstate),
    };
    return cmocka_run_group_tests(tests, setup_isas, NULL);
}
