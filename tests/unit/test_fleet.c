/* Unit tests of the fleet's statistics and the providers comparison, on in-memory fixtures (no
 * MPI started): straggler z-scores with the MAD floor, the compare verdict against noise, the α–β
 * fit, busbw factors, the handshake's peer check, the --from-results pattern and the report. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cluster/equations.h"
#include "fleet/collectives.h"
#include "fleet/fleet.h"
#include "fleet/straggler.h"
#include "harness/allreduce.h"
#include "harness/stats.h"
#include "reports/compare.h"

/* A node results document with one result per (id, family, rate, cv). */
static json_t *node_doc(const char *host, int n, const char *const *ids, const char *const *fams,
                        const double *rates, double cv) {
    json_t *root = json_pack("{s:s, s:{s:s}, s:[]}", "schema", "nodescale/1", "context", "host",
                             host, "results");
    for (int i = 0; i < n; i++) {
        int bw = !strcmp(fams[i], "stream") || !strcmp(fams[i], "reduce");
        json_t *r = json_pack("{s:s, s:s, s:s, s:b, s:{s:f}}", "id", ids[i], "family", fams[i],
                              "status", "ok", "validated", 1, "time_s", "cv", cv);
        json_object_set_new(r, bw ? "gbytes_per_s" : "gflops", json_real(rates[i]));
        json_object_set_new(r, bw ? "gflops" : "gbytes_per_s", json_null());
        json_array_append_new(json_object_get(root, "results"), r);
    }
    return root;
}

static const char *const ids[] = {"dgemm/t2", "peak/t2", "triad/t2", "sum/t2"};
static const char *const fams[] = {"gemm", "peak", "stream", "reduce"};

static void make_set(ns_bench_set *s, const char *host, const double *rates, double cv) {
    char err[256];
    json_t *d = node_doc(host, 4, ids, fams, rates, cv);
    assert_int_equal(ns_bench_set_from_json(d, NULL, s, err, sizeof err), 0);
    json_decref(d);
}

static const ns_fleet_bench *bench(const ns_straggler_result *r, const char *id) {
    for (size_t i = 0; i < r->nbench; i++)
        if (!strcmp(r->b[i].id, id)) return &r->b[i];
    fail_msg("benchmark %s missing", id);
    return NULL;
}

static void test_rate_choice(void **st) {
    (void)st;
    const char *unit = NULL;
    json_t *r = json_pack("{s:s, s:f, s:f, s:s}", "family", "stream", "gflops", 1.0, "gbytes_per_s",
                          20.0, "status", "ok");
    assert_float_equal(ns_result_rate(r, &unit), 20.0, 0);
    assert_string_equal(unit, "GB/s");
    json_object_set_new(r, "family", json_string("gemm"));
    assert_float_equal(ns_result_rate(r, &unit), 1.0, 0);
    assert_string_equal(unit, "GFLOP/s");
    json_object_set_new(r, "gflops", json_null()); /* falls back to the other rate */
    assert_float_equal(ns_result_rate(r, &unit), 20.0, 0);
    assert_string_equal(unit, "GB/s");
    json_object_set_new(r, "status", json_string("timer could not resolve"));
    assert_true(isnan(ns_result_rate(r, &unit)));
    json_decref(r);
}

/* Five nodes, node 4 20% slow on the stream benchmark only: flagged there and nowhere else. */
static void test_straggler_named_with_benchmark(void **st) {
    (void)st;
    ns_bench_set s[5];
    for (int i = 0; i < 5; i++) {
        char host[16];
        snprintf(host, sizeof host, "n%d", i);
        double j = 1.0 + 0.002 * (i - 2); /* 0.2% jitter */
        double rates[4] = {100 * j, 200 * j, (i == 4 ? 16.0 : 20.0) * j, 25 * j};
        make_set(&s[i], host, rates, 0.01);
    }
    ns_straggler_opts o = ns_straggler_defaults();
    ns_straggler_result r;
    assert_int_equal(ns_straggler_analyse(s, 5, &o, &r), 0);
    assert_int_equal(r.nbench, 4);
    assert_int_equal(r.flagged_nodes, 1);
    assert_int_equal(r.node_flags[4], 1);
    const ns_fleet_bench *b = bench(&r, "triad/t2");
    assert_true(b->tested && b->flagged[4]);
    /* MAD of near-identical nodes is ~0: the 2% floor sets the scale. */
    assert_float_equal(b->scale, 0.02 * b->median, 1e-12);
    assert_true(b->z[4] < -3.5);
    for (int i = 0; i < 4; i++)
        assert_false(b->flagged[i]);
    assert_false(bench(&r, "dgemm/t2")->flagged[4]);
    json_t *sum = ns_straggler_summary_json(&r, s, &o);
    json_t *fl = json_object_get(sum, "flagged");
    assert_int_equal(json_array_size(fl), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(fl, 0), "name")), "n4");
    json_t *bl = json_object_get(json_array_get(fl, 0), "benchmarks");
    assert_int_equal(json_array_size(bl), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(bl, 0), "id")),
                        "triad/t2");
    json_decref(sum);
    ns_straggler_free(&r);
    for (int i = 0; i < 5; i++)
        ns_bench_set_free(&s[i]);
}

