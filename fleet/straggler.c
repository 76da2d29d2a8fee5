/* Straggler detection: each node's rate per benchmark against the fleet median with a robust,
 * floored spread. See straggler.h for the statistic and its sources. */
#include "fleet/straggler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/json.h"
#include "harness/stats.h"

/* 1.4826 = 1 / Phi^-1(3/4): MAD * 1.4826 estimates sigma for normal data. */
#define NS_MAD_TO_SIGMA 1.4826

ns_straggler_opts ns_straggler_defaults(void) {
    return (ns_straggler_opts){.threshold = 3.5, .mad_floor = 0.02};
}

static const ns_bench_value *lookup(const ns_bench_set *s, const char *id) {
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s->v[mid].id, id);
        if (c == 0) return &s->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int cmp_bench(const void *a, const void *b) {
    return strcmp(((const ns_fleet_bench *)a)->id, ((const ns_fleet_bench *)b)->id);
}

static int analyse_one(ns_fleet_bench *fb, const ns_bench_set *nodes, size_t nn,
                       const ns_straggler_opts *o) {
    fb->value = malloc(nn * sizeof *fb->value);
    fb->z = malloc(nn * sizeof *fb->z);
    fb->flagged = calloc(nn, 1);
    double *present = malloc(nn * sizeof *present);
    if (!fb->value || !fb->z || !fb->flagged || !present) {
        free(present);
        return -1;
    }
    fb->n = 0;
    for (size_t i = 0; i < nn; i++) {
        const ns_bench_value *v = lookup(&nodes[i], fb->id);
        fb->value[i] = v ? v->value : NAN;
        fb->z[i] = NAN;
        if (v) present[fb->n++] = v->value;
    }
    ns_stats st;
    ns_stats_compute(present, (size_t)fb->n, &st);
    free(present);
    fb->median = st.median;
    fb->mad = st.mad;
    fb->noise = NS_MAD_TO_SIGMA * st.mad / st.median;
    double robust = NS_MAD_TO_SIGMA * st.mad, floor_ = o->mad_floor * fabs(st.median);
    fb->scale = robust > floor_ ? robust : floor_;
    fb->tested = fb->n >= 3;
    if (!fb->tested) return 0;
    for (size_t i = 0; i < nn; i++) {
        if (!isfinite(fb->value[i])) continue;
        /* A zero scale (--mad-floor 0, most nodes identical): any node below the median is
         * infinitely far below it (z = -inf, written as no z), any other at 0. */
        if (fb->scale > 0)
            fb->z[i] = (fb->value[i] - fb->median) / fb->scale;
        else
            fb->z[i] = fb->value[i] < fb->median ? -INFINITY : 0.0;
        fb->flagged[i] = fb->z[i] < -o->threshold;
    }
    return 0;
}

int ns_straggler_analyse(const ns_bench_set *nodes, size_t nn, const ns_straggler_opts *o,
                         ns_straggler_result *r) {
    memset(r, 0, sizeof *r);
    r->nnodes = nn;
    r->node_flags = calloc(nn ? nn : 1, sizeof *r->node_flags);
    if (!r->node_flags) return -1;
    size_t cap = 0;
    for (size_t i = 0; i < nn; i++) {
        for (size_t j = 0; j < nodes[i].n; j++) {
            const char *id = nodes[i].v[j].id;
            int seen = 0;
            for (size_t k = 0; k < i && !seen; k++)
                seen = lookup(&nodes[k], id) != NULL;
            if (seen) continue;
            if (r->nbench == cap) {
                cap = cap ? 2 * cap : 64;
                ns_fleet_bench *nb = realloc(r->b, cap * sizeof *nb);
                if (!nb) goto oom;
                r->b = nb;
            }
            ns_fleet_bench *fb = &r->b[r->nbench++];
            memset(fb, 0, sizeof *fb);
            fb->id = id;
            fb->cls = nodes[i].v[j].cls;
            fb->unit = nodes[i].v[j].unit;
            if (analyse_one(fb, nodes, nn, o)) goto oom;
        }
    }
    if (r->nbench) qsort(r->b, r->nbench, sizeof *r->b, cmp_bench);
    for (size_t b = 0; b < r->nbench; b++)
        for (size_t i = 0; i < nn; i++)
            r->node_flags[i] += r->b[b].flagged[i];
    for (size_t i = 0; i < nn; i++)
        r->flagged_nodes += r->node_flags[i] > 0;
    return 0;
oom:
    ns_straggler_free(r);
    return -1;
}

