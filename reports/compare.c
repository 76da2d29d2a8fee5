/* `nodescale compare A.json B.json ...`: several nodes or providers side by side.
 *
 * SemiAnalysis' ClusterMAX rating remarks that GEMM microbenchmarks rarely tell GPU cloud providers
 * apart while memory, network and storage tests do. This command checks that claim on whatever
 * inputs it is given: per benchmark id it lines up the inputs' rates, computes the spread across
 * them (coefficient of variation, max/min) against the inputs' own run-to-run noise, sorts by
 * spread, plots it with gnuplot, and states in one line which benchmark classes distinguish the
 * inputs, from the data, whatever that turns out to be. Inputs are node results.json files or
 * fleet.json files (a fleet counts as one input whose values are its node medians; --nodes
 * expands it into one input per node). */
#include "reports/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gnuplot.h"
#include "harness/json.h"
#include "harness/outdir.h"
#include "harness/stats.h"
#include "kernels/registry.h"
#include "reports/gate.h"
#include "reports/report.h"

const char *const ns_bench_classes[NS_NCLASSES] = {"gemm", "stream/bandwidth", "reduce", "peak",
                                                   "allreduce"};

const char *ns_bench_class(const char *family) {
    if (!family) return "other";
    if (!strcmp(family, "gemm")) return ns_bench_classes[0];
    if (!strcmp(family, "stream")) return ns_bench_classes[1];
    if (!strcmp(family, "reduce")) return ns_bench_classes[2];
    if (!strcmp(family, "peak")) return ns_bench_classes[3];
    if (!strcmp(family, "allreduce")) return ns_bench_classes[4];
    return "other";
}

static int class_index(const char *cls) {
    for (int i = 0; i < NS_NCLASSES; i++)
        if (!strcmp(cls, ns_bench_classes[i])) return i;
    return -1;
}

/* The class string interned in ns_bench_classes (or "other"), so sets never own it. */
static const char *intern_class(const char *cls) {
    int i = cls ? class_index(cls) : -1;
    return i >= 0 ? ns_bench_classes[i] : "other";
}

static const char *intern_unit(const char *unit) {
    return unit && !strcmp(unit, "GB/s") ? "GB/s" : "GFLOP/s";
}

double ns_result_rate(const json_t *r, const char **unit) {
    const char *status = json_string_value(json_object_get(r, "status"));
    if (status && strcmp(status, "ok") != 0) return NAN;
    if (json_is_false(json_object_get(r, "validated"))) return NAN;
    const char *family = json_string_value(json_object_get(r, "family"));
    int bw_first = ns_family_memory_bound(family);
    double gb = ns_json_get_num(r, "gbytes_per_s"), gf = ns_json_get_num(r, "gflops");
    double first = bw_first ? gb : gf, second = bw_first ? gf : gb;
    int use_first = isfinite(first) && first > 0;
    double v = use_first ? first : second;
    if (!(isfinite(v) && v > 0)) return NAN;
    *unit = (use_first == bw_first) ? "GB/s" : "GFLOP/s";
    return v;
}

static int cmp_value_id(const void *a, const void *b) {
    return strcmp(((const ns_bench_value *)a)->id, ((const ns_bench_value *)b)->id);
}

/* A value's noise from its between-node and within-node parts (either may be NAN: unknown). */
static double combine_noise(double between, double within) {
    if (isfinite(between) && isfinite(within)) return hypot(between, within);
    return isfinite(between) ? between : within;
}

/* The within-node noise of one results[] entry: time_s.cv, or the CV of samples_s without it. */
static double result_within(const json_t *r) {
    double cv = ns_json_get_num(json_object_get(r, "time_s"), "cv");
    if (isfinite(cv)) return cv;
    json_t *samples = json_object_get(r, "samples_s"), *e;
    size_t n = json_array_size(samples), i, k = 0;
    if (n < 2 || n > 100000) return NAN;
    double *x = malloc(n * sizeof *x);
    if (!x) return NAN;
    json_array_foreach(samples, i, e) {
        if (json_is_number(e)) x[k++] = json_number_value(e);
    }
    ns_stats st;
    cv = k >= 2 && ns_stats_compute(x, k, &st) == 0 ? st.cv : NAN;
    free(x);
    return cv;
}

static int push_value(ns_bench_set *s, size_t *cap, const char *id, const char *cls,
                      const char *unit, double value, double between, double within) {
    if (s->n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 64;
        ns_bench_value *nv = realloc(s->v, ncap * sizeof *nv);
        if (!nv) return -1;
        s->v = nv;
        *cap = ncap;
    }
    char *dup = strdup(id);
    if (!dup) return -1;
    s->v[s->n++] = (ns_bench_value){dup,
                                    intern_class(cls),
                                    intern_unit(unit),
                                    value,
                                    between,
                                    within,
                                    combine_noise(between, within)};
    return 0;
}

/* Sorts by id and drops later duplicates (a malformed file must not count an id twice). */
static void finish_set(ns_bench_set *s) {
    if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_value_id);
    size_t w = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (w && !strcmp(s->v[w - 1].id, s->v[i].id)) {
            free(s->v[i].id);
            continue;
        }
        s->v[w++] = s->v[i];
    }
    s->n = w;
}

static int set_labels(ns_bench_set *s, const json_t *root, const char *label) {
    const char *host = json_string_value(json_object_get(json_object_get(root, "context"), "host"));
    s->host = strdup(host ? host : "");
    s->label = strdup(label ? label : (host && *host ? host : "input"));
    return s->host && s->label ? 0 : -1;
}

/* The all-reduce busbw of a fleet file, one value per message size. */
static int push_allreduce(ns_bench_set *s, size_t *cap, const json_t *root) {
    json_t *rows = json_object_get(json_object_get(root, "collectives"), "allreduce");
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        double bytes = ns_json_get_num(row, "bytes"),
               bw = ns_json_get_num(row, "busbw_gbytes_per_s");
        if (!(isfinite(bytes) && isfinite(bw) && bw > 0)) continue;
        char id[64];
        snprintf(id, sizeof id, "allreduce/busbw/bytes=%.0f", bytes);
        if (push_value(s, cap, id, "allreduce", "GB/s", bw, NAN, NAN)) return -1;
    }
    return 0;
}

