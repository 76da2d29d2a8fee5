/* The one check of a results file's content that every consumer (gate, compare, roofline, fleet,
 * cluster --node) runs through ns_json_load_results: ids present and unique, fields of the
 * right type, measured quantities non-negative and of plausible size, a cache list the roofline
 * can label by, so that roofline,
 * compare and fleet took files that gate refused (a duplicate id, time_s "fast", a ceiling of
 * -5 GFLOP/s), and 1e308 values gave inf in compare.dat and "above the roof by inf%". Inside
 * the bounds below every product and ratio the reports form stays finite. */
#include "harness/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness/measure.h"
#include "harness/stats.h"
#include "kernels/registry.h"

/* A measured quantity (a count of bytes or flops, a rate, a fraction) is 0 or lies in
 * [NS_CHECK_MIN, NS_CHECK_MAX]: 1e18 is more than an exaflop in GFLOP/s or an exabyte, and 1e-15
 * less than any rate or size a run can record. Times follow gate's bounds: 1e-12 to 1e6 s. */
#define NS_CHECK_MIN 1e-15
#define NS_CHECK_MAX 1e18
#define NS_CHECK_MIN_TIME_S 1e-12
#define NS_CHECK_MAX_TIME_S 1e6
/* A thread count: 1 to NS_MAX_THREADS, the range run, bench and fleet --threads accept. */
#define NS_CHECK_MAX_THREADS NS_MAX_THREADS
/* The most sweep points one curve (kernel, ISA, precision, threads) may hold: a run writes at
 * most NS_SWEEP_MAX_POINTS working sets per curve; more is not a file this tool wrote, and the
 * roofline's plateau search is quadratic in a curve's points (results_check.sh). */
#define NS_CHECK_MAX_CURVE_POINTS 1024

/* A cache of context.cpu.caches[] (one instance): level 1 to NS_CHECK_MAX_CACHE_LEVEL, and
 * 1 KiB to 1 TiB (the largest caches are hundreds of MiB; a size of 0 or 1e15 is no cache);
 * count and shared_by_cores 1 to NS_CHECK_MAX_CACHE_COUNT (a cache of no instance, or shared by
 * no core, is no cache). */
#define NS_CHECK_MAX_CACHE_LEVEL 6
#define NS_CHECK_MIN_CACHE_BYTES 1024.0
#define NS_CHECK_MAX_CACHE_BYTES 1099511627776.0
#define NS_CHECK_MAX_CACHE_COUNT 1000000

/* Quantities checked where present (null allowed: an unmeasurable value). */
static const char *const result_nums[] = {
    "working_set_bytes", "flops",        "bytes",         "reps",
    "passes",            "gflops",       "gbytes_per_s",
    "roof_gflops",       "ai_flop_per_byte", "fraction_of_roof", "fraction_of_roof_fastest",
    "roof_compute_gflops", "roof_gbytes_per_s", NULL};
static const char *const sweep_nums[] = {"n",           "working_set_bytes", "bytes",
                                         "passes",      "gbytes_per_s",      "gbytes_per_s_median",
                                         NULL};
static const char *const compute_nums[] = {"gflops", "gflops_median", "freq_ghz", NULL};
static const char *const bandwidth_nums[] = {
    "working_set_bytes", "working_set_min_bytes", "working_set_max_bytes",
    "gbytes_per_s", "points", NULL};
static const char *const time_nums[] = {"min", "median", "mean", "stddev", "max", NULL};
static const char *const fleet_bench_nums[] = {"median", "mad", "scale", "noise", NULL};
static const char *const fleet_allreduce_nums[] = {"bytes", "algbw_gbytes_per_s",
                                                   "busbw_gbytes_per_s", NULL};
/* A fleet's benchmarks[].median is the median of its values{} as fleet writes both (10
 * significant digits each): within this relative distance of the one computed here. */
#define NS_CHECK_MEDIAN_REL 1e-6

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -1;                                                                                 \
    } while (0)