/* Exact z: values 100,100,100,100,80 -> median 100, MAD 0, scale = floor 2 -> z = -10. And a
 * 5% deficit stays below the default threshold (the smallest flagged deficit is 7%). */
static void test_straggler_exact_z_and_floor(void **st) {
    (void)st;
    double v[5][4] = {
        {100, 1, 1, 1}, {100, 1, 1, 1}, {100, 1, 1, 1}, {100, 1, 1, 1}, {80, 0.95, 1, 1}};
    ns_bench_set s[5];
    for (int i = 0; i < 5; i++)
        make_set(&s[i], "h", v[i], 0.01);
    ns_straggler_opts o = ns_straggler_defaults();
    ns_straggler_result r;
    assert_int_equal(ns_straggler_analyse(s, 5, &o, &r), 0);
    const ns_fleet_bench *g = bench(&r, "dgemm/t2"), *p = bench(&r, "peak/t2");
    assert_float_equal(g->median, 100, 0);
    assert_float_equal(g->mad, 0, 0);
    assert_float_equal(g->z[4], -10.0, 1e-12);
    assert_true(g->flagged[4]);
    assert_float_equal(p->z[4], -2.5, 1e-12);
    assert_false(p->flagged[4]);
    ns_straggler_free(&r);
    for (int i = 0; i < 5; i++)
        ns_bench_set_free(&s[i]);
}

/* A noisy fleet (node-to-node spread ~10%) does not flag a node 12% below the median: the MAD,
 * not the floor, sets the scale. */
static void test_straggler_noisy_fleet(void **st) {
    (void)st;
    double g[7] = {100, 110, 90, 105, 95, 115, 88};
    ns_bench_set s[7];
    for (int i = 0; i < 7; i++) {
        double rates[4] = {g[i], 1, 1, 1};
        make_set(&s[i], "h", rates, 0.01);
    }
    ns_straggler_opts o = ns_straggler_defaults();
    ns_straggler_result r;
    assert_int_equal(ns_straggler_analyse(s, 7, &o, &r), 0);
    const ns_fleet_bench *b = bench(&r, "dgemm/t2");
    assert_float_equal(b->median, 100, 0);
    assert_float_equal(b->mad, 10, 0);
    assert_float_equal(b->scale, 14.826, 1e-9);
    assert_int_equal(r.flagged_nodes, 0);
    ns_straggler_free(&r);
    for (int i = 0; i < 7; i++)
        ns_bench_set_free(&s[i]);
}

/* Two nodes: no median worth the name, nothing tested. */
static void test_straggler_two_nodes_untested(void **st) {
    (void)st;
    double a[4] = {100, 100, 100, 100}, b[4] = {50, 50, 50, 50};
    ns_bench_set s[2];
    make_set(&s[0], "a", a, 0.01);
    make_set(&s[1], "b", b, 0.01);
    ns_straggler_opts o = ns_straggler_defaults();
    ns_straggler_result r;
    assert_int_equal(ns_straggler_analyse(s, 2, &o, &r), 0);
    assert_false(r.b[0].tested);
    assert_int_equal(r.flagged_nodes, 0);
    ns_straggler_free(&r);
    ns_bench_set_free(&s[0]);
    ns_bench_set_free(&s[1]);
}

/* --mad-floor 0 over identical nodes (MAD 0, scale 0): tested, the node below the median flagged
 * (it was "not tested: fewer than 3 nodes" with 4). */
static void test_straggler_zero_scale(void **st) {
    (void)st;
    double a[4] = {100, 100, 100, 100}, b[4] = {50, 100, 100, 100};
    ns_bench_set s[4];
    for (int i = 0; i < 3; i++)
        make_set(&s[i], "a", a, 0.01);
    make_set(&s[3], "b", b, 0.01);
    ns_straggler_opts o = ns_straggler_defaults();
    o.mad_floor = 0;
    ns_straggler_result r;
    assert_int_equal(ns_straggler_analyse(s, 4, &o, &r), 0);
    const ns_fleet_bench *g = bench(&r, "dgemm/t2"), *p = bench(&r, "peak/t2");
    assert_true(g->tested);
    assert_float_equal(g->scale, 0, 0);
    assert_true(g->flagged[3]);
    assert_false(g->flagged[0]);
    assert_true(p->tested);
    assert_false(p->flagged[3]);
    assert_int_equal(r.flagged_nodes, 1);
    ns_straggler_free(&r);
    for (int i = 0; i < 4; i++)
        ns_bench_set_free(&s[i]);
}

/* The collectives' check reads every element: a wrong interior one fails it (only the ends of
 * each block were read). */
