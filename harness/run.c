/* `nodescale run`: the main job. Measures the compute ceilings (FMA-peak kernels per precision and
 * instruction mix, one thread and all threads), the bandwidth-versus-working-set sweep (from a
 * few KiB to 4x the aggregate last-level cache, capped by available memory), every kernel of the
 * registry at representative sizes (STREAM, reductions, GEMM and its BLIS/OpenBLAS peers), then
 * hands the document to the roofline builder, the cluster model and the report writers, and
 * writes a report folder (its files: ns_run_outputs). Progress goes to stderr (and run.log); the
 * folder's path is the one line on stdout. Ctrl-C stops at the next sample and still writes a valid
 * results.json of what finished. */
#include "harness/run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/clockprobe.h"
#include "harness/counters.h"
#include "harness/commands.h"
#include "cluster/cluster.h"
#include "harness/allreduce.h"
#include "harness/context.h"
#include "harness/gemm_context.h"
#include "harness/json.h"
#include "harness/outdir.h"
#include "harness/result.h"
#include "harness/timer.h"
#include "kernels/peak/peak.h"
#include "reports/gbench.h"
#include "reports/report.h"
#include "roofline/roofline.h"


typedef struct run_state {
    const ns_run_opts *o;
    double t0;
    int done, total;
    double done_w, total_w; /* work done and planned, in step_weight units (for the ETA) */
    ns_measure_opts mo;    /* kernels */
    ns_measure_opts sweep; /* sweep points: fewer samples, they are not gated on */
    double ghz;            /* clock probe before the run (context.clock_probe) */
    /* Sweep steps (and their weight) plan() counted per thread count and kernel: the memory
     * cap is read again when the sweep runs, and may be lower then. */
    int sweep_planned[2][NS_SWEEP_KERNEL_COUNT];
    double sweep_planned_w[2][NS_SWEEP_KERNEL_COUNT];
} run_state;

static void logf_(const run_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(const run_state *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->o->log ? s->o->log : stderr, fmt, ap);
    va_end(ap);
}

/* Relative cost of a step for the time-left estimate: a fixed part (warm-up, sizing, samples)
 * plus first touch and streaming, which grow with the working set (~1 unit per 32 MB). */
static double step_weight(double ws_bytes) {
    return 1.0 + (ws_bytes > 0 ? ws_bytes / 32e6 : 0);
}

/* The thread all-reduce's weight: about that of a step over 64 MB (--quick) or 512 MB, for its
 * sweep of message sizes on every schedule. */
static double allreduce_weight(int quick) {
    return step_weight(quick ? 64e6 : 512e6);
}

static void progress(run_state *s, const char *what, double weight) {
    s->done++;
    s->done_w += weight;
    double el = ns_now() - s->t0;
    double left = s->done_w > 0 ? el / s->done_w * fmax(0, s->total_w - s->done_w) : 0;
    logf_(s, "[%3d/%3d %4.0f s, ~%3.0f s left] %s\n", s->done, s->total, el, left, what);
}

/* ---- the plan ----------------------------------------------------------------------------- */

/* The next peak kernel run measures, from registry index *at on: the first entry of family "peak"
 * of a name not registered before it, as ns_registry_find picks its ISA on this CPU (a name this
 * CPU runs in no ISA is passed over); NULL after the last. Every name of peak.c's table, once. */
static const ns_kernel *next_peak(size_t *at) {
    size_t nk;
    const ns_kernel *const *all = ns_registry(&nk);
    while (*at < nk) {
        const ns_kernel *e = all[(*at)++];
        if (strcmp(e->family, "peak") != 0) continue;
        size_t j = 0;
        while (strcmp(all[j]->name, e->name) != 0) j++;
        const ns_kernel *k = all[j] == e ? ns_registry_find(e->name, NULL) : NULL;
        if (k) return k;
    }
    return NULL;
}
/* The full sweep's kernels are ns_sweep_kernels (roofline.h: the roofline knows them too). */
static const char *const sweep_kernels_quick[] = {"stream_load", "stream_triad"};
#define NQUICK_SWEEP_KERNELS (sizeof sweep_kernels_quick / sizeof sweep_kernels_quick[0])

/* The smallest cap the memory put on a working set of this run, and the limit that decided it
 * (context.memory.sweep_capped_at_bytes / sweep_capped_by); 0 / NULL when none did. */
static double mem_cap_bytes;
static const char *mem_cap_source;

/* Largest working set of the sweep: 4x the aggregate LLC of all threads, at least 64 MiB, at
 * most NS_SWEEP_MEM_SHARE (half) of the memory this process may allocate now (MemAvailable, ulimit -v, cgroup limit).
 * A STREAM kernel allocates exactly its working set (only the arrays its operation uses), so
 * the cap bounds every byte a sweep point or DRAM kernel allocates (run_memory_limit.sh). */
static double sweep_max_bytes(int threads) {
    int llc = ns_llc_level();
    double ws = llc ? 4.0 * (double)ns_cache_aggregate(llc, threads) : 0;
    if (ws < 64.0 * (1 << 20)) ws = 64.0 * (1 << 20);
    const char *src;
    double avail = (double)ns_memory_available(&src);
    if (avail > 0 && ws > NS_SWEEP_MEM_SHARE * avail) {
        ws = NS_SWEEP_MEM_SHARE * avail;
        if (!mem_cap_source || ws < mem_cap_bytes) mem_cap_bytes = ws, mem_cap_source = src;
    }
    return ws;
}

int ns_sweep_points(double step, double max_ws, double *ws, int cap) {
    int n = 0;
    /* A step within 5% of max_ws gives way to max_ws itself: no two points all but the same. */
    for (double w = 4096; w < max_ws / 1.05 && n < cap - 1; w *= step) ws[n++] = w;
    ws[n++] = max_ws;
    return n;
}

/* The sweep's working sets: a factor of 1.25 apart (about three per doubling, so each cache
 * level has points clear of its edges) in a full run, 2 in --quick; at most NS_SWEEP_MAX_POINTS. */
