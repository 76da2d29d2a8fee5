/* The roofline builder (see roofline.h): plateaus of the bandwidth-versus-working-set sweep,
 * labelled by cache capacity; bandwidth ceilings; compute roofs by instruction mix; ridge
 * points; the attainable bound, fraction of roof and limiting roof of every kernel. It reads
 * and writes JSON only: no measuring happens here, so `nodescale roofline` can redo it from a
 * results file. */
#include "roofline/roofline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster/equations.h"
#include "harness/json.h"
#include "harness/stats.h"
#include "harness/strbuf.h"
#include "kernels/registry.h"

/* A DRAM ceiling is trusted only when measured with a working set of at least this many times
 * the aggregate LLC of the participating threads. */
#define DRAM_LLC_MARGIN 4.0
/* The sweep ends at 4x the LLC, but rounds its element count down to whole vectors per thread:
 * a largest working set within 2% of 4x the LLC counts as reaching it. */
#define DRAM_LLC_SLACK 0.98
/* Without a DRAM plateau: how many of the largest points (at >= DRAM_TAIL_FROM times the LLC)
 * are compared; how much they may fall in a row (1 - last / first), and scatter (max / min - 1),
 * for their median to be a trusted DRAM ceiling. */
#define DRAM_TAIL_POINTS 3
#define DRAM_TAIL_FROM 1.5
#define DRAM_TAIL_FALL 0.15
#define DRAM_TAIL_SCATTER 0.25
/* A plateau labelled a cache level (from its geometric middle) that runs past this factor times
 * the level's aggregate capacity, or into the DRAM tail (DRAM_TAIL_FROM times the LLC), does not
 * define that level: it holds points the level cannot hold (an "L3" plateau over 64-512 MiB
 * beside a 300 MiB L3, at DRAM's rate: test_plateau_past_level). One fine sweep step (1.25x)
 * past is allowed: a cache's edge. */
#define PLATEAU_PAST_CAPACITY 1.25
/* A run of flat points whose level still changes by more than this factor is split in two. */
#define PLATEAU_SPLIT_RATIO 1.25
#define MAX_PLATEAUS 16
/* A point next to a run of flat points joins it when its bandwidth is within this fraction of
 * the median of the run (the ends of a level, whose windows cannot be flat). */
#define PLATEAU_EDGE_TOL 0.10
/* Largest robust scatter (relative sigma) of the points of a plateau. */
#define PLATEAU_MAX_NOISE 0.08
/* An interior ceiling's range ends where the points are no faster than this factor times the
 * next level's rate. */
#define INTERIOR_NEXT_MARGIN 1.1
/* A kernel-phase measurement whose samples spread more than this (CV), or whose fastest sample
 * is more than this factor faster than its median, raises a ceiling only when its median does. */
#define KERNEL_PHASE_MAX_CV 0.10
#define KERNEL_PHASE_MAX_SPREAD 1.20
/* A DRAM kernel-phase measurement more than this factor faster than the sweep's DRAM ceiling, at
 * a working set below the sweep's points, ran in a cache hwloc does not report (or reports too
 * small): it does not raise the ceiling, and makes it suspect. */
#define DRAM_CONTAMINATION 1.5
/* A compute ceiling whose result's CV exceeds this, or whose fastest sample is more than this
 * factor above its median, is suspect. Scaling: a T-thread compute ceiling more than
 * SCALING_SLACK x T times the 1-thread one, or one that the 1-thread one exceeds by more than
 * SCALING_SLACK times, makes both suspect (the ceilings alone cannot tell which is wrong:
 * compute_suspect); a T-thread bandwidth roof more than SCALING_SLACK x T times the 1-thread
 * one marks the 1-thread roof suspect (bandwidth_scaling). */
#define COMPUTE_MAX_CV 0.10
#define COMPUTE_MAX_SPREAD 1.20
#define SCALING_SLACK 1.1
/* Causes of a kernel above its compute roof (above_compute_reason). Boost: the clock probe ran
 * more than CLOCK_BOOST_MIN times the ceiling's recorded clock (a smaller difference is within
 * the probe's and the recorded clock's own scatter). The clock explains the excess alone when its
 * gain is within CLOCK_EXCESS_SLACK of it (the two are measured apart, so they never match
 * exactly). A disturbed ceiling: median below ABOVE_ROOF_MEDIAN_FRAC times its fastest sample,
 * or CV above ABOVE_ROOF_CV. These are laxer than COMPUTE_MAX_SPREAD and COMPUTE_MAX_CV on
 * purpose: a spread too small to make a ceiling suspect still explains a kernel a few percent
 * above it, rather than claiming the kernel beat the ceiling kernel. */
#define CLOCK_BOOST_MIN 1.03
#define CLOCK_EXCESS_SLACK 0.02
#define ABOVE_ROOF_MEDIAN_FRAC 0.95
#define ABOVE_ROOF_CV 0.05
/* An SP compute ceiling more than this factor above the DP one of the same mix and threads:
 * a vector holds twice as many SP elements, so SP can do at most 2x (plus noise). */
#define SP_DP_MAX 2.2
/* Half-width, in doublings of the working set, of the window of the local slope. */
#define SLOPE_WINDOW 0.7
/* "s" after a count of threads other than 1: "1 thread", "2 threads". */
#define PLURAL(n) ((n) == 1 ? "" : "s")

/* ------------------------------------------------------------------------------------------ */
/* Plateau detection                                                                           */

typedef struct {
    double ws, bw, x, y; /* x = log2(ws), y = ln(bw) */
} pt;

static int cmp_pt(const void *a, const void *b) {
    double u = ((const pt *)a)->ws, v = ((const pt *)b)->ws;
    return (u > v) - (u < v);
}

static double med3(double a, double b, double c) {
    double lo = fmin(a, b), hi = fmax(a, b);
    return c < lo ? lo : c > hi ? hi : c;
}

/* Least-squares slope of y[i] against p[i].x over i in [a, b]; NAN when x does not vary. */
static double ls_slope(const pt *p, const double *y, size_t a, size_t b) {
    double mx = 0, my = 0, n = (double)(b - a + 1);
    for (size_t i = a; i <= b; i++) {
        mx += p[i].x;
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0;
    for (size_t i = a; i <= b; i++) {
        sxx += (p[i].x - mx) * (p[i].x - mx);
        sxy += (p[i].x - mx) * (y[i] - my);
    }
    return sxx > 0 ? sxy / sxx : NAN;
}

static double sse(const double *y, size_t a, size_t b) {
    double m = 0, s = 0;
    for (size_t i = a; i <= b; i++)
        m += y[i];
    m /= (double)(b - a + 1);
    for (size_t i = a; i <= b; i++)
        s += (y[i] - m) * (y[i] - m);
    return s;
}

typedef struct {
    const pt *p;
    const double *ys, *raw_y;
    double *scratch;
    ns_plateau *out;
    size_t max_out, found;
} plateau_ctx;

/* Robust noise of the n points p (sorted by working set; scratch holds n doubles): 1.4826 x
 * the median absolute deviation of the raw ln(bw) from their Theil-Sen line (median of pairwise
 * slopes, so one disturbed point moves neither the line nor the estimate): a normal sigma, in
 * relative units. */
static double pts_noise(const pt *p, size_t n, double *scratch) {
    size_t k = 0;
    double *sl = malloc((n * (n - 1) / 2 + 1) * sizeof *sl);
    if (!sl) return INFINITY;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (p[j].x > p[i].x) sl[k++] = (p[j].y - p[i].y) / (p[j].x - p[i].x);
    double slope = k ? ns_median(sl, k) : 0;
    free(sl);
    for (size_t i = 0; i < n; i++)
        scratch[i] = p[i].y - slope * p[i].x;
    double icpt = ns_median(scratch, n);
    for (size_t i = 0; i < n; i++)
        scratch[i] = fabs(scratch[i] - icpt);
    return 1.4826 * ns_median(scratch, n);
}

/* max / min of the bandwidths of the n points p. */
static double pts_spread(const pt *p, size_t n) {
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++)
        lo = fmin(lo, p[i].bw), hi = fmax(hi, p[i].bw);
    return hi / lo;
}

/* 1 when n points (sorted by working set) scatter too much to be one level: a robust noise
 * (pts_noise) above PLATEAU_MAX_NOISE, or, for 3 or 4 points, where that estimate cannot see
 * one disturbed point (the median absolute deviation ignores it), a max / min above
 * PLATEAU_SPLIT_RATIO (25, 46, 24 GB/s is no level). *noise and *spread receive both. */
static int pts_scatter(const pt *p, size_t n, double *scratch, double *noise, double *spread) {
    *noise = pts_noise(p, n, scratch);
    *spread = pts_spread(p, n);
    return *noise > PLATEAU_MAX_NOISE || (n <= 4 && *spread > PLATEAU_SPLIT_RATIO);
}

static void emit(plateau_ctx *c, size_t a, size_t b) {
    /* A run whose points scatter (pts_scatter) is noise, not a level; in a run of 3 or 4 points
     * the running median has also smoothed one disturbed point away. */
    double noise, spread;
    if (pts_scatter(c->p + a, b - a + 1, c->scratch, &noise, &spread)) return;
    if (c->found < c->max_out) {
        size_t n = b - a + 1;
        for (size_t i = 0; i < n; i++)
            c->scratch[i] = c->p[a + i].bw;
        ns_plateau *q = &c->out[c->found];
        q->ws_lo_bytes = c->p[a].ws;
        q->ws_hi_bytes = c->p[b].ws;
        q->gbytes_per_s = ns_median(c->scratch, n);
        q->slope = ls_slope(c->p, c->raw_y, a, b);
        q->npoints = (int)n;
    }
    c->found++;
}

/* Emits run [a, b], first splitting it where a slow drift inside it still amounts to a change
 * of level (binary segmentation at the point of largest SSE reduction). */
static void split_or_emit(plateau_ctx *c, size_t a, size_t b) {
    size_t n = b - a + 1;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = a; i <= b; i++) {
        lo = fmin(lo, c->ys[i]);
        hi = fmax(hi, c->ys[i]);
    }
    if (hi - lo > log(PLATEAU_SPLIT_RATIO) && n >= 2 * NS_PLATEAU_MIN_POINTS) {
        double total = sse(c->ys, a, b), best = 0;
        size_t cut = 0;
        for (size_t k = a + NS_PLATEAU_MIN_POINTS - 1; k + NS_PLATEAU_MIN_POINTS <= b; k++) {
            double gain = total - sse(c->ys, a, k) - sse(c->ys, k + 1, b);
            if (gain > best) {
                best = gain;
                cut = k;
            }
        }
        if (cut) {
            split_or_emit(c, a, cut);
            split_or_emit(c, cut + 1, b);
            return;
        }
    }
    emit(c, a, b);
}

int ns_roofline_find_plateaus(const double *ws, const double *bw, size_t n, ns_plateau *out,
                              size_t max_out) {
    pt *p = malloc((n ? n : 1) * sizeof *p);
    double *ys = malloc((n ? n : 1) * 3 * sizeof *ys);
    int *flat = malloc((n ? n : 1) * sizeof *flat);
    if (!p || !ys || !flat) {
        free(p);
        free(ys);
        free(flat);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(ws[i]) && isfinite(bw[i]) && ws[i] > 0 && bw[i] > 0)
            p[m++] = (pt){ws[i], bw[i], log2(ws[i]), log(bw[i])};
    qsort(p, m, sizeof *p, cmp_pt);
    double *raw_y = ys + n, *scratch = ys + 2 * n;
    for (size_t i = 0; i < m; i++)
        raw_y[i] = p[i].y;
    /* Running median of 3: a single disturbed sample must not cut a plateau in two. */
    for (size_t i = 0; i < m; i++)
        ys[i] = (i == 0 || i + 1 == m) ? p[i].y : med3(p[i - 1].y, p[i].y, p[i + 1].y);
    for (size_t i = 0; i < m; i++) {
        /* The window: neighbours within SLOPE_WINDOW doublings (two at the usual 1.25x steps),
         * at least one on each side, so coarse sweeps (--quick: 2x steps) still work. */
        size_t a = i > 0 ? i - 1 : 0, b = i + 1 < m ? i + 1 : m - 1;
        while (a > 0 && p[i].x - p[a - 1].x <= SLOPE_WINDOW)
            a--;
        while (b + 1 < m && p[b + 1].x - p[i].x <= SLOPE_WINDOW)
            b++;
        double s = b - a + 1 >= 3 ? ls_slope(p, ys, a, b) : NAN;
        flat[i] = isfinite(s) && fabs(s) <= NS_PLATEAU_MAX_SLOPE;
    }
    plateau_ctx c = {p, ys, raw_y, scratch, out, max_out, 0};
    for (size_t i = 0, done = 0; i < m;) {
        if (!flat[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < m && flat[j + 1])
            j++;
        /* The end points of a level are never flat by their window: the first point of the curve
         * has too few neighbours for a slope, and the last point before a cliff and the first
         * one after it have the cliff in their window. A neighbour of the run at the run's level
         * (its own rate within PLATEAU_EDGE_TOL of the median of the run) belongs to it, so a level of 4
         * points at 2x steps, 2 of them flat by their window, is a plateau. Towards smaller
         * working sets only the first point of the curve, or while the run is still short of
         * NS_PLATEAU_MIN_POINTS: the first point after a cliff would move a long run's
         * geometric middle (its level label) down a level. */
        for (size_t k = i; k <= j; k++)
            scratch[k - i] = ys[k];
        double level = ns_median(scratch, j - i + 1);
#define AT_LEVEL(k) (!flat[k] && fabs(raw_y[k] - level) <= log1p(PLATEAU_EDGE_TOL))
        while (j + 1 < m && AT_LEVEL(j + 1))
            j++;
        while (i > done && AT_LEVEL(i - 1) && (i - 1 == 0 || j - i + 1 < NS_PLATEAU_MIN_POINTS))
            i--;
#undef AT_LEVEL
        if (j - i + 1 >= NS_PLATEAU_MIN_POINTS) split_or_emit(&c, i, j);
        i = done = j + 1;
    }
    free(p);
    free(ys);
    free(flat);
    return (int)c.found;
}

/* ------------------------------------------------------------------------------------------ */
/* Caches and levels                                                                           */

static int json_int(const json_t *o, const char *key, int dflt) {
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v)) return (int)json_integer_value(v);
    if (json_is_real(v) && isfinite(json_real_value(v))) return (int)json_real_value(v);
    return dflt;
}

static int parse_level(const json_t *v) {
    if (json_is_integer(v)) return (int)json_integer_value(v);
    const char *s = json_string_value(v);
    if (s && (s[0] == 'L' || s[0] == 'l')) s++;
    return s ? atoi(s) : 0;
}

int ns_roofline_caches(const json_t *caches, ns_cache_set *out) {
    memset(out, 0, sizeof *out);
    size_t i;
    json_t *c;
    json_array_foreach(caches, i, c) {
        const char *type = json_string_value(json_object_get(c, "type"));
        if (type && !strncasecmp(type, "instr", 5)) continue;
        int level = parse_level(json_object_get(c, "level"));
        double size = ns_json_get_num(c, "size_bytes");
        if (level <= 0 || !(size > 0) || !isfinite(size)) continue;
        int shared = json_int(c, "shared_by_cores", 1);
        int count = json_int(c, "count", 0);
        int k;
        for (k = 0; k < out->n; k++)
            if (out->level[k] == level) break;
        if (k == out->n) {
            if (out->n == NS_MAX_CACHE_LEVELS) continue;
            out->n++;
        } else if (out->size_bytes[k] >= size) {
            continue; /* two entries of one level (hybrid CPUs): keep the larger */
        }
        out->level[k] = level;
        out->size_bytes[k] = size;
        out->shared_by_cores[k] = shared > 0 ? shared : 1;
        out->count[k] = count > 0 ? count : 0;
    }
    for (int a = 1; a < out->n; a++) /* insertion sort by level */
        for (int b = a; b > 0 && out->level[b - 1] > out->level[b]; b--) {
            ns_cache_set t = *out;
            out->level[b] = t.level[b - 1], out->level[b - 1] = t.level[b];
            out->size_bytes[b] = t.size_bytes[b - 1], out->size_bytes[b - 1] = t.size_bytes[b];
            out->shared_by_cores[b] = t.shared_by_cores[b - 1];
            out->shared_by_cores[b - 1] = t.shared_by_cores[b];
            out->count[b] = t.count[b - 1], out->count[b - 1] = t.count[b];
        }
    return out->n;
}

double ns_roofline_capacity(const ns_cache_set *cs, int li, int threads) {
    if (li < 0 || li >= cs->n || threads < 1) return NAN;
    long inst = (threads + cs->shared_by_cores[li] - 1) / cs->shared_by_cores[li];
    if (cs->count[li] > 0 && inst > cs->count[li]) inst = cs->count[li];
    return (double)inst * cs->size_bytes[li];
}

static const char *level_name(int level) {
    static const char *names[] = {"L0", "L1", "L2", "L3", "L4", "L5", "L6"};
    return level >= 0 && level <= 6 ? names[level] : "L?";
}

const char *ns_roofline_level_of(const ns_cache_set *cs, double ws, int threads) {
    if (cs->n == 0 || !isfinite(ws) || ws <= 0 || threads < 1) return NULL;
    for (int li = 0; li < cs->n; li++)
        if (ws <= ns_roofline_capacity(cs, li, threads)) return level_name(cs->level[li]);
    return "DRAM";
}

const char *ns_roofline_plateau_level(const ns_cache_set *cs, const ns_plateau *p, int threads) {
    return ns_roofline_level_of(cs, sqrt(p->ws_lo_bytes * p->ws_hi_bytes), threads);
}

double ns_roofline_attainable(double ai, double compute_gflops, double gbytes_per_s,
                              int *bandwidth_bound) {
    if (!(isfinite(ai) && ai > 0 && isfinite(compute_gflops) && compute_gflops > 0 &&
          isfinite(gbytes_per_s) && gbytes_per_s > 0))
        return NAN;
    double mem = ai * gbytes_per_s;
    if (bandwidth_bound) *bandwidth_bound = mem < compute_gflops;
    return fmin(mem, compute_gflops);
}