static void test_collective_check_every_element(void **st) {
    (void)st;
    enum { N = 3, COUNT = 24 };
    float ar[COUNT], ag[COUNT];
    for (int i = 0; i < COUNT; i++) {
        ar[i] = N * (N + 1) / 2.0f;
        ag[i] = (float)(i / (COUNT / N) + 1);
    }
    assert_true(ns_coll_check_output(NS_COLL_ALLREDUCE, ar, COUNT, N));
    assert_true(ns_coll_check_output(NS_COLL_REDUCE_SCATTER, ar, COUNT, N));
    assert_true(ns_coll_check_output(NS_COLL_ALLGATHER, ag, COUNT, N));
    ar[COUNT / 2] = 0;
    assert_false(ns_coll_check_output(NS_COLL_ALLREDUCE, ar, COUNT, N));
    ar[COUNT / 2] = N * (N + 1) / 2.0f;
    ar[3] = 0; /* inside rank 0's reduce-scatter block of 8 */
    assert_false(ns_coll_check_output(NS_COLL_REDUCE_SCATTER, ar, COUNT, N));
    ag[COUNT / N + 3] = 1; /* inside block 1 */
    assert_false(ns_coll_check_output(NS_COLL_ALLGATHER, ag, COUNT, N));
}

/* Providers: GEMM and peak agree within 1.5%, stream and reduce differ by 30%+. */
static void test_compare_verdict(void **st) {
    (void)st;
    double x[4] = {100, 200, 20, 25}, y[4] = {101, 199, 27, 33}, z[4] = {99.5, 202, 16, 20};
    ns_bench_set s[3];
    make_set(&s[0], "x", x, 0.01);
    make_set(&s[1], "y", y, 0.01);
    make_set(&s[2], "z", z, 0.01);
    ns_compare c;
    assert_int_equal(ns_compare_build(s, 3, 0.05, &c), 0);
    assert_int_equal(c.nrows, 4);
    /* sorted by spread: the memory-bound rows first */
    assert_true(!strcmp(c.rows[0].cls, "stream/bandwidth") || !strcmp(c.rows[0].cls, "reduce"));
    assert_float_equal(c.rows[0].max_over_min, 27.0 / 16.0, 1e-12);
    for (size_t i = 1; i < c.nrows; i++)
        assert_true(c.rows[i - 1].max_over_min >= c.rows[i].max_over_min);
    char line[1024];
    ns_compare_verdict(&c, line, sizeof line);
    const char *dont = strstr(line, "do not:");
    assert_non_null(dont);
    assert_true(strstr(line, "stream/bandwidth (1/1)") < dont);
    assert_true(strstr(line, "reduce (1/1)") < dont);
    assert_non_null(strstr(dont, "gemm (0/1)"));
    assert_non_null(strstr(dont, "peak (0/1)"));
    assert_non_null(strstr(line, "not measured in >= 2 inputs: allreduce"));
    ns_compare_free(&c);
    for (int i = 0; i < 3; i++)
        ns_bench_set_free(&s[i]);
}

/* The same spread inside 20% run-to-run noise distinguishes nothing: the verdict follows the
 * data, not the expectation. */
static void test_compare_noise_hides_spread(void **st) {
    (void)st;
    double x[4] = {100, 200, 20, 25}, y[4] = {101, 199, 27, 33};
    ns_bench_set s[2];
    make_set(&s[0], "x", x, 0.20);
    make_set(&s[1], "y", y, 0.20);
    ns_compare c;
    assert_int_equal(ns_compare_build(s, 2, 0.05, &c), 0);
    for (size_t i = 0; i < c.nrows; i++) {
        assert_float_equal(c.rows[i].threshold, 0.6, 1e-12);
        assert_false(c.rows[i].distinguishes);
    }
    char line[1024];
    ns_compare_verdict(&c, line, sizeof line);
    assert_non_null(strstr(line, "inputs: none;"));
    ns_compare_free(&c);
    ns_bench_set_free(&s[0]);
    ns_bench_set_free(&s[1]);
}

/* A fleet file is one input (node medians, node-to-node noise) plus its all-reduce busbw; with
 * per-node expansion each node is one input. */