#define SWEEP_STEP(quick) ((quick) ? 2.0 : 1.25)

/* The working sets of the sweep on `threads` threads into ws (NS_SWEEP_MAX_POINTS at most). */
static int sweep_working_sets(int quick, int threads, double *ws) {
    return ns_sweep_points(SWEEP_STEP(quick), sweep_max_bytes(threads), ws, NS_SWEEP_MAX_POINTS);
}

int ns_sweep_sizes(const double *ws, int nws, double per_el, int threads, int64_t *n) {
    int64_t chunk = 64 * (int64_t)threads; /* a multiple of 64 per thread: vector-aligned */
    int count = 0;
    for (int w = 0; w < nws; w++) {
        int64_t e = (int64_t)(ws[w] / per_el) / chunk * chunk;
        if (e < chunk) e = chunk;
        if (count > 0 && e <= n[count - 1]) continue; /* rounds to a size already measured */
        n[count++] = e;
    }
    return count;
}

static int thread_counts(int T, int *out) {
    out[0] = 1;
    if (T > 1) out[1] = T;
    return T > 1 ? 2 : 1;
}

/* ---- measuring ------------------------------------------------------------------------------ */

static int interrupted(void) {
    return ns_interrupted;
}

/* The rate a progress line shows for a step, into buf: the rate when it was measured; for a step
 * cut short (Ctrl-C, or a failed status) whose rate is null, work (FLOP or bytes per repetition,
 * 0: none) over the fastest sample it did time, unless its output check failed; else
 * "interrupted" after Ctrl-C, or "no rate".
 * With tag, a status other than "ok" follows in brackets. Never "nan". */
static void step_rate(char *buf, size_t len, double rate, double work, const json_t *r,
                      const char *fmt, const char *unit, int tag) {
    const char *st = json_string_value(json_object_get(r, "status"));
    double tmin = ns_json_get_num(json_object_get(r, "time_s"), "min");
    if (!isfinite(rate) && work > 0 && isfinite(tmin) && tmin > 0 &&
        !json_is_false(json_object_get(r, "validated"))) /* not from a call that failed */
        rate = work / tmin / 1e9;
    int n;
    if (isfinite(rate)) {
        n = snprintf(buf, len, fmt, rate);
        if (n >= 0 && (size_t)n < len) n += snprintf(buf + n, len - (size_t)n, " %s", unit);
    } else {
        int cut = interrupted() || (st && strstr(st, "interrupted"));
        n = snprintf(buf, len, "%*s", (int)strlen(unit) + 9, cut ? "interrupted" : "no rate");
    }
    if (tag && st && strcmp(st, "ok") && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "  [%s]", st);
}

static void measure_ceilings(run_state *s, json_t *root) {
    json_t *compute = json_object_get(json_object_get(root, "ceilings"), "compute");
    json_t *results = json_object_get(root, "results");
    int tc[2], ntc = thread_counts(s->o->threads, tc);
    const ns_kernel *k;
    for (size_t at = 0; (k = next_peak(&at)) && !interrupted();)
        for (int t = 0; t < ntc && !interrupted(); t++) {
            ns_params p = {.n = NS_PEAK_DEFAULT_ITERS, .threads = tc[t]};
            json_t *r = ns_measure_kernel(k, &p, &s->mo, 1, 1, NULL);
            json_t *c = json_object();
            ns_json_set_str(c, "name", k->name);
            ns_json_set_str(c, "precision", ns_prec_name(k->precision));
            ns_json_set_str(c, "isa", k->isa);
            ns_json_set_str(c, "mix", k->mix);
            ns_json_set_int(c, "threads", tc[t]);
            /* A ceiling is the best the machine did: the fastest sample, as STREAM and
             * likwid-bench report (a shared machine's noise only ever slows a sample). */
            const char *st = json_string_value(json_object_get(r, "status"));
            double tmin = ns_json_get_num(json_object_get(r, "time_s"), "min");
            int ok = !strcmp(st, "ok") && tmin > 0;
            ns_json_set_num(c, "gflops", ok ? k->flops(&p) / tmin / 1e9 : NAN, st);
            ns_json_set_num(c, "gflops_median", ok ? ns_json_get_num(r, "gflops") : NAN, NULL);
            ns_json_set_str(c, "rate_from", "fastest sample");
            /* The clock around this ceiling's own samples (the result's per_cycle.clock_ghz,
             * with its clock_status), which the roofline compares with later probes. */
            ns_json_set_num(c, "freq_ghz",
                            ns_json_get_num(json_object_get(r, "per_cycle"), "clock_ghz"), NULL);
            json_object_set(c, "result_id", json_object_get(r, "id"));
            json_array_append_new(compute, c);
            json_array_append_new(results, r);
            char what[200], rate[120];
            step_rate(rate, sizeof rate, ns_json_get_num(c, "gflops"), k->flops(&p), r, "%8.1f",
                      "GFLOP/s", 1);
            snprintf(what, sizeof what, "ceiling %-18s %-6s t%d  %s", k->name, k->isa, tc[t], rate);
            progress(s, what, step_weight(0));
        }
}

