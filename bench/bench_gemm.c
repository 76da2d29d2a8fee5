/* bench_gemm (`make bench-gemm`): the own GEMM against BLIS and OpenBLAS in one process, on the
 * same inputs with the same thread count, variants interleaved sample by sample (the order
 * rotates each round) so that clock drift on a shared VM hits all three alike. Threads are pinned
 * as by `nodescale run` (ns_affinity_defaults), at most the CPUs of the affinity mask. Each
 * variant's sample lasts at least --min-time (its repetitions sized from a warm call; never below
 * 1000x the timer's resolution). Prints GFLOP/s (median of >= 9 samples, with the interquartile
 * spread) and own / best peer for each case: the median [q1..q3] of the per-round ratios own /
 * the peer with the larger median. Then its targets, judged on their stated sizes only (other
 * sizes are printed, not judged), each verdict marked "noisy" when the IQR of the per-round
 * ratios behind it straddles the target:
 *   square n in {256 .. 4096}, DGEMM and SGEMM, 1 and 2 threads: geometric mean of
 *     own / max(BLIS, OpenBLAS) >= 1.00 and >= 0.90 at every size;
 *   n >= 1024: >= 90% of the measured FMA ceiling (the registry's "peak" kernel with mix "fma"
 *     for this ISA, precision and thread count, run as a fourth variant interleaved with the
 *     three GEMMs: own/ceiling is the median [q1..q3] of the per-round ratios, the same statistic
 *     on both sides measured side by side; above 100% a note says the machine was busy while the
 *     ceiling ran; n/a when the build has none);
 *   ML shapes (4096x4096x128, 4096x4096x256, 128x4096x4096, 64x64x64): own >= best peer.
 * One call is C := A B + C, column-major, alpha = beta = 1. A speed report, never a test: the
 * exit status is 0 unless the arguments or an allocation are bad.
 *
 * Options: --prec dp|sp|both  --threads LIST (e.g. 1,2)  --sizes LIST (square n)  --no-ml
 *          --no-square  --samples N (>= 9)  --min-time S (seconds per sample, 1e-6..10, default
 *          0.02) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/context.h"
#include "harness/stats.h"
#include "harness/timer.h"
#include "include/nodescale.h"
#include "kernels/gemm/gemm_kernels.h"
#include "kernels/registry.h"

#define NV 3 /* own, BLIS, OpenBLAS */
static const char *const vname[NV] = {"own", "blis", "openblas"};

typedef struct opts {
    int prec_mask; /* bit 0 dp, bit 1 sp */
    int threads[8], nthreads;
    int64_t sizes[32];
    int nsizes;
    int ml, square;
    int samples;
    double min_time;
} opts;

typedef struct result {
    double med[NV], q1[NV], q3[NV]; /* GFLOP/s */
    int ok[NV];
    /* own / best peer (the peer with the larger median): median [q1..q3] of the per-round
     * ratios; NAN if no peer */
    double ratio, ratio_q1, ratio_q3;
    double ceil_med;  /* FMA ceiling in this case, median of its interleaved samples; NAN: none */
    double frac, frac_q1, frac_q3; /* own / ceiling: median [q1..q3] of per-round ratios */
} result;

/* The FMA ceiling as a variant: a registry "peak" kernel, ~1e8 flops a run. */
typedef struct ceiling {
    const ns_kernel *k; /* NULL: the build has none for this ISA and precision */
    void *st;
    ns_params p;
    double flops; /* per run */
} ceiling;

/* The registry's "peak" kernel with mix "fma" for this precision and the ISA the GEMM dispatches
 * to; NULL when the build has none. */
static const ns_kernel *fma_kernel(ns_precision prec) {
    size_t cnt;
    const ns_kernel *const *t = ns_registry(&cnt);
    const ns_kernel *kp = NULL;
    for (size_t i = 0; i < cnt; i++)
        if (!strcmp(t[i]->family, "peak") && t[i]->mix && !strcmp(t[i]->mix, "fma") &&
            t[i]->precision == prec && !strcmp(t[i]->isa, ns_gemm_isa()) &&
            (!t[i]->supported || t[i]->supported()))
            kp = t[i];
    return kp;
}