const json_t *ns_roofline_used_compute(const json_t *root, const json_t *ceiling) {
    static const char *const keys[] = {"name", "isa", "precision", "mix"};
    const json_t *used = json_object_get(json_object_get(root, "roofline"), "ceilings_used");
    double t = ns_json_get_num(ceiling, "threads");
    size_t i;
    json_t *u;
    json_array_foreach(json_object_get(used, "compute"), i, u) {
        int same = ns_json_get_num(u, "threads") == t; /* false when either is not a number */
        for (size_t k = 0; same && k < sizeof keys / sizeof keys[0]; k++) {
            const char *a = json_string_value(json_object_get(u, keys[k]));
            const char *b = json_string_value(json_object_get(ceiling, keys[k]));
            same = a && b ? !strcmp(a, b) : a == b;
        }
        if (same) return u;
    }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The build                                                                                   */

typedef struct {
    const char *kernel, *isa, *precision, *policy;
    int threads;
    size_t n, cap;
    double *ws, *bw;
} curve;

/* Load/store classes (roofline.h). */
static const char *const class_names[NS_NCLS] = {"read-only", "write-allocating", "non-temporal"};

const char *ns_roofline_class_name(int cls) {
    return cls >= 0 && cls < NS_NCLS ? class_names[cls] : NULL;
}

/* Arrays read and written per element by the STREAM kernels. */
static const struct {
    const char *name;
    int loads, stores;
} stream_arrays[] = {{"stream_load", 1, 0},  {"stream_sum", 1, 0},   {"stream_copy", 1, 1},
                     {"stream_scale", 1, 1}, {"stream_add", 2, 1},   {"stream_triad", 2, 1},
                     {"stream_triad_nt", 2, 1}};

int ns_roofline_kernel_class(const char *name, const char *family) {
    if (!name) return NS_CLS_NONE;
    if (ns_roofline_nt_stores(name)) return NS_CLS_NT;
    if (family && !strcmp(family, "reduce")) return NS_CLS_READ;
    for (size_t k = 0; k < sizeof stream_arrays / sizeof stream_arrays[0]; k++)
        if (!strcmp(name, stream_arrays[k].name))
            return stream_arrays[k].stores ? NS_CLS_WA : NS_CLS_READ;
    return NS_CLS_NONE;
}

/* Bytes that really move per byte counted without write-allocate (policy "minimal"): 1 for
 * read-only and non-temporal kernels, (loads + 2 stores) / (loads + stores) for a STREAM kernel
 * whose stores write-allocate (copy 1.5, triad 1.33); NAN when not known (another policy, or a
 * kernel of no known arrays). */
static double real_bytes_factor(const char *name, int cls, const char *policy) {
    if (!policy || strcmp(policy, "minimal")) return NAN;
    if (cls == NS_CLS_READ || cls == NS_CLS_NT) return 1;
    for (size_t k = 0; cls == NS_CLS_WA && k < sizeof stream_arrays / sizeof stream_arrays[0]; k++)
        if (!strcmp(name, stream_arrays[k].name))
            return (double)(stream_arrays[k].loads + 2 * stream_arrays[k].stores) /
                   (stream_arrays[k].loads + stream_arrays[k].stores);
    return NAN;
}

typedef struct { /* one bandwidth roof: the best trusted ceiling of a level at a thread count,
                  * per load/store class */
    const char *level, *kernel;
    int threads, suspect;
    double gbytes_per_s;
    const char *result_id; /* the results[] entry it was taken from (kernel phase), or NULL */
    char reason[1200];     /* why it is suspect ("" when it is not) */
    int used;              /* the limiting roof of some kernel other than its own measurement */
    int cls;               /* its kernel's load/store class (NS_CLS_READ ...; NS_CLS_NONE: none) */
    int npoints;           /* the sweep points it is the median of (1: one measurement) */
    double pt_max;         /* the fastest of those points (GB/s) */
} bw_roof;

/* Bandwidth roofs the builder can hold: one per level (L1..L4, DRAM), load/store class and kept
 * thread count (a file with 40 thread counts gave roofs to 16 of them:
 * roofline_thread_counts.sh). */
#define ROOFS_MAX (5 * 4 * NS_ROOFLINE_MAX_THREAD_COUNTS)

typedef struct {
    json_t *root, *notes;
    curve *curves;
    size_t ncurves;
    ns_cache_set cs;
    bw_roof *roofs; /* ROOFS_MAX of them: every level, class and kept thread count */
    size_t nroofs;
    int tc[NS_ROOFLINE_MAX_THREAD_COUNTS]; /* the thread counts kept (thread_counts), ascending */
    int ntc;
    char policy[32];
    /* Compute ceilings that are the limiting roof of some kernel other than their own
     * measurement (roof_of_result). */
    const json_t *used_compute[64];
    size_t nused_compute;
    /* Compute ceilings that are the compute roof (roof_compute_gflops) of some kernel other
     * than their own measurement, whatever its limit. */
    const json_t *roof_compute[64];
    size_t nroof_compute;
} build_ctx;

static void note(build_ctx *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(build_ctx *b, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t i;
    json_t *v;
    json_array_foreach(b->notes, i, v) if (!strcmp(json_string_value(v), buf)) return;
    json_array_append_new(b->notes, json_string(buf));
}

static const char *str_or(const json_t *o, const char *key, const char *dflt) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : dflt;
}

/* A byte count as every output prints it (ns_format_bytes), so one size reads the same in the
 * notes, report.md and the pictures. */
static void fmt_bytes(double b, char *buf, size_t len) {
    ns_format_bytes(buf, len, b);
}

/* Groups sweep[] into curves; 0, or -1 on allocation failure. */
static int collect_curves(build_ctx *b, const json_t *sweep) {
    size_t i;
    json_t *e;
    size_t skipped = 0;
    json_array_foreach(sweep, i, e) {
        const char *kernel = str_or(e, "kernel", NULL);
        int threads = json_int(e, "threads", 0);
        double ws = ns_json_get_num(e, "working_set_bytes");
        double bw = ns_json_get_num(e, "gbytes_per_s");
        if (!kernel || threads < 1 || !(ws > 0) || !(bw > 0) || !isfinite(ws) || !isfinite(bw)) {
            skipped++;
            continue;
        }
        const char *isa = str_or(e, "isa", ""), *prec = str_or(e, "precision", "");
        const char *policy = str_or(e, "bytes_policy", NULL);
        size_t c;
        for (c = 0; c < b->ncurves; c++)
            if (!strcmp(b->curves[c].kernel, kernel) && !strcmp(b->curves[c].isa, isa) &&
                !strcmp(b->curves[c].precision, prec) && b->curves[c].threads == threads)
                break;
        if (c == b->ncurves) {
            curve *nc = realloc(b->curves, (b->ncurves + 1) * sizeof *nc);
            if (!nc) return -1;
            b->curves = nc;
            b->curves[b->ncurves++] = (curve){kernel, isa, prec, policy, threads, 0, 0, 0, 0};
        }
        curve *cv = &b->curves[c];
        if (cv->n == cv->cap) {
            size_t cap = cv->cap ? 2 * cv->cap : 64;
            double *nws = realloc(cv->ws, cap * sizeof *nws);
            if (!nws) return -1;
            cv->ws = nws;
            double *nbw = realloc(cv->bw, cap * sizeof *nbw);
            if (!nbw) return -1;
            cv->bw = nbw;
            cv->cap = cap;
        }
        cv->ws[cv->n] = ws;
        cv->bw[cv->n] = bw;
        cv->n++;
        if (policy && cv->policy && strcmp(policy, cv->policy))
            note(b, "sweep %s: bytes_policy changes within the curve (%s, %s)", kernel, cv->policy,
                 policy);
    }
    if (skipped)
        note(b,
             "%zu sweep point(s) without kernel, threads, working set or a finite positive "
             "bandwidth were ignored",
             skipped);
    return 0;
}

/* The roofline's byte-counting policy: the sweep's, which must be one for all curves; without
 * a sweep that states it (a bench file), the results' when they all state the same one. */
static void choose_policy(build_ctx *b) {
    const char *pol = NULL;
    for (size_t c = 0; c < b->ncurves; c++) {
        const char *p = b->curves[c].policy;
        if (!p) continue;
        if (!pol)
            pol = p;
        else if (strcmp(pol, p))
            note(b,
                 "sweep curves use different bytes_policy values (%s, %s): ceilings are not "
                 "comparable with each other",
                 pol, p);
    }
    size_t i;
    json_t *r;
    int mixed = 0;
    json_array_foreach(pol ? NULL : json_object_get(b->root, "results"), i, r) {
        const char *p = json_string_value(json_object_get(r, "bytes_policy"));
        if (!p) continue;
        if (!pol)
            pol = p;
        else if (strcmp(pol, p))
            mixed = 1;
    }
    if (mixed) {
        note(b, "results use different bytes_policy values (%s, ...): no one policy", pol);
        pol = NULL;
    }
    snprintf(b->policy, sizeof b->policy, "%s", pol ? pol : "unknown");
    if (!pol && b->ncurves)
        note(b, "the sweep does not state its bytes_policy; \"minimal\" (no write-allocate) and "
                "\"with_write_allocate\" differ by 1.33-1.5x for stores");
}

static double llc_capacity(const ns_cache_set *cs, int threads) {
    return cs->n ? ns_roofline_capacity(cs, cs->n - 1, threads) : NAN;
}

/* Median bandwidth of the curve's points with ws in [lo, hi]; *count receives how many, and
 * *mid the geometric middle of their working sets. */
static double median_in(const curve *cv, double lo, double hi, int *count, double *mid) {
    double *tmp = calloc(cv->n ? cv->n : 1, sizeof *tmp);
    size_t k = 0;
    double wlo = INFINITY, whi = 0;
    *count = 0;
    *mid = NAN;
    if (!tmp) return NAN;
    for (size_t i = 0; i < cv->n; i++)
        if (cv->ws[i] >= lo && cv->ws[i] <= hi) {
            tmp[k++] = cv->bw[i];
            wlo = fmin(wlo, cv->ws[i]);
            whi = fmax(whi, cv->ws[i]);
        }
    double m = ns_median(tmp, k);
    free(tmp);
    *count = (int)k;
    *mid = k ? sqrt(wlo * whi) : NAN;
    return m;
}

/* Whether the curve's points with ws in [lo, hi] scatter too much to be one level, by the rule
 * a plateau's points must pass (pts_scatter); *noise and *spread receive its two measures. */
static int scatter_in(const curve *cv, double lo, double hi, double *noise, double *spread) {
    pt *p = malloc((cv->n ? cv->n : 1) * sizeof *p);
    double *scratch = malloc((cv->n ? cv->n : 1) * sizeof *scratch);
    size_t k = 0;
    int bad = 0;
    *noise = *spread = NAN;
    for (size_t i = 0; p && scratch && i < cv->n; i++)
        if (cv->ws[i] >= lo && cv->ws[i] <= hi)
            p[k] = (pt){cv->ws[i], cv->bw[i], log2(cv->ws[i]), log(cv->bw[i])}, k++;
    if (k >= 2) {
        qsort(p, k, sizeof *p, cmp_pt);
        bad = pts_scatter(p, k, scratch, noise, spread);
    }
    free(p);
    free(scratch);
    return bad;
}

static double cv_min_ws(const curve *cv) {
    double m = INFINITY;
    for (size_t i = 0; i < cv->n; i++)
        m = fmin(m, cv->ws[i]);
    return m;
}

/* A results[] entry's rate in GB/s at the time_s statistic stat ("min": its fastest sample, the
 * statistic of the ceilings; "median"): bytes / time / 1e9; NAN when either is missing. */
static double result_gbps(const json_t *r, const char *stat) {
    return ns_json_get_num(r, "bytes") / ns_json_get_num(json_object_get(r, "time_s"), stat) / 1e9;
}

/* 1 when the samples of a kernel-phase result spread: a CV above KERNEL_PHASE_MAX_CV, or a
 * fastest sample more than KERNEL_PHASE_MAX_SPREAD times faster than the median. Its fastest
 * sample is then one outlier of a bimodal run, not the level's rate. */
static int kernel_phase_disturbed(const json_t *r) {
    const json_t *ts = json_object_get(r, "time_s");
    double cvv = ns_json_get_num(ts, "cv"), tmin = ns_json_get_num(ts, "min"),
           tmed = ns_json_get_num(ts, "median");
    return cvv > KERNEL_PHASE_MAX_CV || (tmin > 0 && tmed > KERNEL_PHASE_MAX_SPREAD * tmin);
}

/* "CV x%, median y GB/s" of a kernel-phase result, into buf (the CV only when recorded). */
static void kernel_phase_spread(const json_t *r, char *buf, size_t len) {
    const json_t *ts = json_object_get(r, "time_s");
    double cvv = ns_json_get_num(ts, "cv");
    double med = result_gbps(r, "median");
    size_t n = 0;
    buf[0] = 0;
    if (isfinite(cvv)) ns_appendf(buf, len, &n, "CV %.0f%%, ", 100 * cvv);
    ns_appendf(buf, len, &n, "median %.4g GB/s", med);
}

/* The sweep's rate at the largest of its working sets <= ws (its smallest when none is), or NAN
 * for an empty curve. */
static double sweep_rate_at(const curve *cv, double ws) {
    double r = NAN, at = -1;
    for (size_t i = 0; i < cv->n; i++)
        if (cv->ws[i] <= ws && cv->ws[i] > at) at = cv->ws[i], r = cv->bw[i];
    if (isnan(r))
        for (size_t i = 0; i < cv->n; i++)
            if (at < 0 || cv->ws[i] < at) at = cv->ws[i], r = cv->bw[i];
    return r;
}

/* The fastest measurement in results[] (the kernel phase) of the curve's own kernel (same
 * name, ISA, precision, thread count and bytes policy) with its working set in `level` by the
 * rule results are placed with (ns_roofline_level_of), by the sweep's statistic: the bytes of a
 * repetition over its fastest sample (time_s.min). Only entries with status "ok" and a check
 * that did not fail count; a DRAM measurement only at >= 4x the aggregate LLC. A disturbed
 * measurement (kernel_phase_disturbed) counts only when its median is at least the sweep's
 * ceiling sweep_bw (a NAN sweep_bw: no sweep ceiling, then it counts); the fastest one left
 * out for that, if faster than sweep_bw, is returned in *rejected (may be NULL). A DRAM
 * measurement at a working set below sweep_lo (the smallest of the sweep's points the ceiling
 * was taken from) and more than DRAM_CONTAMINATION times faster than sweep_bw is a cache, not
 * DRAM, when the sweep itself saw a cache there (its rate at the nearest working set at or below
 * the measurement's is within DRAM_CONTAMINATION of it): it does not count, and the fastest
 * such one is returned in *contaminated (may be NULL). Without that evidence (the sweep was
 * slow there too: one of the two was disturbed) it counts as any other, and the fastest such one
 * is returned in *disagree (may be NULL). Returns the rate in GB/s and the entry in *res, or
 * NAN. */
static double kernel_phase_best(const build_ctx *b, const curve *cv, const char *level,
                                double sweep_bw, double sweep_lo, const json_t **res,
                                const json_t **rejected, const json_t **contaminated,
                                const json_t **disagree) {
    double best = NAN, rbest = NAN, cbest = NAN, dbest = NAN;
    double llc = llc_capacity(&b->cs, cv->threads);
    size_t i;
    json_t *r;
    *res = NULL;
    if (rejected) *rejected = NULL;
    if (contaminated) *contaminated = NULL;
    if (disagree) *disagree = NULL;
    json_array_foreach(json_object_get(b->root, "results"), i, r) {
        const char *name = str_or(r, "name", ""), *pol = str_or(r, "bytes_policy", NULL);
        double ws = ns_json_get_num(r, "working_set_bytes"), by = ns_json_get_num(r, "bytes");
        double tmin = ns_json_get_num(json_object_get(r, "time_s"), "min");
        const char *lv = ns_roofline_level_of(&b->cs, ws, cv->threads);
        if (strcmp(name, cv->kernel) || strcmp(str_or(r, "isa", ""), cv->isa) ||
            strcmp(str_or(r, "precision", ""), cv->precision) ||
            json_int(r, "threads", 0) != cv->threads || strcmp(str_or(r, "status", ""), "ok") ||
            json_is_false(json_object_get(r, "validated")) || !lv || strcmp(lv, level) ||
            (pol && cv->policy && strcmp(pol, cv->policy)))
            continue;
        if (!strcmp(level, "DRAM") && !(ws >= DRAM_LLC_SLACK * DRAM_LLC_MARGIN * llc)) continue;
        double rate = result_gbps(r, "min");
        if (!(by > 0 && tmin > 0 && isfinite(rate))) continue;
        if (!strcmp(level, "DRAM") && ws < sweep_lo && rate > DRAM_CONTAMINATION * sweep_bw) {
            if (sweep_rate_at(cv, ws) * DRAM_CONTAMINATION >= rate) { /* the sweep saw it too */
                if (contaminated && !(rate <= cbest)) {
                    cbest = rate;
                    *contaminated = r;
                }
                continue;
            }
            if (disagree && !(rate <= dbest)) {
                dbest = rate;
                *disagree = r;
            }
        }
        double med = result_gbps(r, "median");
        if (isfinite(sweep_bw) && kernel_phase_disturbed(r) && !(med >= sweep_bw)) {
            if (rejected && rate > sweep_bw && !(rate <= rbest)) {
                rbest = rate;
                *rejected = r;
            }
            continue;
        }
        if (!(rate <= best)) { /* also when best is NAN */
            best = rate;
            *res = r;
        }
    }
    return best;
}

static const bw_roof *find_bw_roof(const build_ctx *b, const char *level, int threads);
static const bw_roof *find_class_roof(const build_ctx *b, const char *level, int threads, int cls);

/* The smallest and largest working set of the curve's points with ws in [lo, hi], into *plo and
 * *phi (left as they are when there is none); returns how many points. */
static int points_range(const curve *cv, double lo, double hi, double *plo, double *phi) {
    double a = INFINITY, z = -INFINITY;
    int k = 0;
    for (size_t i = 0; i < cv->n; i++)
        if (cv->ws[i] >= lo && cv->ws[i] <= hi) a = fmin(a, cv->ws[i]), z = fmax(z, cv->ws[i]), k++;
    if (k) *plo = a, *phi = z;
    return k;
}

/* The fastest of the curve's points with ws in [lo, hi] (GB/s), or NAN. */
static double max_in(const curve *cv, double lo, double hi) {
    double m = NAN;
    for (size_t i = 0; i < cv->n; i++)
        if (cv->ws[i] >= lo && cv->ws[i] <= hi && !(cv->bw[i] <= m)) m = cv->bw[i];
    return m;
}

/* Appends one ceiling; source: "plateau", or "interior" / "largest working sets" where the
 * curve had no plateau at this level (then a status says so), or "kernel phase" where the same
 * kernel measured faster in results[] at a working set in this level (kernel_phase_best): a
 * roof never sits below a measurement of its own ceiling kernel. bw may be NAN (no ceiling from
 * the sweep): then only a kernel-phase measurement gives one, and without it nothing is added.
 * A curve without points is a ceiling kernel the sweep did not measure at this thread count
 * (unswept_ceilings): its kernel-phase measurement must beat the roof of its load/store class
 * at the level, else the level's roof (if any), as a swept curve's must beat the sweep's
 * ceiling, or nothing is added. */
static void add_ceiling(build_ctx *b, json_t *arr, const curve *cv, const char *level, double bw,
                        double ws_mid, double ws_lo, double ws_hi, int npoints, const char *source,
                        const char *suspect) {
    const json_t *kr, *rej, *cont, *dis;
    /* The working sets of a sweep ceiling are those of the points its median used, not the
     * range they were taken from (a 24 KiB bound where the sweep has no 24 KiB point). */
    points_range(cv, ws_lo, ws_hi, &ws_lo, &ws_hi);
    /* Not swept: the roof of its load/store class at the level, else the level's roof (if
     * any), is what its measurement must beat. */
    int cls = ns_roofline_kernel_class(cv->kernel, NULL);
    const bw_roof *lroof = cv->n ? NULL : find_class_roof(b, level, cv->threads, cls);
    if (!cv->n && !lroof) lroof = find_bw_roof(b, level, cv->threads);
    double ref = lroof ? lroof->gbytes_per_s : bw;
    double kbw = kernel_phase_best(b, cv, level, ref, ws_lo, &kr, &rej, &cont, &dis);
    int from_kernel = kr && !(kbw <= ref); /* faster, or no ceiling to beat at all */
    if (!from_kernel && !isfinite(bw) && !strcmp(source, "kernel phase")) {
        if (rej && lroof) {
            char sp[64];
            kernel_phase_spread(rej, sp, sizeof sp);
            note(b,
                 "%s/%s %d thread%s, %s ceiling: the kernel phase's %s (fastest sample %.4g "
                 "GB/s) is faster than the %s ceiling of %s (%.4g GB/s) but not used: its "
                 "samples spread (%s)",
                 cv->kernel, cv->isa, cv->threads, PLURAL(cv->threads), level,
                 str_or(rej, "id", "?"),
                 result_gbps(rej, "min"), level, lroof->kernel, ref, sp);
        }
        return;
    }
    json_t *o = json_object();
    char cwhy[900];
    if (cont) {
        /* A "DRAM" measurement at a smaller working set than the sweep's DRAM points and far
         * faster: a cache held it, so the LLC hwloc reports is smaller than the real one. */
        double cws = ns_json_get_num(cont, "working_set_bytes"),
               llc = llc_capacity(&b->cs, cv->threads);
        double crate = result_gbps(cont, "min");
        char w[32], lo[32], l[32], ctext[600];
        fmt_bytes(cws, w, sizeof w);
        fmt_bytes(ws_lo, lo, sizeof lo);
        fmt_bytes(llc, l, sizeof l);
        snprintf(ctext, sizeof ctext,
                 "the kernel phase measured %s at %s (%s, fastest sample %.4g GB/s), %.2gx this "
                 "ceiling at a working set below the sweep's smallest here (%s), where the "
                 "sweep too ran at %.4g GB/s: cache contamination, not used; the last-level "
                 "cache hwloc reports (%s for %d thread%s) may be too small",
                 cv->kernel, w, str_or(cont, "id", "?"), crate, crate / bw, lo,
                 sweep_rate_at(cv, cws), l, cv->threads, PLURAL(cv->threads));
        snprintf(cwhy, sizeof cwhy, "%s%s", suspect ? suspect : "suspect: ", suspect ? "; " : "");
        size_t cl = strlen(cwhy);
        snprintf(cwhy + cl, sizeof cwhy - cl, "%s", ctext);
        suspect = cwhy;
        note(b, "%s/%s %d thread%s, %s ceiling: %s", cv->kernel, cv->isa, cv->threads,
             PLURAL(cv->threads), level, ctext);
    }
    char dwhy[900];
    if (dis && !cont) {
        /* Far faster than the sweep's DRAM ceiling at a smaller working set, where the sweep
         * was slow too: no sign of a cache, so one of the two measurements was disturbed. */
        double dws = ns_json_get_num(dis, "working_set_bytes");
        double drate = result_gbps(dis, "min");
        char w[32], dtext[600];
        fmt_bytes(dws, w, sizeof w);
        snprintf(dtext, sizeof dtext,
                 "the kernel phase measured %s at %s (%s, fastest sample %.4g GB/s), %.2gx the "
                 "sweep's ceiling (%.4g GB/s) at a smaller working set, where the sweep ran at "
                 "only %.4g GB/s: sweep and kernel phase disagree (one of them was disturbed)",
                 cv->kernel, w, str_or(dis, "id", "?"), drate, drate / bw, bw,
                 sweep_rate_at(cv, dws));
        snprintf(dwhy, sizeof dwhy, "%s%s%s", suspect ? suspect : "suspect: ",
                 suspect ? "; " : "", dtext);
        suspect = dwhy;
        note(b, "%s/%s %d thread%s, %s ceiling: %s", cv->kernel, cv->isa, cv->threads,
             PLURAL(cv->threads), level, dtext);
    }
    if (rej && !from_kernel) {
        /* A faster but disturbed kernel-phase measurement: the sweep's ceiling stays. */
        char rw[300], sp[64];
        kernel_phase_spread(rej, sp, sizeof sp);
        snprintf(rw, sizeof rw,
                 "%s (fastest sample %.4g GB/s) is faster than the sweep's %s ceiling (%.4g "
                 "GB/s) but not used: its samples spread (%s)",
                 str_or(rej, "id", "?"), result_gbps(rej, "min"), level, bw, sp);
        ns_json_set_str(o, "kernel_phase", rw);
        note(b, "%s/%s %d thread%s, %s ceiling: the kernel phase's %s", cv->kernel, cv->isa,
             cv->threads, PLURAL(cv->threads), level, rw);
    }
    ns_json_set_str(o, "level", level);
    ns_json_set_int(o, "threads", cv->threads);
    ns_json_set_str(o, "kernel", cv->kernel);
    ns_json_set_str(o, "isa", cv->isa);
    ns_json_set_str(o, "precision", cv->precision);
    char why[1100];
    if (from_kernel) {
        double kws = ns_json_get_num(kr, "working_set_bytes");
        char w[32];
        fmt_bytes(kws, w, sizeof w);
        if (isfinite(bw))
            snprintf(why, sizeof why,
                     "%s; the kernel phase measured %s faster at %s (%s, fastest sample %.4g "
                     "GB/s) than the sweep (%s, %.4g GB/s): the faster measurement is the "
                     "ceiling",
                     suspect ? suspect : "ok", cv->kernel, w, str_or(kr, "id", "?"), kbw, source,
                     bw);
        else if (!cv->n && lroof)
            snprintf(why, sizeof why,
                     "ok; not in the sweep at %d thread%s: the kernel phase's %s at %s (%s, "
                     "fastest sample), faster than the %s ceiling of %s (%.4g GB/s%s)",
                     cv->threads, cv->threads == 1 ? "" : "s", cv->kernel, w, str_or(kr, "id", "?"),
                     level, lroof->kernel, ref, lroof->suspect ? ", suspect" : "");
        else
            snprintf(why, sizeof why,
                     "ok; no ceiling from the sweep at this level: the kernel phase's %s at %s "
                     "(%s, fastest sample)",
                     cv->kernel, w, str_or(kr, "id", "?"));
        if (!isfinite(ref) && kernel_phase_disturbed(kr)) {
            char sp[64];
            kernel_phase_spread(kr, sp, sizeof sp);
            snprintf(why, sizeof why,
                     "suspect: no ceiling from the sweep at this level: the kernel phase's %s at "
                     "%s (%s, fastest sample), whose samples spread (%s)",
                     cv->kernel, w, str_or(kr, "id", "?"), sp);
            suspect = why;
        } else if (kernel_phase_disturbed(kr)) {
            /* Faster than the reference (which may itself be suspect), but its samples spread:
             * its fastest sample may be an outlier, so the roof it gives is suspect too. */
            char sp[64], rest[1100];
            kernel_phase_spread(kr, sp, sizeof sp);
            snprintf(rest, sizeof rest, "%s", strncmp(why, "ok; ", 4) ? why : why + 4);
            size_t wn = 0;
            ns_appendf(why, sizeof why, &wn, "%s%s; its samples spread (%s)",
                       strncmp(rest, "suspect", 7) ? "suspect: " : "", rest, sp);
            suspect = why;
        }
        ns_json_set_num(o, "sweep_gbytes_per_s", bw, NULL);
        ns_json_set_str(o, "sweep_source", strcmp(source, "kernel phase") ? source : NULL);
        bw = kbw;
        ws_mid = ws_lo = ws_hi = kws;
        npoints = 1;
        source = "kernel phase";
        if (suspect) suspect = why;
    }
    ns_json_set_num(o, "working_set_bytes", round(ws_mid), NULL); /* geometric middle: whole bytes */
    ns_json_set_num(o, "working_set_min_bytes", ws_lo, NULL);
    ns_json_set_num(o, "working_set_max_bytes", ws_hi, NULL);
    ns_json_set_num(o, "gbytes_per_s", bw, "invalid: no finite bandwidth");
    ns_json_set_str(o, "bytes_policy", cv->policy ? cv->policy : b->policy);
    ns_json_set_int(o, "points", npoints);
    ns_json_set_str(o, "source", source);
    if (from_kernel) ns_json_set_str(o, "result_id", str_or(kr, "id", NULL));
    json_object_set_new(o, "suspect", json_boolean(suspect != NULL));
    if (!json_object_get(o, "status"))
        ns_json_set_str(o, "status",
                        suspect                       ? suspect
                        : from_kernel                 ? why
                        : !strcmp(source, "interior") ? "ok; no plateau found: median of the "
                                                        "points well inside the level's "
                                                        "working-set range"
                                                      : "ok");
    json_array_append_new(arr, o);
    if (!isfinite(bw)) return;
    const char *rid = from_kernel ? str_or(kr, "id", NULL) : NULL;
    double pmax = from_kernel ? bw : max_in(cv, ws_lo, ws_hi);

    /* Keep the best ceiling per (level, threads, load/store class); a trusted one beats any
     * suspect one. */
    size_t r;
    for (r = 0; r < b->nroofs; r++)
        if (!strcmp(b->roofs[r].level, level) && b->roofs[r].threads == cv->threads &&
            b->roofs[r].cls == cls)
            break;
    bw_roof *ro = &b->roofs[r];
    if (r == b->nroofs) {
        int kept = 0; /* only the thread counts the builder keeps get roofs */
        for (int t = 0; t < b->ntc; t++) kept |= b->tc[t] == cv->threads;
        if (!kept || b->nroofs == ROOFS_MAX) return;
        b->nroofs++;
    } else {
        int better = (ro->suspect && !suspect) ||
                     ((ro->suspect == (suspect != NULL)) && bw > ro->gbytes_per_s);
        if (!better) return;
    }
    *ro = (bw_roof){.level = level,
                    .kernel = cv->kernel,
                    .threads = cv->threads,
                    .suspect = suspect != NULL,
                    .gbytes_per_s = bw,
                    .result_id = rid,
                    .cls = cls,
                    .npoints = npoints,
                    .pt_max = isfinite(pmax) ? pmax : bw};
    snprintf(ro->reason, sizeof ro->reason, "%s", suspect ? suspect : "");
}

/* The last (largest) at most DRAM_TAIL_POINTS points of the curve with ws >= from: their
 * working-set range, median bandwidth, scatter (max / min - 1) and fall (1 - last / first when
 * each point is slower than the one at the next smaller working set, else 0). Returns how
 * many. */
static int dram_tail(const curve *cv, double from, double *lo, double *hi, double *bw,
                     double *spread, double *fall) {
    double tw[DRAM_TAIL_POINTS], tb[DRAM_TAIL_POINTS];
    int k = 0;
    /* Largest working sets first, by repeated scans: the curve is short. */
    double below = INFINITY;
    while (k < DRAM_TAIL_POINTS) {
        size_t best = cv->n;
        for (size_t i = 0; i < cv->n; i++)
            if (cv->ws[i] >= from && cv->ws[i] < below &&
                (best == cv->n || cv->ws[i] > cv->ws[best]))
                best = i;
        if (best == cv->n) break;
        tw[k] = cv->ws[best];
        tb[k++] = cv->bw[best];
        below = cv->ws[best];
    }
    *lo = *hi = *bw = *spread = *fall = NAN;
    if (k == 0) return 0;
    double mn = INFINITY, mx = 0;
    int falling = 1;
    for (int i = 0; i < k; i++) {
        mn = fmin(mn, tb[i]);
        mx = fmax(mx, tb[i]);
        if (i > 0 && tb[i - 1] >= tb[i]) falling = 0; /* tb[i] is at the smaller working set */
    }
    *hi = tw[0];
    *lo = tw[k - 1];
    *spread = mx / mn - 1;
    /* The fall from the first (smallest) to the last working set, as printed ("fall by 62%":
     * 8.16 to 3.13 GB/s), not first / last - 1 (a rise, 160% there: test_dram_tail_at_4x_llc). */
    *fall = falling && k > 1 ? 1 - tb[0] / tb[k - 1] : 0;
    *bw = ns_median(tb, (size_t)k);
    return k;
}

/* 1 when ceil[] holds an entry of curve cv at level. */
static int has_ceiling(const json_t *ceil, const curve *cv, const char *level) {
    size_t i;
    json_t *c;
    json_array_foreach(ceil, i, c) {
        if (!strcmp(str_or(c, "level", ""), level) &&
            !strcmp(str_or(c, "kernel", ""), cv->kernel) &&
            !strcmp(str_or(c, "isa", ""), cv->isa) &&
            !strcmp(str_or(c, "precision", ""), cv->precision) &&
            json_int(c, "threads", 0) == cv->threads)
            return 1;
    }
    return 0;
}

int ns_roofline_nt_stores(const char *name) {
    size_t n = name ? strlen(name) : 0;
    return n > 3 && !strcmp(name + n - 3, "_nt");
}

/* Why the sweep of cv reached no DRAM working set for lack of memory, into why: its points that
 * could not allocate their inputs (the smallest such working set), or a sweep that ends at the
 * cap of half the memory this process could allocate (context.memory.sweep_capped_at_bytes,
 * recorded by run: a ulimit -v or cgroup limit). Returns 0 when neither. */
static int dram_memory_reason(const build_ctx *b, const curve *cv, double maxws, char *why,
                              size_t len) {
    double nomem = INFINITY;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(b->root, "sweep"), i, e) {
        double ws = ns_json_get_num(e, "working_set_bytes");
        if (!strcmp(str_or(e, "kernel", ""), cv->kernel) &&
            !strcmp(str_or(e, "isa", ""), cv->isa) &&
            !strcmp(str_or(e, "precision", ""), cv->precision) &&
            json_int(e, "threads", 0) == cv->threads &&
            strstr(str_or(e, "status", ""), "cannot allocate") && ws > 0)
            nomem = fmin(nomem, ws);
    }
    const json_t *mem = json_object_get(json_object_get(b->root, "context"), "memory");
    double cap = ns_json_get_num(mem, "sweep_capped_at_bytes");
    char w[32], a[32];
    if (isfinite(nomem)) {
        fmt_bytes(nomem, w, sizeof w);
        snprintf(why, len, "could not allocate %.0f bytes (%s: the sweep's %s/%s t%d points from "
                 "there on are \"not measured: cannot allocate inputs\")",
                 nomem, w, cv->kernel, cv->isa, cv->threads);
        return 1;
    }
    if (cap > 0 && maxws >= 0.9 * cap) {
        fmt_bytes(cap, a, sizeof a);
        snprintf(why, len,
                 "the sweep stops at %s, half the memory this process could allocate (%s)", a,
                 str_or(mem, "sweep_capped_by", "MemAvailable"));
        return 1;
    }
    return 0;
}