/* The thread all-reduce of a node file (`allreduce.ring[]` and `tree[]`, shared memory): busbw
 * per schedule and size per thread, with the size's own sample CV as its within noise (node inputs'
 * all-reduce was never compared, and the verdict called it not measured: fleet_compare.sh). */
static int push_node_allreduce(ns_bench_set *s, size_t *cap, const json_t *root) {
    static const char *const sched[] = {"ring", "tree"};
    const json_t *ar = json_object_get(root, "allreduce");
    json_t *thr = json_object_get(ar, "threads");
    char t[32] = "";
    if (json_is_integer(thr) && json_integer_value(thr) > 0)
        snprintf(t, sizeof t, "/t%lld", (long long)json_integer_value(thr));
    for (size_t k = 0; k < sizeof sched / sizeof *sched; k++) {
        size_t i;
        json_t *row;
        json_array_foreach(json_object_get(ar, sched[k]), i, row) {
            const char *st = json_string_value(json_object_get(row, "status"));
            if ((st && strcmp(st, "ok") != 0) || json_is_false(json_object_get(row, "validated")))
                continue;
            double bytes = ns_json_get_num(row, "size_bytes"),
                   bw = ns_json_get_num(row, "busbw_gbytes_per_s");
            if (!(isfinite(bytes) && bytes > 0 && isfinite(bw) && bw > 0)) continue;
            char id[96];
            snprintf(id, sizeof id, "allreduce/%s%s/busbw/bytes=%.0f", sched[k], t, bytes);
            if (push_value(s, cap, id, "allreduce", "GB/s", bw, NAN, result_within(row))) return -1;
        }
    }
    return 0;
}

int ns_bench_set_from_json(const json_t *root, const char *label, ns_bench_set *out, char *err,
                           size_t errlen) {
    memset(out, 0, sizeof *out);
    size_t cap = 0, i, nres = 0, nstatus = 0, nunchecked = 0;
    const char *first_status = NULL;
    json_t *e;
    const char *kind = json_string_value(json_object_get(root, "kind"));
    out->is_fleet = kind && !strcmp(kind, "fleet");
    out->nodes = 1;
    if (set_labels(out, root, label)) goto oom;
    if (out->is_fleet) {
        json_t *nodes = json_object_get(root, "nodes");
        int ok = 0;
        json_array_foreach(nodes, i, e) {
            const char *st = json_string_value(json_object_get(e, "status"));
            ok += st && !strcmp(st, "ok");
        }
        out->nodes = ok;
        json_array_foreach(json_object_get(root, "benchmarks"), i, e) {
            const char *id = json_string_value(json_object_get(e, "id"));
            double med = ns_json_get_num(e, "median");
            if (!id || !(isfinite(med) && med > 0)) continue;
            /* Below 3 nodes the node-to-node spread cannot be estimated (the fleet writes 0):
             * unknown, not zero. */
            json_t *nm = json_object_get(e, "nodes_measured");
            size_t measured = json_is_integer(nm) ? (size_t)json_integer_value(nm)
                                                  : json_object_size(json_object_get(e, "values"));
            double between = measured >= 3 ? ns_json_get_num(e, "noise") : NAN;
            if (push_value(out, &cap, id, json_string_value(json_object_get(e, "class")),
                           json_string_value(json_object_get(e, "unit")), med, between, NAN))
                goto oom;
        }
        if (push_allreduce(out, &cap, root)) goto oom;
    } else {
        json_array_foreach(json_object_get(root, "results"), i, e) {
            const char *id = json_string_value(json_object_get(e, "id"));
            const char *unit = NULL;
            const char *st = json_string_value(json_object_get(e, "status"));
            double v = ns_result_rate(e, &unit);
            nres++;
            if (st && strcmp(st, "ok") != 0) {
                if (!nstatus++) first_status = st;
            } else if (json_is_false(json_object_get(e, "validated"))) {
                nunchecked++;
            }
            if (!id || !isfinite(v)) continue;
            const char *family = json_string_value(json_object_get(e, "family"));
            if (push_value(out, &cap, id, ns_bench_class(family), unit, v, NAN, result_within(e)))
                goto oom;
        }
        if (push_node_allreduce(out, &cap, root)) goto oom;
    }
    finish_set(out);
    if (out->n == 0 && (nstatus || nunchecked)) {
        /* Say why (an interrupted result was called "empty or all null": interrupted_inputs.sh). */
        char st[160] = "", ck[64] = "";
        if (nstatus)
            snprintf(st, sizeof st, "%zu with a status other than \"ok\" (\"%.80s\"%s)", nstatus,
                     first_status, nstatus > 1 ? ", ..." : "");
        if (nunchecked) snprintf(ck, sizeof ck, "%zu that failed the output check", nunchecked);
        snprintf(err, errlen,
                 "%s: no measured benchmark in it: of its %zu result%s, %s%s%s dropped (only "
                 "results with status \"ok\", a passed check and a rate are compared)",
                 out->label, nres, nres == 1 ? "" : "s", st, st[0] && ck[0] ? " and " : "", ck);
        ns_bench_set_free(out);
        return -1;
    }
    if (out->n == 0) {
        snprintf(err, errlen, "%s: no measured benchmark in it (%s empty or all null)", out->label,
                 out->is_fleet ? "benchmarks[]" : "results[]");
        ns_bench_set_free(out);
        return -1;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    ns_bench_set_free(out);
    return -1;
}

int ns_bench_sets_per_node(const json_t *fleet, ns_bench_set **out, char *err, size_t errlen) {
    json_t *nodes = json_object_get(fleet, "nodes"), *e;
    size_t nn = json_array_size(nodes), i, cnt = 0;
    ns_bench_set *sets = calloc(nn ? nn : 1, sizeof *sets);
    size_t *caps = calloc(nn ? nn : 1, sizeof *caps);
    if (!sets || !caps) goto oom;
    json_array_foreach(nodes, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *st = json_string_value(json_object_get(e, "status"));
        if (!name || !st || strcmp(st, "ok") != 0) continue;
        ns_bench_set *s = &sets[cnt++];
        s->label = strdup(name);
        const char *host = json_string_value(json_object_get(e, "host"));
        s->host = strdup(host ? host : "");
        s->nodes = 1;
        if (!s->label || !s->host) goto oom;
    }
    json_array_foreach(json_object_get(fleet, "benchmarks"), i, e) {
        const char *id = json_string_value(json_object_get(e, "id"));
        json_t *vals = json_object_get(e, "values");
        if (!id) continue;
        for (size_t k = 0; k < cnt; k++) {
            double v = ns_json_get_num(vals, sets[k].label);
            if (!(isfinite(v) && v > 0)) continue;
            if (push_value(&sets[k], &caps[k], id, json_string_value(json_object_get(e, "class")),
                           json_string_value(json_object_get(e, "unit")), v, NAN, NAN))
                goto oom;
        }
    }
    for (size_t k = 0; k < cnt; k++)
        finish_set(&sets[k]);
    free(caps);
    if (cnt == 0) {
        free(sets);
        snprintf(err, errlen, "the fleet file has no node with status \"ok\"");
        return -1;
    }
    *out = sets;
    return (int)cnt;
oom:
    snprintf(err, errlen, "out of memory");
    for (size_t k = 0; sets && k < cnt; k++)
        ns_bench_set_free(&sets[k]);
    free(sets);
    free(caps);
    return -1;
}

static const ns_bench_value *find_value(const ns_bench_set *s, const char *id);

int ns_bench_set_fleet_within(ns_bench_set *sets, size_t nsets, int per_node, const json_t *fleet,
                              const char *fleet_path) {
    char dir[4096], path[8300], err[512];
    snprintf(dir, sizeof dir, "%s", fleet_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = 0;
    else
        dir[0] = 0;
    int unread = 0;
    size_t i, j;
    json_t *node, *e;
    json_array_foreach(json_object_get(fleet, "nodes"), i, node) {
        const char *st = json_string_value(json_object_get(node, "status"));
        const char *name = json_string_value(json_object_get(node, "name"));
        if (!st || strcmp(st, "ok") != 0 || !name) continue;
        ns_bench_set *s = NULL;
        for (size_t k = 0; k < nsets && !s; k++)
            if (!per_node || !strcmp(sets[k].label, name)) s = &sets[k];
        if (!s) continue;
        const char *rel = json_string_value(json_object_get(node, "results"));
        json_t *root = NULL;
        if (rel) {
            snprintf(path, sizeof path, "%s%s", rel[0] == '/' ? "" : dir, rel);
            root = ns_json_load_results(path, err, sizeof err);
        }
        if (!root) {
            unread++;
            continue;
        }
        json_array_foreach(json_object_get(root, "results"), j, e) {
            const char *id = json_string_value(json_object_get(e, "id"));
            ns_bench_value *v = id ? (ns_bench_value *)find_value(s, id) : NULL;
            double w = v ? result_within(e) : NAN;
            if (!isfinite(w) || w <= v->within) continue;
            v->within = w;
            v->noise = combine_noise(v->between, w);
        }
        json_decref(root);
    }
    return unread;
}

void ns_bench_set_free(ns_bench_set *s) {
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].id);
    free(s->v);
    free(s->label);
    free(s->host);
    memset(s, 0, sizeof *s);
}