/* Sets up the FMA ceiling variant for this precision and thread count (c->k NULL: none). */
static void ceiling_open(ceiling *c, ns_precision prec, int threads, double flops_per_run) {
    *c = (ceiling){.k = fma_kernel(prec)};
    if (!c->k) return;
    c->p = (ns_params){.m = 1, .n = 1, .k = 1, .threads = threads};
    double f1 = c->k->flops(&c->p);
    if (f1 > 0) c->p.n = (int64_t)(flops_per_run / f1) + 1;
    c->st = f1 > 0 ? c->k->create(&c->p) : NULL;
    if (!c->st) c->k = NULL;
    else c->flops = c->k->flops(&c->p);
}

static void ceiling_close(ceiling *c) {
    if (c->k) c->k->destroy(c->st);
    c->k = NULL;
}

/* Seconds of reps runs of the ceiling kernel on its threads. */
static double ceiling_time(const ceiling *c, int reps) {
    double t0 = ns_now();
#pragma omp parallel num_threads(c->p.threads)
    for (int r = 0; r < reps; r++) c->k->run(c->st, omp_get_thread_num(), omp_get_num_threads());
    return ns_now() - t0;
}

/* Repetitions for a sample of at least min_time, from the seconds t of one warm call. */
static int reps_for(double min_time, double t) {
    double r = t > 0 ? ceil(min_time / t) : 1;
    return r < 1 ? 1 : r > 1e9 ? 1000000000 : (int)r;
}

/* Best of 15 runs of the ceiling kernel alone: only for the note that compares the T-thread
 * ceiling with T times the 1-thread one. */
static double ceiling_best(ns_precision prec, int threads) {
    ceiling c;
    ceiling_open(&c, prec, threads, 1e9);
    if (!c.k) return NAN;
    double best = 0;
    for (int s = 0; s < 15; s++) {
        double g = c.flops / ceiling_time(&c, 1) * 1e-9;
        if (g > best) best = g;
    }
    ceiling_close(&c);
    return best;
}

static void call(int v, ns_precision prec, int threads, int64_t m, int64_t n, int64_t k, void *a,
                 void *b, void *c, int *ok) {
    int rc;
    if (prec == NS_PREC_DP) {
        if (v == 0)
            rc = nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, m, n, k,
                                 1.0, a, m, b, k, 1.0, c, m);
        else
            rc = ns_gemm_peer_dgemm(v - 1, threads, 0, 0, m, n, k, 1.0, a, m, b, k, 1.0, c, m);
    } else {
        if (v == 0)
            rc = nodescale_sgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, m, n, k,
                                 1.0f, a, m, b, k, 1.0f, c, m);
        else
            rc = ns_gemm_peer_sgemm(v - 1, threads, 0, 0, m, n, k, 1.0f, a, m, b, k, 1.0f, c, m);
    }
    if (rc) *ok = 0;
}

static void fill(void *x, ns_precision prec, int64_t count, unsigned seed) {
    uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (int64_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v = (double)(s >> 11) * 0x1.0p-53 - 0.5;
        if (prec == NS_PREC_DP)
            ((double *)x)[i] = v;
        else
            ((float *)x)[i] = (float)v;
    }
}