static void test_fleet_file_as_input(void **st) {
    (void)st;
    json_t *f = json_loads(
        "{\"schema\":\"nodescale/1\",\"kind\":\"fleet\",\"context\":{\"host\":\"h0\"},"
        "\"nodes\":[{\"name\":\"a\",\"host\":\"a\",\"status\":\"ok\"},"
        "{\"name\":\"b\",\"host\":\"b\",\"status\":\"ok\"},"
        "{\"name\":\"c\",\"host\":\"c\",\"status\":\"missing\"}],"
        "\"benchmarks\":[{\"id\":\"triad/t2\",\"class\":\"stream/bandwidth\",\"unit\":\"GB/s\","
        "\"median\":20,\"noise\":0.03,\"values\":{\"a\":19,\"b\":21}}],"
        "\"collectives\":{\"allreduce\":[{\"bytes\":8,\"busbw_gbytes_per_s\":0.001},"
        "{\"bytes\":1048576,\"busbw_gbytes_per_s\":2.5}]}}",
        0, NULL);
    assert_non_null(f);
    ns_bench_set s;
    char err[256];
    assert_int_equal(ns_bench_set_from_json(f, NULL, &s, err, sizeof err), 0);
    assert_true(s.is_fleet);
    assert_int_equal(s.nodes, 2);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.label, "h0");
    assert_string_equal(s.v[0].id, "allreduce/busbw/bytes=1048576");
    assert_string_equal(s.v[0].cls, "allreduce");
    assert_string_equal(s.v[2].id, "triad/t2");
    assert_float_equal(s.v[2].value, 20, 0);
    /* Two nodes cannot estimate a node-to-node spread: unknown (the file's 0.03 is ignored). */
    assert_true(isnan(s.v[2].between));
    assert_true(isnan(s.v[2].noise));
    ns_bench_set_free(&s);
    ns_bench_set *per = NULL;
    assert_int_equal(ns_bench_sets_per_node(f, &per, err, sizeof err), 2);
    assert_string_equal(per[1].label, "b");
    assert_float_equal(per[1].v[0].value, 21, 0);
    ns_bench_set_free(&per[0]);
    ns_bench_set_free(&per[1]);
    free(per);
    json_decref(f);
}

/* A node file's thread all-reduce (allreduce.ring[] / tree[], busbw per size) is
 * compared like the other classes, one id per schedule, thread count and size, its time_s.cv
 * the within noise; a size that failed its check is left out. The verdict said "not measured
 * in >= 2 inputs: allreduce" although every input had measured one. Beside a fleet (MPI
 * all-reduce, other ids) the class is "not compared", not "not measured". */
static json_t *node_with_allreduce(const char *host, double ring_64k, double tree_64k) {
    double r[1] = {20};
    static const char *const tid[] = {"triad/t2"}, *const tfam[] = {"stream"};
    json_t *d = node_doc(host, 1, tid, tfam, r, 0.01);
    json_t *ar =
        json_pack("{s:i, s:[{s:i, s:f, s:{s:f}, s:b}, {s:i, s:f, s:{s:f}, s:b}],"
                  " s:[{s:i, s:f, s:{s:f}, s:b}, {s:i, s:f, s:{s:f}, s:b}]}",
                  "threads", 2, "ring", "size_bytes", 8, "busbw_gbytes_per_s", 0.01, "time_s", "cv",
                  0.02, "validated", 1, "size_bytes", 65536, "busbw_gbytes_per_s", ring_64k,
                  "time_s", "cv", 0.01, "validated", 1, "tree", "size_bytes", 8,
                  "busbw_gbytes_per_s", 0.02, "time_s", "cv", 0.02, "validated", 0, "size_bytes",
                  65536, "busbw_gbytes_per_s", tree_64k, "time_s", "cv", 0.01, "validated", 1);
    assert_non_null(ar);
    json_object_set_new(d, "allreduce", ar);
    return d;
}