/* Checks the keys of names in obj (where) as quantities: null, or a number 0 or in [lo, hi]. */
static int check_nums(const json_t *obj, const char *const *names, double lo, double hi,
                      const char *path, const char *where, char *err, size_t errlen) {
    for (size_t k = 0; names[k]; k++) {
        const json_t *v = json_object_get(obj, names[k]);
        if (!v || json_is_null(v)) continue;
        if (!json_is_number(v)) FAIL("%s: %s.%s is not a number", path, where, names[k]);
        double x = json_number_value(v);
        if (x < 0) FAIL("%s: %s.%s = %g is negative", path, where, names[k], x);
        if (x != 0 && (x < lo || x > hi))
            FAIL("%s: %s.%s = %g is not plausible (want 0 or %g to %g)", path, where, names[k], x,
                 lo, hi);
    }
    return 0;
}

/* obj.threads: absent, null, or a whole number in 1..NS_CHECK_MAX_THREADS. */
static int check_threads(const json_t *obj, const char *path, const char *where, char *err,
                         size_t errlen) {
    const json_t *v = json_object_get(obj, "threads");
    if (!v || json_is_null(v)) return 0;
    if (!json_is_number(v)) FAIL("%s: %s.threads is not a number", path, where);
    double x = json_number_value(v);
    if (!(x >= 1 && x <= NS_CHECK_MAX_THREADS && x == (double)(long long)x))
        FAIL("%s: %s.threads = %g is not a thread count (want a whole number in 1..%d)", path,
             where, x, NS_CHECK_MAX_THREADS);
    return 0;
}

/* Checks every member of obj (where) as check_nums checks the named ones. */
static int check_nums_all(const json_t *obj, double lo, double hi, const char *path,
                          const char *where, char *err, size_t errlen) {
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        const char *names[] = {key, NULL};
        if (check_nums(obj, names, lo, hi, path, where, err, errlen)) return -1;
    }
    return 0;
}

/* time_s: null, or an object of quantities within the time bounds (cv: a plain quantity). */
static int check_time(const json_t *t, const char *path, const char *where, char *err,
                      size_t errlen) {
    if (!t || json_is_null(t)) return 0;
    if (!json_is_object(t)) FAIL("%s: %s.time_s is neither an object nor null", path, where);
    char w[300];
    snprintf(w, sizeof w, "%s.time_s", where);
    if (check_nums(t, time_nums, NS_CHECK_MIN_TIME_S, NS_CHECK_MAX_TIME_S, path, w, err, errlen))
        return -1;
    static const char *const cv[] = {"cv", NULL};
    return check_nums(t, cv, NS_CHECK_MIN, NS_CHECK_MAX, path, w, err, errlen);
}

/* An array of objects at root[key] (absent or null: nothing to check). */
static int object_array(const json_t *a, const char *path, const char *name, char *err,
                        size_t errlen) {
    if (!a || json_is_null(a)) return 0;
    if (!json_is_array(a)) FAIL("%s: %s is not an array", path, name);
    for (size_t i = 0; i < json_array_size(a); i++)
        if (!json_is_object(json_array_get(a, i)))
            FAIL("%s: %s[%zu] is not an object", path, name, i);
    return 0;
}

