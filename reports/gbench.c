/* Google Benchmark JSON writer (see gbench.h). The layout follows what google/benchmark's
 * JSONReporter emits and what tools/gbench/report.py reads: per-repetition entries share one
 * "name" and carry run_type "iteration" and a repetition_index; aggregates are separate entries
 * named NAME_mean / NAME_median / NAME_stddev with run_type "aggregate". compare.py's U test runs
 * over the per-repetition entries, so every sample is written, not only the summary. */
#include "reports/gbench.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/json.h"
#include "harness/stats.h"

/* What cpu_time holds, said in every entry's "label" (tools print labels next to the name)
 * and in the context: tools require the field, but a reader must not take it for CPU time. */
#define NS_GBENCH_CPU_TIME_NOTE                                                                    \
    "cpu_time is wall time: nodescale does not measure CPU time, cpu_time repeats real_time"

/* A clock in GHz that a probe measured: finite and positive. */
static int gb_ghz_ok(double ghz) {
    return isfinite(ghz) && ghz > 0;
}

/* The nominal clock in the CPU's brand string ("... @ 2.40GHz"), in MHz; NAN when it has none. */
static double gb_nominal_mhz(const char *model) {
    const char *at = model ? strrchr(model, '@') : NULL;
    if (!at) return NAN;
    char *end;
    double v = strtod(at + 1, &end);
    while (*end == ' ')
        end++;
    if (!(isfinite(v) && v > 0)) return NAN;
    if (!strncmp(end, "GHz", 3)) return v * 1e3;
    if (!strncmp(end, "MHz", 3)) return v;
    return NAN;
}

/* mhz_per_cpu: the clock the run measured, else the nominal one. In order: the median of the
 * clocks probed around each benchmark (results[].per_cycle.clock_ghz, what the samples ran at),
 * the mean of the run's probes before and after (context.clock_probe), the probe of
 * context.cpu.freq_measured_hz, the nominal clock of the brand string. Says which in *source;
 * NAN when none is known. */
static double gb_mhz(const json_t *results, const json_t *ctx, char *source, size_t len) {
    const json_t *arr = json_object_get(results, "results");
    size_t n = json_array_size(arr), k = 0;
    double *g = malloc((n ? n : 1) * sizeof *g);
    for (size_t i = 0; g && i < n; i++) {
        double x =
            ns_json_get_num(json_object_get(json_array_get(arr, i), "per_cycle"), "clock_ghz");
        if (gb_ghz_ok(x)) g[k++] = x;
    }
    double med = k ? ns_median(g, k) : NAN;
    free(g);
    if (gb_ghz_ok(med)) {
        snprintf(source, len,
                 "measured: median of the clocks probed around each of %zu benchmarks "
                 "(results[].per_cycle.clock_ghz)",
                 k);
        return med * 1e3;
    }
    const json_t *probe = json_object_get(ctx, "clock_probe");
    double b = ns_json_get_num(probe, "before_ghz"), a = ns_json_get_num(probe, "after_ghz");
    if (gb_ghz_ok(b) || gb_ghz_ok(a)) {
        snprintf(source, len, "measured: %s (context.clock_probe)",
                 gb_ghz_ok(b) && gb_ghz_ok(a) ? "mean of the probes before and after the run"
                 : gb_ghz_ok(b)               ? "the probe before the run"
                                              : "the probe after the run");
        return (gb_ghz_ok(b) && gb_ghz_ok(a) ? 0.5 * (a + b) : gb_ghz_ok(b) ? b : a) * 1e3;
    }
    const json_t *cpu = json_object_get(ctx, "cpu");
    double hz = ns_json_get_num(cpu, "freq_measured_hz");
    if (gb_ghz_ok(hz)) {
        snprintf(source, len, "measured: the probe at the start (context.cpu.freq_measured_hz)");
        return hz / 1e6;
    }
    double nominal = gb_nominal_mhz(json_string_value(json_object_get(cpu, "model")));
    if (isfinite(nominal)) {
        snprintf(source, len, "nominal: the CPU brand string (no measured clock in the results)");
        return nominal;
    }
    snprintf(source, len, "unknown: no measured clock and no nominal clock in the brand string");
    return NAN;
}