static void test_compare_node_allreduce(void **st) {
    (void)st;
    ns_bench_set s[3];
    char err[256], line[1024];
    json_t *a = node_with_allreduce("x", 4.0, 3.0), *b = node_with_allreduce("y", 6.0, 3.1);
    assert_int_equal(ns_bench_set_from_json(a, NULL, &s[0], err, sizeof err), 0);
    assert_int_equal(ns_bench_set_from_json(b, NULL, &s[1], err, sizeof err), 0);
    assert_int_equal(s[0].n, 4); /* triad and three all-reduce sizes (tree 8 B failed its check) */
    assert_string_equal(s[0].v[0].id, "allreduce/ring/t2/busbw/bytes=65536");
    assert_string_equal(s[0].v[0].cls, "allreduce");
    assert_string_equal(s[0].v[0].unit, "GB/s");
    assert_float_equal(s[0].v[0].within, 0.01, 0);
    assert_string_equal(s[0].v[1].id, "allreduce/ring/t2/busbw/bytes=8");
    assert_string_equal(s[0].v[2].id, "allreduce/tree/t2/busbw/bytes=65536");
    ns_compare c;
    assert_int_equal(ns_compare_build(s, 2, 0.05, &c), 0);
    assert_int_equal(c.nrows, 4);
    assert_int_equal(c.class_total[4], 3);
    assert_int_equal(c.class_distinct[4], 1); /* ring 64 KiB: 6/4 */
    assert_string_equal(c.rows[0].id, "allreduce/ring/t2/busbw/bytes=65536");
    assert_float_equal(c.rows[0].max_over_min, 1.5, 1e-12);
    ns_compare_verdict(&c, line, sizeof line);
    assert_non_null(strstr(line, "allreduce (1/3)"));
    assert_non_null(strstr(line, "; not measured in >= 2 inputs: gemm, reduce, peak."));
    ns_compare_free(&c);
    /* A fleet's MPI all-reduce beside a node's thread all-reduce: both measured, no id shared. */
    json_t *f = json_loads(
        "{\"schema\":\"nodescale/1\",\"kind\":\"fleet\",\"context\":{\"host\":\"h0\"},"
        "\"nodes\":[{\"name\":\"a\",\"host\":\"a\",\"status\":\"ok\"}],"
        "\"benchmarks\":[{\"id\":\"triad/t2\",\"class\":\"stream/bandwidth\",\"unit\":"
        "\"GB/s\",\"median\":20,\"values\":{\"a\":20}}],"
        "\"collectives\":{\"allreduce\":[{\"bytes\":65536,\"busbw_gbytes_per_s\":2.5}]}}",
        0, NULL);
    assert_non_null(f);
    assert_int_equal(ns_bench_set_from_json(f, NULL, &s[2], err, sizeof err), 0);
    assert_int_equal(ns_compare_build(&s[1], 2, 0.05, &c), 0);
    assert_int_equal(c.class_total[4], 0);
    assert_int_equal(c.class_inputs[4], 2);
    ns_compare_verdict(&c, line, sizeof line);
    assert_non_null(
        strstr(line, "not compared (measured, but no benchmark id in >= 2 inputs): allreduce; "
                     "not measured in >= 2 inputs: gemm, reduce, peak."));
    ns_compare_free(&c);
    for (int i = 0; i < 3; i++)
        ns_bench_set_free(&s[i]);
    json_decref(a);
    json_decref(b);
    json_decref(f);
}

/* t = 5 us + S / (2 GB/s), exactly: the weighted fit recovers both; a latency-free line gets
 * alpha pinned at 0, not negative. */
static void test_alpha_beta_fit(void **st) {
    (void)st;
    double S[20], t[20], a, b, res;
    for (int i = 0; i < 20; i++) {
        S[i] = 8.0 * (1 << i);
        t[i] = 5e-6 + S[i] * 5e-10;
    }
    assert_int_equal(ns_alpha_beta_fit(S, t, 20, 1, &a, &b, &res), 0);
    assert_float_equal(a, 5e-6, 5e-6 * 1e-9);
    assert_float_equal(b, 5e-10, 5e-10 * 1e-9);
    assert_true(res < 1e-9);
    for (int i = 0; i < 20; i++)
        t[i] = S[i] * 1e-9 * (i % 2 ? 1.1 : 0.9);
    assert_int_equal(ns_alpha_beta_fit(S, t, 20, 1, &a, &b, &res), 0);
    assert_true(a >= 0 && b > 0);
    assert_int_equal(ns_alpha_beta_fit(S, t, 1, 1, &a, &b, &res), -1);
    json_t *j = ns_coll_allreduce_fit_json(1, NULL, 0);
    assert_true(json_is_null(json_object_get(json_object_get(j, "fit"), "alpha_s")));
    json_decref(j);
}

/* ns_fleet_report_md of a fleet.json given as text (freed by the caller). */
static char *report_of(const char *text) {
    json_t *f = json_loads(text, 0, NULL);
    assert_non_null(f);
    char *md = ns_fleet_report_md(f);
    assert_non_null(md);
    json_decref(f);
    return md;
}

/* The fleet's collectives follow the harness's policy: at least NS_MIN_SAMPLES (9)
 * samples per size, the residual under the key results.json uses (max_rel_residual) and the
 * same "poor fit" status above NS_ALLREDUCE_POOR_FIT; the report says so, and reads the old key
 * max_rel_resid of earlier fleet.json files. */
static void test_fit_policy(void **st) {
    (void)st;
    assert_int_equal(ns_coll_defaults(0).samples, NS_MIN_SAMPLES);
    assert_int_equal(ns_coll_defaults(1).samples, NS_MIN_SAMPLES);
    ns_coll_row rows[12];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 12; i++) {
        rows[i].bytes = 8.0 * (1 << (2 * i));
        rows[i].validated = 1;
        rows[i].t_max = 2e-6 + rows[i].bytes * 1e-10; /* a straight line: a good fit */
    }
    json_t *j = ns_coll_allreduce_fit_json(2, rows, 12), *fit = json_object_get(j, "fit");
    assert_true(json_real_value(json_object_get(fit, "max_rel_residual")) < 1e-9);
    assert_null(json_object_get(fit, "max_rel_resid"));
    assert_null(json_object_get(fit, "status"));
    assert_false(ns_allreduce_fit_is_poor(fit));
    json_decref(j);
    rows[5].t_max *= 20; /* one size 20x slow (trial 6: 1 KiB at 12.7 us between 2.2 and 2.9) */
    j = ns_coll_allreduce_fit_json(2, rows, 12), fit = json_object_get(j, "fit");
    double r = json_real_value(json_object_get(fit, "max_rel_residual"));
    assert_true(r > NS_ALLREDUCE_POOR_FIT);
    assert_true(ns_allreduce_fit_residual(fit) == r);
    assert_true(ns_allreduce_fit_is_poor(fit));
    assert_non_null(strstr(json_string_value(json_object_get(fit, "status")), "poor fit: "));
    json_decref(j);
    char *md = report_of("{\"kind\":\"fleet\",\"collectives\":{\"ranks\":2},"
                         "\"allreduce\":{\"fit\":{\"alpha_s\":1e-6,\"beta_s_per_byte\":3e-10,"
                         "\"points\":10,\"max_rel_resid\":0.86}}}");
    assert_non_null(strstr(md, "worst relative residual 86%"));
    assert_non_null(strstr(md, "refuses it without --allreduce-accept-poor-fit"));
    assert_non_null(strstr(md, "**poor fit: max_rel_residual 0.86 > 0.5"));
    free(md);
}

