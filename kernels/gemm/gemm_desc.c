/* Registry descriptors of the gemm family: the own DGEMM/SGEMM for each ISA (forcing an ISA here
 * runs that ISA's micro-kernel through ns_gemm_?_isa) and the BLIS / OpenBLAS peers, all on the
 * same inputs. One repetition is C(m x n) += A(m x k) B(k x n), column-major, lda = m, ldb = k,
 * ldc = m, alpha = beta = 1, with p->threads threads (NS_RUN_SELF: GEMM opens its own parallel
 * region, and gemm_cpus tells the harness where its threads ran).
 *
 * Counts: flops = 2mnk (the product formed in 64-bit integers, then converted); bytes =
 * es(mk + kn + 2mn), "minimal": A and B read once, C read and written once, no write-allocate.
 *
 * Check (the random projection BLIS's testsuite uses): after R repetitions C = C0 + R A B in exact
 * arithmetic (in floating point only up to rounding, hence the bound below), so with a random
 * vector t, y = C t is compared with C0 t + R A (B t), both formed in long double.
 * Per row, the error is divided by s = |C0||t| + R |A|(|B||t|) and must stay below
 * 2 (k + R + 2) u (u = unit roundoff of the precision): each repetition adds at most
 * (k + 1) u |A||B| + u |C| (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * section 3.5), so the bound scales with k eps |A||B| and never with an absolute tolerance. */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_kernels.h"

typedef struct gemm_state {
    int isa;  /* own ISA index, or -1 for a peer */
    int peer; /* 0 BLIS, 1 OpenBLAS, or -1 */
    ns_precision prec;
    int64_t m, n, k;
    int threads;
    void *a, *b, *c;
    double *t;          /* projection vector, n */
    long double *c0t;   /* C0 t, m */
    double *c0at;       /* |C0| |t|, m */
    int64_t runs;
    int failed;         /* a call failed: a peer (unavailable or sizes beyond int), or the own
                         * GEMM (NODESCALE_ERR_NOMEM: no memory for its packing buffers) */
    int *cpus, ncpus;   /* own GEMM: the CPU of each of its threads in the last run (threads) */
} gemm_state;

static double gemm_flops(const ns_params *p) {
    return (double)(2 * p->m * p->n * p->k);
}

/* Elements of A, B and C touched (C counted c_times); none when m or n is 0 (nothing is
 * touched), only C when k is 0 (C := beta C). */
static double gemm_elems(const ns_params *p, int c_times) {
    if (p->m == 0 || p->n == 0) return 0;
    return (double)(p->m * p->k + p->k * p->n + c_times * p->m * p->n);
}

static double dgemm_bytes(const ns_params *p) {
    return 8.0 * gemm_elems(p, 2);
}
static double sgemm_bytes(const ns_params *p) {
    return 4.0 * gemm_elems(p, 2);
}
static double dgemm_ws(const ns_params *p) {
    return 8.0 * gemm_elems(p, 1);
}
static double sgemm_ws(const ns_params *p) {
    return 4.0 * gemm_elems(p, 1);
}

/* splitmix64: a reproducible stream of uniform values in [-1, 1) per (seed, index). */
static double uniform_at(uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

static void fill(void *x, ns_precision prec, int64_t count, uint64_t seed) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < count; i++) {
        double v = uniform_at(seed, (uint64_t)i);
        if (prec == NS_PREC_DP)
            ((double *)x)[i] = v;
        else
            ((float *)x)[i] = (float)v;
    }
}

static double get(const gemm_state *s, const void *x, int64_t i) {
    return s->prec == NS_PREC_DP ? ((const double *)x)[i] : (double)((const float *)x)[i];
}

static void gemm_destroy(void *state) {
    gemm_state *s = state;
    if (!s) return;
    free(s->a), free(s->b), free(s->c), free(s->t), free(s->c0t), free(s->c0at);
    free(s->cpus);
    free(s);
}