static int check_results(const json_t *a, const char *path, char *err, size_t errlen) {
    if (!json_is_array(a)) FAIL("%s: no \"results\" array", path);
    json_t *seen = json_object();
    if (!seen) FAIL("out of memory");
    int rc = -1;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *r = json_array_get(a, i);
        const char *id = json_string_value(json_object_get(r, "id"));
        char where[300];
        if (!json_is_object(r) || !id || !*id) {
            snprintf(err, errlen, "%s: results[%zu] has no string \"id\"", path, i);
            goto out;
        }
        if (json_object_get(seen, id)) {
            snprintf(err, errlen, "%s: duplicate result id \"%.200s\"", path, id);
            goto out;
        }
        json_object_set_new(seen, id, json_true());
        snprintf(where, sizeof where, "results[id=%.200s]", id);
        const json_t *st = json_object_get(r, "status"), *va = json_object_get(r, "validated");
        if (st && !json_is_null(st) && !json_is_string(st)) {
            snprintf(err, errlen, "%s: %s.status is not a string", path, where);
            goto out;
        }
        if (va && !json_is_null(va) && !json_is_boolean(va)) {
            snprintf(err, errlen, "%s: %s.validated is not true, false or null", path, where);
            goto out;
        }
        if (check_nums(r, result_nums, NS_CHECK_MIN, NS_CHECK_MAX, path, where, err, errlen) ||
            check_threads(r, path, where, err, errlen) ||
            check_time(json_object_get(r, "time_s"), path, where, err, errlen))
            goto out;
        const json_t *ss = json_object_get(r, "samples_s");
        if (ss && !json_is_null(ss)) {
            if (!json_is_array(ss)) {
                snprintf(err, errlen, "%s: %s.samples_s is neither an array nor null", path,
                         where);
                goto out;
            }
            if (json_array_size(ss) > NS_RESULTS_MAX_SAMPLES) {
                snprintf(err, errlen,
                         "%s: %s.samples_s holds %zu samples, more than %d (nodescale records "
                         "at most 256 per result): not a results file this tool wrote",
                         path, where, json_array_size(ss), NS_RESULTS_MAX_SAMPLES);
                goto out;
            }
            for (size_t k = 0; k < json_array_size(ss); k++) {
                const json_t *e = json_array_get(ss, k);
                if (json_is_null(e)) continue;
                if (!json_is_number(e)) {
                    snprintf(err, errlen, "%s: %s.samples_s[%zu] is not a number", path, where,
                             k);
                    goto out;
                }
                double x = json_number_value(e);
                /* Zero or negative: an unmeasured sample (consumers drop it). */
                if (x > 0 && (x < NS_CHECK_MIN_TIME_S || x > NS_CHECK_MAX_TIME_S)) {
                    snprintf(err, errlen,
                             "%s: %s.samples_s[%zu] = %g s is not a plausible time per "
                             "repetition (want %g to %g s)",
                             path, where, k, x, NS_CHECK_MIN_TIME_S, NS_CHECK_MAX_TIME_S);
                    goto out;
                }
            }
        }
    }
    rc = 0;
out:
    json_decref(seen);
    return rc;
}