static void measure_sweep(run_state *s, json_t *root) {
    json_t *sweep = json_object_get(root, "sweep");
    const char *const *names = s->o->quick ? sweep_kernels_quick : ns_sweep_kernels;
    size_t nnames = s->o->quick ? NQUICK_SWEEP_KERNELS : NS_SWEEP_KERNEL_COUNT;
    int tc[2], ntc = thread_counts(s->o->threads, tc);
    double ws[NS_SWEEP_MAX_POINTS];
    int64_t sizes[NS_SWEEP_MAX_POINTS];
    for (int t = 0; t < ntc && !interrupted(); t++) {
        int nws = sweep_working_sets(s->o->quick, tc[t], ws);
        for (size_t j = 0; j < nnames && !interrupted(); j++) {
            const ns_kernel *k = ns_registry_find(names[j], NULL);
            if (!k) continue;
            ns_params unit = {.n = 1, .threads = tc[t]};
            int nsz = ns_sweep_sizes(ws, nws, k->working_set(&unit), tc[t], sizes);
            s->total += nsz - s->sweep_planned[t][j]; /* the progress count stays exact */
            s->total_w -= s->sweep_planned_w[t][j];
            for (int w = 0; w < nsz; w++)
                s->total_w += step_weight(k->working_set(&unit) * (double)sizes[w]);
            for (int w = 0; w < nsz && !interrupted(); w++) {
                ns_params p = {.n = sizes[w], .threads = tc[t]};
                ns_measurement m;
                json_t *r = ns_measure_kernel(k, &p, &s->sweep, 0, 0, &m);
                json_t *pt = ns_sweep_point_json(k, &p, &m, r);
                json_array_append_new(sweep, pt);
                char what[200], rate[120];
                step_rate(rate, sizeof rate, ns_json_get_num(pt, "gbytes_per_s"), k->bytes(&p), r,
                          "%8.1f", "GB/s", 1);
                json_decref(r);
                char wsz[32]; /* the working set as report.md prints it: 7.5 KiB, 1.17 GiB */
                ns_format_bytes(wsz, sizeof wsz, k->working_set(&p));
                snprintf(what, sizeof what, "sweep %-16s t%d  %10s  %s", k->name, tc[t], wsz, rate);
                progress(s, what, step_weight(k->working_set(&p)));
            }
        }
    }
}

static int in_list(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i])) return 1;
    return 0;
}

/* 1 if name is one of the comma-separated names in list (whole names, not substrings). */
static int in_csv(const char *list, const char *name) {
    size_t len = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, name, len)) return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* Whether a run measures a kernel of a family at a working set (DRAM or L2). A kernel with
 * non-temporal stores (ns_roofline_nt_stores) only in DRAM: its stores go to memory whatever
 * the working set, so no cache ceiling judges it. Kernels named in --kernels are measured, in
 * L2 and DRAM, --quick or not. Without --kernels, --quick measures the reductions sum and dot
 * in both precisions; in DRAM (where every repetition streams a GiB) STREAM triad and triad_nt
 * alone, the sweep having measured the read and triad curves already. */
static int in_plan(const ns_run_opts *o, const char *family, const char *name, int dram) {
    static const char *const reduce[] = {"dsum", "ddot", "ssum", "sdot"};
    static const char *const stream_dram[] = {"stream_triad", "stream_triad_nt"};
    if (!dram && ns_roofline_nt_stores(name)) return 0;
    if (o->kernels) return in_csv(o->kernels, name);
    if (!o->quick) return 1;
    if (!strcmp(family, "reduce")) return in_list(name, reduce, 4);
    return !dram || in_list(name, stream_dram, 2);
}

/* Elements for which k's working set on `threads` threads is about ws_bytes: a multiple of 1024
 * elements, at least 1024 (2^20 when the kernel states no working set). */
static int64_t elements_for(const ns_kernel *k, int threads, double ws_bytes) {
    ns_params unit = {.n = 1, .threads = threads};
    double per_el = k->working_set(&unit);
    int64_t n = per_el > 0 ? (int64_t)(ws_bytes / per_el) / 1024 * 1024 : 1 << 20;
    return n > 1024 ? n : 1024;
}

/* The working set measured "in L2": half the L2 that `threads` threads reach together, so the
 * arrays stay in L2 beside the other data of the cores; 256 KiB when the L2 is unknown. */
static double l2_working_set(int threads) {
    double l2 = (double)ns_cache_aggregate(2, threads);
    return l2 > 0 ? l2 / 2 : 256 * 1024;
}

int64_t ns_l2_elements(const ns_kernel *k, int threads) {
    return elements_for(k, threads, l2_working_set(threads));
}

/* Kernels of a family at a working-set size, on all threads. */
static void measure_family(run_state *s, json_t *root, const char *family, double ws_bytes,
                           int dram) {
    size_t nk;
    const ns_kernel *const *all = ns_registry(&nk);
    json_t *results = json_object_get(root, "results");
    for (size_t i = 0; i < nk && !interrupted(); i++) {
        if (strcmp(all[i]->family, family) != 0) continue;
        if (ns_registry_find(all[i]->name, NULL) != all[i]) continue; /* the selected ISA only */
        if (!in_plan(s->o, family, all[i]->name, dram)) continue;
        const ns_kernel *k = all[i];
        ns_params p = {.n = elements_for(k, s->o->threads, ws_bytes), .threads = s->o->threads};
        json_t *r = ns_measure_kernel(k, &p, &s->mo, 1, 1, NULL);
        char what[300], rate[120], wsz[32];
        step_rate(rate, sizeof rate, ns_json_get_num(r, "gbytes_per_s"), 0, r, "%8.2f", "GB/s", 0);
        ns_format_bytes(wsz, sizeof wsz, k->working_set(&p)); /* as the sweep lines print it */
        snprintf(what, sizeof what, "%-20s %-6s t%d %10s  %s  [%s]", k->name, k->isa, p.threads,
                 wsz, rate, json_string_value(json_object_get(r, "status")));
        json_array_append_new(results, r);
        progress(s, what, step_weight(k->working_set(&p)));
    }
}

static const int64_t gemm_sizes_full[] = {256, 512, 1024, 2048};
static const int64_t gemm_sizes_quick[] = {256, 512};

/* The GEMM sizes m = n = k a run measures into *sizes; returns how many. */
static size_t gemm_sizes(int quick, const int64_t **sizes) {
    *sizes = quick ? gemm_sizes_quick : gemm_sizes_full;
    return quick ? sizeof gemm_sizes_quick / sizeof gemm_sizes_quick[0]
                 : sizeof gemm_sizes_full / sizeof gemm_sizes_full[0];
}