static void *gemm_create(const ns_params *p, int isa, int peer, ns_precision prec) {
    gemm_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->isa = isa, s->peer = peer, s->prec = prec;
    s->m = p->m, s->n = p->n, s->k = p->k, s->threads = p->threads > 0 ? p->threads : 1;
    size_t es = ns_prec_size(prec);
    int64_t m = p->m, n = p->n, k = p->k;
    s->a = malloc((size_t)(m * k) * es + 64);
    s->b = malloc((size_t)(k * n) * es + 64);
    s->c = malloc((size_t)(m * n) * es + 64);
    s->t = malloc((size_t)n * sizeof(double) + 8);
    s->c0t = malloc((size_t)m * sizeof(long double) + 16);
    s->c0at = malloc((size_t)m * sizeof(double) + 8);
    s->cpus = malloc((size_t)s->threads * sizeof *s->cpus);
    if (!s->a || !s->b || !s->c || !s->t || !s->c0t || !s->c0at || !s->cpus) {
        gemm_destroy(s);
        return NULL;
    }
    fill(s->a, prec, m * k, 1);
    fill(s->b, prec, k * n, 2);
    fill(s->c, prec, m * n, 3);
    for (int64_t j = 0; j < n; j++) s->t[j] = uniform_at(4, (uint64_t)j);
    for (int64_t i = 0; i < m; i++) s->c0t[i] = 0, s->c0at[i] = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double cij = get(s, s->c, i + j * m);
            s->c0t[i] += (long double)cij * s->t[j];
            s->c0at[i] += fabs(cij) * fabs(s->t[j]);
        }
    return s;
}

static void gemm_run(void *state, int tid, int nthreads) {
    gemm_state *s = state;
    int64_t m = s->m, n = s->n, k = s->k;
    int rc = 0;
    if (s->prec == NS_PREC_DP) {
        if (s->peer >= 0)
            rc = ns_gemm_peer_dgemm(s->peer, s->threads, 0, 0, m, n, k, 1.0, s->a, m, s->b, k,
                                    1.0, s->c, m);
        else
            rc = ns_gemm_d_isa_cpus(s->isa, 0, 0, m, n, k, 1.0, s->a, m, s->b, k, 1.0, s->c, m,
                                    s->threads, s->cpus, s->threads, &s->ncpus);
    } else {
        if (s->peer >= 0)
            rc = ns_gemm_peer_sgemm(s->peer, s->threads, 0, 0, m, n, k, 1.0f, s->a, m, s->b, k,
                                    1.0f, s->c, m);
        else
            rc = ns_gemm_s_isa_cpus(s->isa, 0, 0, m, n, k, 1.0f, s->a, m, s->b, k, 1.0f, s->c, m,
                                    s->threads, s->cpus, s->threads, &s->ncpus);
    }
    if (rc) s->failed = 1;
    s->runs++;
}