/* Appends the JSON text of obj[key] (or "-" when absent) and a separator to key[*len]. */
static void key_part(char *key, size_t size, size_t *len, const json_t *obj, const char *name) {
    const json_t *v = json_object_get(obj, name);
    int n;
    if (json_is_string(v))
        n = snprintf(key + *len, size - *len, "%.100s\x1f", json_string_value(v));
    else if (json_is_number(v))
        n = snprintf(key + *len, size - *len, "%.17g\x1f", json_number_value(v));
    else
        n = snprintf(key + *len, size - *len, "-\x1f");
    if (n > 0) *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

/* sweep[]: each point checked, no two at the same working set (n) of one curve (kernel, ISA,
 * precision, threads: a duplicate became a plateau of its own), and no curve
 * longer than NS_CHECK_MAX_CURVE_POINTS. Hashed, so linear in the points. */
static int check_sweep(const json_t *sw, const char *path, char *err, size_t errlen) {
    if (object_array(sw, path, "sweep", err, errlen)) return -1;
    json_t *points = json_object(), *curves = json_object();
    int rc = -1;
    if (!points || !curves) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(sw); i++) {
        char where[40];
        snprintf(where, sizeof where, "sweep[%zu]", i);
        const json_t *p = json_array_get(sw, i);
        if (check_nums(p, sweep_nums, NS_CHECK_MIN, NS_CHECK_MAX, path, where, err, errlen) ||
            check_threads(p, path, where, err, errlen) ||
            check_time(json_object_get(p, "time_s"), path, where, err, errlen))
            goto out;
        char key[512];
        size_t len = 0;
        key_part(key, sizeof key, &len, p, "kernel");
        key_part(key, sizeof key, &len, p, "isa");
        key_part(key, sizeof key, &len, p, "precision");
        key_part(key, sizeof key, &len, p, "threads");
        json_t *count = json_object_get(curves, key);
        json_int_t n = json_integer_value(count) + 1;
        if (n > NS_CHECK_MAX_CURVE_POINTS) {
            const char *kernel = json_string_value(json_object_get(p, "kernel"));
            snprintf(err, errlen,
                     "%s: sweep[%zu]: its curve (%.100s, t%g) holds more than %d points (a run "
                     "writes at most %d per curve): not a results file this tool wrote",
                     path, i, kernel ? kernel : "no kernel", ns_json_get_num(p, "threads"),
                     NS_CHECK_MAX_CURVE_POINTS, NS_SWEEP_MAX_POINTS);
            goto out;
        }
        json_object_set_new(curves, key, json_integer(n));
        /* Both are whole numbers (a fraction of a byte or an element is not a working set);
         * a point is keyed on its element count n, or on working_set_bytes where it has no n
         * (an exact-text key on the bytes let a point 1e-6 bytes away through: results_check.sh).
         * A point with neither is not keyed. */
        static const char *const whole[] = {"n", "working_set_bytes"};
        for (int k = 0; k < 2; k++) {
            const json_t *v = json_object_get(p, whole[k]);
            if (json_is_number(v) && json_number_value(v) != floor(json_number_value(v))) {
                snprintf(err, errlen, "%s: sweep[%zu].%s = %.17g is not a whole number", path, i,
                         whole[k], json_number_value(v));
                goto out;
            }
        }
        const char *ws = json_is_number(json_object_get(p, "n")) ? "n" : "working_set_bytes";
        if (!json_is_number(json_object_get(p, ws))) continue;
        key_part(key, sizeof key, &len, p, ws);
        const json_t *first = json_object_get(points, key);
        if (first) {
            snprintf(err, errlen,
                     "%s: sweep[%zu] repeats sweep[%lld] (the same kernel, ISA, precision, "
                     "threads and %s): a curve has one point per working set",
                     path, i, (long long)json_integer_value(first), ws);
            goto out;
        }
        json_object_set_new(points, key, json_integer((json_int_t)i));
    }
    rc = 0;
out:
    json_decref(points);
    json_decref(curves);
    return rc;
}

/* benchmarks[i].values{}: numbers (or null) within the bounds, and the median of the numbers
 * equal to median (what compare takes as the fleet's rate). *vals: scratch, grown here. */
static int check_fleet_values(const json_t *b, const char *path, const char *where, double **vals,
                              size_t *cap, char *err, size_t errlen) {
    const json_t *values = json_object_get(b, "values"), *v;
    const json_t *mv = json_object_get(b, "median");
    /* The fleet writer (fleet/straggler.c) gives every median the values{} it is the median of:
     * a median with nothing to check it against is refused (results_check.sh). */
    if (!values || json_is_null(values)) {
        if (json_is_number(mv))
            FAIL("%s: %s.median has no values{} to be the median of: not a fleet report this "
                 "tool wrote",
                 path, where);
        return 0;
    }
    if (!json_is_object(values)) FAIL("%s: %s.values is not an object", path, where);
    if (json_object_size(values) > *cap) {
        double *nv = realloc(*vals, json_object_size(values) * sizeof *nv);
        if (!nv) FAIL("out of memory");
        *vals = nv;
        *cap = json_object_size(values);
    }
    char w[320];
    snprintf(w, sizeof w, "%s.values", where);
    if (check_nums_all(values, NS_CHECK_MIN, NS_CHECK_MAX, path, w, err, errlen)) return -1;
    size_t n = 0;
    const char *node;
    json_object_foreach((json_t *)values, node, v) {
        if (json_is_number(v)) (*vals)[n++] = json_number_value(v);
    }
    if (!json_is_number(mv)) return 0;
    if (!n)
        FAIL("%s: %s.median has no numeric values{} to be the median of: not a fleet report "
             "this tool wrote",
             path, where);
    double med = json_number_value(mv), want = ns_median(*vals, n);
    if (!(fabs(med - want) <= NS_CHECK_MEDIAN_REL * fabs(want)))
        FAIL("%s: %s.median = %g is not the median of its values{} (%g): not a fleet report "
             "this tool wrote",
             path, where, med, want);
    return 0;
}

