/* Straggler detection across the nodes of a fleet (no MPI here; unit-tested on fixtures).
 *
 * For every benchmark id measured on at least 3 nodes: the fleet median m of the nodes' rates and
 * the median absolute deviation MAD; a node's robust z-score is z = (v - m) / s with
 * s = max(1.4826 * MAD, mad_floor * m). 1.4826 * MAD estimates the standard deviation of normal
 * data (Rousseeuw & Croux 1993); the floor keeps a fleet of near-identical nodes (MAD ~ 0) from
 * flagging a 0.5% difference. A node is a straggler on that benchmark when z < -threshold (slow
 * side only; default 3.5, the modified z-score cut-off of Iglewicz & Hoaglin 1993). With the
 * default floor of 2% the smallest deficit ever flagged is 7% of the median. A zero scale
 * (mad_floor 0, MAD 0) flags every node below the median (z = -inf, written as null). */
#ifndef NS_STRAGGLER_H
#define NS_STRAGGLER_H

#include <jansson.h>
#include <stddef.h>

#include "reports/compare.h"

typedef struct ns_straggler_opts {
    double threshold; /* flag when z < -threshold (default 3.5) */
    double mad_floor; /* relative floor of the scale, fraction of the median (default 0.02) */
} ns_straggler_opts;

ns_straggler_opts ns_straggler_defaults(void);

typedef struct ns_fleet_bench {
    const char *id, *cls, *unit; /* borrowed from the node sets */
    int n;                       /* nodes with a value */
    double median, mad, scale;   /* scale = max(1.4826 MAD, mad_floor * median) */
    double noise;                /* 1.4826 MAD / median: the node-to-node robust CV */
    int tested;                  /* n >= 3 (a zero scale included) */
    const char *untested;        /* why it is not tested, NULL: fewer than 3 nodes (static) */
    double *value, *z;           /* [nnodes]; NAN where the node lacks the benchmark */
    unsigned char *flagged;      /* [nnodes] */
} ns_fleet_bench;

typedef struct ns_straggler_result {
    size_t nnodes, nbench;
    ns_fleet_bench *b; /* sorted by id */
    int *node_flags;   /* [nnodes]: benchmarks flagging each node */
    int flagged_nodes; /* nodes with node_flags > 0 */
} ns_straggler_result;

/* Analyses nodes[0..nnodes) (one ns_bench_set per node; its label is the node's name). Returns
 * 0, or -1 on allocation failure. */
int ns_straggler_analyse(const ns_bench_set *nodes, size_t nnodes, const ns_straggler_opts *o,
                         ns_straggler_result *r);

/* fleet.json's "benchmarks" array: [{id, class, unit, nodes_measured, median, mad, scale, noise,
 * values{node: rate}, z{node: z}, flagged[node...]}]. */
json_t *ns_straggler_benchmarks_json(const ns_straggler_result *r, const ns_bench_set *nodes);

/* fleet.json's "stragglers" object: method, threshold, mad_floor, nodes, flagged_nodes,
 * tested_benchmarks, and flagged[{name, host, benchmarks[{id, unit, value, median, z,
 * deficit}]}]. */
json_t *ns_straggler_summary_json(const ns_straggler_result *r, const ns_bench_set *nodes,
                                  const ns_straggler_opts *o);

void ns_straggler_free(ns_straggler_result *r);

#endif