static int run_case(const opts *o, ns_precision prec, int threads, int64_t m, int64_t n, int64_t k,
                    const ceiling *ce, result *r) {
    size_t es = ns_prec_size(prec);
    void *a = malloc((size_t)(m * k) * es), *b = malloc((size_t)(k * n) * es);
    void *c = malloc((size_t)(m * n) * es);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return -1;
    }
    fill(a, prec, m * k, 1), fill(b, prec, k * n, 2), fill(c, prec, m * n, 3);
    omp_set_num_threads(threads);
    double flops = (double)(2 * m * n * k);
    /* Each variant once cold (warm-up), then once timed: its own repetitions per sample, from
     * the warm call; a sample that still ends short of min_time runs more calls (below). */
    int reps[NV];
    for (int v = 0; v < NV; v++) {
        r->ok[v] = 1;
        call(v, prec, threads, m, n, k, a, b, c, &r->ok[v]);
        double t0 = ns_now();
        call(v, prec, threads, m, n, k, a, b, c, &r->ok[v]);
        reps[v] = reps_for(o->min_time, ns_now() - t0);
    }
    int creps = 0;
    if (ce->k) {
        ceiling_time(ce, 1);
        creps = reps_for(o->min_time, ceiling_time(ce, 1));
    }
    /* NV GEMM variants, then the ceiling as variant NV; the order rotates each round */
    const int nvar = ce->k ? NV + 1 : NV;
    double *g = malloc(sizeof(double) * (size_t)((NV + 1) * o->samples));
    double *fr = malloc(sizeof(double) * (size_t)o->samples);
    if (!g || !fr) {
        free(g), free(fr), free(a), free(b), free(c);
        return -1;
    }
    for (int s = 0; s < o->samples; s++)
        for (int i = 0; i < nvar; i++) {
            int v = (i + s) % nvar;
            if (v == NV) {
                double t = ceiling_time(ce, creps);
                int done = creps;
                for (; t < o->min_time; done++)
                    t += ceiling_time(ce, 1);
                g[NV * o->samples + s] = ce->flops * done / t * 1e-9;
                continue;
            }
            if (!r->ok[v]) continue;
            double t0 = ns_now(), t;
            int done = 0;
            do {
                for (int rep = 0; rep < reps[v]; rep++, done++)
                    call(v, prec, threads, m, n, k, a, b, c, &r->ok[v]);
                t = ns_now() - t0;
            } while (t < o->min_time);
            g[v * o->samples + s] = flops * done / t * 1e-9;
        }
    double best_med = 0;
    int best = 0; /* the peer with the larger median */
    for (int v = 0; v < NV; v++) {
        ns_stats st;
        if (r->ok[v] && ns_stats_compute(&g[v * o->samples], (size_t)o->samples, &st) == 0) {
            r->med[v] = st.median, r->q1[v] = st.q1, r->q3[v] = st.q3;
        } else {
            r->ok[v] = 0, r->med[v] = r->q1[v] = r->q3[v] = NAN;
        }
        if (v > 0 && r->ok[v] && r->med[v] > best_med) best_med = r->med[v], best = v;
    }
    /* own / best peer and own / ceiling: per round (the variants ran side by side in each), then
     * the median and quartiles of those ratios */
    ns_stats st;
    r->ratio = r->ratio_q1 = r->ratio_q3 = NAN;
    if (r->ok[0] && best) {
        for (int s = 0; s < o->samples; s++)
            fr[s] = g[s] / g[best * o->samples + s];
        if (ns_stats_compute(fr, (size_t)o->samples, &st) == 0)
            r->ratio = st.median, r->ratio_q1 = st.q1, r->ratio_q3 = st.q3;
    }
    r->ceil_med = r->frac = r->frac_q1 = r->frac_q3 = NAN;
    if (ce->k && ns_stats_compute(&g[NV * o->samples], (size_t)o->samples, &st) == 0) {
        r->ceil_med = st.median;
        for (int s = 0; s < o->samples; s++) fr[s] = g[s] / g[NV * o->samples + s];
        if (r->ok[0] && ns_stats_compute(fr, (size_t)o->samples, &st) == 0)
            r->frac = st.median, r->frac_q1 = st.q1, r->frac_q3 = st.q3;
    }
    free(g), free(fr), free(a), free(b), free(c);
    return 0;
}

