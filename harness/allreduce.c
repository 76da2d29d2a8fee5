/* Thread all-reduce measurement and its alpha-beta fit (see allreduce.h). One parallel region
 * per schedule holds the whole sweep: buffers are allocated and first-touched by their owner
 * thread once, at the largest size, and every size uses their prefix. A sample is a barrier,
 * reps back-to-back all-reduces, a barrier (each all-reduce ends with one), timed by thread 0.
 * Per size: one untimed all-reduce (warm-up), then reps grown from 1 until a sample lasts
 * ns_allreduce_min_sample_s (as ns_measure sizes kernels), then the samples. */
#include "harness/allreduce.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/equations.h"
#include "harness/context.h"
#include "harness/json.h"
#include "harness/stats.h"
#include "harness/timer.h"
#include "kernels/reduce/allreduce.h"
#include "kernels/reduce/reduce_kernels.h"

#define MAX_BYTES ((int64_t)256 << 20)
#define MIN_BYTES 8
#define SAMPLES NS_MIN_SAMPLES /* per size, --quick too (the README's "at least 9 samples") */
#define MAX_POINTS 64
#define MAX_REPS 1000000 /* repetitions per sample at most */

typedef void (*schedule_fn)(float *const *, float *const *, int64_t, int, int);

typedef struct point {
    int64_t bytes, reps;
    double samples[SAMPLES];
    int nsamples;
    int validated;
} point;

/* The measured timer resolution, probed once. */
static double timer_resolution(void) {
    static double resolution = 0;
    if (resolution == 0) resolution = ns_timer_resolution_measured();
    return resolution;
}

double ns_allreduce_min_sample_s(int quick) {
    return fmax(quick ? 2e-4 : 2e-3, 1000 * timer_resolution());
}

static int64_t sizes(int quick, int64_t max, int64_t *out) {
    int n = 0;
    for (int64_t s = MIN_BYTES; s <= max; s *= quick ? 4 : 2)
        out[n++] = s;
    if (out[n - 1] != max && max >= MIN_BYTES) out[n++] = max;
    return n;
}

/* Largest power-of-two size <= 256 MiB whose 2 * threads buffers fit in half the free memory. */
static int64_t fitting_max(int threads) {
    long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    double avail = pages > 0 && psize > 0 ? (double)pages * (double)psize : 1e12;
    int64_t m = MAX_BYTES;
    while (m > MIN_BYTES && 2.0 * threads * (double)m > 0.5 * avail)
        m /= 2;
    return m;
}

/* Runs the sweep for one schedule on a team of p threads; fills pts[0..npts). Returns 0, or -1
 * if a buffer could not be allocated. */