static json_t *gb_context(const json_t *results) {
    const json_t *ctx = json_object_get(results, "context");
    json_t *c = json_object();
    const json_t *cpu = json_object_get(ctx, "cpu");
    const char *date = json_string_value(json_object_get(ctx, "date"));
    const char *host = json_string_value(json_object_get(ctx, "host"));
    json_object_set_new(c, "date", json_string(date ? date : ""));
    json_object_set_new(c, "host_name", json_string(host ? host : ""));
    json_object_set_new(c, "executable", json_string("nodescale"));
    /* Logical CPUs when the context has them, else cores. */
    static const char *cpu_keys[] = {"pus", "logical_cpus", "cpus", "cores"};
    json_int_t ncpu = 0;
    for (size_t i = 0; i < sizeof cpu_keys / sizeof *cpu_keys && !ncpu; i++)
        ncpu = json_integer_value(json_object_get(cpu, cpu_keys[i]));
    json_object_set_new(c, "num_cpus", ncpu > 0 ? json_integer(ncpu) : json_null());
    char source[160];
    double mhz = gb_mhz(results, ctx, source, sizeof source);
    json_object_set_new(c, "mhz_per_cpu",
                        isfinite(mhz) ? json_integer((json_int_t)llround(mhz)) : json_null());
    json_object_set_new(c, "nodescale_mhz_per_cpu", json_string(source));
    json_object_set_new(c, "cpu_scaling_enabled", json_false());
    json_t *caches = json_array();
    const json_t *cs = json_object_get(cpu, "caches");
    size_t i;
    const json_t *e;
    json_array_foreach(cs, i, e) {
        json_t *g = json_object();
        const char *t = json_string_value(json_object_get(e, "type"));
        char type[16] = "Unified";
        if (t && t[0]) {
            snprintf(type, sizeof type, "%s", t);
            type[0] = (char)toupper((unsigned char)type[0]);
            for (char *p = type + 1; *p; p++)
                *p = (char)tolower((unsigned char)*p);
        }
        json_object_set_new(g, "type", json_string(type));
        json_object_set_new(g, "level",
                            json_integer(json_integer_value(json_object_get(e, "level"))));
        json_object_set_new(g, "size", json_integer((json_int_t)ns_json_get_num(e, "size_bytes")));
        json_int_t share = json_integer_value(json_object_get(e, "shared_by_cores"));
        json_object_set_new(g, "num_sharing", json_integer(share > 0 ? share : 1));
        json_array_append_new(caches, g);
    }
    json_object_set_new(c, "caches", caches);
    /* The run's load averages (context.load_avg: 1, 5 and 15 minutes, from getloadavg when the
     * run started); [] for results recorded without them, never a made-up or non-finite value. */
    const json_t *la = json_object_get(ctx, "load_avg");
    json_t *load = json_array();
    int la_ok = json_array_size(la) == 3;
    for (size_t j = 0; la_ok && j < 3; j++) {
        double x = json_number_value(json_array_get(la, j));
        la_ok = json_is_number(json_array_get(la, j)) && isfinite(x) && x >= 0;
    }
    for (size_t j = 0; la_ok && j < 3; j++)
        json_array_append_new(load, json_real(json_number_value(json_array_get(la, j))));
    json_object_set_new(c, "load_avg", load);
    const char *cflags = json_string_value(json_object_get(ctx, "cflags"));
    json_object_set_new(c, "nodescale_cpu_time", json_string(NS_GBENCH_CPU_TIME_NOTE));
    json_object_set_new(c, "library_build_type",
                        json_string(cflags && strstr(cflags, "-O0") ? "debug" : "release"));
    return c;
}

/* Common fields of one entry. */
static json_t *gb_entry(const char *name, const char *run_name, json_int_t family,
                        const char *run_type, size_t reps, json_int_t threads) {
    json_t *b = json_object();
    json_object_set_new(b, "name", json_string(name));
    json_object_set_new(b, "family_index", json_integer(family));
    json_object_set_new(b, "per_family_instance_index", json_integer(0));
    json_object_set_new(b, "run_name", json_string(run_name));
    json_object_set_new(b, "run_type", json_string(run_type));
    json_object_set_new(b, "repetitions", json_integer((json_int_t)reps));
    json_object_set_new(b, "threads", json_integer(threads));
    return b;
}