json_t *ns_straggler_benchmarks_json(const ns_straggler_result *r, const ns_bench_set *nodes) {
    json_t *arr = json_array();
    for (size_t b = 0; b < r->nbench; b++) {
        const ns_fleet_bench *fb = &r->b[b];
        json_t *o = json_object(), *vals = json_object(), *zs = json_object(), *fl = json_array();
        ns_json_set_str(o, "id", fb->id);
        ns_json_set_str(o, "class", fb->cls);
        ns_json_set_str(o, "unit", fb->unit);
        ns_json_set_int(o, "nodes_measured", fb->n);
        ns_json_set_num(o, "median", fb->median, NULL);
        ns_json_set_num(o, "mad", fb->mad, NULL);
        ns_json_set_num(o, "scale", fb->scale, NULL);
        ns_json_set_num(o, "noise", fb->noise, NULL);
        json_object_set_new(o, "tested", json_boolean(fb->tested));
        if (!fb->tested)
            ns_json_set_str(o, "status",
                            fb->untested ? fb->untested
                                         : "fewer than 3 nodes measured it: not tested");
        for (size_t i = 0; i < r->nnodes; i++) {
            if (!isfinite(fb->value[i])) continue;
            json_object_set_new(vals, nodes[i].label, json_real(fb->value[i]));
            if (isfinite(fb->z[i])) json_object_set_new(zs, nodes[i].label, json_real(fb->z[i]));
            if (fb->flagged[i]) json_array_append_new(fl, json_string(nodes[i].label));
        }
        json_object_set_new(o, "values", vals);
        json_object_set_new(o, "z", zs);
        json_object_set_new(o, "flagged", fl);
        json_array_append_new(arr, o);
    }
    return arr;
}

json_t *ns_straggler_summary_json(const ns_straggler_result *r, const ns_bench_set *nodes,
                                  const ns_straggler_opts *o) {
    json_t *s = json_object(), *flagged = json_array();
    ns_json_set_str(s, "method",
                    "z = (rate - fleet median) / max(1.4826*MAD, mad_floor*median); a node is a "
                    "straggler on a benchmark when z < -threshold; benchmarks measured on >= 3 "
                    "nodes only");
    ns_json_set_num(s, "threshold", o->threshold, NULL);
    ns_json_set_num(s, "mad_floor", o->mad_floor, NULL);
    ns_json_set_int(s, "nodes", (long long)r->nnodes);
    ns_json_set_int(s, "flagged_nodes", r->flagged_nodes);
    int tested = 0;
    for (size_t b = 0; b < r->nbench; b++)
        tested += r->b[b].tested;
    ns_json_set_int(s, "tested_benchmarks", tested);
    for (size_t i = 0; i < r->nnodes; i++) {
        if (!r->node_flags[i]) continue;
        json_t *n = json_object(), *bl = json_array();
        ns_json_set_str(n, "name", nodes[i].label);
        ns_json_set_str(n, "host", nodes[i].host);
        for (size_t b = 0; b < r->nbench; b++) {
            const ns_fleet_bench *fb = &r->b[b];
            if (!fb->flagged[i]) continue;
            json_t *e = json_object();
            ns_json_set_str(e, "id", fb->id);
            ns_json_set_str(e, "unit", fb->unit);
            ns_json_set_num(e, "value", fb->value[i], NULL);
            ns_json_set_num(e, "median", fb->median, NULL);
            ns_json_set_num(e, "z", fb->z[i], NULL);
            ns_json_set_num(e, "deficit", 1.0 - fb->value[i] / fb->median, NULL);
            json_array_append_new(bl, e);
        }
        json_object_set_new(n, "benchmarks", bl);
        json_array_append_new(flagged, n);
    }
    json_object_set_new(s, "flagged", flagged);
    return s;
}

void ns_straggler_free(ns_straggler_result *r) {
    for (size_t b = 0; b < r->nbench; b++) {
        free(r->b[b].value);
        free(r->b[b].z);
        free(r->b[b].flagged);
    }
    free(r->b);
    free(r->node_flags);
    memset(r, 0, sizeof *r);
}