static int sweep(schedule_fn fn, int p, int quick, const int64_t *sz, int npts, point *pts,
                 const char *name, FILE *log) {
    int64_t maxcount = sz[npts - 1] / (int64_t)sizeof(float);
    float **send = calloc((size_t)p, sizeof *send), **recv = calloc((size_t)p, sizeof *recv);
    int failed = !send || !recv;
    double min_s = ns_allreduce_min_sample_s(quick);
    double resolution = timer_resolution();
    int nsamples = SAMPLES;
    if (!failed) {
#pragma omp parallel num_threads(p) reduction(| : failed)
        {
            int t = omp_get_thread_num();
            size_t bytes = ((size_t)maxcount * sizeof(float) + 63) / 64 * 64;
            send[t] = aligned_alloc(64, bytes);
            recv[t] = aligned_alloc(64, bytes);
            if (!send[t] || !recv[t]) failed = 1;
            for (int64_t i = 0; !failed && i < maxcount; i++) {
                send[t][i] = (float)((t + 1) + (i % 5));
                recv[t][i] = 0.0f;
            }
        }
    }
    if (failed) goto out;
    /* Shared by the team: the last sizing sample's seconds, written by thread 0 between two
     * barriers and read by every thread after the second. */
    double elapsed = 0;
#pragma omp parallel num_threads(p)
    {
        int t = omp_get_thread_num();
        for (int k = 0; k < npts; k++) {
            int64_t count = sz[k] / (int64_t)sizeof(float);
            fn(send, recv, count, t, p); /* warm-up: caches, pages, the team's spin state */
            /* Grow reps until a sample lasts min_s, as ns_measure does, and a second sample of
             * as many reps confirms it (one preempted sample on a busy machine once sized reps
             * 10x short). Every thread computes the same reps from the shared elapsed. */
            int64_t reps = 1;
            int long_enough = 0;
            for (;;) {
#pragma omp barrier
                double a = ns_now();
                for (int64_t r = 0; r < reps; r++)
                    fn(send, recv, count, t, p);
#pragma omp master
                elapsed = ns_now() - a;
#pragma omp barrier
                if (reps >= MAX_REPS) break;
                if (elapsed >= min_s) {
                    if (long_enough++) break;
                    continue;
                }
                long_enough = 0;
                double grow = elapsed > 100 * resolution ? 1.2 * min_s / elapsed : 2.0;
                reps = (int64_t)ceil((double)reps * fmin(fmax(grow, 2.0), 1000.0));
                if (reps > MAX_REPS) reps = MAX_REPS;
            }
            /* Aim 20% past min_s, so that samples a little faster than this one still last it. */
            if (elapsed > 0 && elapsed < 1.2 * min_s)
                reps = (int64_t)ceil((double)reps * 1.2 * min_s / elapsed);
            if (reps > MAX_REPS) reps = MAX_REPS;
            /* The samples; taken again with more reps (at most 3 times) when their median came
             * out shorter than min_s: the sizing samples ran slow (a busy machine). */
            for (int attempt = 0;; attempt++) {
                for (int s = 0; s < nsamples; s++) {
#pragma omp barrier
                    double a = ns_now();
                    for (int64_t r = 0; r < reps; r++)
                        fn(send, recv, count, t, p);
#pragma omp master
                    pts[k].samples[s] = (ns_now() - a) / (double)reps;
                }
#pragma omp master
                elapsed = ns_median(pts[k].samples, (size_t)nsamples) * (double)reps;
#pragma omp barrier
                if (elapsed >= min_s || attempt == 3 || reps >= MAX_REPS) break;
                reps = (int64_t)ceil((double)reps * 1.2 * min_s / fmax(elapsed, resolution));
                if (reps > MAX_REPS) reps = MAX_REPS;
            }
#pragma omp master
            {
                pts[k].reps = reps;
                pts[k].bytes = sz[k];
                pts[k].nsamples = nsamples;
            }
            /* Exact check: every element is an integer below 2^24. */
            int bad = 0;
            float base = (float)(p * (p + 1) / 2);
            for (int64_t i = 0; i < count; i++)
                bad |= recv[t][i] != base + (float)(p * (int)(i % 5));
#pragma omp single
            pts[k].validated = 1;
#pragma omp critical
            if (bad) pts[k].validated = 0;
#pragma omp barrier
#pragma omp master
            if (log)
                fprintf(log, "allreduce %-4s %2d threads %10lld B: %.3g s (%lld reps)%s\n", name, p,
                        (long long)sz[k], ns_median(pts[k].samples, pts[k].nsamples),
                        (long long)pts[k].reps, pts[k].validated ? "" : "  WRONG RESULT");
        }
    }
out:
    for (int t = 0; send && recv && t < p; t++)
        free(send[t]), free(recv[t]);
    free(send);
    free(recv);
    return failed ? -1 : 0;
}