/* The GEMMs a run measures: ours on the selected ISA and every peer this machine has. */
static int gemm_in_run(const ns_kernel *k) {
    if (strcmp(k->family, "gemm") != 0) return 0;
    if (ns_isa_is_peer(k->isa)) return !k->supported || k->supported();
    return ns_registry_find(k->name, NULL) == k;
}

/* Step weight of an n^3 GEMM: ~11 repetitions at tens of GFLOP/s. */
static double gemm_weight(int64_t n) {
    return 1 + (double)n * (double)n * (double)n / 2.7e8;
}

/* Own GEMM and every peer, size by size, so they run under the same conditions. */
static void measure_gemm(run_state *s, json_t *root) {
    size_t nk;
    const ns_kernel *const *all = ns_registry(&nk);
    json_t *results = json_object_get(root, "results");
    const int64_t *sizes;
    size_t nsizes = gemm_sizes(s->o->quick, &sizes);
    for (size_t z = 0; z < nsizes && !interrupted(); z++)
        for (size_t i = 0; i < nk && !interrupted(); i++) {
            const ns_kernel *k = all[i];
            if (!gemm_in_run(k)) continue;
            ns_params p = {.m = sizes[z], .n = sizes[z], .k = sizes[z], .threads = s->o->threads};
            json_t *r = ns_measure_kernel(k, &p, &s->mo, 1, 1, NULL);
            char what[300], rate[120];
            step_rate(rate, sizeof rate, ns_json_get_num(r, "gflops"), 0, r, "%8.1f", "GFLOP/s", 0);
            snprintf(what, sizeof what, "%-6s %-8s t%d %5lld^3  %s  [%s]", k->name, k->isa,
                     p.threads, (long long)sizes[z], rate,
                     json_string_value(json_object_get(r, "status")));
            json_array_append_new(results, r);
            progress(s, what, gemm_weight(sizes[z]));
        }
}

/* Kernels measure_family will run for family. */
static int count_family(const ns_run_opts *o, const char *family, int dram) {
    size_t nk;
    int c = 0;
    const ns_kernel *const *all = ns_registry(&nk);
    for (size_t i = 0; i < nk; i++)
        if (!strcmp(all[i]->family, family) && ns_registry_find(all[i]->name, NULL) == all[i] &&
            in_plan(o, family, all[i]->name, dram))
            c++;
    return c;
}

/* Counts the steps of the run and weighs them (step_weight) for the progress line. */
static void plan(run_state *s) {
    const ns_run_opts *o = s->o;
    int tc[2], ntc = thread_counts(o->threads, tc);
    int npeak = 0;
    for (size_t at = 0; next_peak(&at);) npeak += ntc;
    s->total = npeak;
    s->total_w = npeak * step_weight(0);

    double ws[NS_SWEEP_MAX_POINTS];
    int64_t sizes[NS_SWEEP_MAX_POINTS];
    const char *const *names = o->quick ? sweep_kernels_quick : ns_sweep_kernels;
    int nsweep_kernels = (int)(o->quick ? NQUICK_SWEEP_KERNELS : NS_SWEEP_KERNEL_COUNT);
    for (int t = 0; t < ntc; t++) {
        int npts = sweep_working_sets(o->quick, tc[t], ws);
        for (int j = 0; j < nsweep_kernels; j++) { /* the sizes measure_sweep measures */
            const ns_kernel *k = ns_registry_find(names[j], NULL);
            if (!k) continue;
            ns_params unit = {.n = 1, .threads = tc[t]};
            double per_el = k->working_set(&unit);
            int nsz = ns_sweep_sizes(ws, npts, per_el, tc[t], sizes);
            s->sweep_planned[t][j] = nsz;
            s->sweep_planned_w[t][j] = 0;
            for (int w = 0; w < nsz; w++)
                s->sweep_planned_w[t][j] += step_weight((double)sizes[w] * per_el);
            s->total += nsz;
            s->total_w += s->sweep_planned_w[t][j];
        }
    }

    int nl2 = count_family(o, "stream", 0) + count_family(o, "reduce", 0);
    int ndram = count_family(o, "stream", 1) + count_family(o, "reduce", 1);
    double l2w = l2_working_set(o->threads);
    s->total += nl2 + ndram;
    s->total_w += nl2 * step_weight(l2w) + ndram * step_weight(sweep_max_bytes(o->threads));

    size_t nk;
    int ngemm = 0;
    const ns_kernel *const *all = ns_registry(&nk);
    for (size_t i = 0; i < nk; i++) ngemm += gemm_in_run(all[i]);
    const int64_t *gsizes;
    size_t ngsizes = gemm_sizes(o->quick, &gsizes);
    for (size_t z = 0; z < ngsizes; z++) {
        s->total += ngemm;
        s->total_w += ngemm * gemm_weight(gsizes[z]);
    }

    s->total += 1; /* the thread all-reduce */
    s->total_w += allreduce_weight(o->quick);
}