/* A fleet report (kind "fleet"): benchmarks[] (median, spread and per-node values: compare's
 * input) and the all-reduce rows checked as results[] are (a median of 1e308 with values
 * of 71.7 gave inf in compare.dat: results_check.sh). */
static int check_fleet(const json_t *root, const char *path, char *err, size_t errlen) {
    const json_t *bs = json_object_get(root, "benchmarks");
    if (object_array(bs, path, "benchmarks", err, errlen)) return -1;
    double *vals = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < json_array_size(bs); i++) {
        const json_t *b = json_array_get(bs, i);
        const char *id = json_string_value(json_object_get(b, "id"));
        char where[300];
        if (id)
            snprintf(where, sizeof where, "benchmarks[id=%.200s]", id);
        else
            snprintf(where, sizeof where, "benchmarks[%zu]", i);
        if (check_nums(b, fleet_bench_nums, NS_CHECK_MIN, NS_CHECK_MAX, path, where, err,
                       errlen) ||
            check_fleet_values(b, path, where, &vals, &cap, err, errlen)) {
            free(vals);
            return -1;
        }
    }
    free(vals);
    const json_t *rows = json_object_get(json_object_get(root, "collectives"), "allreduce");
    if (!json_is_array(rows)) return 0;
    if (object_array(rows, path, "collectives.allreduce", err, errlen)) return -1;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        char where[60];
        snprintf(where, sizeof where, "collectives.allreduce[%zu]", i);
        if (check_nums(json_array_get(rows, i), fleet_allreduce_nums, NS_CHECK_MIN, NS_CHECK_MAX,
                       path, where, err, errlen))
            return -1;
    }
    return 0;
}

/* A cache entry's level: a whole number, or a string "L<n>" (or "l<n>"); 0 when neither. */
static int cache_level(const json_t *v) {
    if (json_is_number(v)) {
        double x = json_number_value(v);
        return x >= 1 && x <= NS_CHECK_MAX_CACHE_LEVEL && x == floor(x) ? (int)x : 0;
    }
    const char *s = json_string_value(v);
    if (!s || (s[0] != 'L' && s[0] != 'l') || s[1] < '1' || s[1] > '0' + NS_CHECK_MAX_CACHE_LEVEL ||
        s[2])
        return 0;
    return s[1] - '0';
}

int ns_cache_entry_check(const json_t *c, char *why, size_t whylen) {
    if (!cache_level(json_object_get(c, "level"))) {
        snprintf(why, whylen, "level is not a cache level (want 1 to %d)",
                 NS_CHECK_MAX_CACHE_LEVEL);
        return -1;
    }
    const json_t *sz = json_object_get(c, "size_bytes");
    double x = json_number_value(sz);
    if (!json_is_number(sz) || x != floor(x) || x < NS_CHECK_MIN_CACHE_BYTES ||
        x > NS_CHECK_MAX_CACHE_BYTES) {
        snprintf(why, whylen,
                 "size_bytes is not a plausible cache size (want a whole number of bytes from "
                 "1 KiB to 1 TiB)");
        return -1;
    }
    static const char *const counts[] = {"count", "shared_by_cores"};
    for (int k = 0; k < 2; k++) {
        const json_t *v = json_object_get(c, counts[k]);
        double n = json_number_value(v);
        if (v && !json_is_null(v) &&
            (!json_is_number(v) || n < 1 || n > NS_CHECK_MAX_CACHE_COUNT || n != floor(n))) {
            snprintf(why, whylen, "%s is not a whole number of 1 to %d", counts[k],
                     NS_CHECK_MAX_CACHE_COUNT);
            return -1;
        }
    }
    return 0;
}