static const ns_bench_value *find_value(const ns_bench_set *s, const char *id) {
    ns_bench_value key = {.id = (char *)id};
    return s->n ? bsearch(&key, s->v, s->n, sizeof *s->v, cmp_value_id) : NULL;
}

static int cmp_row_spread(const void *a, const void *b) {
    const ns_compare_row *x = a, *y = b;
    if (x->max_over_min != y->max_over_min) return x->max_over_min < y->max_over_min ? 1 : -1;
    return strcmp(x->id, y->id);
}

int ns_compare_build(const ns_bench_set *sets, size_t nsets, double min_spread, ns_compare *c) {
    memset(c, 0, sizeof *c);
    c->nsets = nsets;
    size_t cap = 0;
    for (size_t s = 0; s < nsets; s++) {
        int has[NS_NCLASSES] = {0};
        for (size_t j = 0; j < sets[s].n; j++) {
            int ci = class_index(sets[s].v[j].cls);
            if (ci >= 0) has[ci] = 1;
        }
        for (int ci = 0; ci < NS_NCLASSES; ci++)
            c->class_inputs[ci] += has[ci];
    }
    for (size_t s = 0; s < nsets; s++) {
        for (size_t j = 0; j < sets[s].n; j++) {
            const ns_bench_value *bv = &sets[s].v[j];
            /* Each id once: skip it if an earlier set already holds it. */
            int seen = 0;
            for (size_t t = 0; t < s && !seen; t++)
                seen = find_value(&sets[t], bv->id) != NULL;
            if (seen) continue;
            double *vals = malloc(nsets * sizeof *vals);
            if (!vals) goto oom;
            double present[nsets ? nsets : 1], noise = NAN, between = NAN, within = NAN;
            int np = 0;
            for (size_t t = 0; t < nsets; t++) {
                const ns_bench_value *o = find_value(&sets[t], bv->id);
                vals[t] = o ? o->value : NAN;
                if (!o) continue;
                present[np++] = o->value;
                if (isfinite(o->noise) && !(o->noise <= noise)) noise = o->noise;
                if (isfinite(o->between) && !(o->between <= between)) between = o->between;
                if (isfinite(o->within) && !(o->within <= within)) within = o->within;
            }
            if (np < 2) {
                free(vals);
                continue;
            }
            if (c->nrows == cap) {
                size_t ncap = cap ? 2 * cap : 64;
                ns_compare_row *nr = realloc(c->rows, ncap * sizeof *nr);
                if (!nr) {
                    free(vals);
                    goto oom;
                }
                c->rows = nr;
                cap = ncap;
            }
            ns_stats st;
            ns_stats_compute(present, (size_t)np, &st);
            ns_compare_row *r = &c->rows[c->nrows++];
            *r = (ns_compare_row){.id = bv->id,
                                  .cls = bv->cls,
                                  .unit = bv->unit,
                                  .values = vals,
                                  .present = np,
                                  .cv = st.cv,
                                  .max_over_min = st.max / st.min,
                                  .noise = noise,
                                  .between = between,
                                  .within = within};
            r->threshold = isfinite(noise) && 3.0 * noise > min_spread ? 3.0 * noise : min_spread;
            r->distinguishes = r->max_over_min - 1.0 > r->threshold;
            int ci = class_index(r->cls);
            if (ci >= 0) {
                c->class_total[ci]++;
                c->class_distinct[ci] += r->distinguishes;
            }
        }
    }
    if (c->nrows) qsort(c->rows, c->nrows, sizeof *c->rows, cmp_row_spread);
    return 0;
oom:
    ns_compare_free(c);
    return -1;
}