json_t *ns_run_node(const ns_run_opts *o) {
    ns_run_opts dflt;
    if (o->threads < 1) { /* never a result with threads 0: the default count instead */
        int64_t t;
        char terr[256];
        dflt = *o;
        ns_default_threads(&t, terr, sizeof terr); /* t = the mask's CPUs when it fails */
        dflt.threads = (int)t;
        o = &dflt;
    }
    run_state s = {.o = o, .t0 = ns_now()};
    s.mo = ns_measure_defaults(o->quick);
    s.sweep = s.mo;
    s.sweep.min_samples = NS_SWEEP_SAMPLES;
    s.sweep.max_samples = NS_SWEEP_SAMPLES;
    s.sweep.min_sample_s = NS_SWEEP_SAMPLE_S;
    s.sweep.budget_s = NS_SWEEP_BUDGET_S;
    s.sweep.warmup_reps = 0; /* the repetition-sizing samples warm up */

    json_t *root = json_object();
    ns_json_set_str(root, "schema", NS_SCHEMA);
    json_t *ctx = ns_context_json(o->threads);
    json_object_set_new(root, "context", ctx);
    char err[512];
    if (ns_counters_init(o->events, err, sizeof err) < 0) logf_(&s, "%s\n", err);
    json_object_set_new(ctx, "counters", ns_counters_context_json());
    logf_(&s, "%s\n", ns_counters_summary());
    s.ghz = ns_clockprobe_ghz();
    json_t *ceil = json_object();
    json_object_set_new(ceil, "compute", json_array());
    json_object_set_new(ceil, "bandwidth", json_array());
    json_object_set_new(root, "ceilings", ceil);
    json_object_set_new(root, "sweep", json_array());
    json_object_set_new(root, "results", json_array());

    plan(&s);
    logf_(&s, "nodescale run%s: %d threads, CPU %s, ISA %s\n", o->quick ? " --quick" : "",
          o->threads, ns_cpu_model(), ns_isa_selected());
    measure_ceilings(&s, root);
    measure_sweep(&s, root);
    /* STREAM and reductions with the working set in L2 (l2_working_set) and in DRAM. */
    double dram = sweep_max_bytes(o->threads);
    for (int pass = 0; pass < 2 && !interrupted(); pass++) {
        double w = pass == 0 ? l2_working_set(o->threads) : dram;
        measure_family(&s, root, "stream", w, pass == 1);
        measure_family(&s, root, "reduce", w, pass == 1);
    }
    measure_gemm(&s, root);
    if (!interrupted()) {
        json_t *ar = ns_allreduce_measure(o->threads, o->quick, o->log ? o->log : stderr);
        if (ar) json_object_set_new(root, "allreduce", ar);
        progress(&s, "thread all-reduce (ring, tree), alpha-beta fit", allreduce_weight(o->quick));
    }
    json_object_set_new(ctx, "fp_state", ns_fpstate_json(o->threads));
    if (mem_cap_source) { /* for the roofline's "no DRAM ceiling" reason */
        json_t *mem = json_object_get(ctx, "memory");
        ns_json_set_num(mem, "sweep_capped_at_bytes", round(mem_cap_bytes), NULL);
        ns_json_set_str(mem, "sweep_capped_by", mem_cap_source);
    }
    json_object_set_new(ctx, "gemm", ns_gemm_context_json(NULL));

    if (interrupted()) {
        json_object_set_new(root, "interrupted", json_true());
        logf_(&s, "interrupted: keeping the %d steps that finished\n", s.done);
    }
    double after = ns_clockprobe_ghz();
    json_object_set_new(ctx, "clock_probe", ns_clockprobe_json(s.ghz, after, NS_CLOCKPROBE_THRESHOLD));
    ns_json_set_num(json_object_get(ctx, "cpu"), "freq_measured_hz", s.ghz * 1e9, NULL);
    char why[160];
    if (ns_clockprobe_changed(s.ghz, after, NS_CLOCKPROBE_THRESHOLD, why, sizeof why) == 1)
        logf_(&s, "warning: %s: this run was disturbed\n", why);
    size_t i, misplaced = 0;
    json_t *r, *first = NULL;
    json_array_foreach(json_object_get(root, "results"), i, r) {
        if (json_object_get(r, "placement_warning")) misplaced++, first = first ? first : r;
    }
    if (first)
        logf_(&s,
              "warning: thread placement: %s (%s) and %zu more results (OMP_PROC_BIND=%s, "
              "OMP_PLACES=%s)\n",
              json_string_value(json_object_get(first, "placement_warning")),
              json_string_value(json_object_get(first, "id")), misplaced - 1,
              getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "unset",
              getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "unset");
    json_object_set_new(root, "wall_time_s", json_real(ns_now() - s.t0));
    return root;
}

/* ---- the command ---------------------------------------------------------------------------- */

/* run.log of the current run; everything the run prints goes to stderr and here. */
static FILE *log_file;

const ns_run_output ns_run_outputs[] = {
    {{"results.json"}, "", "all numbers, schema nodescale/1"},
    {{"report.md"}, "", "the report"},
    {{"report.html"}, "", "the report with its pictures"},
    {{"results.csv"}, "", "one row per result"},
    {{"sweep.csv"}, "", "one row per sweep point"},
    {{"run.log"}, "", "the command, its environment and everything printed"},
    {{"roofline.svg"}, "", "the DP roofline"},
    {{"roofline_dp", "roofline_sp"}, ".svg, .png", "the roofline of each precision"},
    {{"roofline_cache_aware_dp", "roofline_cache_aware_sp"},
     ".svg, .png",
     "the cache-aware rooflines"},
    {{"bandwidth_vs_working_set"}, ".svg, .png", "the sweep, per thread count"},
    {{"cluster_breakdown", "cluster_scaling"}, ".dat, .gp, .svg, .png", "the cluster model"},
    {{"gbench.json"}, "", "with --format gbench: the results as Google Benchmark JSON"},
    {{NULL}, NULL, NULL},
};