/* The plateaus of one curve, and what the phases of ceilings_of_curve share. */
typedef struct {
    ns_plateau pl[MAX_PLATEAUS];
    const char *label[MAX_PLATEAUS]; /* each plateau's level; NULL: none */
    int chosen[MAX_PLATEAUS];        /* 1: the plateau that gives its level's ceiling */
    char unfit[MAX_PLATEAUS][200];   /* why a cache plateau cannot define its level; "": it can */
    int np;
    double llc, maxws; /* the aggregate LLC of the curve's threads; its largest working set */
    double llc_bw;     /* the ceiling of the last cache level, to compare DRAM with; NAN: none */
    int reaches_4x;    /* the sweep reaches DRAM_LLC_MARGIN times the LLC */
    int have_dram;     /* a DRAM plateau gave the DRAM ceiling */
    int nt;            /* non-temporal stores: DRAM ceilings only */
} curve_plateaus;

/* DRAM bandwidth within this factor of the last cache level's plateau (either way) is no DRAM
 * rate. */
#define DRAM_NEAR_LLC 0.9

/* The reason, into why, that a DRAM ceiling bw is suspect for being as fast as the LLC plateau
 * p->llc_bw (a cache hwloc does not report); returns why, or NULL when it is not. A DRAM rate
 * faster than the LLC's by more than 1 / DRAM_NEAR_LLC is not: the slower LLC roof is the
 * suspect one (level_order). */
static const char *dram_near_llc(const build_ctx *b, const curve_plateaus *p, double bw, char *why,
                                 size_t len) {
    if (!(isfinite(p->llc_bw) && bw >= DRAM_NEAR_LLC * p->llc_bw &&
          DRAM_NEAR_LLC * bw <= p->llc_bw))
        return NULL;
    snprintf(why, len, "suspect: %s the %s plateau (%.3g GB/s); a cache hwloc does not report?",
             bw > p->llc_bw ? "faster than" : "as fast as", level_name(b->cs.level[b->cs.n - 1]),
             p->llc_bw);
    return why;
}

/* The index of level in the cache set b->cs, b->cs.n for DRAM; -1 when neither. */
static int cache_level_index(const build_ctx *b, const char *level) {
    for (int li = 0; li < b->cs.n; li++)
        if (!strcmp(level, level_name(b->cs.level[li]))) return li;
    return strcmp(level, "DRAM") ? -1 : b->cs.n;
}

/* Into why (len bytes), the reason plateau pl labelled the cache level `label` cannot define it:
 * it runs past PLATEAU_PAST_CAPACITY times the level's aggregate capacity, or into the DRAM tail
 * (from DRAM_TAIL_FROM times the aggregate LLC llc); "" when it can (or is DRAM, or unlabelled). */
static void plateau_fit(const build_ctx *b, const curve *cv, const ns_plateau *pl,
                        const char *label, double llc, char *why, size_t len) {
    why[0] = 0;
    if (!label || !strcmp(label, "DRAM")) return;
    int li = cache_level_index(b, label);
    double cap = li >= 0 && li < b->cs.n ? ns_roofline_capacity(&b->cs, li, cv->threads) : NAN;
    int past = pl->ws_hi_bytes > PLATEAU_PAST_CAPACITY * cap,
        tail = pl->ws_hi_bytes >= DRAM_TAIL_FROM * llc;
    if (!past && !tail) return;
    char hi[24], c[24], t[24];
    fmt_bytes(pl->ws_hi_bytes, hi, sizeof hi);
    fmt_bytes(cap, c, sizeof c);
    fmt_bytes(DRAM_TAIL_FROM * llc, t, sizeof t);
    snprintf(why, len,
             "not used for %s: it runs to %s, %s the level's aggregate capacity (%s for %d "
             "thread%s)%s%s%s",
             label, hi, past ? "past" : "within", c, cv->threads, PLURAL(cv->threads),
             tail ? ", into the DRAM tail (from " : "", tail ? t : "", tail ? ")" : "");
}

/* Finds and labels the curve's plateaus and chooses one per level: for a cache the longest
 * (then the faster) of those that fit it (plateau_fit), for DRAM the one at the largest working
 * set, since DRAM is the curve's asymptote; non-temporal stores choose none of a cache. Returns -1
 * on allocation failure. */