static void gb_times(json_t *b, double seconds) {
    json_object_set_new(b, "real_time", json_real(seconds * 1e9));
    json_object_set_new(b, "cpu_time", json_real(seconds * 1e9));
    json_object_set_new(b, "time_unit", json_string("ns"));
    json_object_set_new(b, "label", json_string(NS_GBENCH_CPU_TIME_NOTE));
}

int ns_write_gbench(const json_t *results, const char *path, char *err, size_t errlen) {
    const json_t *arr = json_object_get(results, "results");
    if (!json_is_array(arr)) {
        snprintf(err, errlen, "no \"results\" array to convert");
        return -1;
    }
    json_t *root = json_object(), *benches = json_array(), *skipped = json_array();
    json_t *ctx = gb_context(results);
    double *v = NULL;
    int rc = -1;
    json_int_t family = 0;
    size_t i;
    const json_t *r;
    json_array_foreach(arr, i, r) {
        const char *id = json_string_value(json_object_get(r, "id"));
        const char *st = json_string_value(json_object_get(r, "status"));
        const json_t *ss = json_object_get(r, "samples_s");
        if (!id) continue;
        size_t n = json_array_size(ss), k = 0;
        double *nv = realloc(v, (n ? n : 1) * sizeof *v);
        if (!nv) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        v = nv;
        for (size_t j = 0; j < n; j++) {
            const json_t *x = json_array_get(ss, j);
            if (json_is_number(x) && isfinite(json_number_value(x)) && json_number_value(x) > 0)
                v[k++] = json_number_value(x);
        }
        if ((st && strcmp(st, "ok")) || k == 0) {
            json_array_append_new(skipped, json_string(id));
            continue;
        }
        json_int_t threads = json_integer_value(json_object_get(r, "threads"));
        if (threads < 1) threads = 1;
        json_int_t reps = json_integer_value(json_object_get(r, "reps"));
        if (reps < 1) reps = 1;
        double bytes = ns_json_get_num(r, "bytes"), flops = ns_json_get_num(r, "flops");
        for (size_t j = 0; j < k; j++) {
            json_t *b = gb_entry(id, id, family, "iteration", k, threads);
            json_object_set_new(b, "repetition_index", json_integer((json_int_t)j));
            json_object_set_new(b, "iterations", json_integer(reps));
            gb_times(b, v[j]);
            /* Google Benchmark's own rate counter name, and one for FLOP/s. */
            if (isfinite(bytes) && bytes > 0)
                json_object_set_new(b, "bytes_per_second", json_real(bytes / v[j]));
            if (isfinite(flops) && flops > 0)
                json_object_set_new(b, "flops_per_second", json_real(flops / v[j]));
            json_array_append_new(benches, b);
        }
        ns_stats s;
        ns_stats_compute(v, k, &s);
        static const char *agg[] = {"mean", "median", "stddev"};
        double val[] = {s.mean, s.median, s.stddev};
        for (size_t a = 0; a < 3; a++) {
            if (!isfinite(val[a])) continue; /* stddev of one sample: no entry, never NaN */
            char name[512];
            snprintf(name, sizeof name, "%s_%s", id, agg[a]);
            json_t *b = gb_entry(name, id, family, "aggregate", k, threads);
            json_object_set_new(b, "aggregate_name", json_string(agg[a]));
            json_object_set_new(b, "aggregate_unit", json_string("time"));
            json_object_set_new(b, "iterations", json_integer((json_int_t)k));
            gb_times(b, val[a]);
            json_array_append_new(benches, b);
        }
        family++;
    }
    if (json_array_size(skipped)) json_object_set(ctx, "nodescale_skipped", skipped);
    json_object_set_new(ctx, "nodescale_schema",
                        json_string(json_string_value(json_object_get(results, "schema"))
                                        ? json_string_value(json_object_get(results, "schema"))
                                        : NS_SCHEMA));
    json_object_set(root, "context", ctx);
    json_object_set(root, "benchmarks", benches);
    rc = ns_json_write_atomic(root, path, err, errlen);
out:
    free(v);
    json_decref(ctx);
    json_decref(benches);
    json_decref(skipped);
    json_decref(root);
    return rc;
}