static void usage(FILE *f) {
    fprintf(f, "usage: nodescale run [--quick] [--out DIR] [--threads N] [--kernels a,b,...]\n"
               "                     [--events LIST] [--format json|gbench]\n"
               "                     [--cluster-preset NAME]\n"
               "  --quick        the short run (about 40 s on a quiet 2-core VM, 100 s on a\n"
               "                 shared one): coarser sweep, fewer sizes\n"
               "  --out DIR      report folder (default results/<host>-<UTC time>/, -2, -3, ...\n"
               "                 when taken); refused when it holds another run's or fleet's\n"
               "                 files, or another run is writing it\n"
               "  --threads N    threads for the all-thread measurements (default:\n"
               "                 OMP_NUM_THREADS, else the CPUs in the affinity mask; at most those)\n"
               "  --kernels LIST only these STREAM/reduction kernels, each in L2 and DRAM,\n"
               "                 --quick or not (comma-separated names; the ceilings, the\n"
               "                 sweep and GEMM always run)\n"
               "  --events LIST  PAPI events to count per kernel (presets or native names;\n"
               "                 default NODESCALE_EVENTS, else " NS_COUNTERS_DEFAULT_EVENTS ")\n"
               "  --cluster-preset NAME  chip the measured node is scaled to in results.json's\n"
               "                 cluster section (default h100-sxm; nodescale cluster --help)\n"
               "  --format gbench  also write gbench.json (Google Benchmark JSON: compare.py,\n"
               "                 github-action-benchmark, Bencher read it)\n"
               "Prints the folder. Writes into it (the pictures need gnuplot):\n");
    for (const ns_run_output *o = ns_run_outputs; o->names[0]; o++) {
        int col = fprintf(f, " ");
        for (int i = 0; o->names[i]; i++)
            col += fprintf(f, " %s%s", o->names[i], o->names[i + 1] ? "," : "");
        col += fprintf(f, "%s%s%s:", *o->exts ? " (" : "", o->exts, *o->exts ? ")" : "");
        /* what goes on a line of its own when the line would pass 80 columns */
        fprintf(f, "%s%s\n", col + 1 + (int)strlen(o->what) > 80 ? "\n      " : " ", o->what);
    }
}

static FILE *tee_stream(void);

/* One word of the command line, after a space; in single quotes when the shell would split or
 * expand it, so the line can be pasted back. */
static void print_arg(FILE *f, const char *a) {
    if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        "_-+./,:=@%^") == strlen(a)) {
        fprintf(f, " %s", a);
        return;
    }
    fputs(" '", f);
    for (; *a; a++)
        *a == '\'' ? fputs("'\\''", f) : fputc(*a, f);
    fputc('\'', f);
}

/* For an "env:" line of run.log: a note when nodescale set the variable itself before
 * re-executing (ns_affinity_defaults), so it is not read as the user's environment; "" else. */
static const char *set_by_nodescale(const char *var) {
    const char *how = getenv("NODESCALE_AFFINITY_SET");
    int defaults = how && !strcmp(how, "defaults");
    if (!strncmp(var, "NODESCALE_START_CPUS=", 21))
        return "  (set by nodescale: the CPUs it started on)";
    if (!strncmp(var, "NODESCALE_AFFINITY_SET=", 23))
        return "  (set by nodescale: how it set the thread placement)";
    if (defaults && (!strncmp(var, "OMP_PROC_BIND=", 14) || !strncmp(var, "OMP_PLACES=", 11)))
        return "  (set by nodescale: the user set neither OMP_PROC_BIND nor OMP_PLACES)";
    return "";
}

int ns_run_check_kernels(const char *kernels, char *err, size_t errlen) {
    /* Field by field, not strtok_r: that skips empty fields, so ",," passed as "all kernels"
     * (run_kernels.sh). */
    for (const char *t = kernels;; t++) {
        size_t len = strcspn(t, ",");
        char name[128];
        if (len == 0) {
            snprintf(err, errlen, "--kernels: empty kernel name in '%.100s'", kernels);
            return -1;
        }
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), t);
        const ns_kernel *k = len < sizeof name ? ns_registry_find(name, NULL) : NULL;
        if (!k) {
            snprintf(err, errlen, "--kernels: unknown kernel '%.100s'", name);
            return -1;
        }
        if (strcmp(k->family, "stream") && strcmp(k->family, "reduce")) {
            snprintf(err, errlen,
                     "--kernels: '%.100s' is a %s kernel; --kernels selects STREAM and "
                     "reduction kernels (ceilings, sweep and GEMM always run; "
                     "`nodescale bench %.100s` measures one)",
                     name, k->family, name);
            return -1;
        }
        for (const char *p = kernels; p < t; p += strcspn(p, ",") + 1)
            if (strcspn(p, ",") == len && !strncmp(p, t, len)) {
                snprintf(err, errlen, "--kernels: '%.100s' is named twice: name each kernel once",
                         name);
                return -1;
            }
        t += len;
        if (!*t) return 0;
    }
}

static const char cmd[] = "run";

/* What a step of ns_cmd_run returns to let the command go on; anything else is its exit code. */
#define RUN_GO_ON (-1)

/* The command line of run. */
typedef struct run_args {
    const char *out, *kernels, *format, *events, *cluster_preset; /* NULL: not given */
    int quick;
    int64_t threads;
} run_args;

/* Parses the options into *a and checks them before anything is written: the thread count
 * (the default, and no more than the CPUs the process started with), the --kernels list and
 * the counter events. RUN_GO_ON, or the exit code: 0 after --help, else the usage error's. */