void ns_compare_verdict(const ns_compare *c, char *line, size_t len) {
    char yes[512] = "", no[512] = "", none[256] = "", apart[256] = "";
    for (int i = 0; i < NS_NCLASSES; i++) {
        char item[96];
        if (c->class_total[i] == 0) {
            /* Measured by >= 2 inputs under different ids (a fleet's MPI all-reduce beside a
             * node's thread all-reduce, other thread counts): not compared, not unmeasured. */
            char *dst = c->class_inputs[i] >= 2 ? apart : none;
            size_t cap = c->class_inputs[i] >= 2 ? sizeof apart : sizeof none;
            snprintf(item, sizeof item, "%s%s", *dst ? ", " : "", ns_bench_classes[i]);
            strncat(dst, item, cap - strlen(dst) - 1);
            continue;
        }
        int distinct = 2 * c->class_distinct[i] >= c->class_total[i];
        char *dst = distinct ? yes : no;
        snprintf(item, sizeof item, "%s%s (%d/%d)", *dst ? ", " : "", ns_bench_classes[i],
                 c->class_distinct[i], c->class_total[i]);
        strncat(dst, item, (distinct ? sizeof yes : sizeof no) - strlen(dst) - 1);
    }
    snprintf(line, len,
             "Distinguish the %zu inputs: %s; do not: %s%s%s%s%s. (n/m = benchmarks whose "
             "max/min exceeds max(min spread, 3x noise) / benchmarks compared)",
             c->nsets, *yes ? yes : "none", *no ? no : "none",
             *apart ? "; not compared (measured, but no benchmark id in >= 2 inputs): " : "", apart,
             *none ? "; not measured in >= 2 "
                     "inputs: "
                   : "",
             none);
}

void ns_compare_free(ns_compare *c) {
    for (size_t i = 0; i < c->nrows; i++)
        free(c->rows[i].values);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* ---- the command ---------------------------------------------------------------------------- */

static const char *compare_help =
    "usage: nodescale compare [options] A.json B.json [...]\n"
    "  Several nodes or providers side by side: per benchmark, the inputs' rates, the spread\n"
    "  across them (CV, max/min) sorted by spread, a gnuplot plot, and one line saying which\n"
    "  benchmark classes (gemm, stream/bandwidth, reduce, peak, allreduce) distinguish the "
    "inputs.\n"
    "  Inputs: node results.json files or fleet.json files (a fleet = one input, its node\n"
    "  medians). A benchmark distinguishes the inputs when max/min - 1 exceeds\n"
    "  max(--min-spread, 3 x the largest noise among the inputs), a threshold rule on one value\n"
    "  per input, not a significance test; a class does when at least half of its benchmarks\n"
    "  do. An input's noise is sqrt(between^2 + within^2): between = a fleet's node-to-node\n"
    "  1.4826*MAD/median (n/a below 3 nodes), within = the nodes' own time_s.cv (a fleet's\n"
    "  from nodes/<node>/results.json). All inputs from one host: a warning line.\n"
    "options:\n"
    "  --out DIR         write compare.md, compare.json, compare.dat, compare.gp, compare.svg\n"
    "                    (default results/compare-<UTC time>)\n"
    "  --labels A,B,...  names of the inputs in the report (default: their hosts)\n"
    "  --nodes           expand each fleet.json into one input per node\n"
    "  --min-spread F    smallest relative difference counted as real: a fraction (0.05) or\n"
    "                    a percent (5%); a bare number >= 1 is refused as ambiguous\n"
    "                    (default 5%)\n";

/* v as "%.4g" (percent: 100 v as "%.1f%"), or an em dash when there is no value. */
static void fmt_num(char *buf, size_t len, double v, int percent) {
    if (!isfinite(v))
        snprintf(buf, len, "—");
    else if (percent)
        snprintf(buf, len, "%.1f%%", 100.0 * v);
    else
        snprintf(buf, len, "%.4g", v);
}

/* What the verdict rests on, one line (in compare.md and compare.json). */
static void rule_line(char *buf, size_t len, double min_spread) {
    snprintf(buf, len,
             "Rule: a benchmark differs when max/min - 1 > max(%.3g%%, 3 x noise), one value per "
             "input: a threshold rule, not a significance test; a class differs when at least "
             "half of its benchmarks do.",
             100.0 * min_spread);
}

/* compare.md; plotted: whether compare.svg was drawn (else the plot line says it was not). */
static char *render_markdown(const ns_bench_set *sets, const ns_compare *c, const char *verdict,
                             const char *rule, const char *warning, int plotted) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "# nodescale compare: %zu inputs side by side\n\n", c->nsets);
    fprintf(f, "**%s**\n\n", verdict);
    if (warning) fprintf(f, "**%s**\n\n", warning);
    fprintf(f, "%s\n\n", rule);
    fprintf(f, "| input | host | nodes | benchmarks |\n|---|---|---|---|\n");
    for (size_t s = 0; s < c->nsets; s++) {
        fprintf(f, "| ");
        ns_md_cell(f, sets[s].label);
        fprintf(f, " | ");
        ns_md_cell(f, sets[s].host);
        fprintf(f, " | %d%s | %zu |\n", sets[s].nodes, sets[s].is_fleet ? " (fleet medians)" : "",
                sets[s].n);
    }
    fprintf(f, "\nRates per benchmark (higher is better; 1 GB = 1e9 B), sorted by spread. "
               "CV = sample stddev/mean across the inputs; noise = the largest among the inputs "
               "of sqrt(between^2 + within^2): between = a fleet's node-to-node robust CV (n/a "
               "below 3 nodes), within = the nodes' own sample CV (time_s.cv); n/a = neither "
               "known.\n\n");
    fprintf(f, "| benchmark | class | unit |");
    for (size_t s = 0; s < c->nsets; s++) {
        fputc(' ', f);
        ns_md_cell(f, sets[s].label);
        fprintf(f, " |");
    }
    fprintf(f, " CV | max/min | noise | differ? |\n|---|---|---|");
    for (size_t s = 0; s < c->nsets; s++)
        fprintf(f, "---:|");
    fprintf(f, "---:|---:|---:|---|\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const ns_compare_row *r = &c->rows[i];
        char a[32], b[32], d[32];
        fprintf(f, "| ");
        ns_md_code(f, r->id, 1);
        fprintf(f, " | ");
        ns_md_cell(f, r->cls);
        fprintf(f, " | ");
        ns_md_cell(f, r->unit);
        fprintf(f, " |");
        for (size_t s = 0; s < c->nsets; s++) {
            fmt_num(a, sizeof a, r->values[s], 0);
            fprintf(f, " %s |", a);
        }
        fmt_num(a, sizeof a, r->cv, 1);
        fmt_num(b, sizeof b, r->max_over_min, 0);
        fmt_num(d, sizeof d, r->noise, 1);
        if (!isfinite(r->noise)) snprintf(d, sizeof d, "n/a");
        fprintf(f, " %s | %s | %s | %s |\n", a, b, d, r->distinguishes ? "yes" : "no");
    }
    if (plotted)
        fprintf(f, "\nPlot: compare.svg (max/min - 1 per benchmark, by class).\n");
    else
        fprintf(f, "\nPlot: none drawn (gnuplot missing or failed); `gnuplot compare.gp` draws "
                   "compare.svg from compare.dat.\n");
    fclose(f);
    return buf;
}