/* The console printed a refused (poor) all-reduce fit as a result. The line carries
 * the fit's status; a good fit has none, a fit over the sizes that finished says so, and no fit
 * prints nothing. */
static void test_fit_console_line(void **st) {
    (void)st;
    char line[1024];
    ns_coll_row rows[12];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 12; i++) {
        rows[i].bytes = 8.0 * (1 << (2 * i));
        rows[i].validated = 1;
        rows[i].t_max = 2e-6 + rows[i].bytes * 1e-10;
    }
    json_t *j = ns_coll_allreduce_fit_json(2, rows, 12);
    assert_int_equal(ns_fleet_fit_line(j, line, sizeof line), 0);
    assert_string_equal(line, "all-reduce fit over 2 ranks: alpha = 2e-06 s, beta = 1e-10 s/B");
    json_object_set_new(j, "status",
                        json_string("the collectives did not finish: fit over the "
                                    "all-reduce sizes that did"));
    assert_int_equal(ns_fleet_fit_line(j, line, sizeof line), 0);
    assert_non_null(strstr(line, "s/B (the collectives did not finish: "));
    json_object_set_new(json_object_get(j, "fit"), "status", json_string("beta is 0"));
    assert_int_equal(ns_fleet_fit_line(j, line, sizeof line), 0);
    assert_non_null(strstr(line, "s/B (beta is 0; the collectives did not finish: "));
    json_decref(j);
    rows[5].t_max *= 20; /* a poor fit */
    j = ns_coll_allreduce_fit_json(2, rows, 12);
    assert_int_equal(ns_fleet_fit_line(j, line, sizeof line), 0);
    assert_non_null(strstr(line, " s/B (poor fit: max_rel_residual "));
    assert_non_null(strstr(line, "not a measurement of alpha and beta)"));
    json_decref(j);
    j = ns_coll_allreduce_fit_json(1, NULL, 0); /* one rank: no fit */
    assert_int_equal(ns_fleet_fit_line(j, line, sizeof line), -1);
    assert_string_equal(line, "");
    json_decref(j);
}

static void test_bus_factors(void **st) {
    (void)st;
    assert_float_equal(ns_coll_bus_factor(NS_COLL_ALLREDUCE, 4), 1.5, 0);
    assert_float_equal(ns_coll_bus_factor(NS_COLL_REDUCE_SCATTER, 4), 0.75, 0);
    assert_float_equal(ns_coll_bus_factor(NS_COLL_ALLGATHER, 2), 0.5, 0);
    assert_float_equal(ns_coll_bus_factor(NS_COLL_ALLREDUCE, 1), 0, 0);
    /* nccl-tests' published factors (doc/PERFORMANCE.md) on 8 ranks: 2(n-1)/n = 1.75 and
     * (n-1)/n = 0.875; 1 GB in 10 ms is an algbw of 100 GB/s, a busbw of 175 GB/s. */
    assert_float_equal(ns_coll_bus_factor(NS_COLL_ALLREDUCE, 8), 1.75, 0);
    assert_float_equal(ns_coll_bus_factor(NS_COLL_REDUCE_SCATTER, 8), 0.875, 0);
    assert_float_equal(ns_coll_bus_factor(NS_COLL_ALLGATHER, 8), 0.875, 0);
    assert_float_equal(ns_rs_ag_bus_factor(1), 0, 0);
    assert_float_equal(ns_algbw(1e9, 0.01), 100e9, 1e-3);
    assert_float_equal(ns_allreduce_busbw(1e9, 0.01, 8), 175e9, 1e-3);
}