static json_t *points_json(const point *pts, int npts, int p) {
    json_t *arr = json_array();
    for (int k = 0; k < npts; k++) {
        json_t *o = json_object(), *ts = json_object(), *ss = json_array();
        ns_stats st;
        ns_stats_compute(pts[k].samples, (size_t)pts[k].nsamples, &st);
        ns_json_set_int(o, "size_bytes", pts[k].bytes);
        ns_json_set_int(o, "count", pts[k].bytes / (int64_t)sizeof(float));
        ns_json_set_int(o, "reps", pts[k].reps);
        for (int s = 0; s < pts[k].nsamples; s++)
            json_array_append_new(ss, json_real(pts[k].samples[s]));
        json_object_set_new(o, "samples_s", ss);
        ns_json_set_num(ts, "min", st.min, NULL);
        ns_json_set_num(ts, "median", st.median, NULL);
        ns_json_set_num(ts, "mean", st.mean, NULL);
        ns_json_set_num(ts, "stddev", st.stddev, NULL);
        ns_json_set_num(ts, "cv", st.cv, NULL);
        json_object_set_new(o, "time_s", ts);
        double alg = st.median > 0 ? (double)pts[k].bytes / st.median / 1e9 : NAN;
        ns_json_set_num(o, "algbw_gbytes_per_s", alg, "invalid: zero elapsed");
        if (p > 1)
            ns_json_set_num(o, "busbw_gbytes_per_s", alg * ns_allreduce_bus_factor(p),
                            "invalid: zero elapsed");
        else
            ns_json_set_num(o, "busbw_gbytes_per_s", NAN,
                            "busbw undefined for 1 thread (factor 2(n-1)/n = 0)");
        json_object_set_new(o, "validated", json_boolean(pts[k].validated));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* The fit uses the two ends of the sweep, where the alpha-beta model holds. When some sizes
 * have buffers (2 p S bytes) beyond twice the last-level cache: alpha is the median time of the
 * smallest sizes (S <= 64 B, where S beta is negligible) and beta the median of (t - alpha) / S
 * over the beyond-cache sizes; a joint least-squares line would be pulled by the many small
 * sizes' own slope. Cache-resident sizes between run faster than either end and are listed but
 * not fitted. With no size beyond the cache, a least-squares line with weights 1/t^2 over every
 * size. Returns 0 or -1 (too few points); *used receives the points counted. */
static int two_end_fit(const point *pts, int npts, int p, double *a, double *b, double *mr,
                       int *used, int *all) {
    int llc = ns_llc_level();
    double cache = llc ? (double)ns_cache_aggregate(llc, p) : 0;
    double s[MAX_POINTS], t[MAX_POINTS], small[MAX_POINTS], slope[MAX_POINTS];
    int n = 0, ns = 0, nb = 0;
    for (int k = 0; k < npts; k++) {
        s[k] = (double)pts[k].bytes, t[k] = ns_median(pts[k].samples, pts[k].nsamples);
        if (s[k] <= 64) small[ns++] = t[k];
        nb += 2.0 * p * s[k] > 2 * cache;
    }
    *all = nb == 0 || ns == 0;
    if (*all) {
        *used = npts;
        return ns_alpha_beta_fit(s, t, npts, 0, a, b, mr);
    }
    *a = ns_median(small, (size_t)ns);
    nb = 0;
    for (int k = 0; k < npts; k++)
        if (2.0 * p * s[k] > 2 * cache) slope[nb++] = (t[k] - *a) / s[k];
    *b = ns_median(slope, (size_t)nb);
    *mr = 0;
    for (int k = 0; k < npts; k++)
        if (s[k] <= 64 || 2.0 * p * s[k] > 2 * cache) {
            double r = fabs(*a + *b * s[k] - t[k]) / t[k];
            if (r > *mr) *mr = r;
            n++;
        }
    *used = n;
    return 0;
}

const char *ns_allreduce_poor_fit(double max_rel, char *buf, size_t len) {
    if (!(max_rel > NS_ALLREDUCE_POOR_FIT)) return NULL;
    snprintf(buf, len,
             "poor fit: max_rel_residual %.2g > %.2g, the alpha-beta line does not describe these "
             "times; not a measurement of alpha and beta",
             max_rel, NS_ALLREDUCE_POOR_FIT);
    return buf;
}

const json_t *ns_allreduce_fit_residual_json(const json_t *fit) {
    const json_t *r = json_object_get(fit, "max_rel_residual");
    return r && !json_is_null(r) ? r : json_object_get(fit, "max_rel_resid");
}

double ns_allreduce_fit_residual(const json_t *fit) {
    const json_t *r = ns_allreduce_fit_residual_json(fit);
    return json_is_number(r) ? json_number_value(r) : NAN;
}

int ns_allreduce_fit_is_poor(const json_t *fit) {
    const char *st = json_string_value(json_object_get(fit, "status"));
    return ns_allreduce_fit_residual(fit) > NS_ALLREDUCE_POOR_FIT ||
           (st && !strncmp(st, "poor fit", 8));
}

static json_t *fit_json(const point *pts, int npts, int p, int ring) {
    double a, b, mr;
    json_t *o = json_object();
    int all, n, rc = two_end_fit(pts, npts, p, &a, &b, &mr, &n, &all);
    ns_json_set_str(o, "model", "t(S) = alpha_s + beta_s_per_byte * S, S = bytes per thread");
    ns_json_set_str(o, "schedule", ring ? "ring" : "tree");
    ns_json_set_str(o, "method",
                    all ? "least squares over every size, weights 1/t^2 (no size beyond the "
                          "last-level cache)"
                        : "alpha: median t of S <= 64 B; beta: median (t - alpha)/S over sizes "
                          "with 2*threads*S > 2x last-level cache");
    int steps = ring ? 2 * (p - 1) : 2 * (int)ceil(log2((double)p));
    /* Volume one thread moves per byte of S: ring 2(p-1)/p, tree 2 ceil(log2 p). */
    double volume = ring ? 2.0 * (p - 1) / p : (double)steps;
    if (rc != 0) {
        ns_json_set_num(o, "alpha_s", NAN, "invalid: fewer than 2 points");
        ns_json_set_num(o, "beta_s_per_byte", NAN, NULL);
        return o;
    }
    ns_json_set_num(o, "alpha_s", a, NULL);
    ns_json_set_num(o, "beta_s_per_byte", b, NULL);
    ns_json_set_num(o, "asymptotic_algbw_gbytes_per_s", b > 0 ? 1e-9 / b : NAN,
                    "invalid: non-positive beta");
    /* The same fit in the per-step alpha-beta model: ring t = 2(p-1) alpha + 2(p-1)/p S beta,
     * tree t = 2 log2(p) (alpha + S beta) (Thakur, Rabenseifner, Gropp 2005). */
    ns_json_set_num(o, "per_step_alpha_s", steps > 0 ? a / steps : NAN,
                    "per-step values undefined for 1 thread");
    ns_json_set_num(o, "link_beta_s_per_byte", steps > 0 ? b / volume : NAN, NULL);
    ns_json_set_int(o, "steps", steps);
    /* cluster/node.c turns a fit with "ranks" into per-link values under the ring model */
    if (ring) ns_json_set_int(o, "ranks", p);
    ns_json_set_int(o, "points", n);
    ns_json_set_num(o, "max_rel_residual", mr, NULL);
    if (a < 0 && !json_object_get(o, "status"))
        ns_json_set_str(o, "status", "alpha fitted negative: latency below the timer's reach");
    char st[200];
    if (ns_allreduce_poor_fit(mr, st, sizeof st) && !json_object_get(o, "status"))
        ns_json_set_str(o, "status", st);
    return o;
}

/* The section's common keys */
static json_t *section(int p) {
    json_t *o = json_object();
    if (!o) return NULL;
    ns_json_set_str(o, "convention", "busbw = algbw * 2(n-1)/n (nccl-tests)");
    ns_json_set_int(o, "threads", p);
    ns_json_set_str(o, "dtype", "float32");
    ns_json_set_str(o, "op", "sum");
    json_object_set_new(o, "in_place", json_false());
    ns_json_set_str(o, "size_unit", "bytes per thread (S); algbw = S / t");
    return o;
}

/* One thread: the all-reduce is a copy, so its times say nothing about alpha and beta. Nothing is
 * measured; the fits carry null alpha and beta and the reason (as fleet's one-rank fit does). */
static json_t *one_thread(void) {
    static const char why[] = "one thread: nothing to reduce across";
    json_t *o = section(1);
    if (!o) return NULL;
    json_object_set_new(o, "ring", json_array());
    json_object_set_new(o, "tree", json_array());
    const char *keys[] = {"fit", "fit_tree"};
    for (int i = 0; i < 2; i++) {
        json_t *f = json_object();
        json_object_set_new(f, "alpha_s", json_null());
        json_object_set_new(f, "beta_s_per_byte", json_null());
        ns_json_set_str(f, "status", why);
        json_object_set_new(o, keys[i], f);
    }
    ns_json_set_str(o, "status", why);
    return o;
}

json_t *ns_allreduce_measure(int threads, int quick, FILE *log) {
    return ns_allreduce_measure_upto(threads, quick, MAX_BYTES, log);
}

json_t *ns_allreduce_measure_upto(int threads, int quick, int64_t max_bytes, FILE *log) {
    int p = threads > 0 ? threads : omp_get_max_threads();
    if (p < 2) return one_thread();
    int64_t sz[MAX_POINTS];
    int64_t max = fitting_max(p);
    if (quick && max > (INT64_C(32) << 20)) max = INT64_C(32) << 20; /* --quick: <= 32 MiB */
    if (max_bytes < max) max = max_bytes < MIN_BYTES ? MIN_BYTES : max_bytes;
    int npts = (int)sizes(quick, max, sz);
    point *ring = calloc((size_t)npts, sizeof *ring), *tree = calloc((size_t)npts, sizeof *tree);
    json_t *o = section(p);
    if (o) ns_json_set_num(o, "min_sample_s", ns_allreduce_min_sample_s(quick), NULL);
    if (!ring || !tree || !o) {
        free(ring), free(tree), json_decref(o);
        return NULL;
    }
    int rr = sweep(ns_allreduce_ring, p, quick, sz, npts, ring, "ring", log);
    int rt = rr ? -1 : sweep(ns_allreduce_tree, p, quick, sz, npts, tree, "tree", log);
    if (rr || rt) {
        ns_json_set_str(o, "status", "not measured: buffer allocation failed");
        json_object_set_new(o, "ring", json_array());
        json_object_set_new(o, "tree", json_array());
    } else {
        json_object_set_new(o, "ring", points_json(ring, npts, p));
        json_object_set_new(o, "tree", points_json(tree, npts, p));
        json_object_set_new(o, "fit", fit_json(ring, npts, p, 1));
        json_object_set_new(o, "fit_tree", fit_json(tree, npts, p, 0));
        char st[160];
        if (max < fitting_max(p) && max < MAX_BYTES)
            snprintf(st, sizeof st, "sizes above %lld B left out on request%s", (long long)max,
                     quick ? " (--quick)" : "");
        else if (max < MAX_BYTES)
            snprintf(st, sizeof st, "sizes above %lld B left out: not enough free memory",
                     (long long)max);
        else
            snprintf(st, sizeof st, "ok");
        ns_json_set_str(o, "status", st);
    }
    free(ring);
    free(tree);
    return o;
}

json_t *ns_fpstate_json(int threads) {
    int p = threads > 0 ? threads : omp_get_max_threads();
    uint32_t *m = calloc((size_t)p, sizeof *m);
    json_t *arr = json_array();
    if (!m || !arr) {
        free(m);
        json_decref(arr);
        return NULL;
    }
    int got = ns_fpstate_per_thread(p, m);
    for (int t = 0; t < got; t++) {
        json_t *o = json_object();
        char hex[16];
        snprintf(hex, sizeof hex, "0x%04x", m[t]);
        ns_json_set_int(o, "thread", t);
        ns_json_set_str(o, "mxcsr", hex);
        json_object_set_new(o, "ftz", json_boolean(m[t] & NS_MXCSR_FTZ));
        json_object_set_new(o, "daz", json_boolean(m[t] & NS_MXCSR_DAZ));
        json_array_append_new(arr, o);
    }
    free(m);
    return arr;
}