static void gemm_check(void *state, ns_check *out) {
    gemm_state *s = state;
    int64_t m = s->m, n = s->n, k = s->k;
    long double R = (long double)s->runs;
    double u = s->prec == NS_PREC_DP ? 0x1.0p-53 : 0x1.0p-24;
    out->bound = 2.0 * ((double)k + (double)s->runs + 2.0) * u;
    out->error = 0;
    out->ok = 0;
    if (s->failed) {
        snprintf(out->why, sizeof out->why, "%s",
                 s->peer >= 0 ? "the peer call failed (unavailable or sizes > int)"
                              : "GEMM could not allocate its packing buffers (out of memory)");
        return;
    }
    long double *bt = malloc((size_t)(k > 0 ? k : 1) * sizeof *bt);
    double *babt = malloc((size_t)(k > 0 ? k : 1) * sizeof *babt);
    if (!bt || !babt) {
        free(bt), free(babt);
        snprintf(out->why, sizeof out->why, "out of memory for the check");
        return;
    }
    for (int64_t p = 0; p < k; p++) {
        long double acc = 0;
        double aacc = 0;
        for (int64_t j = 0; j < n; j++) {
            double bpj = get(s, s->b, p + j * k);
            acc += (long double)bpj * s->t[j];
            aacc += fabs(bpj) * fabs(s->t[j]);
        }
        bt[p] = acc, babt[p] = aacc;
    }
    double worst = 0;
    int64_t worst_i = 0;
    int finite = 1;
    for (int64_t i = 0; i < m && finite; i++) {
        long double y = 0, e = 0;
        double scale = 0;
        for (int64_t j = 0; j < n; j++) y += (long double)get(s, s->c, i + j * m) * s->t[j];
        for (int64_t p = 0; p < k; p++) {
            double aip = get(s, s->a, i + p * m);
            e += (long double)aip * bt[p];
            scale += fabs(aip) * babt[p];
        }
        e = s->c0t[i] + R * e;
        scale = s->c0at[i] + (double)R * scale;
        double err = (double)fabsl(y - e);
        if (!isfinite((double)y)) finite = 0;
        double rel = scale > 0 ? err / scale : err;
        if (rel > worst) worst = rel, worst_i = i;
    }
    free(bt), free(babt);
    out->error = worst;
    if (!finite) {
        snprintf(out->why, sizeof out->why, "non-finite value in C after %lld repetitions",
                 (long long)s->runs);
        out->error = INFINITY;
        return;
    }
    out->ok = worst <= out->bound;
    snprintf(out->why, sizeof out->why,
             "random projection C t vs C0 t + %lld A (B t) in long double; worst row %lld, "
             "error relative to |C0||t| + R|A||B||t|",
             (long long)s->runs, (long long)worst_i);
}

/* The CPU of each thread of the last run (registry.h's cpus): the own GEMM's threads as it
 * recorded them. A peer's threads are its own: with its OpenMP build they are this process's
 * OpenMP pool threads, which a parallel region of the same size reuses, so these are asked where
 * they are now (pinned by OMP_PROC_BIND, that is where the peer ran); a pthreads peer's threads
 * cannot be asked (0). */
static int gemm_cpus(void *state, int *cpu_of_thread, int max) {
    gemm_state *s = state;
    int n = 0;
    if (s->peer < 0) {
        n = s->ncpus < max ? s->ncpus : max;
        memcpy(cpu_of_thread, s->cpus, (size_t)(n > 0 ? n : 0) * sizeof *cpu_of_thread);
        return n;
    }
    ns_gemm_peer_info pi;
    if (ns_gemm_peer_info_get(s->peer, &pi) || strncmp(pi.threading, "openmp", 6)) return 0;
    int want = s->threads < max ? s->threads : max;
#pragma omp parallel num_threads(want) reduction(+ : n)
    {
        int tid = omp_get_thread_num();
        if (omp_get_num_threads() == want) cpu_of_thread[tid] = sched_getcpu(), n = 1;
    }
    return n == want ? n : 0;
}

/* The team of the last run (registry.h's team). The own GEMM: the threads ns_gemm_ways gives
 * these sizes (small calls run on fewer) and those the call ran on. A peer is taken to ask for
 * s->threads; with its OpenMP build it gets what this process's runtime gives such a team. */