static int run_parse_args(int argc, char **argv, run_args *a) {
    const char *v;
    char terr[256];
    *a = (run_args){.format = "json"};
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return NS_EXIT_OK;
        }
    if (ns_refuse_repeated(cmd, argc, argv, NULL, 0)) return NS_EXIT_USAGE;
    if (ns_default_threads(&a->threads, terr, sizeof terr) != 0)
        return ns_usage_error(cmd, "%s", terr);
    for (int i = 1; i < argc; i++) {
        int r;
        if (0) {
        } else if (!strcmp(argv[i], "--quick")) {
            a->quick = 1;
        } else if ((r = ns_opt_value(argc, argv, &i, "--out", &v)) != 0) {
            if (r < 0 || !*v) return ns_usage_error(cmd, "--out needs a folder");
            char perr[1024];
            if (ns_path_check_name("--out", v, perr, sizeof perr))
                return ns_usage_error(cmd, "%s", perr);
            a->out = v;
        } else if ((r = ns_opt_value(argc, argv, &i, "--threads", &v)) != 0) {
            if (r < 0 || ns_parse_int64(v, 1, NS_MAX_THREADS, &a->threads) != 0)
                return ns_usage_error(cmd, "--threads: '%s' is not an integer in [1, %d]",
                                      r < 0 ? "" : v, NS_MAX_THREADS);
        } else if ((r = ns_opt_value(argc, argv, &i, "--kernels", &v)) != 0) {
            if (r < 0 || !*v) return ns_usage_error(cmd, "--kernels needs a comma-separated list");
            a->kernels = v;
        } else if ((r = ns_opt_value(argc, argv, &i, "--cluster-preset", &v)) != 0) {
            char perr[512];
            if (r < 0 || !*v) return ns_usage_error(cmd, "--cluster-preset needs a preset name");
            if (ns_cluster_check_chip_preset(v, perr, sizeof perr) != 0)
                return ns_usage_error(cmd, "--cluster-preset: %s", perr);
            a->cluster_preset = v;
        } else if ((r = ns_opt_value(argc, argv, &i, "--events", &v)) != 0) {
            if (r < 0 || !*v) return ns_usage_error(cmd, "--events needs a comma-separated list");
            a->events = v;
        } else if ((r = ns_opt_value(argc, argv, &i, "--format", &v)) != 0) {
            if (r < 0 || (strcmp(v, "json") && strcmp(v, "gbench")))
                return ns_usage_error(cmd, "--format: want json or gbench");
            a->format = v;
        } else {
            return ns_usage_error(cmd, "unknown argument '%s' (see nodescale run --help)", argv[i]);
        }
    }
    int cpus = ns_topology_get()->cpus_in_start_mask; /* as bench: the mask, not the places */
    if (cpus > 0 && a->threads > cpus)
        return ns_usage_error(cmd,
                              "--threads %lld is more than the %d CPUs of this process's "
                              "affinity mask",
                              (long long)a->threads, cpus);
    char kerr[512];
    if (a->kernels && ns_run_check_kernels(a->kernels, kerr, sizeof kerr))
        return ns_usage_error(cmd, "%s", kerr);
    char eerr[512];
    if (ns_counters_init(a->events, eerr, sizeof eerr) < 0) return ns_usage_error(cmd, "%s", eerr);
    ns_counters_finish();
    return RUN_GO_ON;
}

/* The run's folder into dir (dirlen bytes), claimed by creating run.log exclusively and
 * opening it as log_file; *created receives how many folders it made. The folder is this run's
 * alone: a new one (the default name gets a suffix when another run made it in the same
 * second), or an existing one with no other run's or fleet's files (a second run writing it is
 * refused). RUN_GO_ON, or the usage error's exit code (nothing left behind). */
static int run_claim_folder(const char *out, char *dir, size_t dirlen, size_t *created) {
    char path[NS_PATH_MAX], err[512];
    *created = 0;
    if (out) {
        if ((size_t)snprintf(dir, dirlen, "%s", out) >= dirlen) { /* cut, it names another */
            ns_path_error(err, sizeof err, "--out", out, strerror(ENAMETOOLONG));
            return ns_usage_error(cmd, "%s", err);
        }
        *created = ns_outdir_first_missing(dir);
        const char *old = ns_outdir_foreign(dir, NULL);
        if (old)
            return ns_usage_error(cmd,
                                  "--out '%s' already holds %s of another run or fleet; "
                                  "choose a new folder or remove that one",
                                  dir, old);
        if (ns_outdir_mkdir_p(dir) != 0 || access(dir, W_OK) != 0) {
            int e = errno ? errno : EACCES;
            ns_outdir_remove_dirs(dir, *created);
            return ns_usage_error(cmd, "cannot write to folder '%s': %s", dir, strerror(e));
        }
    } else {
        char host[256] = "host", stamp[32];
        gethostname(host, sizeof host - 1);
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
        snprintf(dir, dirlen, "results/%s-%s", host, stamp);
        if (ns_outdir_make_new(dir, dirlen, created) != 0)
            return ns_usage_error(cmd, "cannot create folder '%s': %s", dir, strerror(errno));
    }
    if (ns_path_join(path, sizeof path, dir, "run.log", err, sizeof err) != 0) {
        ns_outdir_remove_dirs(dir, *created);
        return ns_usage_error(cmd, "%s", err);
    }
    int log_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (log_fd < 0 || !(log_file = fdopen(log_fd, "w"))) {
        int e = errno;
        if (log_fd >= 0) { /* this run's run.log only: another run's files stay */
            close(log_fd);
            unlink(path);
        }
        ns_outdir_remove_dirs(dir, *created);
        if (e == EEXIST)
            return ns_usage_error(cmd,
                                  "--out '%s': another run is writing into it (run.log "
                                  "appeared); choose a new folder",
                                  dir);
        return ns_usage_error(cmd, "cannot write %s: %s", path, strerror(e));
    }
    /* Line by line: a crash, a kill or a second Ctrl-C must not lose what was logged. */
    setvbuf(log_file, NULL, _IOLBF, 0);
    return RUN_GO_ON;
}

/* run.log's first lines: the command line (on tee too) and the environment variables that
 * change what is measured (ns_env_recorded), marked when nodescale set them itself. */
static void run_log_header(FILE *tee, int argc, char **argv) {
    fprintf(tee, "command:");
    print_arg(tee, ns_program);
    for (int i = 0; i < argc; i++)
        print_arg(tee, argv[i]);
    fprintf(tee, "\n");
    extern char **environ;
    for (char **e = environ; *e; e++)
        if (ns_env_recorded(*e))
            fprintf(log_file, "env: %s%s\n", *e, set_by_nodescale(*e));
}

/* Completes the measured document: the roofline, a warning on tee for each bandwidth level
 * without a rate, and the cluster section (the node carried up to a cluster of preset chips,
 * its files in dir; its status says why when it cannot be). */