static void print_result(const char *label, const result *r) {
    printf("%-26s", label);
    for (int v = 0; v < NV; v++) {
        if (r->ok[v])
            printf(" %8.1f ±%4.1f%%", r->med[v], 50.0 * (r->q3[v] - r->q1[v]) / r->med[v]);
        else
            printf(" %8s %6s", "n/a", "");
    }
    if (isnan(r->ratio))
        printf("   %-21s", "n/a");
    else
        printf("   %5.3f [%5.3f..%5.3f]", r->ratio, r->ratio_q1, r->ratio_q3);
    if (!isnan(r->ceil_med)) printf("   %8.1f", r->ceil_med);
    if (!isnan(r->frac))
        printf("   %5.1f%% [%5.1f..%5.1f]", 100 * r->frac, 100 * r->frac_q1, 100 * r->frac_q3);
    printf("\n");
    /* A GEMM runs on the FMA units the ceiling measures: above it, a neighbour had the cores
     * while the ceiling ran (whatever the thread count), and the ratio reads high. */
    if (r->frac > 1)
        printf("  note: own/ceiling above 100%%: the machine was busy while the ceiling ran, so "
               "own/ceiling reads high here\n");
    fflush(stdout);
}

/* "MET"/"MISSED" for value v against target want, with "(noisy, IQR lo..hi)" when the
 * interquartile range of the per-round ratios behind it straddles the target: another run could
 * give the other verdict. */
static void print_verdict(double v, double lo, double hi, double want) {
    printf("%s", v >= want ? "MET" : "MISSED");
    if (lo < want && hi >= want) printf(" (noisy, IQR %.3f..%.3f)", lo, hi);
}

/* The load average, so a reader can tell a quiet machine from a shared one. */
static void print_load(const char *when) {
    FILE *f = fopen("/proc/loadavg", "r");
    double l1 = 0;
    if (f && fscanf(f, "%lf", &l1) == 1)
        printf("  load average (1 min) %s: %.2f on %d logical CPUs\n", when, l1,
               omp_get_num_procs());
    if (f) fclose(f);
}

/* Parses s, a comma-separated list of at most max integers in lo..hi, each once, into out.
 * Returns the count, or -1 with why (an empty item, a bad or repeated one, too many items, a
 * list of more than 255 characters) written to why. */