static json_t *render_json(const ns_bench_set *sets, const ns_compare *c, const char *verdict,
                           double min_spread, const char *rule, const char *warning) {
    json_t *root = json_object(), *inputs = json_array(), *rows = json_array(),
           *classes = json_array();
    json_object_set_new(root, "schema", json_string(NS_SCHEMA));
    json_object_set_new(root, "kind", json_string("compare"));
    ns_json_set_num(root, "min_spread", min_spread, NULL);
    json_object_set_new(root, "verdict", json_string(verdict));
    json_object_set_new(root, "rule", json_string(rule));
    json_object_set_new(root, "warning", warning ? json_string(warning) : json_null());
    for (size_t s = 0; s < c->nsets; s++) {
        json_t *in = json_object();
        ns_json_set_str(in, "label", sets[s].label);
        ns_json_set_str(in, "host", sets[s].host);
        json_object_set_new(in, "is_fleet", json_boolean(sets[s].is_fleet));
        ns_json_set_int(in, "nodes", sets[s].nodes);
        json_array_append_new(inputs, in);
    }
    for (int i = 0; i < NS_NCLASSES; i++) {
        json_t *cl = json_object();
        ns_json_set_str(cl, "class", ns_bench_classes[i]);
        ns_json_set_int(cl, "benchmarks", c->class_total[i]);
        ns_json_set_int(cl, "distinguishing", c->class_distinct[i]);
        if (c->class_total[i]) {
            json_object_set_new(cl, "distinguishes",
                                json_boolean(2 * c->class_distinct[i] >= c->class_total[i]));
        } else {
            json_object_set_new(cl, "distinguishes", json_null());
            ns_json_set_str(cl, "distinguishes_status",
                            c->class_inputs[i] >= 2
                                ? "not compared: measured, but no benchmark id in >= 2 inputs"
                                : "no benchmark of this class in the inputs");
        }
        json_array_append_new(classes, cl);
    }
    for (size_t i = 0; i < c->nrows; i++) {
        const ns_compare_row *r = &c->rows[i];
        json_t *o = json_object(), *vals = json_array();
        ns_json_set_str(o, "id", r->id);
        ns_json_set_str(o, "class", r->cls);
        ns_json_set_str(o, "unit", r->unit);
        for (size_t s = 0; s < c->nsets; s++)
            json_array_append_new(vals,
                                  isfinite(r->values[s]) ? json_real(r->values[s]) : json_null());
        json_object_set_new(o, "values", vals);
        ns_json_set_num(o, "cv", r->cv, "fewer than 2 inputs");
        ns_json_set_num(o, "max_over_min", r->max_over_min, "fewer than 2 inputs");
        json_object_set_new(o, "noise", isfinite(r->noise) ? json_real(r->noise) : json_null());
        json_object_set_new(o, "noise_between",
                            isfinite(r->between) ? json_real(r->between) : json_null());
        json_object_set_new(o, "noise_within",
                            isfinite(r->within) ? json_real(r->within) : json_null());
        ns_json_set_num(o, "threshold", r->threshold, NULL);
        json_object_set_new(o, "distinguishes", json_boolean(r->distinguishes));
        json_array_append_new(rows, o);
    }
    json_object_set_new(root, "inputs", inputs);
    json_object_set_new(root, "classes", classes);
    json_object_set_new(root, "benchmarks", rows);
    return root;
}

/* compare.dat (index, spread %, class index, id) and compare.gp; runs gnuplot if present (no
 * shell: harness/gnuplot.h). Returns 2 when compare.svg was drawn, 1 when only compare.dat and
 * compare.gp were written (no compare.svg is left), 0 when not even those. */