static void run_finish_document(json_t *root, const char *cluster_preset, const char *dir,
                                FILE *tee) {
    char err[512];
    if (ns_roofline_build(root, err, sizeof err) != 0) fprintf(tee, "roofline: %s\n", err);
    size_t ci;
    json_t *ce;
    json_t *bw_ceilings = json_object_get(json_object_get(root, "ceilings"), "bandwidth");
    json_array_foreach(bw_ceilings, ci, ce) {
        if (!json_is_null(json_object_get(ce, "gbytes_per_s"))) continue;
        /* A level without a rate, e.g. no memory for DRAM working sets: say so. */
        fprintf(tee, "warning: %s %s t%lld: %s\n", json_string_value(json_object_get(ce, "level")),
                json_string_value(json_object_get(ce, "kernel")),
                (long long)json_integer_value(json_object_get(ce, "threads")),
                json_string_value(json_object_get(ce, "status")));
    }
    /* The measured node carried up to a cluster of preset chips (cluster/). */
    json_t *cl = ns_cluster_from_results(root, cluster_preset, dir, err, sizeof err);
    if (!cl) {
        cl = json_object();
        ns_json_set_str(cl, "status", err);
        fprintf(tee, "cluster: %s\n", err);
    }
    json_object_set_new(root, "cluster", cl);
}

/* Writes results.json into dir, then the pictures, with --format gbench gbench.json, and the
 * reports: report.md before report.html (which names it) and again after it, so that each
 * names only files that exist; their failures said on tee and counted in *lost. RUN_GO_ON, or
 * NS_EXIT_FAIL when results.json could not be written (said on tee; nothing else written). */
static int run_write_outputs(const json_t *root, const char *format, const char *dir, FILE *tee,
                             int *lost) {
    char err[512], path[NS_PATH_MAX];
    *lost = 0;
    if (ns_path_join(path, sizeof path, dir, "results.json", err, sizeof err) != 0 ||
        ns_json_write_atomic(root, path, err, sizeof err) != 0) {
        fprintf(tee, "nodescale run: error: %s; nothing kept in %s\n", err, dir);
        return NS_EXIT_FAIL;
    }
    /* Also roofline.svg, the headline picture: a copy of the DP roofline (SP: roofline_sp.svg). */
    if (ns_roofline_plot(root, dir, err, sizeof err) < 0) {
        fprintf(tee, "roofline plot: %s\n", err);
        ++*lost;
    }
    if (!strcmp(format, "gbench")) {
        if (ns_path_join(path, sizeof path, dir, "gbench.json", err, sizeof err) != 0 ||
            ns_write_gbench(root, path, err, sizeof err) != 0) {
            fprintf(tee, "gbench: %s\n", err);
            ++*lost;
        }
    }
    /* A failure of the first report.md is said by the second. */
    int md_path = ns_path_join(path, sizeof path, dir, "report.md", err, sizeof err) == 0;
    if (md_path) ns_report_markdown(root, path, err, sizeof err);
    *lost += ns_report_html_csv(root, dir, tee); /* results.csv, sweep.csv, report.html */
    if (!md_path || ns_report_markdown(root, path, err, sizeof err) != 0) {
        fprintf(tee, "report: %s\n", err);
        ++*lost;
    }
    return RUN_GO_ON;
}

/* Ends run.log with the folder's name and closes it and tee. NS_EXIT_OK, or NS_EXIT_FAIL (said
 * on stderr) when run.log could not be written in full. */
static int run_close_log(FILE *tee, const char *dir) {
    fprintf(log_file, "%s\n", dir);
    if (tee != stderr) fclose(tee);
    int log_bad = ferror(log_file);
    if (fclose(log_file) != 0) log_bad = 1;
    log_file = NULL;
    if (!log_bad) return NS_EXIT_OK;
    fprintf(stderr,
            "nodescale run: error: cannot write %s/run.log (disk full?); it is incomplete\n",
            dir);
    return NS_EXIT_FAIL;
}

int ns_cmd_run(int argc, char **argv) {
    run_args a;
    char dir[NS_PATH_MAX];
    size_t created;
    int rc;
    if ((rc = run_parse_args(argc, argv, &a)) != RUN_GO_ON ||
        (rc = run_claim_folder(a.out, dir, sizeof dir, &created)) != RUN_GO_ON)
        return rc;
    FILE *tee = tee_stream();
    run_log_header(tee, argc, argv);
    ns_install_stop_handler();

    ns_run_opts o = {.quick = a.quick, .threads = (int)a.threads, .kernels = a.kernels,
                     .events = a.events, .log = tee};
    json_t *root = ns_run_node(&o);
    run_finish_document(root, a.cluster_preset, dir, tee);
    int lost = 0;
    if ((rc = run_write_outputs(root, a.format, dir, tee, &lost)) != RUN_GO_ON) {
        /* Nothing without results.json: no report naming it, no pictures; what this run wrote
         * (run.log, the cluster files) goes, and so does the folder when it made it. */
        ns_counters_finish();
        json_decref(root);
        if (tee != stderr) fclose(tee);
        fclose(log_file);
        log_file = NULL;
        ns_outdir_remove(dir, created);
        return rc;
    }
    ns_counters_finish();
    int was_interrupted = json_is_true(json_object_get(root, "interrupted"));
    json_decref(root);
    if (lost)
        fprintf(tee,
                "nodescale run: error: %d output%s could not be written (said above); "
                "results.json is complete and the reports name only the files written\n",
                lost, lost == 1 ? "" : "s");
    rc = run_close_log(tee, dir);
    printf("%s\n", dir);
    if (rc == NS_EXIT_OK && was_interrupted) return ns_exit_signal(ns_interrupted);
    /* An output lost (a full disk) fails the run, as roofline's "writing failed" does: it
     * printed the failures and exited 0. */
    if (rc == NS_EXIT_OK && lost) return NS_EXIT_FAIL;
    return rc;
}

/* A FILE that writes to both stderr and run.log (fopencookie). */
static ssize_t tee_write(void *cookie, const char *buf, size_t len) {
    (void)cookie;
    fwrite(buf, 1, len, stderr);
    if (log_file) fwrite(buf, 1, len, log_file);
    return (ssize_t)len;
}

static FILE *tee_stream(void) {
    cookie_io_functions_t io = {.write = tee_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (f) setvbuf(f, NULL, _IOLBF, 0);
    return f ? f : stderr;
}