static int choose_plateaus(const build_ctx *b, const curve *cv, curve_plateaus *p) {
    ns_plateau *pl = p->pl;
    const char **label = p->label;
    int *chosen = p->chosen;
    int np = ns_roofline_find_plateaus(cv->ws, cv->bw, cv->n, pl, MAX_PLATEAUS);
    if (np < 0) return -1;
    if (np > MAX_PLATEAUS) np = MAX_PLATEAUS;
    p->np = np;
    p->llc = llc_capacity(&b->cs, cv->threads);
    for (int i = 0; i < np; i++) {
        label[i] = ns_roofline_plateau_level(&b->cs, &pl[i], cv->threads);
        chosen[i] = 0;
        plateau_fit(b, cv, &pl[i], label[i], p->llc, p->unfit[i], sizeof p->unfit[i]);
    }

    for (int i = 0; i < np; i++) {
        if (!label[i] || p->unfit[i][0]) continue;
        int best = -1;
        for (int j = 0; j < np; j++) {
            if (!label[j] || strcmp(label[j], label[i]) || p->unfit[j][0]) continue;
            if (best < 0) {
                best = j;
            } else if (!strcmp(label[i], "DRAM")) {
                if (pl[j].ws_hi_bytes > pl[best].ws_hi_bytes) best = j;
            } else if (pl[j].npoints > pl[best].npoints ||
                       (pl[j].npoints == pl[best].npoints &&
                        pl[j].gbytes_per_s > pl[best].gbytes_per_s)) {
                best = j;
            }
        }
        chosen[best] = 1;
    }

    p->maxws = 0;
    for (size_t i = 0; i < cv->n; i++)
        p->maxws = fmax(p->maxws, cv->ws[i]);
    p->reaches_4x = p->maxws >= DRAM_LLC_SLACK * DRAM_LLC_MARGIN * p->llc;
    p->have_dram = 0;
    p->llc_bw = NAN;
    for (int i = 0; i < np; i++)
        if (chosen[i] && label[i] && b->cs.n &&
            !strcmp(label[i], level_name(b->cs.level[b->cs.n - 1])))
            p->llc_bw = pl[i].gbytes_per_s;
    /* No LLC plateau fits the LLC: one that runs on past it still holds the LLC's rate, and a
     * DRAM rate as fast is no DRAM rate (a cache hwloc does not report). */
    for (int i = 0; i < np && !isfinite(p->llc_bw); i++)
        if (p->unfit[i][0] && label[i] && b->cs.n &&
            !strcmp(label[i], level_name(b->cs.level[b->cs.n - 1])))
            p->llc_bw = pl[i].gbytes_per_s;
    p->nt = ns_roofline_nt_stores(cv->kernel);
    for (int i = 0; p->nt && i < np; i++)
        if (label[i] && strcmp(label[i], "DRAM")) chosen[i] = 0;
    return 0;
}

/* Into why, the status of plateau i of p that fits its level (or has none) but was not chosen:
 * non-temporal stores, no level, or another plateau of the level chosen. */
static void plateau_not_chosen(const curve *cv, const curve_plateaus *p, int i, char *why,
                               size_t len) {
    const char *lv = p->label[i];
    int j = 0;
    while (j < p->np && !(p->chosen[j] && lv && p->label[j] && !strcmp(p->label[j], lv)))
        j++;
    if (!lv) {
        snprintf(why, len, "not used: no cache list to label it by");
    } else if (p->nt && strcmp(lv, "DRAM")) {
        snprintf(why, len, "not used: %s's non-temporal stores give a DRAM ceiling only",
                 cv->kernel);
    } else if (j < p->np) {
        char lo[32], hi[32];
        fmt_bytes(p->pl[j].ws_lo_bytes, lo, sizeof lo);
        fmt_bytes(p->pl[j].ws_hi_bytes, hi, sizeof hi);
        snprintf(why, len, "not used for %s: the plateau over %s-%s (%.4g GB/s) gives it, %s", lv,
                 lo, hi, p->pl[j].gbytes_per_s,
                 strcmp(lv, "DRAM") ? "the longest (then the faster) of those that fit the level"
                                    : "the one at the largest working sets; this one may be a "
                                      "cache hwloc does not report");
    } else {
        snprintf(why, len, "not used for %s", lv);
    }
}

/* A DRAM plateau (the plateaus[] entry o, at gbps GB/s) that gives no ceiling: used false,
 * status why, and a note. */
static void dram_plateau_unused(build_ctx *b, const curve *cv, json_t *o, double gbps,
                                const char *why) {
    char lo[32], hi[32];
    fmt_bytes(ns_json_get_num(o, "working_set_min_bytes"), lo, sizeof lo);
    fmt_bytes(ns_json_get_num(o, "working_set_max_bytes"), hi, sizeof hi);
    json_object_set_new(o, "used", json_false());
    ns_json_set_str(o, "status", why);
    note(b, "%s/%s %d thread%s: the DRAM plateau over %s-%s (%.4g GB/s) is %s", cv->kernel,
         cv->isa, cv->threads, PLURAL(cv->threads), lo, hi, gbps, why);
}

/* Every plateau into plateaus[] (labelled, used or not); a ceiling from each chosen one. A DRAM
 * plateau counts only from DRAM_LLC_MARGIN times the LLC on (p->have_dram), or is suspect when it
 * ends below; one that ends short of a sweep reaching that far is left to dram_tail_ceiling. */
static void ceilings_from_plateaus(build_ctx *b, const curve *cv, curve_plateaus *p,
                                   json_t *plateaus, json_t *ceil) {
    const ns_plateau *pl = p->pl;
    const char *const *label = p->label;
    double llc = p->llc;
    int ndram = 0;
    for (int i = 0; i < p->np; i++)
        if (label[i] && !strcmp(label[i], "DRAM")) ndram++;
    for (int i = 0; i < p->np; i++) {
        json_t *o = json_object();
        ns_json_set_str(o, "kernel", cv->kernel);
        ns_json_set_str(o, "isa", cv->isa);
        ns_json_set_str(o, "precision", cv->precision);
        ns_json_set_int(o, "threads", cv->threads);
        ns_json_set_num(o, "working_set_min_bytes", pl[i].ws_lo_bytes, NULL);
        ns_json_set_num(o, "working_set_max_bytes", pl[i].ws_hi_bytes, NULL);
        ns_json_set_num(o, "gbytes_per_s", pl[i].gbytes_per_s, NULL);
        ns_json_set_num(o, "slope_per_doubling", pl[i].slope, NULL);
        ns_json_set_int(o, "points", pl[i].npoints);
        ns_json_set_str(o, "level", label[i]);
        json_object_set_new(o, "used", json_boolean(p->chosen[i]));
        if (p->unfit[i][0]) {
            char lo[32], hi[32];
            fmt_bytes(pl[i].ws_lo_bytes, lo, sizeof lo);
            fmt_bytes(pl[i].ws_hi_bytes, hi, sizeof hi);
            ns_json_set_str(o, "status", p->unfit[i]);
            note(b, "%s/%s %d thread%s: the plateau over %s-%s (%.4g GB/s) is %s", cv->kernel,
                 cv->isa, cv->threads, PLURAL(cv->threads), lo, hi, pl[i].gbytes_per_s,
                 p->unfit[i]);
        } else if (!p->chosen[i]) {
            char why[300];
            plateau_not_chosen(cv, p, i, why, sizeof why);
            ns_json_set_str(o, "status", why);
        }
        json_array_append_new(plateaus, o);
        if (!p->chosen[i]) continue;

        const char *suspect = NULL;
        char why[300];
        double lo = pl[i].ws_lo_bytes, hi = pl[i].ws_hi_bytes;
        if (!strcmp(label[i], "DRAM")) {
            /* A DRAM plateau that ends short of a sweep reaching 4x the LLC: the largest
             * points decide, as without a plateau (dram_tail_ceiling). */
            if (hi < DRAM_LLC_SLACK * DRAM_LLC_MARGIN * llc && p->reaches_4x) {
                char h[32], l4[32];
                fmt_bytes(hi, h, sizeof h);
                fmt_bytes(DRAM_LLC_MARGIN * llc, l4, sizeof l4);
                snprintf(why, sizeof why,
                         "not used: it ends at %s, short of %gx the aggregate LLC (%s) that the "
                         "sweep reaches: its largest working sets give the DRAM ceiling",
                         h, DRAM_LLC_MARGIN, l4);
                dram_plateau_unused(b, cv, o, pl[i].gbytes_per_s, why);
                continue;
            }
            /* Only the part of the plateau at >= 4x the aggregate LLC counts; with fewer than
             * NS_PLATEAU_MIN_POINTS points there (a --quick sweep's 2x steps leave one), it is
             * no plateau: the largest points decide, with their scatter check
             * (dram_tail_ceiling). */
            if (hi >= DRAM_LLC_SLACK * DRAM_LLC_MARGIN * llc) {
                int n4;
                double m4;
                lo = fmax(lo, fmin(hi, DRAM_LLC_MARGIN * llc));
                median_in(cv, lo, hi, &n4, &m4);
                if (n4 < NS_PLATEAU_MIN_POINTS) {
                    char l4[32];
                    fmt_bytes(DRAM_LLC_MARGIN * llc, l4, sizeof l4);
                    snprintf(why, sizeof why,
                             "not used: %d of its points at >= %gx the aggregate LLC (%s), fewer "
                             "than %d: its largest working sets give the DRAM ceiling",
                             n4, DRAM_LLC_MARGIN, l4, NS_PLATEAU_MIN_POINTS);
                    dram_plateau_unused(b, cv, o, pl[i].gbytes_per_s, why);
                    continue;
                }
            }
            p->have_dram = 1;
            if (!(hi >= DRAM_LLC_SLACK * DRAM_LLC_MARGIN * llc)) {
                char l[32];
                fmt_bytes(llc, l, sizeof l);
                snprintf(why, sizeof why,
                         "suspect: measured at <= %.2gx the aggregate LLC (%s for %d thread%s), "
                         "may be cache bandwidth",
                         hi / llc, l, cv->threads, PLURAL(cv->threads));
                suspect = why;
            }
            if (!suspect) suspect = dram_near_llc(b, p, pl[i].gbytes_per_s, why, sizeof why);
            if (ndram > 1)
                note(b,
                     "%s/%s %d thread%s: %d plateaus beyond the last reported cache; the one "
                     "at the largest working set is DRAM, the others may be a cache hwloc does "
                     "not report",
                     cv->kernel, cv->isa, cv->threads, PLURAL(cv->threads), ndram);
        }
        int cnt;
        double mid, bw = median_in(cv, lo, hi, &cnt, &mid);
        add_ceiling(b, ceil, cv, label[i], bw, mid, lo, hi, cnt, "plateau", suspect);
    }
}

/* Cache level li when this curve has no plateau there (a disturbed or coarse sweep): the median
 * of the points well inside the level's range, from 2x the previous level's aggregate capacity
 * to half its own, if there are at least NS_PLATEAU_MIN_POINTS of them. The range ends where
 * every point from there on is as slow as the next level (within INTERIOR_NEXT_MARGIN of the
 * median of the points well inside it; DRAM: all from 2x this level's capacity): a cache smaller
 * than hwloc says (a VM shown its host's L3) does not hold those points. Too few points before
 * them: all of them, suspect. */
static void interior_ceiling(build_ctx *b, const curve *cv, const curve_plateaus *p, int li,
                             json_t *ceil) {
    const char *lv = level_name(b->cs.level[li]);
    int found = 0;
    for (int i = 0; i < p->np; i++)
        found |= p->chosen[i] && p->label[i] && !strcmp(p->label[i], lv);
    double lo = li ? 2 * ns_roofline_capacity(&b->cs, li - 1, cv->threads) : 0;
    double hi = 0.5 * ns_roofline_capacity(&b->cs, li, cv->threads);
    if (found || !(hi > lo)) return;
    int cnt, ncnt;
    double mid, bw = median_in(cv, lo, hi, &cnt, &mid);
    if (cnt < NS_PLATEAU_MIN_POINTS) return;
    double nmid, next = median_in(cv, 2 * ns_roofline_capacity(&b->cs, li, cv->threads),
                                  li + 1 < b->cs.n
                                      ? 0.5 * ns_roofline_capacity(&b->cs, li + 1, cv->threads)
                                      : INFINITY,
                                  &ncnt, &nmid);
    /* The last point in range faster than the next level; the first one after it. */
    double fast_ws = 0, slow_ws = INFINITY, slow_bw = NAN, end = 0;
    for (size_t i = 0; i < cv->n; i++)
        if (cv->ws[i] >= lo && cv->ws[i] <= hi && !(cv->bw[i] <= INTERIOR_NEXT_MARGIN * next))
            fast_ws = fmax(fast_ws, cv->ws[i]);
    for (size_t i = 0; ncnt > 0 && i < cv->n; i++)
        if (cv->ws[i] > fast_ws && cv->ws[i] >= lo && cv->ws[i] <= hi && cv->ws[i] < slow_ws)
            slow_ws = cv->ws[i], slow_bw = cv->bw[i];
    for (size_t i = 0; i < cv->n; i++)
        if (cv->ws[i] >= lo && cv->ws[i] < slow_ws) end = fmax(end, cv->ws[i]);
    char why[400], s1[32], s2[32];
    const char *next_name = li + 1 < b->cs.n ? level_name(b->cs.level[li + 1]) : "DRAM";
    const char *suspect = NULL;
    int kept = cnt;
    double kbw = bw, kmid = mid;
    if (isfinite(slow_ws)) {
        kbw = median_in(cv, lo, end, &kept, &kmid);
        fmt_bytes(slow_ws, s1, sizeof s1);
        fmt_bytes(end, s2, sizeof s2);
        if (kept >= NS_PLATEAU_MIN_POINTS) {
            snprintf(why, sizeof why,
                     "ok; no plateau found: median of the points well inside the level's "
                     "working-set range, up to %s: from %s on the rate (%.4g GB/s) falls to "
                     "the %s level's (%.4g GB/s, median of its points), so the level does "
                     "not hold those",
                     s2, s1, slow_bw, next_name, next);
            bw = kbw, mid = kmid, hi = end, cnt = kept;
        } else {
            snprintf(why, sizeof why,
                     "suspect: no plateau found, and from %s on the points fall to the %s "
                     "level's rate (%.4g against %.4g GB/s): the level holds less than its "
                     "reported size, or the sweep was disturbed",
                     s1, next_name, slow_bw, next);
            suspect = why;
        }
    }
    /* Points that scatter more than a plateau's may: their median is no level's rate. */
    double noise, spread;
    char swhy[600], r1[32], r2[32];
    if (!suspect && scatter_in(cv, lo, hi, &noise, &spread)) {
        double plo = lo, phi = hi;
        points_range(cv, lo, hi, &plo, &phi);
        fmt_bytes(plo, r1, sizeof r1);
        fmt_bytes(phi, r2, sizeof r2);
        int len = snprintf(swhy, sizeof swhy,
                           "suspect: no plateau found, and the %d points well inside the "
                           "level's working-set range (%s to %s) scatter: ",
                           cnt, r1, r2);
        if (cnt <= 4 && spread > PLATEAU_SPLIT_RATIO)
            snprintf(swhy + len, sizeof swhy - (size_t)len,
                     "the fastest is %.2gx the slowest, more than the %.3gx a level of <= 4 "
                     "points may spread: their median is no level's rate",
                     spread, PLATEAU_SPLIT_RATIO);
        else
            snprintf(swhy + len, sizeof swhy - (size_t)len,
                     "by %.0f%% (robust sigma around their trend), more than the %.0f%% of a "
                     "plateau: their median is no level's rate",
                     100 * noise, 100 * PLATEAU_MAX_NOISE);
        /* The range was cut where the rate falls to the next level's: said too. */
        len = (int)strlen(swhy);
        if (isfinite(slow_ws) && kept >= NS_PLATEAU_MIN_POINTS)
            snprintf(swhy + len, sizeof swhy - (size_t)len,
                     " (the range ends at %s: from %s on the rate falls to the %s level's)", s2,
                     s1, next_name);
        suspect = swhy;
    }
    add_ceiling(b, ceil, cv, lv, bw, mid, fmax(lo, cv_min_ws(cv)), hi, cnt, "interior", suspect);
    json_t *o = json_array_get(ceil, json_array_size(ceil) - 1);
    if (!suspect && isfinite(slow_ws) && !strcmp(str_or(o, "source", ""), "interior"))
        ns_json_set_str(o, "status", why);
}

/* No DRAM plateau that reaches 4x the LLC: a sweep with coarse steps (--quick: 2x) has too
 * few points beyond the LLC for a plateau of three, and a disturbed one loses it to noise.
 * When the sweep reaches 4x the LLC, its last DRAM_TAIL_POINTS points at >= DRAM_TAIL_FROM
 * times the LLC decide: their median is the DRAM ceiling unless they still fall (each lower
 * than the one before, by more than DRAM_TAIL_FALL in all: the curve has not reached DRAM) or
 * scatter by more than DRAM_TAIL_SCATTER (a disturbed sweep). Scatter without a downward
 * trend is noise, not a missing plateau. Short of 4x but beyond 2x: a suspect ceiling; else a
 * note. */
static void dram_tail_ceiling(build_ctx *b, const curve *cv, const curve_plateaus *p,
                              json_t *ceil) {
    double llc = p->llc, maxws = p->maxws;
    char l[32], w[32];
    fmt_bytes(llc, l, sizeof l);
    fmt_bytes(maxws, w, sizeof w);
    if (p->reaches_4x) {
        double tlo, thi, tbw, spread, fall;
        int cnt = dram_tail(cv, DRAM_TAIL_FROM * llc, &tlo, &thi, &tbw, &spread, &fall);
        char why[240];
        const char *suspect = NULL;
        if (cnt < 2 || fall > DRAM_TAIL_FALL) {
            snprintf(why, sizeof why,
                     "suspect: no DRAM plateau, and the last %d point(s) (%.1fx to %.1fx "
                     "the aggregate LLC, %s) still fall, by %.0f%%: the curve has not "
                     "settled",
                     cnt, tlo / llc, thi / llc, l, 100 * fall);
            suspect = why;
        } else if (spread > DRAM_TAIL_SCATTER) {
            snprintf(why, sizeof why,
                     "suspect: no DRAM plateau, and the last %d points (%.1fx to %.1fx the "
                     "aggregate LLC, %s) scatter by %.0f%%: a disturbed sweep",
                     cnt, tlo / llc, thi / llc, l, 100 * spread);
            suspect = why;
        } else {
            suspect = dram_near_llc(b, p, tbw, why, sizeof why);
        }
        add_ceiling(b, ceil, cv, "DRAM", tbw, sqrt(tlo * thi), tlo, thi, cnt,
                    "largest working sets", suspect);
        json_t *o = json_array_get(ceil, json_array_size(ceil) - 1);
        if (!suspect && !strcmp(str_or(o, "source", ""), "largest working sets")) {
            char fell[40] = "do not fall";
            if (fall > 0) snprintf(fell, sizeof fell, "fall by only %.0f%%", 100 * fall);
            snprintf(why, sizeof why,
                     "ok; no DRAM plateau with %d points at >= 4x the LLC, but the last %d "
                     "points (%.1fx to %.1fx the aggregate LLC, %s) %s and agree "
                     "within %.0f%%: their median",
                     NS_PLATEAU_MIN_POINTS, cnt, tlo / llc, thi / llc, l, fell, 100 * spread);
            ns_json_set_str(o, "status", why);
        }
    } else if (maxws > 2 * llc) {
        /* Short of 4x LLC: the points beyond 2x LLC at the largest working sets give a
         * ceiling, flagged as suspect: a labelled doubt rather than no roof. */
        int cnt;
        double lo = fmax(2 * llc, maxws / 2.1), mid, bw = median_in(cv, lo, INFINITY, &cnt, &mid);
        char why[200];
        snprintf(why, sizeof why,
                 "suspect: no DRAM plateau, and the sweep stops at %s, below 4x the "
                 "aggregate LLC (%s): may hold cache bandwidth",
                 w, l);
        add_ceiling(b, ceil, cv, "DRAM", bw, mid, lo, maxws, cnt, "largest working sets", why);
    } else {
        note(b,
             "%s/%s %d thread%s: no DRAM ceiling; the sweep stops at %s, below 2x the "
             "aggregate LLC (%s)",
             cv->kernel, cv->isa, cv->threads, PLURAL(cv->threads), w, l);
    }
}

