/* make bench-reduce: the reduction kernels' bandwidth beside likwid-bench's sum/ddot kernels and
 * beside nodescale's own read ceiling (stream_load), for working sets in L1, L2, L3 and DRAM, on 1
 * and all threads; and the cost of the compensated, pairwise and deterministic variants against
 * the plain fast kernel; and, on one thread, the plain kernel called through the public API
 * (nodescale_dsum/ddot, one call per repetition: argument checks, dispatch and the final combine
 * included), which is what a 1-thread program calling the library in a loop gets (the calls run
 * inside the harness's 1-thread team, where the library uses one thread). Everything of one
 * case is measured in the same process, interleaved round by round (every kernel of ours
 * through the harness's timing loop and likwid-bench as a subprocess, in an order that rotates
 * each round), so drift of this shared machine's clock hits all alike. Prints per case the
 * medians over the rounds that succeeded (how many, when one failed) and the median and range of
 * each per-round ratio.
 *
 * Targets, on the ISA the CPU selects: plain sum and dot >= 1.00x likwid-bench and
 * >= 0.95x the read ceiling at every level; compensated within 10% and deterministic within 5%
 * of plain at DRAM sizes. Rows print "ok"/"MISS" against them ("n/a" when one cannot be judged:
 * likwid-bench missing or failing, a kernel failing every round); the exit status is 0 either way
 * (a benchmark reports, it does not gate). NODESCALE_BENCH_QUICK=1: 3 rounds, L1 and DRAM only; =2:
 * L1 only; =3: DRAM only. NODESCALE_BENCH_SP=1 adds ssum/sdot beside likwid-bench's sum_sp/ddot_sp
 * kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/context.h"
#include "harness/json.h"
#include "harness/likwid_ref.h"
#include "harness/measure.h"
#include "harness/stats.h"
#include "include/nodescale.h"
#include "kernels/alloc.h"
#include "kernels/registry.h"

#define MAX_ROUNDS 7
#define NK 6 /* plain, compensated, pairwise, deterministic, read ceiling, public API */

typedef struct {
    const char *level;
    double ws; /* working set, bytes (all threads) */
    int threads;
    int op; /* 0 dsum, 1 ddot, 2 ssum, 3 sdot */
} bench_case;

/* Column 1 is the compensated variant: _kahan is the suite's name for it (Sum2/Dot2 of
 * Ogita-Rump-Oishi, not Kahan's algorithm; kernels/reduce/reduce_internal.h, NS_VAR_COMP). */
static const char *names[4][NK] = {
    {"dsum", "dsum_kahan", "dsum_pairwise", "dsum_det", "stream_load", "api"},
    {"ddot", "ddot_kahan", NULL, "ddot_det", "stream_load", "api"},
    {"ssum", "ssum_kahan", "ssum_pairwise", "ssum_det", "stream_load", NULL},
    {"sdot", "sdot_kahan", NULL, "sdot_det", "stream_load", NULL},
};
static const char *op_names[4] = {"dsum", "ddot", "ssum", "sdot"};
/* likwid-bench's kernel for each op: [op][0] AVX-512, [op][1] AVX */
static const char *likwid_names[4][2] = {{"sum_avx512", "sum_avx"},
                                         {"ddot_avx512", "ddot_avx"},
                                         {"sum_sp_avx512", "sum_sp_avx"},
                                         {"ddot_sp_avx512", "ddot_sp_avx"}};

/* ---- the public API as a kernel: nodescale_dsum / nodescale_ddot, one call per repetition ---- */

typedef struct {
    int dot;
    int64_t n;
    double *x, *y, result;
} api_state;

static void *api_create(const ns_params *p, int dot) {
    api_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->dot = dot, s->n = p->n;
    s->x = ns_alloc_array((size_t)p->n * sizeof(double));
    s->y = ns_alloc_array((size_t)p->n * sizeof(double));
    if (!s->x || !s->y) {
        free(s->x), free(s->y), free(s);
        return NULL;
    }
    for (int64_t i = 0; i < p->n; i++) /* +-[0.5, 1), mixed signs */
        s->x[i] = (i & 1 ? -0.5 : 0.5) - (double)(i % 97) / 200, s->y[i] = 0.75 + (i % 5) * 0.05;
    return s;
}
static void *api_create_sum(const ns_params *p) {
    return api_create(p, 0);
}
static void *api_create_dot(const ns_params *p) {
    return api_create(p, 1);
}
static void api_run(void *sv, int tid, int nthreads) {
    (void)tid, (void)nthreads;
    api_state *s = sv;
    if (s->dot)
        nodescale_ddot(s->n, s->x, 1, s->y, 1, NodescaleSumPlain, NodescaleFast, &s->result);
    else
        nodescale_dsum(s->n, s->x, 1, NodescaleSumPlain, NodescaleFast, &s->result);
}
/* The result against a long double sum, within n u sum |terms| (any order's bound, Higham 2002,
 * section 4.2, with h <= n). */