static void gemm_team(void *state, ns_team *out) {
    gemm_state *s = state;
    out->asked = out->got = s->threads;
    out->why[0] = 0;
    if (s->peer >= 0) {
        ns_gemm_peer_info pi;
        if (ns_gemm_peer_info_get(s->peer, &pi) || strncmp(pi.threading, "openmp", 6)) return;
        int got = 0;
#pragma omp parallel num_threads(s->threads)
#pragma omp master
        got = omp_get_num_threads();
        out->got = got;
        return;
    }
    int ways[3];
    out->asked = ns_gemm_ways(s->isa, s->prec, s->m, s->n, s->k, s->threads, ways);
    out->got = s->ncpus > 0 ? s->ncpus : 1;
    /* A call that ran on one thread (a forked child, a held team claim) had no split. */
    if (out->got == 1) ways[0] = ways[1] = ways[2] = 1;
    memcpy(out->ways, ways, sizeof out->ways);
    ns_gemm_env_ways_note(out->got == 1 ? 1 : out->asked, ways, out->ways_note,
                          sizeof out->ways_note);
    if (out->asked < s->threads)
        snprintf(out->why, sizeof out->why,
                 "GEMM runs this call (%.3g MFLOP) on %d of the %d threads: it gives each "
                 "thread at least 2 MFLOP, one thread under 4",
                 gemm_flops(&(ns_params){.m = s->m, .n = s->n, .k = s->k}) / 1e6, out->asked,
                 s->threads);
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
static int sup_blis(void) {
    ns_gemm_peer_info pi;
    return ns_gemm_peer_info_get(0, &pi) == 0 && pi.available;
}
static int sup_openblas(void) {
    ns_gemm_peer_info pi;
    return ns_gemm_peer_info_get(1, &pi) == 0 && pi.available;
}

/* One descriptor: SYM names it, ISA is the own ISA index (or -1), PEER the peer (or -1). */
#define GEMM_DESC(SYM, NAME, ISASTR, ISA, PEER, PREC, BYTES, WS, SUP)                              \
    static void *create_##SYM(const ns_params *p) {                                               \
        return gemm_create(p, ISA, PEER, PREC);                                                    \
    }                                                                                              \
    const ns_kernel SYM = {.name = NAME, .family = "gemm", .isa = ISASTR, .precision = PREC,      \
                           .mix = NULL, .bytes_policy = "minimal", .run_model = NS_RUN_SELF,      \
                           .flops = gemm_flops, .bytes = BYTES, .working_set = WS,                \
                           .supported = SUP, .create = create_##SYM, .run = gemm_run,             \
                           .check = gemm_check, .destroy = gemm_destroy, .cpus = gemm_cpus,     \
                           .team = gemm_team};

GEMM_DESC(ns_k_dgemm_avx512, "dgemm", "avx512", NS_GEMM_AVX512, -1, NS_PREC_DP, dgemm_bytes,
          dgemm_ws, sup_avx512)
GEMM_DESC(ns_k_dgemm_avx2, "dgemm", "avx2", NS_GEMM_AVX2, -1, NS_PREC_DP, dgemm_bytes, dgemm_ws,
          sup_avx2)
GEMM_DESC(ns_k_dgemm_scalar, "dgemm", "scalar", NS_GEMM_SCALAR, -1, NS_PREC_DP, dgemm_bytes,
          dgemm_ws, sup_scalar)
GEMM_DESC(ns_k_dgemm_blis, "dgemm", "blis", -1, 0, NS_PREC_DP, dgemm_bytes, dgemm_ws, sup_blis)
GEMM_DESC(ns_k_dgemm_openblas, "dgemm", "openblas", -1, 1, NS_PREC_DP, dgemm_bytes, dgemm_ws,
          sup_openblas)
GEMM_DESC(ns_k_sgemm_avx512, "sgemm", "avx512", NS_GEMM_AVX512, -1, NS_PREC_SP, sgemm_bytes,
          sgemm_ws, sup_avx512)
GEMM_DESC(ns_k_sgemm_avx2, "sgemm", "avx2", NS_GEMM_AVX2, -1, NS_PREC_SP, sgemm_bytes, sgemm_ws,
          sup_avx2)
GEMM_DESC(ns_k_sgemm_scalar, "sgemm", "scalar", NS_GEMM_SCALAR, -1, NS_PREC_SP, sgemm_bytes,
          sgemm_ws, sup_scalar)
GEMM_DESC(ns_k_sgemm_blis, "sgemm", "blis", -1, 0, NS_PREC_SP, sgemm_bytes, sgemm_ws, sup_blis)
GEMM_DESC(ns_k_sgemm_openblas, "sgemm", "openblas", -1, 1, NS_PREC_SP, sgemm_bytes, sgemm_ws,
          sup_openblas)