/* A level at which the sweep gave this curve no ceiling, but the kernel phase measured the
 * same kernel with its working set there: that measurement is the curve's ceiling (nt: DRAM
 * only). */
static void kernel_phase_only_levels(build_ctx *b, const curve *cv, int nt, json_t *ceil) {
    for (int li = nt ? b->cs.n : 0; b->cs.n && li <= b->cs.n; li++) {
        const char *lv = li < b->cs.n ? level_name(b->cs.level[li]) : "DRAM";
        if (!has_ceiling(ceil, cv, lv))
            add_ceiling(b, ceil, cv, lv, NAN, NAN, NAN, NAN, 0, "kernel phase", NULL);
    }
}

/* Still no DRAM ceiling for lack of memory: an entry without a rate that says so, so the
 * report and the console do not just stop at the last cache level. */
static void dram_not_measured_entry(build_ctx *b, const curve *cv, double maxws, json_t *ceil) {
    char why[400];
    if (!b->cs.n || has_ceiling(ceil, cv, "DRAM") ||
        !dram_memory_reason(b, cv, maxws, why, sizeof why))
        return;
    json_t *o = json_object();
    ns_json_set_str(o, "level", "DRAM");
    ns_json_set_int(o, "threads", cv->threads);
    ns_json_set_str(o, "kernel", cv->kernel);
    ns_json_set_str(o, "isa", cv->isa);
    ns_json_set_str(o, "precision", cv->precision);
    json_object_set_new(o, "gbytes_per_s", json_null());
    ns_json_set_int(o, "points", 0);
    ns_json_set_str(o, "source", "sweep");
    json_object_set_new(o, "suspect", json_false());
    char st[480];
    snprintf(st, sizeof st, "not measured: no DRAM ceiling: %s", why);
    ns_json_set_str(o, "status", st);
    json_array_append_new(ceil, o);
    note(b, "%s/%s %d thread%s: no DRAM ceiling: %s", cv->kernel, cv->isa, cv->threads,
         PLURAL(cv->threads), why);
}

/* Plateaus of one curve -> labelled entries in plateaus[], chosen ones in ceilings; then the
 * levels without a plateau. A curve of non-temporal stores (ns_roofline_nt_stores) gives a
 * DRAM ceiling only. Returns -1 on allocation failure. */
static int ceilings_of_curve(build_ctx *b, const curve *cv, json_t *plateaus, json_t *ceil) {
    curve_plateaus p;
    if (choose_plateaus(b, cv, &p) != 0) return -1;
    ceilings_from_plateaus(b, cv, &p, plateaus, ceil);
    for (int li = 0; !p.nt && li < b->cs.n; li++)
        interior_ceiling(b, cv, &p, li, ceil);
    if (!p.have_dram && b->cs.n) dram_tail_ceiling(b, cv, &p, ceil);
    kernel_phase_only_levels(b, cv, p.nt, ceil);
    dram_not_measured_entry(b, cv, p.maxws, ceil);
    return 0;
}

const char *const ns_sweep_kernels[NS_SWEEP_KERNEL_COUNT] = {"stream_load", "stream_copy",
                                                             "stream_triad", "stream_triad_nt"};

/* 1 when name is a ceiling kernel: one that `nodescale run` sweeps (ns_sweep_kernels), or that
 * has a sweep curve in this file. */
static int ceiling_kernel(const build_ctx *b, const char *name) {
    for (size_t k = 0; k < NS_SWEEP_KERNEL_COUNT; k++)
        if (!strcmp(name, ns_sweep_kernels[k])) return 1;
    for (size_t c = 0; c < b->ncurves; c++)
        if (!strcmp(b->curves[c].kernel, name)) return 1;
    return 0;
}

/* A roof never sits below a measurement of one of its ceiling kernels, swept or not: a ceiling
 * kernel that the kernel phase measured at a thread count where the sweep has no curve of it
 * (`run --quick` sweeps no stream_copy or stream_triad_nt) gives each level where it ran
 * faster than the level's roof a ceiling (source "kernel phase"; add_ceiling with a
 * curve of no points), by the rules a swept curve's kernel-phase measurement follows. Kernels
 * with non-temporal stores: DRAM only. Runs after all swept curves gave their ceilings. */
static void unswept_ceilings(build_ctx *b, json_t *ceil) {
    size_t i, j;
    json_t *r, *q;
    const json_t *results = json_object_get(b->root, "results");
    json_array_foreach(results, i, r) {
        const char *name = str_or(r, "name", NULL), *isa = str_or(r, "isa", ""),
                   *prec = str_or(r, "precision", "");
        int t = json_int(r, "threads", 0), seen = 0;
        if (!name || t < 1 || !ceiling_kernel(b, name)) continue;
        for (size_t c = 0; c < b->ncurves && !seen; c++)
            seen = !strcmp(b->curves[c].kernel, name) && b->curves[c].threads == t;
        json_array_foreach(results, j, q) { /* one pass per (kernel, ISA, precision, threads) */
            if (j >= i || seen) break;
            seen = !strcmp(str_or(q, "name", ""), name) && !strcmp(str_or(q, "isa", ""), isa) &&
                   !strcmp(str_or(q, "precision", ""), prec) && json_int(q, "threads", 0) == t;
        }
        if (seen) continue;
        const char *pol = strcmp(b->policy, "unknown") ? b->policy : NULL;
        curve cv = {.kernel = name, .isa = isa, .precision = prec, .policy = pol, .threads = t};
        for (int li = ns_roofline_nt_stores(name) ? b->cs.n : 0; b->cs.n && li <= b->cs.n; li++) {
            const char *lv = li < b->cs.n ? level_name(b->cs.level[li]) : "DRAM";
            add_ceiling(b, ceil, &cv, lv, NAN, NAN, NAN, NAN, 0, "kernel phase", NULL);
        }
    }
}

/* The compute roof for (precision, threads, mix): the fastest ISA's ceiling of exactly that
 * mix. Mixed ceilings never stand in for FMA-only ones. */
static const json_t *compute_roof(const json_t *compute, const char *prec, int threads,
                                  const char *mix) {
    const json_t *best = NULL;
    size_t i;
    json_t *c;
    json_array_foreach(compute, i, c) {
        const char *p = str_or(c, "precision", ""), *m = str_or(c, "mix", "");
        double g = ns_json_get_num(c, "gflops");
        if (strcasecmp(p, prec) || strcasecmp(m, mix) || json_int(c, "threads", 0) != threads ||
            !(g > 0) || !isfinite(g))
            continue;
        if (!best || g > ns_json_get_num(best, "gflops")) best = c;
    }
    return best;
}

/* The results[] entry whose id is id, or NULL. */
static const json_t *result_by_id(const build_ctx *b, const char *id);
static const char *mix_words(const char *mix);

/* The CV of the samples of compute ceiling c (its result's time_s.cv), or NAN. */
static double ceiling_cv(const build_ctx *b, const json_t *c) {
    return ns_json_get_num(
        json_object_get(result_by_id(b, str_or(c, "result_id", NULL)), "time_s"), "cv");
}

/* The median-sample rate of compute ceiling c: its gflops_median, which `run` writes (and
 * fastest_sample_rates for a file written before it did), else its gflops (the fastest sample)
 * x its result's time_s.min / time_s.median; NAN when neither is there. */
static double ceiling_median(const build_ctx *b, const json_t *c) {
    double med = ns_json_get_num(c, "gflops_median");
    if (isfinite(med)) return med;
    const json_t *ts = json_object_get(result_by_id(b, str_or(c, "result_id", NULL)), "time_s");
    double tmin = ns_json_get_num(ts, "min"), tmed = ns_json_get_num(ts, "median");
    med = ns_json_get_num(c, "gflops") * tmin / tmed;
    return tmin > 0 && tmed > 0 && isfinite(med) ? med : NAN;
}

/* Why the compute ceiling c (one of ceilings.compute[]) is suspect, into buf ("" when it is
 * not); returns 1 when it is. The evidence: its result's samples spread (CV above
 * COMPUTE_MAX_CV, or a fastest sample more than COMPUTE_MAX_SPREAD times its median); an SP
 * vector ceiling below the DP one of the same mix and threads (SP does twice the FLOPs per
 * instruction): both are then suspect; an SP ceiling more than SP_DP_MAX times the DP one of the
 * same mix and threads (a vector holds only twice the elements): both are then suspect (DP too
 * low or SP too high); an ADD-only ceiling above the FMA-only one of the same precision and
 * threads (an add does half the FLOPs of an FMA on the same or fewer ports): both are then
 * suspect (not so FMA+ADD, whose adds may issue on ports of their own);
 * a T-thread ceiling more than SCALING_SLACK x T times the 1-thread one of the same precision
 * and mix (T threads cannot give more than T times one): both are then suspect; a T-thread
 * ceiling that the 1-thread one exceeds by more than SCALING_SLACK times (T threads cannot do
 * less than one): both are then suspect. Which one is wrong the ceilings alone cannot tell, and
 * the reasons say so. */
static int compute_suspect(const build_ctx *b, const json_t *compute, const json_t *c, char *buf,
                           size_t len) {
    const char *prec = str_or(c, "precision", ""), *mix = str_or(c, "mix", "");
    int t = json_int(c, "threads", 0);
    double g = ns_json_get_num(c, "gflops"), med = ceiling_median(b, c);
    double cvv = ceiling_cv(b, c);
    size_t n = 0;
    buf[0] = 0;
#define ADD(...) ns_appendf(buf, len, &n, __VA_ARGS__)
#define SEP (n ? "; " : "")
    if (cvv > COMPUTE_MAX_CV)
        ADD("%sits measurement was disturbed (CV %.0f%%)", SEP, 100 * cvv);
    if (med > 0 && g > COMPUTE_MAX_SPREAD * med)
        ADD("%sits fastest sample (%.4g GFLOP/s) is %.2gx its median (%.4g)", SEP, g, g / med, med);
    /* A vector instruction holds twice as many SP elements; a scalar one does the same work. */
    const json_t *dp = !strcasecmp(prec, "sp") && strncasecmp(mix, "scalar", 6)
                           ? compute_roof(compute, "dp", t, mix)
                           : NULL;
    double gd = dp ? ns_json_get_num(dp, "gflops") : NAN;
    if (gd > g)
        ADD("%sit is below the DP %s ceiling (%.4g GFLOP/s), although SP does twice the FLOPs "
            "per instruction: the SP ceiling is too low or the DP one too high",
            SEP, mix_words(mix), gd);
    const json_t *sp = !strcasecmp(prec, "dp") && strncasecmp(mix, "scalar", 6)
                           ? compute_roof(compute, "sp", t, mix)
                           : NULL;
    double gs = sp ? ns_json_get_num(sp, "gflops") : NAN;
    if (gs < g)
        ADD("%sthe SP %s ceiling (%.4g GFLOP/s) is below this one, although SP does twice the "
            "FLOPs per instruction: the SP ceiling is too low or the DP one too high",
            SEP, mix_words(mix), gs);
    /* ADD-only above FMA-only: an add does half the FLOPs of an FMA, on the same or fewer
     * ports. (FMA+ADD may pass FMA-only: on some cores adds issue on ports of their own.) */
    int is_add = !strcasecmp(mix, "add"), is_fma = !strcasecmp(mix, "fma");
    const json_t *pair =
        is_add || is_fma ? compute_roof(compute, prec, t, is_add ? "fma" : "add") : NULL;
    double gp = pair ? ns_json_get_num(pair, "gflops") : NAN;
    if (is_add ? g > gp : gp > g)
        ADD("%s%s (%.4g GFLOP/s)%s, though an add does half the FLOPs of an FMA on the same or "
            "fewer ports: the ADD-only ceiling is too high or the FMA-only one too low",
            SEP, is_add ? "it is above the FMA-only ceiling" : "the ADD-only ceiling", gp,
            is_add ? "" : " is above this one");
    /* More than twice DP: the DP ceiling is too low (disturbed) or this one too high. */
    const json_t *other = !strcasecmp(prec, "sp")   ? compute_roof(compute, "dp", t, mix)
                          : !strcasecmp(prec, "dp") ? compute_roof(compute, "sp", t, mix)
                                                    : NULL;
    double go = other ? ns_json_get_num(other, "gflops") : NAN;
    if (!strcasecmp(prec, "sp") && g > SP_DP_MAX * go)
        ADD("%sit is %.3gx the DP %s ceiling (%.4g GFLOP/s), more than the 2x of a vector "
            "holding twice the SP elements: the DP ceiling is too low or this one too high",
            SEP, g / go, mix_words(mix), go);
    if (!strcasecmp(prec, "dp") && go > SP_DP_MAX * g)
        ADD("%sthe SP %s ceiling (%.4g GFLOP/s) is %.3gx this one, more than the 2x of a "
            "vector holding twice the SP elements: this one is too low or the SP one too high",
            SEP, mix_words(mix), go, go / g);
    if (t > 1) {
        const json_t *one = compute_roof(compute, prec, 1, mix);
        double g1 = one ? ns_json_get_num(one, "gflops") : NAN;
        if (g > SCALING_SLACK * t * g1)
            ADD("%sit is %.2gx the 1-thread ceiling (%.4g GFLOP/s) on %d threads, more than %d "
                "threads can give: the 1-thread ceiling is too low or this one too high",
                SEP, g / g1, g1, t, t);
        if (g1 > SCALING_SLACK * g)
            ADD("%sit is below the 1-thread ceiling (%.4g GFLOP/s) by %.0f%%, though %d threads "
                "cannot do less than one: this one is too low or the 1-thread one too high",
                SEP, g1, 100 * (1 - g / g1), t);
    } else if (t == 1) {
        size_t i;
        json_t *e;
        json_array_foreach(compute, i, e) {
            int tt = json_int(e, "threads", 0);
            if (tt < 2 || compute_roof(compute, prec, tt, mix) != e) continue;
            double gt = ns_json_get_num(e, "gflops");
            if (gt > SCALING_SLACK * tt * g)
                ADD("%sthe %d-thread ceiling (%.4g GFLOP/s) is %.2gx this one, more than %d "
                    "threads can give: this one is too low or that one too high",
                    SEP, tt, gt, gt / g, tt);
            if (g > SCALING_SLACK * gt)
                ADD("%sthe %d-thread ceiling (%.4g GFLOP/s) is %.0f%% below this one, though %d "
                    "threads cannot do less than one: this one is too high or that one too low",
                    SEP, tt, gt, 100 * (1 - gt / g), tt);
        }
    }
#undef SEP
#undef ADD
    return n > 0;
}

/* The roof of level at threads of load/store class cls, or NULL. */
static const bw_roof *find_class_roof(const build_ctx *b, const char *level, int threads,
                                      int cls) {
    for (size_t r = 0; r < b->nroofs; r++)
        if (!strcmp(b->roofs[r].level, level) && b->roofs[r].threads == threads &&
            b->roofs[r].cls == cls)
            return &b->roofs[r];
    return NULL;
}

/* The roof of level at threads whatever the class (the level's roof, drawn in the pictures): a
 * trusted one before a suspect one, then the fastest; NULL when none. */
static const bw_roof *find_bw_roof(const build_ctx *b, const char *level, int threads) {
    const bw_roof *best = NULL;
    for (size_t r = 0; r < b->nroofs; r++) {
        const bw_roof *ro = &b->roofs[r];
        if (strcmp(ro->level, level) || ro->threads != threads) continue;
        if (!best || (best->suspect && !ro->suspect) ||
            (best->suspect == ro->suspect && ro->gbytes_per_s > best->gbytes_per_s))
            best = ro;
    }
    return best;
}

static void set_or_null(json_t *o, const char *key, double v) {
    json_object_set_new(o, key, isfinite(v) ? json_real(v) : json_null());
}

/* The compute roof's mix for a kernel whose result states none (files written before stream and
 * reduce results recorded it). Reductions and STREAM kernels are memory bound
 * (ns_family_memory_bound): they are judged by the bandwidth roof, and their compute roof (kept
 * in the min() so an L1-resident sum that outruns the adders is still called compute bound) is
 * the ceiling of the instructions they issue, their descriptor's mix (kernels/registry.h):
 * ADD-only for sums (and STREAM add), FMA-only for dot products, norms and triads; none
 * (bandwidth roof only) for copy, scale, load and max-abs, whose arithmetic no ceiling of ours
 * measures, and for a name no descriptor has. Everything else (GEMM) gets FMA-only. */
static const char *default_mix(const char *family, const char *name) {
    if (!ns_family_memory_bound(family)) return "fma";
    size_t n;
    const ns_kernel *const *all = ns_registry(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(all[i]->name, name)) return all[i]->mix;
    return NULL;
}

static const char *mix_words(const char *mix) {
    return !strcasecmp(mix, "fma")       ? "FMA-only"
           : !strcasecmp(mix, "add")     ? "ADD-only"
           : !strcasecmp(mix, "fma+add") ? "FMA+ADD"
                                         : mix;
}

static const json_t *result_by_id(const build_ctx *b, const char *id) {
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(b->root, "results"), i, r) {
        const char *s = str_or(r, "id", NULL);
        if (id && s && !strcmp(s, id)) return r;
    }
    return NULL;
}

/* Why kernel r is above its compute roof cr (gflops against cg), from the evidence the run
 * recorded, never a guess: boost only when the kernel's own clock probe (per_cycle.clock_ghz,
 * taken right around its samples) ran more than CLOCK_BOOST_MIN times the ceiling's recorded
 * clock (freq_ghz, the same probe around the ceiling's samples); a disturbed ceiling when its
 * samples spread (fastest against median, or the CV of its result); otherwise the kernel beat
 * the ceiling kernel. The run-level probe (context.clock_probe) says nothing of the clock either
 * ran at. A clock difference explains at most the ratio of the clocks; the other causes are
 * added when the excess is larger. */