static int write_plot(const char *dir, const ns_compare *c, FILE *msg) {
    char path[8192], err[512];
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return 0;
    fprintf(f, "# index  spread_percent(max/min-1)  class_index  threshold_percent  id\n");
    for (size_t i = 0; i < c->nrows; i++)
        fprintf(f, "%zu %.6g %d %.6g %s\n", i, 100.0 * (c->rows[i].max_over_min - 1.0),
                class_index(c->rows[i].cls), 100.0 * c->rows[i].threshold, c->rows[i].id);
    fclose(f);
    snprintf(path, sizeof path, "%s/compare.dat", dir);
    int bad = ns_write_text_atomic(path, buf, err, sizeof err);
    free(buf);
    if (bad) {
        fprintf(msg, "nodescale compare: warning: %s\n", err);
        return 0;
    }
    const char *gp =
        "# nodescale compare: spread across inputs per benchmark (gnuplot compare.gp)\n"
        "set terminal svg size 1200,600 dynamic font 'sans,10'\n"
        "set output 'compare.svg'\n"
        "set title 'Spread across inputs per benchmark (sorted); bars above the dots differ'\n"
        "set ylabel 'max/min - 1 (%)'\n"
        "set xlabel 'benchmark (see compare.md for ids, same order)'\n"
        "set style fill solid 0.8\nset boxwidth 0.8\nset grid ytics\nset key top right\n"
        "set yrange [0:*]\nset xrange [-1:*]\n"
        "plot for [k=0:4] 'compare.dat' using ($3==k ? $1 : 1/0):2 with boxes "
        "title word('gemm stream/bandwidth reduce peak allreduce', k+1), \\\n"
        "     'compare.dat' using 1:4 with points pt 7 ps 0.5 lc rgb 'black' "
        "title 'threshold (max(min spread, 3x noise))'\n";
    snprintf(path, sizeof path, "%s/compare.gp", dir);
    if (ns_write_text_atomic(path, gp, err, sizeof err)) {
        fprintf(msg, "nodescale compare: warning: %s\n", err);
        unlink(path);
        snprintf(path, sizeof path, "%s/compare.dat", dir);
        unlink(path);
        return 0;
    }
    /* Run in dir, without a shell (a quote in --out ran a command: plot_quoting.sh). */
    if (c->nrows > 0 && ns_gnuplot_run(dir, "compare.gp", err, sizeof err) == 0) return 2;
    snprintf(path, sizeof path, "%s/compare.svg", dir);
    unlink(path); /* a half-drawn one, or an earlier run's */
    fprintf(msg, "nodescale compare: note: no plot (%s); compare.gp and compare.dat are written\n",
            c->nrows == 0 ? "nothing to plot" : err);
    return 1;
}

/* After a failed write: removes the report files compare writes into dir, then the folders it
 * created (dir and its parents down to the ns_outdir_first_missing() prefix), never one that
 * existed. */
static void remove_outputs(const char *dir, size_t created) {
    static const char *const files[] = {"compare.json", "compare.md", "compare.dat", "compare.gp",
                                        "compare.svg"};
    char buf[4300];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(buf, sizeof buf, "%s/%s", dir, files[i]);
        unlink(buf);
    }
    ns_outdir_remove_dirs(dir, created);
}

/* One host seen: *first keeps the first, *differ becomes 1 at another host or at none (NULL or
 * ""), when one host can no longer be claimed. Returns -1 when out of memory. */
static int note_host(const char *host, char **first, int *differ) {
    if (!host || !*host) {
        *differ = 1;
        return 0;
    }
    if (!*first) return (*first = strdup(host)) ? 0 : -1;
    if (strcmp(*first, host) != 0) *differ = 1;
    return 0;
}

/* Notes the hosts an input was measured on: a node file's context.host (or .hostname), each
 * "ok" node's host of a fleet. Returns -1 when out of memory. */
static int note_hosts(const json_t *root, int fleet, char **first, int *differ) {
    if (!fleet) {
        json_t *ctx = json_object_get(root, "context");
        const char *host = json_string_value(json_object_get(ctx, "host"));
        return note_host(host ? host : json_string_value(json_object_get(ctx, "hostname")), first,
                         differ);
    }
    size_t i;
    json_t *node;
    int any = 0;
    json_array_foreach(json_object_get(root, "nodes"), i, node) {
        const char *st = json_string_value(json_object_get(node, "status"));
        if (!st || strcmp(st, "ok") != 0) continue;
        any = 1;
        if (note_host(json_string_value(json_object_get(node, "host")), first, differ)) return -1;
    }
    if (!any) *differ = 1;
    return 0;
}

/* What compare's command line asks for (compare_parse_args). */
typedef struct {
    const char *out, *labels;
    double min_spread;
    int per_node;
    const char **paths; /* the inputs (allocated) */
    size_t npaths;
} compare_cli;

/* Parses compare's options into cli (cli->paths allocated: the caller frees it). Returns -1 to
 * go on, else the exit status: NS_EXIT_OK after --help, NS_EXIT_USAGE after a one-line error
 * (cli->paths then freed). */
static int compare_parse_args(int argc, char **argv, compare_cli *cli) {
    const char *cmd = "compare", *val;
    *cli = (compare_cli){.min_spread = 0.05};
    if (ns_refuse_repeated(cmd, argc, argv, NULL, 0)) return NS_EXIT_USAGE;
    const char **paths = cli->paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) return ns_usage_error(cmd, "out of memory");
    for (int i = 1; i < argc; i++) {
        int m;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(compare_help, stdout);
            free(paths);
            return NS_EXIT_OK;
        } else if ((m = ns_opt_value(argc, argv, &i, "--out", &val))) {
            if (m < 0) goto missing_value;
            char perr[1024];
            if (ns_path_check_name("--out", val, perr, sizeof perr)) {
                free(paths);
                return ns_usage_error(cmd, "%s", perr);
            }
            cli->out = val;
        } else if ((m = ns_opt_value(argc, argv, &i, "--labels", &val))) {
            if (m < 0) goto missing_value;
            cli->labels = val;
        } else if ((m = ns_opt_value(argc, argv, &i, "--min-spread", &val))) {
            if (m < 0) goto missing_value;
            /* The gate's threshold syntax: 0.05 or 5%; a bare 5 could mean 5% or 500%. */
            double bare;
            if (ns_gate_parse_fraction(val, &cli->min_spread)) {
                free(paths);
                if (ns_parse_double(val, 1.0, 1e300, &bare) == 0)
                    return ns_usage_error(cmd,
                                          "--min-spread: '%s' is ambiguous (%g%% or %g%%?): give a "
                                          "fraction below 1 (0.05) or a percent (5%%)",
                                          val, bare, 100.0 * bare);
                return ns_usage_error(cmd,
                                      "--min-spread: '%s' is not a fraction (0.05) or a percent "
                                      "(5%%) in [0, 1000%%]",
                                      val);
            }
        } else if (!strcmp(argv[i], "--nodes")) {
            cli->per_node = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(paths);
            return ns_usage_error(cmd, "unknown option '%s' (see --help)", argv[i]);
        } else {
            paths[cli->npaths++] = argv[i];
        }
    }
    if (cli->npaths < 1) {
        free(paths);
        return ns_usage_error(cmd, "give at least two results or fleet files (see --help)");
    }
    return -1;