int ns_cache_grows(int level, double size, int prev_level, double prev_size, char *why,
                   size_t whylen) {
    if (!prev_level || size > prev_size) return 0;
    snprintf(why, whylen,
             "L%d (%.0f bytes) is not larger than L%d (%.0f bytes): cache capacities grow with "
             "the level",
             level, size, prev_level, prev_size);
    return -1;
}

/* context.cpu.caches, by which the roofline labels every plateau and kernel: absent, null, or
 * an array of objects each passing ns_cache_entry_check, and its data and unified caches larger
 * with each level (ns_cache_grows; a level's largest entry, as the roofline takes it): an L2
 * larger than the L3 or an L3 of 0 bytes gave every level a wrong capacity (results_check.sh). */
static int check_caches(const json_t *root, const char *path, char *err, size_t errlen) {
    const json_t *a = json_object_get(json_object_get(json_object_get(root, "context"), "cpu"),
                                      "caches");
    if (object_array(a, path, "context.cpu.caches", err, errlen)) return -1;
    double size[NS_CHECK_MAX_CACHE_LEVEL + 1] = {0};
    char why[200];
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *c = json_array_get(a, i);
        if (ns_cache_entry_check(c, why, sizeof why))
            FAIL("%s: context.cpu.caches[%zu].%s", path, i, why);
        int level = cache_level(json_object_get(c, "level"));
        double x = json_number_value(json_object_get(c, "size_bytes"));
        const char *type = json_string_value(json_object_get(c, "type"));
        if (!(type && !strncasecmp(type, "instr", 5))) size[level] = fmax(size[level], x);
    }
    for (int l = 2, prev = 0; l <= NS_CHECK_MAX_CACHE_LEVEL; l++) {
        if (size[l - 1] > 0) prev = l - 1;
        if (size[l] > 0 && ns_cache_grows(l, size[l], prev, prev ? size[prev] : 0, why, sizeof why))
            FAIL("%s: context.cpu.caches: %s", path, why);
    }
    return 0;
}

int ns_results_check(const json_t *root, const char *path, char *err, size_t errlen) {
    const char *kind = json_string_value(json_object_get(root, "kind"));
    if (kind && !strcmp(kind, "fleet")) return check_fleet(root, path, err, errlen);
    if (kind) return 0; /* a compare report: its readers refuse it */
    const json_t *it = json_object_get(root, "interrupted");
    if (it && !json_is_boolean(it)) FAIL("%s: \"interrupted\" is not true or false", path);
    if (check_results(json_object_get(root, "results"), path, err, errlen)) return -1;
    if (check_caches(root, path, err, errlen)) return -1;
    if (check_sweep(json_object_get(root, "sweep"), path, err, errlen)) return -1;
    const json_t *ce = json_object_get(root, "ceilings");
    if (ce && !json_is_null(ce) && !json_is_object(ce)) FAIL("%s: ceilings is not an object", path);
    static const char *const kinds[] = {"compute", "bandwidth"};
    for (int k = 0; k < 2; k++) {
        const json_t *a = json_object_get(ce, kinds[k]);
        char name[40];
        snprintf(name, sizeof name, "ceilings.%s", kinds[k]);
        if (object_array(a, path, name, err, errlen)) return -1;
        for (size_t i = 0; i < json_array_size(a); i++) {
            char where[80];
            snprintf(where, sizeof where, "%s[%zu]", name, i);
            if (check_nums(json_array_get(a, i), k ? bandwidth_nums : compute_nums, NS_CHECK_MIN,
                           NS_CHECK_MAX, path, where, err, errlen) ||
                check_threads(json_array_get(a, i), path, where, err, errlen))
                return -1;
        }
    }
    return 0;
}