static void above_compute_reason(const build_ctx *b, const json_t *r, const json_t *cr,
                                 const char *mix, double gflops, double cg, char *buf,
                                 size_t len) {
    const json_t *pc = json_object_get(r, "per_cycle");
    double kclk = ns_json_get_num(pc, "clock_ghz");
    if (!(kclk > 0))
        kclk = fmax(ns_json_get_num(pc, "clock_before_ghz"),
                    ns_json_get_num(pc, "clock_after_ghz"));
    double fq = ns_json_get_num(cr, "freq_ghz");
    double med = ceiling_median(b, cr);
    double cvv = ceiling_cv(b, cr);
    size_t n = 0;
    buf[0] = 0;
#define ADD(...) ns_appendf(buf, len, &n, __VA_ARGS__)
    /* A clock difference explains at most the ratio of the clocks; beyond that, other causes. */
    double excess = gflops / cg - 1, clock_gain = NAN;
    int clocks = fq > 0 && kclk > 0;
    if (clocks && kclk > CLOCK_BOOST_MIN * fq) {
        clock_gain = kclk / fq - 1;
        ADD("the ceiling was measured at %.2f GHz, this kernel's own clock probe saw %.2f GHz "
            "(boost), which explains up to %.0f%%",
            fq, kclk, 100 * clock_gain);
    }
    int clock_enough = clock_gain >= excess - CLOCK_EXCESS_SLACK;
    int spread = med > 0 && med < ABOVE_ROOF_MEDIAN_FRAC * cg;
    int noisy = cvv > ABOVE_ROOF_CV;
    if ((spread || noisy) && !clock_enough) {
        ADD("%sthe ceiling's measurement was disturbed (", n ? "; beyond that, " : "");
        if (spread) ADD("fastest sample %.4g, median %.4g GFLOP/s", cg, med);
        if (noisy) ADD("%sCV %.0f%%", spread ? ", " : "", 100 * cvv);
        ADD(")");
    }
    if (!clock_enough && !spread && !noisy) {
        ADD("%sthis kernel beat the %s ceiling kernel: %.4g against %.4g GFLOP/s",
            n ? "; beyond that, " : "", mix_words(mix), gflops, cg);
        if (med > 0) ADD(" (ceiling: fastest sample, median %.4g)", med);
        if (clocks && !isfinite(clock_gain))
            ADD("; no boost: this kernel's own clock probe saw %.2f GHz, the ceiling's %.2f GHz",
                kclk, fq);
    }
#undef ADD
}

/* "; above the roof by X%[ in its fastest sample]: cause" for a kernel at fraction frac of the
 * bandwidth roof br, streaming gbps GB/s (`at` qualifies it: "" or " at its AI"; `stat` is ""
 * for the median or FASTEST), into buf. */
#define FASTEST " in its fastest sample (the statistic the ceilings are measured with)"
static void above_bandwidth_reason(const bw_roof *br, double frac, double gbps, const char *at,
                                   const char *stat, char *buf, size_t len) {
    /* A roof that is the median of several sweep points' fastest samples lies below the
     * fastest of them: a rate within those points is the level's own rate, not a faster one. */
    if (br->npoints > 1 && gbps <= br->pt_max * (1 + 1e-9))
        snprintf(buf, len,
                 "; above the roof by %.1f%%%s: the %s ceiling (%s) is the median of the "
                 "fastest samples of its %d sweep points, the fastest of which ran at %.4g "
                 "GB/s, and this kernel's rate (%.4g GB/s%s) lies within them",
                 100 * (frac - 1), stat, br->level, br->kernel, br->npoints, br->pt_max, gbps, at);
    else
        snprintf(buf, len,
                 "; above the roof by %.1f%%%s: part of the working set lives in a faster level, "
                 "or the %s ceiling kernel (%s, %.4g GB/s) is slower than this one (%.4g GB/s%s)",
                 100 * (frac - 1), stat, br->level, br->kernel, br->gbytes_per_s, gbps, at);
}

/* The roof of a kernel of load/store class cls at level and threads: its class's, else (no
 * ceiling of its class there, or a kernel of no class) the level's. */
static const bw_roof *roof_for(const build_ctx *b, const char *level, int threads, int cls) {
    const bw_roof *br = cls != NS_CLS_NONE ? find_class_roof(b, level, threads, cls) : NULL;
    return br ? br : find_bw_roof(b, level, threads);
}

/* "; no CLASS ceiling at LEVEL for T threads: its roof is KERNEL's (CLASS), which moves
 * different real bytes: ..." for a kernel (name, class kcls) whose roof br is of another
 * load/store class, with how much, by the bytes policy's count, and its fraction frac by real
 * bytes; "" when the classes agree or the kernel has none. */
static void other_class_text(const build_ctx *b, const bw_roof *br, const char *name, int kcls,
                             double frac, char *buf, size_t len) {
    buf[0] = 0;
    if (!br || kcls == NS_CLS_NONE || br->cls == kcls) return;
    double fk = real_bytes_factor(name, kcls, b->policy);
    double fr = real_bytes_factor(br->kernel, br->cls, b->policy);
    size_t n = 0;
    ns_appendf(buf, len, &n,
               "; no %s ceiling at %s for %d thread%s: its roof is %s's (%s), which moves "
               "different real bytes",
               class_names[kcls], br->level, br->threads, PLURAL(br->threads), br->kernel,
               br->cls >= 0 ? class_names[br->cls] : "another load/store class");
    if (isfinite(fk) && isfinite(fr) && fk != fr) {
        ns_appendf(buf, len, &n,
                   ": per byte counted, %s really moves %.3g B and this kernel %.3g B (write-"
                   "allocating stores read each line before writing it)",
                   br->kernel, fr, fk);
        if (isfinite(frac))
            ns_appendf(buf, len, &n, ", so by real bytes its fraction of the roof is %.1f%%",
                       100 * frac * fk / fr);
    } else if (isfinite(fk) && isfinite(fr)) {
        ns_appendf(buf, len, &n, ": both move the bytes they count, but %s",
                   kcls == NS_CLS_READ || br->cls == NS_CLS_READ
                       ? "one of them stores nothing (no store port, no store stream)"
                       : "their stores differ (non-temporal ones bypass the caches)");
    } else {
        ns_appendf(buf, len, &n, ": by how much, bytes_policy %s does not tell", b->policy);
    }
}

/* Width order of the ISAs a kernel or a ceiling records; -1 for one not known. "scalar" is
 * baseline x86-64 code, SSE2 (its peak ceilings run 2 DP lanes): as wide as a peer's "sse". */
static int isa_rank(const char *isa) {
    static const char *const order[] = {"scalar", "sse", "avx", "avx2", "avx512"};
    for (int i = 0; isa && i < 5; i++)
        if (!strcasecmp(isa, order[i])) return i < 1 ? 0 : i - 1;
    return -1;
}

/* The ISA a result's instructions use: its own isa, or for a GEMM peer ("blis", "openblas")
 * the one context.gemm.peers[] records (the core OpenBLAS loaded, BLIS's configuration);
 * NULL when unknown. *peer is set to 1 for a peer. */
static const char *kernel_isa(const build_ctx *b, const json_t *r, int *peer) {
    const char *isa = str_or(r, "isa", NULL);
    *peer = 0;
    if (!isa || isa_rank(isa) >= 0) return isa;
    const json_t *peers =
        json_object_get(json_object_get(json_object_get(b->root, "context"), "gemm"), "peers");
    size_t i;
    json_t *e;
    json_array_foreach(peers, i, e) {
        if (!strcmp(str_or(e, "name", ""), isa)) return *peer = 1, str_or(e, "isa", NULL);
    }
    return NULL;
}

/* One results[] entry being judged (roof_of_result): what it states, its roofs, the verdict. */
typedef struct {
    const char *prec, *name, *id, *mix, *level;
    int threads, asked, used; /* judged at, asked for, ran on (threads_used) */
    int membound;             /* a memory-bound family (ns_family_memory_bound) */
    int in_registers;         /* no bytes, some FLOPs (peak kernels): compute roof only */
    int no_flops;             /* bytes, no FLOPs (copy-like): judged by the bandwidth ceiling */
    int nt_cache;             /* non-temporal stores at a cache working set: no roof */
    int kcls;                 /* its load/store class (ns_roofline_kernel_class) */
    int fell_back;            /* judged at the threads it asked for: none measured at its own */
    int peer;                 /* a GEMM peer; kisa is the ISA its library runs */
    const char *kisa, *narrower; /* the kernel's ISA; the narrower ISA of its compute ceiling */
    double ws, gflops, ai;
    const json_t *cr;  /* compute roof; NULL: none */
    const bw_roof *br; /* bandwidth roof; NULL: none */
    double cg, bw;     /* their rates (NAN: none) */
    double roof, frac, frac_fast, speed; /* attainable, fraction of it (median, fastest sample) */
    int bwb;           /* the bandwidth roof is the lower one */
    int roof_suspect;  /* the limiting roof is suspect */
    int own_c, own_b;  /* it is its compute / bandwidth roof's own measurement */
    int fast_above;    /* above the roof only in its fastest sample */
    char limit[24];    /* roof_limit: "compute", "bandwidth:LEVEL", "" */
    char status[1400]; /* roof_status */
    double mai, mroof; /* counter-measured AI, and the roof there */
} judged;

/* The kernel's mix, level, compute and bandwidth roofs, at the threads it ran on or (when no
 * ceiling was measured there) the threads it asked for. */
static void pick_roofs(build_ctx *b, json_t *r, const json_t *compute, judged *k) {
    k->prec = str_or(r, "precision", NULL);
    k->name = str_or(r, "name", "?");
    /* Judged at the threads it ran on: GEMM runs small calls on fewer (threads_used). */
    k->threads = json_int(r, "threads", 0), k->asked = k->threads;
    k->used = json_int(r, "threads_used", k->threads);
    if (k->used > 0 && k->used < k->threads) k->threads = k->used;
    k->ws = ns_json_get_num(r, "working_set_bytes");
    k->gflops = ns_json_get_num(r, "gflops");
    k->ai = ns_json_get_num(r, "ai_flop_per_byte");
    if (!isfinite(k->ai)) {
        double f = ns_json_get_num(r, "flops"), by = ns_json_get_num(r, "bytes");
        if (isfinite(f) && isfinite(by) && f > 0 && by > 0) {
            k->ai = f / by;
            json_object_set_new(r, "ai_flop_per_byte", json_real(k->ai));
        }
    }
    /* The kernel's instruction mix: its own, that of the compute ceiling it measured, or the
     * default of its family (default_mix). */
    const char *mix = str_or(r, "mix", NULL);
    k->id = str_or(r, "id", NULL);
    size_t ci;
    json_t *ce;
    json_array_foreach(compute, ci, ce) {
        if (!mix && k->id && !strcmp(str_or(ce, "result_id", ""), k->id))
            mix = str_or(ce, "mix", NULL);
    }
    const char *family = str_or(r, "family", NULL);
    k->membound = ns_family_memory_bound(family);
    if (!mix) mix = default_mix(family, k->name);
    k->mix = mix;
    /* Register-resident (peak kernels): no memory traffic, only the compute roof applies. A
     * memory-bound family is never register-resident, whatever its bytes say. */
    double nbytes = ns_json_get_num(r, "bytes");
    double nflops = ns_json_get_num(r, "flops");
    k->in_registers = nbytes == 0 && nflops > 0 && !k->membound;
    k->no_flops = nflops == 0 && nbytes > 0;
    const char *prec = k->prec;
    k->level = ns_roofline_level_of(&b->cs, k->ws, k->threads);
    k->cr = prec && k->threads > 0 && mix ? compute_roof(compute, prec, k->threads, mix) : NULL;
    /* Non-temporal stores go to memory while the loads come from the level: no one ceiling. */
    k->nt_cache = k->level && strcmp(k->level, "DRAM") && ns_roofline_nt_stores(k->name);
    k->kcls = ns_roofline_kernel_class(k->name, family);
    k->br = k->level && !k->nt_cache ? roof_for(b, k->level, k->threads, k->kcls) : NULL;
    /* Ceilings are measured at 1 and all threads only: a result that ran on a count in between
     * is judged, as its id says, at the threads it asked for (its fraction then reads low, and
     * roof_status says why). */
    k->fell_back = 0;
    if (k->threads < k->asked &&
        ((!k->cr && !k->membound) || (k->level && !k->nt_cache && !k->br))) {
        k->fell_back = 1, k->threads = k->asked;
        k->level = ns_roofline_level_of(&b->cs, k->ws, k->threads);
        k->cr = prec && mix ? compute_roof(compute, prec, k->threads, mix) : NULL;
        k->br = k->level && !k->nt_cache ? roof_for(b, k->level, k->threads, k->kcls) : NULL;
    }
    /* A compute ceiling of a narrower ISA than the kernel's does not bound it: a peer that runs
     * AVX-512 kernels where only AVX2 ceilings were measured (NODESCALE_ISA=avx2) has no roof. */
    k->peer = 0;
    k->kisa = kernel_isa(b, r, &k->peer);
    const char *cisa = k->cr ? str_or(k->cr, "isa", NULL) : NULL;
    k->narrower =
        k->cr && isa_rank(cisa) >= 0 && isa_rank(k->kisa) > isa_rank(cisa) ? cisa : NULL;
    if (k->narrower) k->cr = NULL;
    k->cg = k->cr ? ns_json_get_num(k->cr, "gflops") : NAN;
    k->bw = k->br ? k->br->gbytes_per_s : NAN;
}

/* The attainable roof, and the fraction of it the kernel reached at its median and at its
 * fastest sample (the statistic the ceilings themselves are taken with). */
static void judge_roof(const json_t *r, judged *k) {
    k->bwb = 0, k->roof_suspect = 0;
    if (k->in_registers && k->cr)
        k->roof = k->cg;
    else if (k->membound && !k->cr) { /* bandwidth roof only */
        k->roof = k->prec && k->threads > 0 && isfinite(k->ai) && k->ai > 0 && k->bw > 0
                      ? k->ai * k->bw
                      : NAN;
        k->bwb = 1;
    } else
        k->roof = ns_roofline_attainable(k->ai, k->cg, k->bw, &k->bwb);
    k->frac = isfinite(k->roof) && isfinite(k->gflops) && k->gflops >= 0 ? k->gflops / k->roof
                                                                          : NAN;
    const json_t *ts = json_object_get(r, "time_s");
    double tmin = ns_json_get_num(ts, "min"), tmed = ns_json_get_num(ts, "median");
    k->speed = tmin > 0 && tmed > 0 ? tmed / tmin : NAN; /* fastest over median rate */
    k->frac_fast = isfinite(k->frac) ? k->frac * k->speed : NAN;
    /* Above the roof only in the fastest sample: flagged like a median above it (the same
     * causes), except where this entry is the roof's own measurement (a compute ceiling, or a
     * kernel-phase bandwidth ceiling), which cannot beat itself (1e-9: rounding). */
    k->own_c = k->cr && k->id && !strcmp(str_or(k->cr, "result_id", ""), k->id);
    k->own_b = k->br && k->id && k->br->result_id && !strcmp(k->br->result_id, k->id);
    k->fast_above = !(k->frac > 1.0) && k->frac_fast > 1.0 + 1e-9;
    k->limit[0] = 0;
}

/* roof_status and roof_limit: why there is no roof; else which roof judges the kernel, whether
 * it is suspect, and the cause of a point above it. A copy-like kernel (no FLOPs) is judged by
 * its bandwidth against the level's ceiling (frac becomes that). */
static void roof_status_text(build_ctx *b, const json_t *r, const json_t *compute, judged *k) {
    char *status = k->status;
    const size_t cap = sizeof k->status;
    const char *prec = k->prec, *mix = k->mix, *level = k->level;
    int threads = k->threads;
    snprintf(status, cap, "ok");
    if (k->in_registers && k->cr) {
        k->ai = NAN;
        k->level = level = NULL;
        snprintf(status, cap, "ok; register-resident: compute roof only");
    } else if (!prec || threads < 1)
        snprintf(status, cap, "no roof: precision or threads missing");
    else if (!level)
        snprintf(status, cap, "no roof: %s",
                 b->cs.n ? "working_set_bytes missing or not positive" : "no cache sizes");
    else if (k->nt_cache)
        snprintf(status, cap,
                 "no roof: its non-temporal stores go to memory whatever the working set, while "
                 "its loads come from %s: neither the %s nor the DRAM ceiling describes it (it is "
                 "judged at DRAM working sets)",
                 level, level);
    else if (k->narrower && !k->membound)
        snprintf(status, cap,
                 "no roof: it runs %s kernels%s, wider than the widest %s compute ceiling for %s "
                 "at %d thread%s (%s): no %s ceiling was measured",
                 k->kisa, k->peer ? " (context.gemm.peers)" : "", mix_words(mix), prec, threads,
                 PLURAL(threads), k->narrower, k->kisa);
    else if (!k->cr && !k->membound)
        snprintf(status, cap, "no roof: no %s compute ceiling for %s at %d thread%s", mix, prec,
                 threads, PLURAL(threads));
    else if (!k->br)
        snprintf(status, cap, "no roof: no %s bandwidth ceiling at %d thread%s", level, threads,
                 PLURAL(threads));
    else if (!(isfinite(k->ai) && k->ai > 0) && !k->no_flops)
        snprintf(status, cap, "no roof: arithmetic intensity unknown");

    const bw_roof *br = k->br;
    double bw = k->bw, cg = k->cg;
    size_t len = strlen(status);
#define ADD(...) ns_appendf(status, cap, &len, __VA_ARGS__)
    if (k->no_flops && br) {
        /* Copy-like kernels do no arithmetic: judge their bandwidth against the level's. */
        double gbps = ns_json_get_num(r, "gbytes_per_s");
        k->frac = gbps >= 0 ? gbps / bw : NAN;
        k->frac_fast = isfinite(k->frac) ? k->frac * k->speed : NAN;
        k->roof_suspect = br->suspect;
        k->fast_above = !(k->frac > 1.0) && k->frac_fast > 1.0 + 1e-9;
        snprintf(k->limit, sizeof k->limit, "bandwidth:%s", level);
        len = 0;
        ADD("ok; no flops: roof_gflops is null and fraction_of_roof is of the %s bandwidth "
            "ceiling (%.4g GB/s, %s)%s",
            level, bw, br->kernel, br->suspect ? " (suspect, see ceilings.bandwidth)" : "");
        if (len < cap) {
            if (k->frac > 1.0)
                above_bandwidth_reason(br, k->frac, gbps, "", "", status + len, cap - len);
            else if (k->fast_above && !k->own_b)
                above_bandwidth_reason(br, k->frac_fast, gbps * k->speed, "", FASTEST,
                                       status + len, cap - len);
        }
    } else if (isfinite(k->roof)) {
        int bwb = k->bwb;
        snprintf(k->limit, sizeof k->limit, bwb ? "bandwidth:%s" : "compute", level);
        const char *pol = str_or(r, "bytes_policy", NULL);
        if (k->membound && !br) {
            /* A compute roof alone (a non-temporal kernel at a cache level, or bytes 0). */
            ADD("; memory bound (%s), but no bandwidth ceiling applies (%s%s): judged by the "
                "compute roof alone",
                str_or(r, "family", "?"), level ? "level " : "level unknown", level ? level : "");
        } else if (k->membound && bwb) {
            /* Worded by the limit applied: a memory-bound kind of kernel whose compute roof is
             * the lower one here (an L1-resident sum) is judged by that compute roof. */
            ADD("; memory bound (%s): judged by the %s bandwidth ceiling (%.4g GB/s, %s)",
                str_or(r, "family", "?"), level, bw, br->kernel);
            if (k->cr)
                ADD("; compute roof: the %s ceiling (%.4g GFLOP/s)", mix_words(mix), cg);
            else
                ADD("; no compute roof (%s)",
                    mix ? "no such ceiling measured" : "no ceiling measures its arithmetic");
        } else if (k->membound) {
            ADD("; a memory-bound kind of kernel (%s), compute bound here: judged by the %s "
                "compute ceiling (%.4g GFLOP/s), below its AI x the %s bandwidth ceiling (%.4g "
                "GB/s, %s) = %.4g GFLOP/s",
                str_or(r, "family", "?"), mix_words(mix), cg, level, bw, br->kernel, k->ai * bw);
        }
        if (bwb && br->suspect) ADD("; the %s ceiling is suspect (see ceilings.bandwidth)", level);
        char csus[900];
        if (!bwb && k->cr && compute_suspect(b, compute, k->cr, csus, sizeof csus)) {
            ADD("; its roof, the %s compute ceiling (%.4g GFLOP/s), is suspect: %s",
                mix_words(mix), cg, csus);
            k->roof_suspect = 1;
        }
        if (bwb && br->suspect) k->roof_suspect = 1;
        if (bwb && pol && strcmp(pol, b->policy))
            ADD("; bytes_policy %s differs from the ceilings' %s", pol, b->policy);
        int above = k->frac > 1.0, fast = k->fast_above && !(bwb ? k->own_b : k->own_c);
        double fr = above ? k->frac : k->frac_fast, g = above ? k->gflops : k->gflops * k->speed;
        if (above || fast) {
            if (bwb) {
                if (len < cap)
                    above_bandwidth_reason(br, fr, g / k->ai, " at its AI", above ? "" : FASTEST,
                                           status + len, cap - len);
            } else {
                char why[400];
                above_compute_reason(b, r, k->cr, mix, g, cg, why, sizeof why);
                ADD("; above the roof by %.1f%%%s: %s", 100 * (fr - 1), above ? "" : FASTEST, why);
            }
        }
    }
#undef ADD
    /* Judged by the bandwidth roof of another load/store class: says so, and by how much. */
    if (!strncmp(k->limit, "bandwidth", 9)) {
        len = strlen(status);
        if (len < cap) other_class_text(b, br, k->name, k->kcls, k->frac, status + len, cap - len);
    }
}