missing_value:
    free(paths);
    return ns_usage_error(cmd, "%s needs a value", argv[argc - 1]); /* only the last can lack one */
}

/* Refuses --labels that do not name each input once, an input given twice and an --out folder
 * holding a report or another command's files. Returns 0, or NS_EXIT_USAGE after the error. */
static int compare_check_args(const compare_cli *cli) {
    const char *cmd = "compare", *labels = cli->labels, *out = cli->out;
    size_t npaths = cli->npaths;
    /* --labels names each input (not each node of --nodes): as many labels as inputs. */
    if (labels && !cli->per_node) {
        size_t nlabels = 1;
        for (const char *c = labels; *c; c++) nlabels += *c == ',';
        size_t len = strlen(labels);
        if (!len || labels[0] == ',' || labels[len - 1] == ',' || strstr(labels, ",,"))
            return ns_usage_error(cmd, "--labels has an empty name");
        if (nlabels != npaths)
            return ns_usage_error(cmd, "--labels has %zu names for %zu inputs", nlabels, npaths);
        /* Two columns with one name would be told apart only by position. */
        for (const char *a = labels; a; a = strchr(a, ',') ? strchr(a, ',') + 1 : NULL) {
            size_t la = strcspn(a, ",");
            for (const char *b = strchr(a, ','); b; b = strchr(b + 1, ','))
                if (strcspn(b + 1, ",") == la && !strncmp(a, b + 1, la))
                    return ns_usage_error(cmd,
                                          "--labels names '%.*s' twice: give each input "
                                          "its own name",
                                          (int)la, a);
        }
    }

    /* The same file twice would compare it with itself and report every benchmark as equal. */
    for (size_t p = 0; p < npaths; p++)
        for (size_t q = p + 1; q < npaths; q++)
            if (ns_same_file(cli->paths[p], cli->paths[q]) == 1)
                return ns_usage_error(cmd, "%s and %s are the same file: give different inputs",
                                      cli->paths[p], cli->paths[q]);

    /* Like run --out: a folder that already holds a report, or any file of a run, roofline or
     * fleet (the shared list, ns_outdir_names), is not written into (compare_refusals.sh). */
    const char *old = out ? ns_outdir_foreign(out, NULL) : NULL;
    if (old) {
        int own = 0;
        for (size_t k = 0; ns_outdir_compare[k]; k++)
            own |= !strcmp(old, ns_outdir_compare[k]);
        if (own)
            return ns_usage_error(cmd,
                                  "--out %s already holds %s: give a new folder or remove the "
                                  "old report",
                                  out, old);
        return ns_usage_error(cmd,
                              "--out %s already holds %s of a run, roofline or fleet: give a new "
                              "folder (compare never writes beside another command's files)",
                              out, old);
    }
    return 0;
}

/* The inputs, loaded (compare_load). */
typedef struct {
    ns_bench_set *sets;
    size_t nsets;
    char *host1; /* the first input's host */
    int hosts_differ;
    char cut_list[640]; /* the interrupted inputs */
} compare_inputs;

/* Loads every input into in (one set per input, or per node with --nodes), warning about
 * interrupted runs and unreadable node files. Returns 0, or NS_EXIT_USAGE after the error (in
 * holds what was loaded: compare_inputs_free). */
static int compare_load(const compare_cli *cli, compare_inputs *in) {
    const char *cmd = "compare";
    char err[1024];
    size_t cap = 0;
    char *lab = cli->labels ? strdup(cli->labels) : NULL, *save = NULL;
    char *next_label = lab ? strtok_r(lab, ",", &save) : NULL;
    int rc = NS_EXIT_USAGE;
    for (size_t p = 0; p < cli->npaths; p++) {
        const char *path = cli->paths[p];
        json_t *root = ns_json_load_results(path, err, sizeof err);
        if (!root) {
            ns_usage_error(cmd, "%s", err);
            goto done;
        }
        const char *kind = json_string_value(json_object_get(root, "kind"));
        if (kind && !strcmp(kind, "compare")) {
            ns_usage_error(cmd, "%s: is a compare report, not a results or fleet file", path);
            json_decref(root);
            goto done;
        }
        int fleet = kind && !strcmp(kind, "fleet");
        /* An interrupted run (or a fleet with an interrupted node) holds only the benchmarks
         * that finished (compare said nothing: interrupted_inputs.sh). */
        int cut = json_is_true(json_object_get(root, "interrupted"));
        size_t ni;
        json_t *nd;
        json_array_foreach(fleet ? json_object_get(root, "nodes") : NULL, ni, nd)
            cut |= json_is_true(json_object_get(nd, "interrupted"));
        if (cut) {
            fprintf(stderr,
                    "nodescale compare: warning: %s: %s was interrupted: it holds only the "
                    "benchmarks that finished\n",
                    path, fleet ? "a node's run" : "the run");
            size_t len = strlen(in->cut_list);
            snprintf(in->cut_list + len, sizeof in->cut_list - len, "%s%.200s", len ? ", " : "",
                     path);
        }
        if (note_hosts(root, fleet, &in->host1, &in->hosts_differ)) {
            ns_usage_error(cmd, "out of memory");
            json_decref(root);
            goto done;
        }
        ns_bench_set *add = NULL;
        int nadd = 1;
        if (fleet && cli->per_node) {
            nadd = ns_bench_sets_per_node(root, &add, err, sizeof err);
        } else {
            add = calloc(1, sizeof *add);
            if (!add || ns_bench_set_from_json(root, next_label, add, err, sizeof err)) nadd = -1;
            if (next_label) next_label = strtok_r(NULL, ",", &save);
        }
        if (nadd > 0 && fleet) {
            int unread = ns_bench_set_fleet_within(add, (size_t)nadd, cli->per_node, root, path);
            if (unread)
                fprintf(stderr,
                        "nodescale compare: warning: %s: %d node results file(s) not readable "
                        "(nodes/<node>/results.json): their within-node noise is unknown\n",
                        path, unread);
        }
        json_decref(root);
        if (nadd < 0) {
            free(add);
            ns_usage_error(cmd, "%s: %s", path, err);
            goto done;
        }
        if (in->nsets + (size_t)nadd > cap) {
            cap = 2 * (in->nsets + (size_t)nadd);
            ns_bench_set *ns = realloc(in->sets, cap * sizeof *ns);
            if (!ns) {
                free(add);
                ns_usage_error(cmd, "out of memory");
                goto done;
            }
            in->sets = ns;
        }
        memcpy(&in->sets[in->nsets], add, (size_t)nadd * sizeof *add);
        in->nsets += (size_t)nadd;
        free(add);
    }
    if (in->nsets < 2) {
        ns_usage_error(cmd,
                       "only %zu input to compare; give at least two (or --nodes with a "
                       "fleet of two or more)",
                       in->nsets);
        goto done;
    }
    rc = 0;
done:
    free(lab);
    return rc;
}