static void api_check(void *sv, ns_check *out) {
    api_state *s = sv;
    long double ref = 0, sa = 0;
    for (int64_t i = 0; i < s->n; i++) {
        long double t = s->dot ? (long double)s->x[i] * s->y[i] : s->x[i];
        ref += t, sa += fabsl(t);
    }
    out->error = fabs(s->result - (double)ref);
    out->bound = (double)s->n * 0x1p-53 * (double)sa;
    out->ok = out->error <= out->bound;
    snprintf(out->why, sizeof out->why, "public API result vs long double, bound n u S");
}
static void api_destroy(void *sv) {
    api_state *s = sv;
    if (s) free(s->x), free(s->y), free(s);
}
static double api_bytes_sum(const ns_params *p) {
    return 8.0 * (double)p->n;
}
static double api_bytes_dot(const ns_params *p) {
    return 16.0 * (double)p->n;
}
static const ns_kernel api_kernels[2] = {
    {.name = "dsum (API)", .family = "reduce", .isa = "api", .run_model = NS_RUN_TEAM,
     .bytes = api_bytes_sum, .working_set = api_bytes_sum, .create = api_create_sum,
     .run = api_run, .check = api_check, .destroy = api_destroy},
    {.name = "ddot (API)", .family = "reduce", .isa = "api", .run_model = NS_RUN_TEAM,
     .bytes = api_bytes_dot, .working_set = api_bytes_dot, .create = api_create_dot,
     .run = api_run, .check = api_check, .destroy = api_destroy},
};

/* likwid-bench's rate in GB/s at a fixed iteration count, or NAN with a one-line reason in err */
static double likwid_gbs(const char *test, double ws, int threads, double iters, char *err,
                         size_t errlen) {
    ns_likwid_result r;
    if (ns_likwid_bench(test, ws, threads, iters, &r, err, errlen) != 0) return NAN;
    return r.mbytes_per_s / 1e3;
}

static double gbs(const ns_kernel *k, void *st, const ns_params *p, double ws) {
    ns_measure_opts o = ns_measure_defaults(0);
    o.min_sample_s = ws > 1e8 ? 0.03 : 0.004;
    o.max_samples = 9;
    o.budget_s = 0;
    ns_measurement m;
    if (ns_measure(k, st, p, &o, &m) != 0 || !(m.stats.median > 0)) return NAN;
    return k->bytes(p) / m.stats.median / 1e9;
}

/* Median and range of the finite, positive values among x[0..n) (a round that failed, NAN, is
 * left out); NAN when there is none. Returns how many were used. */
static int summary(const double *x, int n, double *med, double *lo, double *hi) {
    double v[MAX_ROUNDS];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (x[i] > 0 && isfinite(x[i])) v[m++] = x[i];
    ns_stats s;
    if (m == 0 || ns_stats_compute(v, (size_t)m, &s) != 0) {
        *med = *lo = *hi = NAN;
        return 0;
    }
    *med = s.median, *lo = s.min, *hi = s.max;
    return m;
}

/* A median rate in its column, "n/a" when there is none. */
static void print_rate(double v) {
    if (isnan(v))
        printf(" %8s", "n/a");
    else
        printf(" %8.1f", v);
}

/* A ratio's median [min..max] in its column, or none (n/a: failed; -: no such kernel). */
static void print_ratio(double m, double lo, double hi, const char *none) {
    if (isnan(m))
        printf("  %-19s", none);
    else
        printf("  %5.3f [%5.3f..%5.3f]", m, lo, hi);
}

/* A target's verdict: 1 met, 0 missed, -1 unknown (no finite value: the peer or kernel failed) */
static int target(double v, double want) {
    return isnan(v) ? -1 : v >= want;
}