/* The roof this kernel is judged against (its limit) is a roof in use, unless the kernel is
 * that roof's own measurement. */
static void mark_roof_used(build_ctx *b, const judged *k) {
    /* The compute roof of a kernel other than its own measurement is a roof (ceilings_used),
     * whatever its limit. */
    if (k->cr && !k->own_c && isfinite(k->roof)) {
        size_t i = 0;
        while (i < b->nroof_compute && b->roof_compute[i] != k->cr)
            i++;
        if (i == b->nroof_compute && i < sizeof b->roof_compute / sizeof b->roof_compute[0])
            b->roof_compute[b->nroof_compute++] = k->cr;
    }
    if (!*k->limit || !isfinite(k->frac)) return;
    if (strncmp(k->limit, "bandwidth", 9)) {
        size_t i = 0;
        while (i < b->nused_compute && b->used_compute[i] != k->cr)
            i++;
        if (k->cr && !k->own_c && i == b->nused_compute &&
            i < sizeof b->used_compute / sizeof b->used_compute[0])
            b->used_compute[b->nused_compute++] = k->cr;
    } else if (k->br && !k->own_b) {
        b->roofs[k->br - b->roofs].used = 1;
    }
}

/* The roof fields of results[] entry r (level, roof_*, fraction_of_roof*, peer_isa), its
 * roof_status with the thread note, and the bound at the counter-measured AI (k->mroof). */
static void write_roof_fields(json_t *r, judged *k) {
    ns_json_set_str(r, "level", k->level);
    set_or_null(r, "roof_gflops", k->roof);
    set_or_null(r, "fraction_of_roof", k->frac);
    set_or_null(r, "fraction_of_roof_fastest", k->frac_fast);
    ns_json_set_str(r, "roof_limit", *k->limit ? k->limit : NULL);
    ns_json_set_str(r, "roof_mix", k->cr || !k->membound ? k->mix : NULL);
    if (k->peer && k->kisa) ns_json_set_str(r, "peer_isa", k->kisa);
    set_or_null(r, "roof_compute_gflops", k->cg);
    set_or_null(r, "roof_gbytes_per_s", k->bw);
    if (*k->limit && !isfinite(k->frac))
        snprintf(k->status, sizeof k->status, "ok; fraction_of_roof unknown: not measured");
    if (k->threads < k->asked || k->fell_back) {
        size_t len = strlen(k->status);
        if (k->fell_back)
            ns_appendf(k->status, sizeof k->status, &len,
                       "; judged at its %d threads though it ran on %d (threads_note): no ceiling "
                       "was measured at %d%s",
                       k->asked, k->used, k->used,
                       isfinite(k->frac) ? ", so its fraction reads low" : "");
        else
            ns_appendf(k->status, sizeof k->status, &len,
                       "; judged at %d thread%s: it ran on %d of its %d (threads_note)",
                       k->threads, k->threads == 1 ? "" : "s", k->threads, k->asked);
    }
    ns_json_set_str(r, "roof_status", k->status);

    /* The same bound at the arithmetic intensity measured with counters (analytic FLOPs over
     * counted bytes), where the counters pass produced one. */
    const json_t *mj = json_object_get(json_object_get(json_object_get(r, "counters"), "derived"),
                                       "measured_ai_flop_per_byte");
    k->mai = ns_json_get_num(mj, "value");
    k->mroof = k->in_registers                       ? NAN
               : k->membound && !k->cr && k->mai > 0 ? k->mai * k->bw
                                                     : ns_roofline_attainable(k->mai, k->cg,
                                                                              k->bw, NULL);
    if (isfinite(k->mai)) set_or_null(r, "roof_gflops_at_measured_ai", k->mroof);
}

/* Appends the kernel's point (roofline.points[]) to points. */
static void append_point(const json_t *r, const judged *k, json_t *points) {
    json_t *p = json_object();
    ns_json_set_str(p, "id", str_or(r, "id", k->name));
    ns_json_set_str(p, "name", k->name);
    ns_json_set_str(p, "family", str_or(r, "family", NULL));
    ns_json_set_str(p, "isa", str_or(r, "isa", NULL));
    if (k->peer && k->kisa) ns_json_set_str(p, "peer_isa", k->kisa);
    ns_json_set_str(p, "precision", k->prec);
    ns_json_set_int(p, "threads", k->threads);
    ns_json_set_str(p, "level", k->level);
    if (json_is_object(json_object_get(r, "params")))
        json_object_set(p, "params", json_object_get(r, "params"));
    set_or_null(p, "working_set_bytes", k->ws);
    set_or_null(p, "ai_flop_per_byte", k->ai);
    set_or_null(p, "measured_ai_flop_per_byte", k->mai);
    set_or_null(p, "roof_gflops_at_measured_ai", k->mroof);
    set_or_null(p, "gflops", k->gflops);
    set_or_null(p, "roof_gflops", k->roof);
    set_or_null(p, "fraction_of_roof", k->frac);
    json_object_set_new(p, "above_roof", json_boolean(k->frac > 1.0));
    json_object_set_new(p, "roof_suspect", json_boolean(k->roof_suspect));
    ns_json_set_str(p, "roof_limit", *k->limit ? k->limit : NULL);
    ns_json_set_str(p, "status", k->status);
    json_array_append_new(points, p);
}

/* Roof fields of one results[] entry; appends its point to points[]. */
static void roof_of_result(build_ctx *b, json_t *r, const json_t *compute, json_t *points) {
    judged k;
    pick_roofs(b, r, compute, &k);
    judge_roof(r, &k);
    roof_status_text(b, r, compute, &k);
    mark_roof_used(b, &k);
    write_roof_fields(r, &k);
    append_point(r, &k, points);
}

void ns_roofline_percent(double frac, char *buf, size_t len) {
    for (int d = 0;; d++) {
        snprintf(buf, len, "%.*f%%", d, 100 * frac);
        int reads_100 = !strncmp(buf, "100", 3) &&
                        (buf[3] == '%' || (buf[3] == '.' && strspn(buf + 4, "0") == (size_t)d));
        if (!reads_100 || frac == 1.0 || !isfinite(frac) || d == 3) return;
    }
}

static int cmp_int(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

/* Adds v > 0 to the distinct counts t[0..*n) (at most max of them); when full, v replaces the
 * smallest if it is larger: the highest counts are kept. */
static void add_count(int *t, int *n, int max, int v) {
    if (v <= 0) return;
    int lo = 0;
    for (int k = 0; k < *n; k++) {
        if (t[k] == v) return;
        if (t[k] < t[lo]) lo = k;
    }
    if (*n < max)
        t[(*n)++] = v;
    else if (*n > 0 && v > t[lo])
        t[lo] = v;
}

static void note_dropped(build_ctx *b, int *t, int n, int max, const char *what);

/* The highest `max` distinct thread counts that appear in the sweep, the compute ceilings and
 * the results, ascending into t; a note names any left out. */
static int thread_counts(build_ctx *b, const json_t *compute, const json_t *res, int *t,
                         int max) {
    int all[NS_MAX_THREADS]; /* every distinct count (the results check allows no more) */
    int n = 0;
    for (size_t c = 0; c < b->ncurves; c++)
        add_count(all, &n, NS_MAX_THREADS, b->curves[c].threads);
    size_t i;
    json_t *e;
    json_array_foreach(compute, i, e) add_count(all, &n, NS_MAX_THREADS, json_int(e, "threads", 0));
    json_array_foreach(res, i, e) add_count(all, &n, NS_MAX_THREADS, json_int(e, "threads", 0));
    note_dropped(b, all, n, max, "the builder keeps the ceilings and roofs");
    int k = n > max ? max : n;
    memcpy(t, all + (n - k), (size_t)k * sizeof *t); /* note_dropped sorted all when n > max */
    qsort(t, (size_t)k, sizeof *t, cmp_int);
    return k;
}

/* Marks roof ro suspect for why: its reason, and its ceilings.bandwidth[] entries (the same
 * level, thread count, kernel and rate), whose status gets why in place of an "ok". */
static void mark_roof_suspect(bw_roof *ro, json_t *ceil, const char *why) {
    size_t i;
    json_t *c;
    json_array_foreach(ceil, i, c) {
        if (strcmp(str_or(c, "level", ""), ro->level) || json_int(c, "threads", 0) != ro->threads ||
            strcmp(str_or(c, "kernel", ""), ro->kernel) ||
            ns_json_get_num(c, "gbytes_per_s") != ro->gbytes_per_s)
            continue;
        /* The reason replaces an "ok" (a status read "suspect: ...; ok": test_roofline.c). */
        const char *was = str_or(c, "status", "ok");
        if (!strncmp(was, "ok", 2) && (was[2] == '\0' || was[2] == ';'))
            was += 2 + (was[2] == ';') + (was[2] == ';' && was[3] == ' ');
        char st[1200];
        snprintf(st, sizeof st, "%s%s%s", why, *was ? "; " : "", was);
        ns_json_set_str(c, "status", st);
        json_object_set_new(c, "suspect", json_true());
    }
    size_t len = strlen(ro->reason);
    snprintf(ro->reason + len, sizeof ro->reason - len, "%s%s", len ? "; " : "", why);
    ro->suspect = 1;
}

/* A T-thread bandwidth roof more than SCALING_SLACK x T times the 1-thread roof of the same
 * level: T threads cannot stream more than T times one, so the 1-thread roof is too low (a
 * disturbed sweep) or the T-thread one too high. The 1-thread roof, and its entry in ceil
 * (ceilings.bandwidth), become suspect with the reason; a note says so. */
static void bandwidth_scaling(build_ctx *b, json_t *ceil) {
    for (size_t r = 0; r < b->nroofs; r++) {
        const bw_roof *rt = &b->roofs[r];
        bw_roof *r1 = (bw_roof *)find_class_roof(b, rt->level, 1, rt->cls);
        if (rt->threads < 2 || !r1 || !(rt->gbytes_per_s > SCALING_SLACK * rt->threads *
                                                               r1->gbytes_per_s))
            continue;
        char why[300];
        snprintf(why, sizeof why,
                 "suspect: the %d-thread %s ceiling (%.4g GB/s, %s) is %.2gx this one, more than "
                 "%d threads can give: this one is probably too low (a disturbed sweep), or the "
                 "other too high",
                 rt->threads, rt->level, rt->gbytes_per_s, rt->kernel,
                 rt->gbytes_per_s / r1->gbytes_per_s, rt->threads);
        note(b, "%s 1 thread: bandwidth ceiling %.4g GB/s (%s) is %s", r1->level,
             r1->gbytes_per_s, r1->kernel, why);
        mark_roof_suspect(r1, ceil, why);
    }
}

/* A trusted roof at level and threads faster than factor x gbps: of class cls, else, when
 * level_roof, the level's roof; NULL when none. */
static const bw_roof *faster_roof(const build_ctx *b, const char *level, int threads, int cls,
                                  int level_roof, double factor, double gbps) {
    const bw_roof *o = find_class_roof(b, level, threads, cls);
    if (!(o && !o->suspect && o->gbytes_per_s > factor * gbps) && level_roof)
        o = find_bw_roof(b, level, threads);
    return o && !o->suspect && o->gbytes_per_s > factor * gbps ? o : NULL;
}

/* Levels in order (test_level_order_suspect: a 2-thread L3 roof of 9.7 GB/s drawn under the 17.2 GB/s DRAM
 * roof, and under the 1-thread L3 roof of 21.7): a bandwidth roof slower than a trusted roof of a
 * deeper level at its thread count, or slower by more than SCALING_SLACK (the noise) than a
 * trusted roof of its level at fewer threads, is suspect, with the reason. A class roof is
 * compared with the same class's roofs, the level's roof (the one drawn) also with the levels'
 * roofs. Every verdict is taken before any roof is marked. */
static void level_order(build_ctx *b, json_t *ceil) {
    char(*why)[400] = calloc(b->nroofs ? b->nroofs : 1, sizeof *why);
    if (!why) return;
    for (size_t r = 0; r < b->nroofs; r++) {
        const bw_roof *ro = &b->roofs[r];
        int lroof = find_bw_roof(b, ro->level, ro->threads) == ro,
            li = cache_level_index(b, ro->level);
        for (int d = li + 1; li >= 0 && d <= b->cs.n && !why[r][0]; d++) {
            const char *dl = d < b->cs.n ? level_name(b->cs.level[d]) : "DRAM";
            const bw_roof *o = faster_roof(b, dl, ro->threads, ro->cls, lroof, 1, ro->gbytes_per_s);
            if (o)
                snprintf(why[r], sizeof why[r],
                         "suspect: slower than the %d-thread %s roof (%.4g GB/s, %s): a level is "
                         "no slower than the one beyond it (a disturbed sweep, or a plateau of "
                         "another level)",
                         o->threads, o->level, o->gbytes_per_s, o->kernel);
        }
        for (int t = 0; t < b->ntc && b->tc[t] < ro->threads && !why[r][0]; t++) {
            const bw_roof *o = faster_roof(b, ro->level, b->tc[t], ro->cls, lroof, SCALING_SLACK,
                                           ro->gbytes_per_s);
            if (o)
                snprintf(why[r], sizeof why[r],
                         "suspect: the %d-thread %s roof (%.4g GB/s, %s) is %.3gx this one: more "
                         "threads are not slower by more than the noise (%.0f%%)",
                         o->threads, o->level, o->gbytes_per_s, o->kernel,
                         o->gbytes_per_s / ro->gbytes_per_s, 100 * (SCALING_SLACK - 1));
        }
    }
    for (size_t r = 0; r < b->nroofs; r++) {
        if (!why[r][0]) continue;
        bw_roof *ro = &b->roofs[r];
        note(b, "%s %d thread%s: bandwidth roof %.4g GB/s (%s) is %s", ro->level, ro->threads,
             PLURAL(ro->threads), ro->gbytes_per_s, ro->kernel, why[r]);
        mark_roof_suspect(ro, ceil, why[r]);
    }
    free(why);
}

/* roofline.cache_capacity: each level's aggregate capacity at each thread count tc[0..ntc). */
static json_t *cache_capacity(const build_ctx *b, const int *tc, int ntc) {
    json_t *cap = json_array();
    for (int t = 0; t < ntc; t++)
        for (int li = 0; li < b->cs.n; li++) {
            json_t *o = json_object();
            ns_json_set_int(o, "threads", tc[t]);
            ns_json_set_str(o, "level", level_name(b->cs.level[li]));
            ns_json_set_num(o, "aggregate_bytes", ns_roofline_capacity(&b->cs, li, tc[t]), NULL);
            json_array_append_new(cap, o);
        }
    return cap;
}

/* roofline.ceilings_used: the bandwidth roofs, and the compute roofs (FMA-only, and every other
 * mix measured, labelled, for the pictures), each with suspect and suspect_reason; a note for a
 * suspect one, and for a mix other than ADD-only faster than FMA-only. */
static json_t *ceilings_used(build_ctx *b, const json_t *compute) {
    json_t *used = json_object(), *ubw = json_array(), *ucomp = json_array();
    json_t *ucls = json_array();
    for (size_t r = 0; r < b->nroofs; r++) {
        /* bandwidth[]: the level's roof (its fastest class); bandwidth_by_class[]: the roof of
         * each load/store class, which kernels of that class are judged against. */
        const bw_roof *ro = &b->roofs[r];
        int level_roof = find_bw_roof(b, ro->level, ro->threads) == ro;
        for (int k = 0; k < 1 + level_roof; k++) {
            json_t *o = json_object();
            ns_json_set_str(o, "level", ro->level);
            ns_json_set_int(o, "threads", ro->threads);
            ns_json_set_str(o, "kernel", ro->kernel);
            if (!k) ns_json_set_str(o, "class", ro->cls >= 0 ? class_names[ro->cls] : NULL);
            ns_json_set_num(o, "gbytes_per_s", ro->gbytes_per_s, NULL);
            json_object_set_new(o, "suspect", json_boolean(ro->suspect));
            ns_json_set_str(o, "suspect_reason", ro->suspect ? ro->reason : NULL);
            json_array_append_new(k ? ubw : ucls, o);
        }
    }
    size_t i;
    json_t *c;
    json_array_foreach(compute, i, c) {
        const char *prec = str_or(c, "precision", NULL), *mix = str_or(c, "mix", NULL);
        int t = json_int(c, "threads", 0);
        if (!prec || !mix || t < 1) continue;
        if (compute_roof(compute, prec, t, mix) != c) continue; /* not the fastest ISA */
        json_t *o = json_object();
        ns_json_set_str(o, "name", str_or(c, "name", NULL));
        ns_json_set_str(o, "precision", prec);
        ns_json_set_str(o, "isa", str_or(c, "isa", NULL));
        ns_json_set_str(o, "mix", mix);
        ns_json_set_int(o, "threads", t);
        ns_json_set_num(o, "gflops", ns_json_get_num(c, "gflops"), NULL);
        ns_json_set_num(o, "freq_ghz", ns_json_get_num(c, "freq_ghz"), NULL);
        /* FMA-only: GEMM's roof; mark_compute_roofs adds every other kernel's compute roof. */
        json_object_set_new(o, "roof", json_boolean(!strcasecmp(mix, "fma")));
        char why[900];
        int sus = compute_suspect(b, compute, c, why, sizeof why);
        json_object_set_new(o, "suspect", json_boolean(sus));
        ns_json_set_str(o, "suspect_reason", sus ? why : NULL);
        if (sus)
            note(b, "%s %s %d thread%s: the compute ceiling (%.4g GFLOP/s, %s) is suspect: %s",
                 prec, mix, t, t == 1 ? "" : "s", ns_json_get_num(c, "gflops"),
                 str_or(c, "isa", "?"), why);
        json_array_append_new(ucomp, o);
        const json_t *fma = compute_roof(compute, prec, t, "fma");
        double g = ns_json_get_num(c, "gflops"), gf = fma ? ns_json_get_num(fma, "gflops") : NAN;
        if (strcasecmp(mix, "fma") && strcasecmp(mix, "add") && g > gf) /* add: suspect */
            note(b,
                 "%s %d thread%s: the %s mix reaches %.1f%% more than FMA-only; GEMM and "
                 "other FMA kernels are judged against the FMA-only ceiling",
                 prec, t, PLURAL(t), mix, 100 * (g / gf - 1));
    }
    json_object_set_new(used, "compute", ucomp);
    json_object_set_new(used, "bandwidth", ubw);
    json_object_set_new(used, "bandwidth_by_class", ucls);
    return used;
}

/* ceilings_used.compute[].roof: also true for every ceiling that is some kernel's compute roof
 * (roof_compute: a sum's ADD-only one), once the kernels are judged. */
static void mark_compute_roofs(const build_ctx *b, json_t *ucomp) {
    static const char *const keys[] = {"name", "precision", "isa", "mix"};
    size_t i;
    json_t *u;
    json_array_foreach(ucomp, i, u) {
        for (size_t m = 0; m < b->nroof_compute; m++) {
            const json_t *c = b->roof_compute[m];
            int same = json_int(c, "threads", 0) == json_int(u, "threads", -1);
            for (size_t k = 0; same && k < sizeof keys / sizeof keys[0]; k++)
                same = !strcmp(str_or(c, keys[k], ""), str_or(u, keys[k], ""));
            if (same) json_object_set_new(u, "roof", json_true());
        }
    }
}

/* roofline.ridge_points: the arithmetic intensity where a level's bandwidth roof meets the
 * FMA-only compute roof, per precision and thread count. */
static json_t *ridge_points(build_ctx *b, const json_t *compute) {
    json_t *ridges = json_array();
    const char *precs[2] = {"dp", "sp"};
    for (size_t r = 0; r < b->nroofs; r++)
        for (int pi = 0; pi < 2; pi++) {
            const json_t *cr = compute_roof(compute, precs[pi], b->roofs[r].threads, "fma");
            if (!cr || find_bw_roof(b, b->roofs[r].level, b->roofs[r].threads) != &b->roofs[r])
                continue; /* the level's roof only */
            double g = ns_json_get_num(cr, "gflops");
            json_t *o = json_object();
            ns_json_set_str(o, "level", b->roofs[r].level);
            ns_json_set_str(o, "precision", precs[pi]);
            ns_json_set_int(o, "threads", b->roofs[r].threads);
            ns_json_set_num(o, "compute_gflops", g, NULL);
            ns_json_set_num(o, "gbytes_per_s", b->roofs[r].gbytes_per_s, NULL);
            ns_json_set_num(o, "ridge_flop_per_byte", ns_ridge_point(g, b->roofs[r].gbytes_per_s),
                            "invalid: no finite ridge point");
            char why[900];
            json_object_set_new(o, "suspect", json_boolean(b->roofs[r].suspect ||
                                                           compute_suspect(b, compute, cr, why,
                                                                           sizeof why)));
            json_array_append_new(ridges, o);
        }
    return ridges;
}

/* Points above their roof: named in the notes, each with its cause in roof_status. */
static void note_above_roof(build_ctx *b, const json_t *points) {
    int nabove = 0;
    char above[300] = "";
    size_t i;
    json_t *po;
    json_array_foreach(points, i, po) {
        if (!json_is_true(json_object_get(po, "above_roof"))) continue;
        char pc[16];
        ns_roofline_percent(ns_json_get_num(po, "fraction_of_roof"), pc, sizeof pc);
        ns_appendf(above, sizeof above, NULL, "%s%s (%s)", nabove ? ", " : "",
                   str_or(po, "id", "?"), pc);
        nabove++;
    }
    if (nabove)
        note(b, "%d kernel(s) above their roof (roof_status gives each one's cause): %s", nabove,
             above);
}

/* roofline.status: "ok"; "partial: ..." without a bandwidth or a compute ceiling; else the
 * count of suspect roofs (the limiting roof of some kernel other than the roof's own
 * measurement) apart from suspect reference ceilings (measured and drawn, but no kernel's roof):
 * only the former make a kernel's fraction doubtful. ucomp: ceilings_used.compute. */
static void build_status(build_ctx *b, const json_t *compute, const json_t *bw_ceil,
                         const json_t *ucomp, json_t *sec) {
    int nroof_sus = 0, nref_sus = 0;
    size_t i;
    json_t *c;
    for (size_t k = 0; k < b->nroofs; k++)
        nroof_sus += b->roofs[k].suspect && b->roofs[k].used;
    json_array_foreach(bw_ceil, i, c) {
        if (!json_is_true(json_object_get(c, "suspect"))) continue;
        const char *ck = str_or(c, "kernel", "");
        const bw_roof *ro = find_class_roof(b, str_or(c, "level", ""), json_int(c, "threads", 0),
                                            ns_roofline_kernel_class(ck, NULL));
        nref_sus += !(ro && ro->used && !strcmp(ro->kernel, ck) &&
                      ns_json_get_num(c, "gbytes_per_s") == ro->gbytes_per_s);
    }
    json_array_foreach(compute, i, c) {
        const char *prec = str_or(c, "precision", NULL), *mix = str_or(c, "mix", NULL);
        int t = json_int(c, "threads", 0);
        char why[900];
        if (!prec || !mix || t < 1 || compute_roof(compute, prec, t, mix) != c ||
            !compute_suspect(b, compute, c, why, sizeof why))
            continue;
        size_t k = 0;
        while (k < b->nused_compute && b->used_compute[k] != c)
            k++;
        if (k < b->nused_compute)
            nroof_sus++;
        else
            nref_sus++;
    }
    char st[300];
    size_t sl = 0;
    if (nroof_sus)
        ns_appendf(st, sizeof st, &sl, "ok; %d roof%s used %s suspect", nroof_sus,
                   nroof_sus == 1 ? "" : "s", nroof_sus == 1 ? "is" : "are");
    else
        ns_appendf(st, sizeof st, &sl, "ok; no roof used is suspect");
    if (nref_sus)
        ns_appendf(st, sizeof st, &sl, "; %d reference ceiling%s %s suspect", nref_sus,
                   nref_sus == 1 ? "" : "s", nref_sus == 1 ? "is" : "are");
    ns_appendf(st, sizeof st, &sl,
               " (ceilings_used[].suspect_reason, ceilings.bandwidth[].status, roofline.notes)");
    ns_json_set_str(sec, "status",
                    b->nroofs == 0                ? "partial: no bandwidth ceiling"
                    : json_array_size(ucomp) == 0 ? "partial: no compute ceiling"
                    : nroof_sus || nref_sus       ? st
                                                  : "ok");
}

/* When the n distinct thread counts t[] are more than the max a picture draws: a note that
 * `what` draws the highest max, naming the others. */
static void note_dropped(build_ctx *b, int *t, int n, int max, const char *what) {
    if (n <= max) return;
    qsort(t, (size_t)n, sizeof *t, cmp_int);
    char left[200] = "";
    for (int k = 0; k < n - max; k++)
        ns_appendf(left, sizeof left, NULL, "%s%d", k ? ", " : "", t[k]);
    note(b, "%s of the highest %d of %d thread counts (%d to %d); left out: %s", what, max, n,
         t[n - max], t[n - 1], left);
}

/* Notes for the thread counts the pictures leave out (roofline.h): roofs beyond
 * NS_ROOFLINE_DRAWN_THREAD_COUNTS, sweep panels beyond NS_ROOFLINE_SWEEP_PANELS. */
static void note_threads_not_drawn(build_ctx *b, const json_t *used) {
    int t[NS_ROOFLINE_MAX_THREAD_COUNTS], n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(used, "compute"), i, e)
        add_count(t, &n, NS_ROOFLINE_MAX_THREAD_COUNTS, json_int(e, "threads", 0));
    json_array_foreach(json_object_get(used, "bandwidth"), i, e)
        add_count(t, &n, NS_ROOFLINE_MAX_THREAD_COUNTS, json_int(e, "threads", 0));
    note_dropped(b, t, n, NS_ROOFLINE_DRAWN_THREAD_COUNTS, "the roofline pictures draw the roofs");
    int all[NS_MAX_THREADS]; /* the sweep picture draws every curve, kept by the builder or not */
    n = 0;
    for (size_t c = 0; c < b->ncurves; c++)
        if (b->curves[c].n) add_count(all, &n, NS_MAX_THREADS, b->curves[c].threads);
    note_dropped(b, all, n, NS_ROOFLINE_SWEEP_PANELS, "bandwidth_vs_working_set draws the sweep");
}