static void test_peer_check(void **st) {
    (void)st;
    char why[256];
    const char *s0 = "quick=0 threads=0 kernels=all", *s1 = "quick=1 threads=0 kernels=all";
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", s0, "0.1.0", "gcc -O3", s0, why, sizeof why), 0);
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", s0, "0.2.0", "gcc -O3", s0, why, sizeof why), -1);
    assert_non_null(strstr(why, "version 0.2.0"));
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", s0, "0.1.0", "gcc -O3", s1, why, sizeof why), -1);
    assert_string_equal(why, "settings differ: quick=1 here, quick=0 on rank 0");
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", s0, "0.1.0", "gcc -O1", s0, why, sizeof why), -1);
    assert_non_null(strstr(why, "-O1"));
    /* A variable on one side only, sorting last: named, "unset" on the other side. */
    const char *e0 = "quick=0 OMP_PROC_BIND=close",
               *e1 = "quick=0 OMP_PROC_BIND=close OMP_WAIT_POLICY=active";
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", e0, "0.1.0", "gcc -O3", e1, why, sizeof why), -1);
    assert_string_equal(why, "settings differ: OMP_WAIT_POLICY=active here, "
                             "OMP_WAIT_POLICY unset on rank 0");
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", e1, "0.1.0", "gcc -O3", e0, why, sizeof why), -1);
    assert_string_equal(why, "settings differ: OMP_WAIT_POLICY unset here, "
                             "OMP_WAIT_POLICY=active on rank 0");
    /* In the middle, and a value with spaces before the difference. */
    const char *m0 = "quick=0 GOMP_CPU_AFFINITY=0 1 2 OMP_A=1 OMP_PROC_BIND=close",
               *m1 = "quick=0 GOMP_CPU_AFFINITY=0 1 2 OMP_PROC_BIND=close";
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", m0, "0.1.0", "gcc -O3", m1, why, sizeof why), -1);
    assert_string_equal(why, "settings differ: OMP_A unset here, OMP_A=1 on rank 0");
    const char *a1 = "quick=0 GOMP_CPU_AFFINITY=0 1 3 OMP_A=1 OMP_PROC_BIND=close";
    assert_int_equal(
        ns_fleet_check_peer("0.1.0", "gcc -O3", m0, "0.1.0", "gcc -O3", a1, why, sizeof why), -1);
    assert_string_equal(why, "settings differ: GOMP_CPU_AFFINITY=0 1 3 here, "
                             "GOMP_CPU_AFFINITY=0 1 2 on rank 0");
}

static void test_pattern(void **st) {
    (void)st;
    char out[64];
    ns_fleet_expand_pattern("d/%h-%r.json%%", 12, "node7", out, sizeof out);
    assert_string_equal(out, "d/node7-12.json%");
    ns_fleet_expand_pattern("%h%h%h", 0, "abcdefgh", out, 10);
    assert_string_equal(out, "abcdefgha");
}

static void test_report_names_straggler(void **st) {
    (void)st;
    char *md = report_of(
        "{\"schema\":\"nodescale/1\",\"kind\":\"fleet\",\"status\":\"complete\","
        "\"context\":{\"host\":\"h0\"},\"nodes\":[{\"name\":\"slow1\",\"status\":\"ok\"}],"
        "\"stragglers\":{\"method\":\"m\",\"threshold\":3.5,\"mad_floor\":0.02,\"nodes\":3,"
        "\"flagged\":[{\"name\":\"slow1\",\"benchmarks\":[{\"id\":\"triad/t2\",\"unit\":\"GB/s\","
        "\"value\":14,\"median\":20,\"z\":-15,\"deficit\":0.3}]}]},"
        "\"allreduce\":{\"fit\":{\"alpha_s\":null,\"status\":\"one rank\"}}}");
    assert_non_null(strstr(md, "**1 straggler node(s):** slow1 (1 benchmark)"));
    assert_non_null(strstr(md, "| slow1 | `triad/t2` | 14 GB/s | 20 GB/s | 30.0% | -15.00 |"));
    assert_non_null(strstr(md, "Not measured: one rank."));
    free(md);
}

/* A one-node fleet's noise is its node's own time_s.cv (read from nodes/<node>/results.json),
 * not the node-to-node spread of one value (0): two one-node fleets 10% apart inside 20% noise do
 * not differ, as their node files would not (trial 4, defect 1). With 3 nodes both parts add in
 * quadrature. The fleet report says n/a, not 0.0%, below 3 nodes. */