/* Frees what compare_load loaded into in. */
static void compare_inputs_free(compare_inputs *in) {
    for (size_t s = 0; s < in->nsets; s++)
        ns_bench_set_free(&in->sets[s]);
    free(in->sets);
    free(in->host1);
}

/* Duplicate labels make columns ambiguous: suffixes them with their position ("a#2"). */
static void unique_labels(ns_bench_set *sets, size_t nsets) {
    for (size_t s = 1; s < nsets; s++)
        for (size_t t = 0; t < s; t++)
            if (!strcmp(sets[s].label, sets[t].label)) {
                char buf[512];
                snprintf(buf, sizeof buf, "%s#%zu", sets[s].label, s + 1);
                free(sets[s].label);
                sets[s].label = strdup(buf);
                break;
            }
}

/* Writes the report of c into --out (or results/compare-<UTC time>): compare.json and
 * compare.md, then the plot, then compare.md on stdout; on a failure removes what it wrote.
 * Returns NS_EXIT_OK, or NS_EXIT_USAGE after the error. */
static int compare_write(const compare_cli *cli, const compare_inputs *in, const ns_compare *c) {
    const char *cmd = "compare";
    char err[1024];
    int rc = NS_EXIT_USAGE;
    char verdict[1536], rule[512], warning[1400] = "";
    ns_compare_verdict(c, verdict, sizeof verdict);
    rule_line(rule, sizeof rule, cli->min_spread);
    int one_host = in->host1 && !in->hosts_differ;
    if (one_host)
        snprintf(warning, sizeof warning,
                 "Warning: all %zu inputs were measured on one host (%.200s): their differences "
                 "are run to run (time, load, placement), not between machines or providers.",
                 in->nsets, in->host1);
    if (in->cut_list[0]) {
        size_t len = strlen(warning);
        snprintf(warning + len, sizeof warning - len,
                 "%sWarning: interrupted input(s) %s: they hold only the benchmarks that "
                 "finished.",
                 len ? " " : "", in->cut_list);
    }

    char dir[4096];
    if (cli->out) {
        snprintf(dir, sizeof dir, "%s", cli->out);
    } else {
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
        snprintf(dir, sizeof dir, "results/compare-%s", stamp);
    }
    size_t created = ns_outdir_first_missing(dir);
    if (ns_outdir_mkdir_p(dir)) {
        ns_usage_error(cmd, "cannot create %s: %s", dir, strerror(errno));
        remove_outputs(dir, created);
        return NS_EXIT_USAGE;
    }
    json_t *js =
        render_json(in->sets, c, verdict, cli->min_spread, rule, warning[0] ? warning : NULL);
    char path[4200];
    int bad = 0;
    snprintf(path, sizeof path, "%s/compare.json", dir);
    bad |= ns_json_write_atomic(js, path, err, sizeof err);
    /* The plot before compare.md, which says whether compare.svg was drawn (plot_quoting.sh). */
    int plotted = bad ? 0 : write_plot(dir, c, stderr);
    char *md =
        render_markdown(in->sets, c, verdict, rule, warning[0] ? warning : NULL, plotted == 2);
    snprintf(path, sizeof path, "%s/compare.md", dir);
    bad |= !md || (!bad && ns_write_text_atomic(path, md, err, sizeof err));
    json_decref(js);
    if (bad) {
        ns_usage_error(cmd, "%s", md ? err : "out of memory");
        remove_outputs(dir, created);
    } else {
        fputs(md, stdout);
        if (ns_report_check_stdout(err, sizeof err) != 0) {
            fprintf(stderr, "nodescale %s: error: %s\n", cmd, err); /* a write failed: 1 */
            rc = NS_EXIT_FAIL;
            remove_outputs(dir, created);
        } else {
            fprintf(stderr, "nodescale compare: wrote %s/compare.{md,json%s}\n", dir,
                    plotted == 2 ? ",dat,gp,svg"
                    : plotted    ? ",dat,gp"
                                 : "");
            rc = NS_EXIT_OK;
        }
    }
    free(md);
    return rc;
}

int ns_cmd_compare(int argc, char **argv) {
    const char *cmd = "compare";
    compare_cli cli;
    int rc = compare_parse_args(argc, argv, &cli);
    if (rc >= 0) return rc;
    if ((rc = compare_check_args(&cli))) {
        free(cli.paths);
        return rc;
    }
    /* Load every input before writing anything. */
    compare_inputs in = {0};
    ns_compare c;
    rc = NS_EXIT_USAGE;
    if (compare_load(&cli, &in) != 0) goto done;
    unique_labels(in.sets, in.nsets);
    if (ns_compare_build(in.sets, in.nsets, cli.min_spread, &c)) {
        ns_usage_error(cmd, "out of memory");
        goto done;
    }
    if (c.nrows == 0)
        ns_usage_error(cmd, "the inputs have no benchmark id in common; nothing to compare");
    else
        rc = compare_write(&cli, &in, &c);
    ns_compare_free(&c);
done:
    compare_inputs_free(&in);
    free(cli.paths);
    return rc;
}