static void run_case(const bench_case *c, const char *isa, int rounds) {
    const ns_kernel *k[NK];
    void *st[NK];
    ns_params p[NK];
    double rate[NK][MAX_ROUNDS], lk[MAX_ROUNDS];
    int n = 0;
    char err[512] = "";
    for (int i = 0; i < NK; i++) {
        k[i] = !names[c->op][i] ? NULL
               : i == 5         ? (c->threads == 1 ? &api_kernels[c->op] : NULL)
                                : ns_registry_find(names[c->op][i], isa);
        st[i] = NULL;
        if (!k[i]) continue;
        ns_params unit = {.n = 1, .threads = 1};
        int64_t per = 64 * (int64_t)c->threads;
        p[i] = (ns_params){.n = (int64_t)(c->ws / k[i]->working_set(&unit)) / per * per,
                           .threads = c->threads};
        st[i] = k[i]->create(&p[i]);
        if (!st[i]) k[i] = NULL;
    }
    const char *lname = likwid_names[c->op][strcmp(isa, "avx512") ? 1 : 0];
    /* An untimed pass first: the first measurement of a process (clock ramp, page and TLB
     * warm-up) would otherwise weigh on round 1 of the first case. */
    if (c->ws < 1e8)
        for (int i = 0; i < NK; i++)
            if (k[i]) gbs(k[i], st[i], &p[i], c->ws);
    /* likwid-bench's iteration count, calibrated once per case and reused by every round: a run
     * about as long as one of our kernels' measurements (0.1 s, 0.5 s at DRAM sizes) */
    double iters =
        ns_likwid_calibrate(lname, c->ws, c->threads, c->ws > 1e8 ? 0.5 : 0.1, err, sizeof err);
    /* the order rotates each round (likwid-bench is variant NK), so drift within a round does
     * not always land on the same side of a ratio */
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j <= NK; j++) {
            int i = (j + r) % (NK + 1);
            if (i == NK)
                lk[r] =
                    iters > 0 ? likwid_gbs(lname, c->ws, c->threads, iters, err, sizeof err) : NAN;
            else
                rate[i][r] = k[i] ? gbs(k[i], st[i], &p[i], c->ws) : NAN;
        }
        n++;
    }
    /* not timed: every kernel's result against its bound */
    int valid = 1;
    for (int i = 0; i < NK; i++)
        if (k[i]) {
            ns_check chk;
            k[i]->check(st[i], &chk);
            valid &= chk.ok;
            k[i]->destroy(st[i]);
        }
    /* per-round ratios, then median and range */
    double vs_l[MAX_ROUNDS], vs_c[MAX_ROUNDS], rel[NK][MAX_ROUNDS];
    int nl = 0, ncl = 0;
    for (int r = 0; r < n; r++) {
        if (lk[r] > 0 && rate[0][r] > 0) vs_l[nl++] = rate[0][r] / lk[r];
        if (rate[4][r] > 0 && rate[0][r] > 0) vs_c[ncl++] = rate[0][r] / rate[4][r];
        for (int i = 1; i < NK; i++)
            rel[i][r] = rate[i][r] / rate[0][r];
    }
    double med[NK], lo, hi, lmed, rl, rlo, rhi, rc, clo, chi;
    int used = n; /* the fewest rounds a printed median of ours rests on */
    for (int i = 0; i < NK; i++) {
        int m = summary(rate[i], k[i] ? n : 0, &med[i], &lo, &hi);
        if (k[i] && m < used) used = m;
    }
    int lused = summary(lk, n, &lmed, &lo, &hi);
    summary(vs_l, nl, &rl, &rlo, &rhi);
    summary(vs_c, ncl, &rc, &clo, &chi);
    int dram = !strcmp(c->level, "DRAM");
    char wsz[32];
    ns_format_bytes(wsz, sizeof wsz, c->ws);
    printf("%-4s %3d %9s %-4s", c->level, c->threads, wsz, op_names[c->op]);
    print_rate(med[0]);
    print_rate(lmed);
    print_ratio(rl, rlo, rhi, "n/a");
    print_rate(med[4]);
    print_ratio(rc, clo, chi, "n/a");
    for (int i = 1; i < NK; i++) {
        if (i == 4) continue; /* the ceiling has its own columns */
        double m, a, b;
        summary(rel[i], k[i] ? n : 0, &m, &a, &b);
        print_ratio(m, a, b, k[i] ? "n/a" : "-");
    }
    /* targets: likwid and ceiling everywhere; kahan and det at DRAM */
    double mk = NAN, md = NAN, t1, t2;
    if (k[1]) summary(rel[1], n, &mk, &t1, &t2);
    if (k[3]) summary(rel[3], n, &md, &t1, &t2);
    int tg[4] = {target(rl, 1.0), target(rc, 0.95), dram ? target(mk, 0.90) : 1,
                 dram ? target(md, 0.95) : 1};
    int miss = 0, unknown = 0;
    for (int t = 0; t < 4; t++)
        miss |= tg[t] == 0, unknown |= tg[t] < 0;
    /* n/a: a target could not be judged (likwid-bench or a kernel failed in every round) */
    printf("  %s%s", miss ? "MISS" : unknown ? "n/a" : "ok", valid ? "" : " (CHECK FAILED)");
    if (used < n || (lused && lused < n))
        printf("  (medians over the rounds that succeeded: ours %d, likwid-bench %d of %d)", used,
               lused, n);
    printf("\n");
    if (isnan(lmed)) printf("     likwid-bench: %s\n", err);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (ns_bench_help(argc, argv,
                      "usage: bench_reduce   (make bench-reduce)\n"
                      "  the reduction kernels beside likwid-bench's sum/ddot and stream_load,\n"
                      "  L1..DRAM, on 1 and all CPUs in the affinity mask. No options.\n"
                      "  NODESCALE_BENCH_QUICK=1  3 rounds, L1 and DRAM only (=2 L1 only, =3 DRAM"
                      " only)\n"
                      "  NODESCALE_BENCH_SP=1     also ssum/sdot\n"))
        return 0;
    if (ns_bench_no_args("bench-reduce", argc, argv)) return NS_EXIT_USAGE;
    ns_affinity_defaults(argv);
    int quick = getenv("NODESCALE_BENCH_QUICK") ? atoi(getenv("NODESCALE_BENCH_QUICK")) : 0;
    int rounds = quick ? 3 : 5;
    int sp = getenv("NODESCALE_BENCH_SP") ? atoi(getenv("NODESCALE_BENCH_SP")) : 0;
    const char *isa = ns_isa_selected();
    if (!isa) isa = "scalar";
    int T = ns_topology_get()->cpus_in_mask > 0 ? ns_topology_get()->cpus_in_mask : 1;
    int llc = ns_llc_level();
    double avail = (double)ns_topology_get()->mem_available_bytes;
    bench_case cases[64];
    int nc = 0;
    for (int t = 1; t <= T; t += (T > 1 ? T - 1 : 1)) {
        double l1 = 0.5 * (double)ns_cache_aggregate(1, t);
        double l2 = 0.5 * (double)ns_cache_aggregate(2, t);
        double l3 = llc >= 3 ? fmin(0.25 * (double)ns_cache_aggregate(3, t),
                                    8.0 * (double)ns_cache_aggregate(2, t))
                             : 0;
        /* DRAM: 4x the last-level cache, as long as the 8 working sets alive
         * at once (4 of ours, stream_load's 3 arrays, likwid-bench's) fit in 60% of free memory */
        double want = 4.0 * (double)(llc ? ns_cache_aggregate(llc, t) : (64 << 20));
        double dram = want;
        if (avail > 0 && 8 * dram > 0.6 * avail) dram = 0.6 * avail / 8;
        if (dram < want)
            printf("note: DRAM working set %.0f MiB is below 4x the last-level cache (%.0f MiB): "
                   "not enough free memory\n",
                   dram / 1048576, want / 1048576);
        const char *lv[4] = {"L1", "L2", "L3", "DRAM"};
        double ws[4] = {l1, l2, l3, dram};
        for (int l = 0; l < 4; l++) {
            if (!(ws[l] > 0) || (quick && (l == 1 || l == 2)) || (quick == 2 && l == 3) ||
                (quick == 3 && l == 0))
                continue;
            for (int op = 0; op < (sp ? 4 : 2); op++)
                cases[nc++] = (bench_case){lv[l], ws[l], t, op};
        }
    }
    printf("reduce kernels (isa %s) vs likwid-bench %s/%s%s and the read ceiling stream_load; "
           "%d interleaved rounds; CPU %s; machine shared, clock not fixed\n"
           "api/kernel: the plain kernel called through nodescale_dsum/ddot, one call per "
           "repetition, on 1 thread (inside the harness's 1-thread team the library uses one)\n",
           isa, likwid_names[0][strcmp(isa, "avx512") ? 1 : 0],
           likwid_names[1][strcmp(isa, "avx512") ? 1 : 0], sp ? " (and _sp)" : "", rounds,
           ns_cpu_model());
    printf("%-4s %3s %9s %-4s %8s %8s  %-19s %8s  %-19s  %-19s  %-19s  %-19s  %-19s  target\n",
           "lvl", "thr", "ws", "op", "GB/s", "likwid", "ours/likwid", "ceiling", "ours/ceiling",
           "kahan/plain", "pairwise/plain", "det/fast", "api/kernel");
    for (int i = 0; i < nc; i++)
        run_case(&cases[i], isa, rounds);
    printf("GB/s: medians over rounds (1 GB = 1e9 B, bytes read, no write-allocate: likwid-bench's "
           "convention). Ratios: per round, median [min..max].\n");
    return 0;
}