/* The roofline.method text: how the builder works, its thresholds formatted from the macros
 * that apply them (so a changed #define cannot leave results.json describing the old value). */
static void method_text(char *buf, size_t len) {
    snprintf(buf, len,
             "plateaus: runs of >= %d sweep points whose local log-log slope is within "
             "%.0f%% per doubling of the working set; labelled by the level whose aggregate "
             "capacity (per-core caches x threads, shared caches once per instance "
             "touched) holds the geometric middle of the plateau, unless it runs past %gx "
             "that capacity or to >= %gx the LLC (then it defines no level); a ceiling is the "
             "median "
             "of its points' rates, each a point's fastest sample; DRAM ceilings from >= %d "
             "points at >= %gx the aggregate LLC; a sweep kernel measured faster in "
             "results[] (fastest sample) with its working set in a level gives that "
             "level's ceiling instead (source \"kernel phase\"; one not swept at that "
             "thread count when faster than its class's roof, else the level's), unless its "
             "samples spread (CV > %g%% or fastest > %gx median) and its median is below the "
             "sweep's (one used whose samples spread is suspect), or (DRAM) it is > %gx the sweep's at a smaller working set "
             "(cache contamination: the ceiling is suspect); bandwidth roof = best "
             "ceiling per level, thread count and load/store class (read-only, "
             "write-allocating, non-temporal stores): a kernel is judged by its own class's, "
             "else by the level's best, and its roof_status says how the real bytes differ; "
             "compute roof = FMA-only ceiling of the "
             "fastest ISA unless the kernel states another mix; reductions and STREAM "
             "kernels are memory bound: judged by the bandwidth roof, with the ADD-only "
             "ceiling as compute roof for sums, FMA-only for dot products, norms and "
             "triads, none for copy, scale, load and max-abs; without a DRAM plateau of >= %d "
             "points at >= %gx the LLC, the DRAM ceiling is the median of the last <= %d "
             "points at >= %gx the aggregate LLC when the sweep reaches %gx and they neither "
             "fall in a row by > %g%% nor scatter by > %g%%, else suspect; kernels with "
             "non-temporal stores (name ending in _nt): DRAM ceilings only, and no roof at a "
             "cache working set; a bandwidth roof slower than a trusted roof of a deeper level, "
             "or by > %.0f%% than its level's at fewer threads, is suspect",
             NS_PLATEAU_MIN_POINTS, 100 * expm1(NS_PLATEAU_MAX_SLOPE), PLATEAU_PAST_CAPACITY,
             DRAM_TAIL_FROM, NS_PLATEAU_MIN_POINTS, DRAM_LLC_MARGIN, 100 * KERNEL_PHASE_MAX_CV,
             KERNEL_PHASE_MAX_SPREAD, DRAM_CONTAMINATION, NS_PLATEAU_MIN_POINTS, DRAM_LLC_MARGIN,
             DRAM_TAIL_POINTS, DRAM_TAIL_FROM, DRAM_LLC_MARGIN, 100 * DRAM_TAIL_FALL,
             100 * DRAM_TAIL_SCATTER, 100 * (SCALING_SLACK - 1));
}

/* The rate_from of a ceiling or sweep point whose file held median rates, recomputed here. */
#define RATE_RECOMPUTED "fastest sample, recomputed from time_s.min (the file held medians)"

/* A file written before ceilings came from the fastest sample (no rate_from; the shipped
 * examples) holds median rates in ceilings.compute[].gflops (flops / time_s.median of its
 * result) and sweep[].gbytes_per_s (bytes / time_s.median). Each such entry whose time_s has a
 * min and a median gets its fastest-sample rate (flops / time_s.min, else rate x median / min),
 * the old rate as gflops_median / gbytes_per_s_median, and rate_from RATE_RECOMPUTED, so the
 * roofs, the report and a rebuild read the statistic every newer file has; a note says so. */
static int fastest_sample_rate(json_t *e, const char *rate_key, const char *median_key,
                               const json_t *ts, double amount);

static void fastest_sample_rates(build_ctx *b) {
    int nc = 0, ns = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(json_object_get(b->root, "ceilings"), "compute"), i, e) {
        const json_t *r = result_by_id(b, str_or(e, "result_id", NULL));
        nc += fastest_sample_rate(e, "gflops", "gflops_median", json_object_get(r, "time_s"),
                                  ns_json_get_num(r, "flops"));
    }
    json_array_foreach(json_object_get(b->root, "sweep"), i, e)
        ns += fastest_sample_rate(e, "gbytes_per_s", "gbytes_per_s_median",
                                  json_object_get(e, "time_s"), ns_json_get_num(e, "bytes"));
    if (nc || ns)
        note(b,
             "this file was written before ceilings came from the fastest sample (no rate_from): "
             "its %d compute ceiling(s) and %d sweep point(s) held median rates; their rates are "
             "recomputed from time_s.min (the old ones kept as gflops_median and "
             "gbytes_per_s_median, rate_from says so)",
             nc, ns);
}

/* One entry e of fastest_sample_rates: without rate_from and median_key, its rate_key (per
 * 1e9) becomes amount (flops or bytes; when not > 0: the rate x median / min) over time_s.min
 * of ts, the old rate median_key. Returns 1 when e's rate is (or was already) recomputed. */
static int fastest_sample_rate(json_t *e, const char *rate_key, const char *median_key,
                               const json_t *ts, double amount) {
    const char *rf = str_or(e, "rate_from", NULL);
    if (!json_is_object(e) || rf || json_object_get(e, median_key))
        return rf && !strcmp(rf, RATE_RECOMPUTED);
    double g = ns_json_get_num(e, rate_key), tmin = ns_json_get_num(ts, "min"),
           tmed = ns_json_get_num(ts, "median");
    double fast = amount > 0 ? amount / tmin / 1e9 : g * tmed / tmin;
    if (!(g > 0 && tmin > 0 && tmed >= tmin && isfinite(fast))) return 0;
    ns_json_set_num(e, rate_key, fast, NULL);
    ns_json_set_num(e, median_key, g, NULL);
    ns_json_set_str(e, "rate_from", RATE_RECOMPUTED);
    return 1;
}

int ns_roofline_build(json_t *root, char *err, size_t errlen) {
    if (!json_is_object(root)) {
        snprintf(err, errlen, "results is not a JSON object");
        return -1;
    }
    build_ctx b = {.root = root, .notes = json_array()};
    int rc = -1;
    json_t *sweep = json_object_get(root, "sweep");
    json_t *ceilings = json_object_get(root, "ceilings");
    if (!json_is_object(ceilings)) {
        ceilings = json_object();
        json_object_set_new(root, "ceilings", ceilings);
    }
    json_t *compute = json_object_get(ceilings, "compute");
    json_t *res = json_object_get(root, "results");
    json_t *caches =
        json_object_get(json_object_get(json_object_get(root, "context"), "cpu"), "caches");
    json_t *bw_ceil = json_array(), *plateaus = json_array(), *points = json_array();
    json_object_set_new(ceilings, "bandwidth", bw_ceil);
    json_t *sec = json_object();
    json_object_set_new(root, "roofline", sec);

    if (!json_is_array(sweep) || json_array_size(sweep) == 0)
        note(&b, "no sweep in the results: no bandwidth ceilings");
    if (!json_is_array(compute) || json_array_size(compute) == 0)
        note(&b, "no compute ceilings in the results");
    if (ns_roofline_caches(caches, &b.cs) == 0)
        note(&b, "context.cpu.caches is missing or empty: plateaus cannot be labelled and no "
                 "kernel gets a roof");
    fastest_sample_rates(&b);
    if (collect_curves(&b, sweep) != 0) goto oom;
    choose_policy(&b);

    b.roofs = calloc(ROOFS_MAX, sizeof *b.roofs);
    if (!b.roofs) goto oom;
    b.ntc = thread_counts(&b, compute, res, b.tc, NS_ROOFLINE_MAX_THREAD_COUNTS);
    int *tc = b.tc, ntc = b.ntc;
    for (size_t c = 0; c < b.ncurves; c++)
        if (ceilings_of_curve(&b, &b.curves[c], plateaus, bw_ceil) != 0) goto oom;
    unswept_ceilings(&b, bw_ceil);

    ns_json_set_str(sec, "bytes_policy", b.policy);
    char method[3200];
    method_text(method, sizeof method);
    ns_json_set_str(sec, "method", method);
    json_object_set_new(sec, "cache_capacity", cache_capacity(&b, tc, ntc));
    json_object_set_new(sec, "plateaus", plateaus);

    bandwidth_scaling(&b, bw_ceil);
    level_order(&b, bw_ceil);
    json_t *used = ceilings_used(&b, compute);
    json_object_set_new(sec, "ceilings_used", used);
    json_object_set_new(sec, "ridge_points", ridge_points(&b, compute));
    note_threads_not_drawn(&b, used);

    size_t i;
    json_t *r;
    json_array_foreach(res, i, r) {
        if (json_is_object(r)) roof_of_result(&b, r, compute, points);
    }
    json_object_set_new(sec, "points", points);
    mark_compute_roofs(&b, json_object_get(used, "compute"));
    note_above_roof(&b, points);

    json_object_set_new(sec, "notes", b.notes);
    b.notes = NULL;
    build_status(&b, compute, bw_ceil, json_object_get(used, "compute"), sec);
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    for (size_t k = 0; k < b.ncurves; k++) {
        free(b.curves[k].ws);
        free(b.curves[k].bw);
    }
    free(b.curves);
    free(b.roofs);
    json_decref(b.notes);
    return rc;
}