static int parse_list(const char *s, int64_t lo, int64_t hi, int64_t *out, int max, char *why,
                      size_t whylen) {
    char buf[256];
    if (strlen(s) >= sizeof buf) {
        snprintf(why, whylen, "is longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *tok = buf, *end;; tok = end + 1) {
        end = tok + strcspn(tok, ",");
        int last = !*end;
        *end = 0;
        if (!*tok) {
            snprintf(why, whylen, "has an empty item");
            return -1;
        }
        if (n == max) {
            snprintf(why, whylen, "has more than %d items", max);
            return -1;
        }
        if (ns_parse_int64(tok, lo, hi, &out[n]) != 0) {
            snprintf(why, whylen, "item '%.40s' is not an integer in %lld..%lld", tok,
                     (long long)lo, (long long)hi);
            return -1;
        }
        for (int j = 0; j < n; j++)
            if (out[j] == out[n]) {
                snprintf(why, whylen, "lists %lld twice", (long long)out[n]);
                return -1;
            }
        n++;
        if (last) return n;
    }
}

int main(int argc, char **argv) {
    const char *cmd = "bench-gemm";
    if (ns_bench_help(argc, argv,
                      "usage: bench_gemm [options]   (make bench-gemm)\n"
                      "  own GEMM vs BLIS and OpenBLAS, interleaved sample by sample\n"
                      "  --prec P        dp | sp | both (default both)\n"
                      "  --threads LIST  thread counts, e.g. 1,2 (default 1,2)\n"
                      "  --sizes LIST    square sizes (default 256,512,1024,1536,2048,3072,4096)\n"
                      "  --samples S     samples per case, 9..1000 (default 9)\n"
                      "  --min-time S    seconds a sample of each variant lasts at least,\n"
                      "                  1e-6..10 (default 0.02; raised to 1000x the timer\n"
                      "                  resolution)\n"
                      "  --no-ml         skip the ML shapes\n"
                      "  --no-square     skip the square sizes\n"
                      "  threads are pinned as by `nodescale run` (OMP_PROC_BIND=close,\n"
                      "  OMP_PLACES=cores unless either is set); at most the CPUs in the\n"
                      "  affinity mask\n"))
        return 0;
    ns_affinity_defaults(argv);
    opts o = {.prec_mask = 3, .threads = {1, 2}, .nthreads = 2,
              .sizes = {256, 512, 1024, 1536, 2048, 3072, 4096}, .nsizes = 7, .ml = 1,
              .square = 1, .samples = NS_MIN_SAMPLES, .min_time = 0.02};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int64_t x[32];
        int r;
        if ((r = ns_opt_value(argc, argv, &i, "--prec", &v))) {
            if (r < 0) return ns_usage_error(cmd, "--prec needs a value");
            o.prec_mask = !strcmp(v, "dp") ? 1 : !strcmp(v, "sp") ? 2 : !strcmp(v, "both") ? 3 : 0;
            if (!o.prec_mask) return ns_usage_error(cmd, "--prec must be dp, sp or both");
        } else if ((r = ns_opt_value(argc, argv, &i, "--threads", &v))) {
            char why[128] = "needs a value";
            int n = r < 0 ? -1 : parse_list(v, 1, 1024, x, 8, why, sizeof why);
            if (n <= 0)
                return ns_usage_error(cmd, "--threads %.60s%s%s (want a list like 1,2)",
                                      r < 0 ? "" : v, r < 0 ? "" : ": ", why);
            for (int j = 0; j < n; j++) o.threads[j] = (int)x[j];
            o.nthreads = n;
        } else if ((r = ns_opt_value(argc, argv, &i, "--sizes", &v))) {
            char why[128] = "needs a value";
            int n = r < 0 ? -1 : parse_list(v, 1, 100000, o.sizes, 32, why, sizeof why);
            if (n <= 0)
                return ns_usage_error(cmd, "--sizes %.60s%s%s (want a list like 256,1024)",
                                      r < 0 ? "" : v, r < 0 ? "" : ": ", why);
            o.nsizes = n;
        } else if ((r = ns_opt_value(argc, argv, &i, "--samples", &v))) {
            if (r < 0 || ns_parse_int64(v, NS_MIN_SAMPLES, 1000, x) != 0)
                return ns_usage_error(cmd, "--samples wants an integer in %d..1000",
                                      NS_MIN_SAMPLES);
            o.samples = (int)x[0];
        } else if ((r = ns_opt_value(argc, argv, &i, "--min-time", &v))) {
            double d;
            if (r < 0 || ns_parse_double(v, 1e-6, 10, &d) != 0)
                return ns_usage_error(cmd, "--min-time wants seconds in [1e-6, 10]");
            o.min_time = d;
        } else if (!strcmp(argv[i], "--no-ml")) {
            o.ml = 0;
        } else if (!strcmp(argv[i], "--no-square")) {
            o.square = 0;
        } else {
            return ns_usage_error(cmd, "unknown argument '%s'", argv[i]);
        }
    }
    /* As `nodescale bench`: threads beyond the CPUs measure the scheduler, not the node. */
    int cpus = ns_topology_get()->cpus_in_start_mask;
    if (cpus < ns_topology_get()->cpus_in_mask) cpus = ns_topology_get()->cpus_in_mask;
    for (int ti = 0; ti < o.nthreads; ti++)
        if (cpus > 0 && o.threads[ti] > cpus)
            return ns_usage_error(cmd,
                                  "--threads %d is more than the %d CPUs of this process's "
                                  "affinity mask",
                                  o.threads[ti], cpus);
    /* As ns_measure: a sample of at least 1000x the timer's resolution */
    double floor_s = 1000 * ns_timer_resolution_measured();
    int raised = o.min_time < floor_s;
    if (raised) o.min_time = floor_s;

    printf("bench-gemm: own GEMM vs BLIS and OpenBLAS, same process, interleaved, "
           "C = A B + C column-major\n");
    for (int w = 0; w < 2; w++) {
        ns_gemm_peer_info pi;
        ns_gemm_peer_info_get(w, &pi);
        printf("  peer %-8s %s: %s [%s] %s\n", pi.name, pi.status, pi.version, pi.threading,
               pi.path);
        if (pi.note[0]) printf("       note: %s\n", pi.note);
    }
    for (int p = 0; p < 2; p++) {
        ns_gemm_config cfg;
        if (!(o.prec_mask & (1 << p)) || ns_gemm_config_get(NULL, (ns_precision)p, &cfg)) continue;
        printf("  own %s: %s %s MR=%d NR=%d MC=%lld KC=%lld NC=%lld (%s; L1d %lld, L2 %lld, L3 "
               "%lld bytes)\n", ns_prec_name((ns_precision)p), cfg.isa, cfg.ukernel, cfg.mr,
               cfg.nr, (long long)cfg.mc, (long long)cfg.kc, (long long)cfg.nc, cfg.source,
               (long long)cfg.l1d_bytes, (long long)cfg.l2_bytes, (long long)cfg.l3_bytes);
    }
    printf("  %d samples per variant, >= %.3g s each%s; GFLOP/s median ± half the IQR\n", o.samples,
           o.min_time, raised ? " (--min-time raised to 1000x the timer's resolution)" : "");
    printf("  own/best and own/ceiling: median [q1..q3] of the per-round ratios (own against the "
           "peer with the larger median, and against the ceiling sampled in the same round);\n"
           "  targets judged on the square sizes 256..4096 only; a verdict is \"noisy\" when the "
           "IQR behind it straddles the target\n");
    print_load("at start");
    printf("\n");

    for (int p = 0; p < 2; p++) {
        ns_precision prec = (ns_precision)p;
        if (!(o.prec_mask & (1 << p))) continue;
        for (int ti = 0; ti < o.nthreads; ti++) {
            int th = o.threads[ti];
            ceiling ce;
            ceiling_open(&ce, prec, th, 1e8);
            printf("%s, %d thread%s; FMA ceiling %s\n", prec == NS_PREC_DP ? "DGEMM" : "SGEMM", th,
                   th > 1 ? "s" : "",
                   ce.k ? "measured in every case, interleaved with the GEMMs (median GFLOP/s)"
                        : "n/a (no peak kernel in this build)");
            /* On cores of their own, T threads' FMA ceiling is T times one thread's; well below
             * that, a neighbour had the cores while it ran and own/ceiling reads high. */
            double ceil_t = th > 1 && ce.k ? ceiling_best(prec, th) : NAN;
            double ceil_1 = th > 1 && ce.k ? ceiling_best(prec, 1) : NAN;
            if (ceil_1 > 0 && ceil_t < 0.8 * th * ceil_1)
                printf("note: the %d-thread ceiling (best of 15, %.1f GFLOP/s) is %.2fx the "
                       "1-thread one (%.1f GFLOP/s), not ~%dx: unless the threads share cores, the "
                       "machine is busy and own/ceiling below reads high\n",
                       th, ceil_t, ceil_t / ceil_1, ceil_1, th);
            printf("%-26s %15s %15s %15s   %-21s%s\n", "case (m x n x k)", vname[0], vname[1],
                   vname[2], "own/best [q1..q3]", ce.k ? "   ceiling   own/ceiling [q1..q3]" : "");
            /* the targets' domain: square n in 256..4096; other sizes are printed, not judged */
            double logsum = 0, logq1 = 0, logq3 = 0, minr = INFINITY, minr_q1 = NAN, minr_q3 = NAN;
            int nr = 0, ceil_fail = 0, ceil_cases = 0, ceil_noisy = 0, min_noisy = 0, outside = 0;
            int64_t minr_n = 0;
            if (o.square) {
                for (int si = 0; si < o.nsizes; si++) {
                    int64_t n = o.sizes[si];
                    result r;
                    char label[64];
                    snprintf(label, sizeof label, "%lld^3", (long long)n);
                    if (run_case(&o, prec, th, n, n, n, &ce, &r)) {
                        fprintf(stderr, "nodescale bench-gemm: error: out of memory at n=%lld\n",
                                (long long)n);
                        return 1;
                    }
                    print_result(label, &r);
                    if (n < 256 || n > 4096) {
                        outside++;
                        continue;
                    }
                    if (isfinite(r.ratio)) {
                        logsum += log(r.ratio), nr++;
                        logq1 += log(r.ratio_q1), logq3 += log(r.ratio_q3);
                        if (r.ratio < minr)
                            minr = r.ratio, minr_n = n, minr_q1 = r.ratio_q1, minr_q3 = r.ratio_q3;
                        min_noisy |= r.ratio_q1 < 0.9 && r.ratio_q3 >= 0.9;
                    }
                    if (n >= 1024) ceil_cases++;
                    if (n >= 1024 && ce.k && !(r.frac >= 0.9)) ceil_fail++;
                    if (n >= 1024 && ce.k) ceil_noisy |= r.frac_q1 < 0.9 && r.frac_q3 >= 0.9;
                }
                printf("  square");
                if (outside)
                    printf(" (%d size%s outside 256..4096 printed, not judged)", outside,
                           outside > 1 ? "s" : "");
                if (nr) {
                    double gm = exp(logsum / nr);
                    /* the geomean's spread: the geomeans of the cases' quartiles */
                    printf(": geomean own/best %.3f (target >= 1.00) ", gm);
                    print_verdict(gm, exp(logq1 / nr), exp(logq3 / nr), 1.0);
                    /* noisy when any judged size's IQR straddles 0.90: its median could fall on
                     * the other side in another run */
                    printf("; min %.3f [%.3f..%.3f] at n=%lld (target >= 0.90) %s%s", minr, minr_q1,
                           minr_q3, (long long)minr_n, minr >= 0.9 ? "MET" : "MISSED",
                           min_noisy ? " (noisy: a size's IQR straddles 0.90)" : "");
                    if (ce.k) {
                        printf("; >= 90%% of FMA ceiling at n >= 1024: %s",
                               !ceil_cases ? "n/a (no size >= 1024)"
                               : ceil_fail ? "MISSED"
                                           : "MET");
                        if (ceil_cases && ceil_noisy) printf(" (noisy: an IQR straddles 90%%)");
                    }
                } else {
                    printf(": targets n/a (no size in 256..4096 with a peer)");
                }
                printf("\n");
            }
            if (o.ml) {
                static const int64_t ml[4][3] = {
                    {4096, 4096, 128}, {4096, 4096, 256}, {128, 4096, 4096}, {64, 64, 64}};
                for (int s = 0; s < 4; s++) {
                    result r;
                    char label[64];
                    snprintf(label, sizeof label, "ML %lldx%lldx%lld", (long long)ml[s][0],
                             (long long)ml[s][1], (long long)ml[s][2]);
                    if (run_case(&o, prec, th, ml[s][0], ml[s][1], ml[s][2], &ce, &r)) return 1;
                    print_result(label, &r);
                    if (isfinite(r.ratio) && r.ratio < 1.0)
                        printf("  (ML target own >= best peer MISSED here%s)\n",
                               r.ratio_q3 >= 1.0 ? ", noisy: IQR straddles 1.00" : "");
                }
            }
            ceiling_close(&ce);
            printf("\n");
        }
    }
    print_load("at end");
    return 0;
}