static void test_fleet_noise_within(void **st) {
    (void)st;
    char dir[] = "/tmp/ns-test-fleet-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    static const char *const names[] = {"a", "b", "c"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s.json", dir, names[k]);
        double rate = 20;
        json_t *d = node_doc(names[k], 1, &ids[2], &fams[2], &rate, 0.2 - 0.05 * k);
        assert_int_equal(json_dump_file(d, path, 0), 0);
        json_decref(d);
    }
    ns_bench_set s[2];
    char err[256], fleet_path[256];
    snprintf(fleet_path, sizeof fleet_path, "%s/fleet.json", dir);
    for (int k = 0; k < 2; k++) {
        char doc[1024];
        snprintf(doc, sizeof doc,
                 "{\"schema\":\"nodescale/1\",\"kind\":\"fleet\",\"context\":{\"host\":\"%s\"},"
                 "\"nodes\":[{\"name\":\"%s\",\"status\":\"ok\",\"results\":\"%s.json\"}],"
                 "\"benchmarks\":[{\"id\":\"triad/t2\",\"class\":\"stream/bandwidth\","
                 "\"unit\":\"GB/s\",\"nodes_measured\":1,\"median\":%g,\"noise\":0,"
                 "\"values\":{\"%s\":%g}}]}",
                 names[k], names[k], names[k], 20.0 + 2 * k, names[k], 20.0 + 2 * k);
        json_t *f = json_loads(doc, 0, NULL);
        assert_non_null(f);
        assert_int_equal(ns_bench_set_from_json(f, NULL, &s[k], err, sizeof err), 0);
        assert_true(isnan(s[k].v[0].noise));
        assert_int_equal(ns_bench_set_fleet_within(&s[k], 1, 0, f, fleet_path), 0);
        assert_float_equal(s[k].v[0].within, 0.2 - 0.05 * k, 1e-12);
        assert_float_equal(s[k].v[0].noise, 0.2 - 0.05 * k, 1e-12);
        char *md = ns_fleet_report_md(f);
        assert_non_null(md);
        char row[64];
        snprintf(row, sizeof row, "| 1 | %g | %g | %g | n/a |", 20.0 + 2 * k, 20.0 + 2 * k,
                 20.0 + 2 * k);
        assert_non_null(strstr(md, row));
        assert_null(strstr(md, "0.0%"));
        free(md);
        json_decref(f);
    }
    ns_compare c;
    assert_int_equal(ns_compare_build(s, 2, 0.05, &c), 0);
    assert_int_equal(c.nrows, 1);
    assert_true(isnan(c.rows[0].between));
    assert_float_equal(c.rows[0].threshold, 0.6, 1e-12);
    assert_false(c.rows[0].distinguishes);
    ns_compare_free(&c);
    ns_bench_set_free(&s[0]);
    ns_bench_set_free(&s[1]);

    /* Three nodes: between 0.03 (the file's) and within the largest node CV, 0.2. */
    json_t *f = json_loads(
        "{\"schema\":\"nodescale/1\",\"kind\":\"fleet\",\"context\":{\"host\":\"a\"},"
        "\"nodes\":[{\"name\":\"a\",\"status\":\"ok\",\"results\":\"a.json\"},"
        "{\"name\":\"b\",\"status\":\"ok\",\"results\":\"b.json\"},"
        "{\"name\":\"c\",\"status\":\"ok\",\"results\":\"missing.json\"}],"
        "\"benchmarks\":[{\"id\":\"triad/t2\",\"class\":\"stream/bandwidth\",\"unit\":\"GB/s\","
        "\"nodes_measured\":3,\"median\":20,\"noise\":0.03,"
        "\"values\":{\"a\":19,\"b\":20,\"c\":21}}]}",
        0, NULL);
    assert_non_null(f);
    assert_int_equal(ns_bench_set_from_json(f, NULL, &s[0], err, sizeof err), 0);
    assert_int_equal(ns_bench_set_fleet_within(&s[0], 1, 0, f, fleet_path), 1);
    assert_float_equal(s[0].v[0].between, 0.03, 0);
    assert_float_equal(s[0].v[0].within, 0.2, 1e-12);
    assert_float_equal(s[0].v[0].noise, hypot(0.03, 0.2), 1e-12);
    ns_bench_set_free(&s[0]);
    char *md = ns_fleet_report_md(f);
    assert_non_null(strstr(md, "| 3 | 20 | 19 | 21 | 3.0% |"));
    free(md);
    json_decref(f);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s.json", dir, names[k]);
        unlink(path);
    }
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_choice),
        cmocka_unit_test(test_straggler_named_with_benchmark),
        cmocka_unit_test(test_straggler_exact_z_and_floor),
        cmocka_unit_test(test_straggler_noisy_fleet),
        cmocka_unit_test(test_straggler_two_nodes_untested),
        cmocka_unit_test(test_straggler_zero_scale),
        cmocka_unit_test(test_collective_check_every_element),
        cmocka_unit_test(test_compare_verdict),
        cmocka_unit_test(test_compare_noise_hides_spread),
        cmocka_unit_test(test_fleet_file_as_input),
        cmocka_unit_test(test_compare_node_allreduce),
        cmocka_unit_test(test_alpha_beta_fit),
        cmocka_unit_test(test_fit_policy),
        cmocka_unit_test(test_fit_console_line),
        cmocka_unit_test(test_bus_factors),
        cmocka_unit_test(test_peer_check),
        cmocka_unit_test(test_pattern),
        cmocka_unit_test(test_report_names_straggler),
        cmocka_unit_test(test_fleet_noise_within),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
