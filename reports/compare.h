/* Benchmark values of a results file, and the cross-node ("providers") comparison behind
 * `nodescale compare`. A node's results.json or a fleet's fleet.json is reduced to one value per
 * benchmark id (a rate: GFLOP/s or GB/s, higher is better), its benchmark class and its
 * run-to-run noise; the comparison lines the inputs up per id, measures the spread across them
 * (CV, max/min) and decides, per class, whether the class tells the inputs apart. The fleet
 * driver (fleet/) uses the same extraction for its straggler analysis, so a straggler and a
 * provider difference are judged on the same numbers. No MPI here. */
#ifndef NS_COMPARE_H
#define NS_COMPARE_H

#include <jansson.h>
#include <stddef.h>

/* The benchmark classes the providers view reports on, in report order. */
#define NS_NCLASSES 5
extern const char *const ns_bench_classes[NS_NCLASSES]; /* gemm, stream/bandwidth, reduce, peak,
                                                            allreduce */

typedef struct ns_bench_value {
    char *id;         /* results[].id, e.g. "stream_triad/avx512/dp/t2/n=4194304" */
    const char *cls;  /* one of ns_bench_classes, or "other" */
    const char *unit; /* "GFLOP/s" or "GB/s" (1 GB = 1e9 B) */
    double value;     /* the rate; finite and > 0 */
    double between;   /* node-to-node spread of a fleet median (1.4826*MAD/median); NAN for a
                         node result and for a benchmark fewer than 3 nodes measured (unknown) */
    double within;    /* within-node measurement noise: time_s.cv of a node result (from
                         samples_s when absent); for a fleet the largest of its nodes' (see
                         ns_bench_set_fleet_within); NAN when unknown */
    double noise;     /* the value's noise: sqrt(between^2 + within^2), the known one when the
                         other is NAN, NAN when neither is known */
} ns_bench_value;

typedef struct ns_bench_set {
    char *label;  /* the input's name in reports: its host, or what --labels gave */
    char *host;   /* context.host, "" when absent */
    int is_fleet; /* 1 when read from a fleet.json (values are fleet medians) */
    int nodes;    /* nodes behind the values: 1, or the fleet's node count */
    size_t n;
    ns_bench_value *v; /* sorted by id */
} ns_bench_set;

/* The class of a result's family: "gemm" -> "gemm", "stream" -> "stream/bandwidth",
 * "reduce" -> "reduce", "peak" -> "peak", "allreduce" -> "allreduce", anything else "other". */
const char *ns_bench_class(const char *family);

/* The rate reported for one results[] entry: gbytes_per_s for the bandwidth-bound families
 * (stream, reduce), gflops for the others, the other one when the preferred is null. Returns the
 * value (> 0) and sets *unit, or NAN when the entry has no usable rate (status not "ok",
 * validated false, both rates null). */
double ns_result_rate(const json_t *result, const char **unit);

/* Reduces a loaded results.json (schema nodescale/1) to its benchmark values: results[] of a
 * node file, plus its thread all-reduce busbw per schedule and size ("allreduce/ring/t2/busbw/
 * bytes=S", within noise its time_s.cv); for a fleet file ("kind": "fleet") the per-benchmark fleet
 * medians of "benchmarks"[] plus the all-reduce busbw per message size. Returns 0, or -1 with a
 * one-line reason in err (nothing usable in the file). label may be NULL (the host is used). */
int ns_bench_set_from_json(const json_t *root, const char *label, ns_bench_set *out, char *err,
                           size_t errlen);

/* Expands a fleet file into one set per node (values from "benchmarks"[].nodes). Returns the
 * number of sets written to *out (caller frees each and the array), or -1 with a reason. */
int ns_bench_sets_per_node(const json_t *fleet, ns_bench_set **out, char *err, size_t errlen);

/* Fills the within-node noise of sets[0..nsets) read from the fleet document `fleet` loaded from
 * fleet_path: each "ok" node's results file ("results", relative to the fleet file's folder) is
 * read and its time_s.cv per benchmark id taken; a fleet-median set (per_node 0, nsets 1) keeps
 * the largest over its nodes, a per-node set (per_node 1, labels = node names) its node's own.
 * Returns the number of "ok" nodes whose results file could not be read (0 = all read). */
int ns_bench_set_fleet_within(ns_bench_set *sets, size_t nsets, int per_node, const json_t *fleet,
                              const char *fleet_path);

void ns_bench_set_free(ns_bench_set *s);

/* One benchmark id across the inputs. */
typedef struct ns_compare_row {
    const char *id, *cls, *unit; /* borrowed from the first set holding the id */
    double *values;              /* [nsets], NAN where an input lacks the id */
    int present;                 /* inputs holding the id */
    double cv;                   /* sample stddev / mean across the inputs present; NAN if < 2 */
    double max_over_min;         /* NAN if present < 2 */
    double noise;                /* largest noise among the inputs (NAN if none known) */
    double between, within;      /* largest between-node and within-node noise among the inputs
                                    (NAN if none known) */
    double threshold;            /* max/min - 1 beyond which the inputs differ: max(min_spread,
                                    3 * noise) */
    int distinguishes;           /* 1 when present >= 2 and max/min - 1 > threshold */
} ns_compare_row;

typedef struct ns_compare {
    size_t nsets, nrows;
    ns_compare_row *rows; /* every id present in >= 2 inputs, sorted by max/min descending */
    /* per class (index into ns_bench_classes): benchmarks compared, and how many distinguish */
    int class_total[NS_NCLASSES], class_distinct[NS_NCLASSES];
    /* per class: inputs holding any benchmark of it (compared or not) */
    int class_inputs[NS_NCLASSES];
} ns_compare;

/* Lines up sets[0..nsets) per benchmark id. min_spread is the smallest relative difference
 * (max/min - 1) counted as a real difference whatever the noise (e.g. 0.05). Returns 0, -1 on
 * allocation failure. */
int ns_compare_build(const ns_bench_set *sets, size_t nsets, double min_spread, ns_compare *c);

/* The one-line verdict: which classes distinguish the inputs (at least half of their benchmarks
 * do) and which do not, with counts; classes with no benchmark in >= 2 inputs listed as not
 * measured, or, when >= 2 inputs measured the class under different ids, as not compared.
 * Written to line (always NUL-terminated). */
void ns_compare_verdict(const ns_compare *c, char *line, size_t len);

void ns_compare_free(ns_compare *c);

#endif
