/* Unit tests of report.md (reports/report_md.c) on a fixture cut from a noisy 2-thread run:
 * the cluster section repeats a disturbed variability status, the GEMM table marks noisy
 * numbers as the Kernels table does, and a bandwidth ceiling's working set is the measured
 * range, never the geometric middle of it. Run from the repository root. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/nstest.h"

#include "cluster/cluster.h"
#include "harness/commands.h"
#include "harness/json.h"
#include "harness/run.h"
#include "harness/stats.h"
#include "reports/report.h"

#define FIXTURE "tests/fixtures/report/results_noisy_run.json"

static json_t *load_fixture(void) {
    json_error_t je;
    json_t *root = json_load_file(FIXTURE, 0, &je);
    if (!root) fail_msg("%s: %s", FIXTURE, je.text);
    return root;
}

/* report.md of root, as a string (caller frees). */
static char *markdown(const json_t *root) {
    char path[] = "/tmp/ns_test_report_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[256] = "";
    if (ns_report_markdown(root, path, err, sizeof err) != 0) fail_msg("report: %s", err);
    char *s = ns_test_slurp(path);
    unlink(path);
    return s;
}

/* Fails unless needle occurs in hay (and prints the report when it does not). */
static void assert_has(const char *hay, const char *needle) {
    if (!strstr(hay, needle)) fail_msg("report.md lacks \"%s\":\n%s", needle, hay);
}

static void assert_lacks(const char *hay, const char *needle) {
    if (strstr(hay, needle)) fail_msg("report.md has \"%s\":\n%s", needle, hay);
}

/* Defect 9 of trial 3: `cluster --node` said the step CV was disturbed, report.md did not. */
static void test_cluster_variability(void **state) {
    (void)state;
    json_t *root = load_fixture();
    char *md = markdown(root);
    const char *sec = strstr(md, "## This node at cluster scale");
    assert_non_null(sec);
    assert_has(sec, "**Variability: disturbed: step CV 0.388 above 0.2, straggler wait inflated "
                    "(used as measured)** (step CV: median time_s.cv of 6 fp32 GEMM results");
    /* Said before the table, not inside it. */
    assert_true(strstr(sec, "Variability") < strstr(sec, "| chips |"));
    free(md);

    /* A quiet node: nothing said. */
    json_t *cl = json_object_get(root, "cluster");
    json_object_set_new(cl, "variability_status", json_string("ok"));
    md = markdown(root);
    assert_lacks(md, "Variability");
    assert_lacks(md, "GEMM efficiency:");
    free(md);
    json_decref(root);
}

/* The cluster section prints each row's interleave, micro-batch and recomputation, and the
 * command that gives the rows again: run, it reproduces every row (layout, step time). */
static void test_cluster_reproduce(void **state) {
    (void)state;
    json_t *root = load_fixture();
    char err[512];
    json_t *sec = ns_cluster_from_results(root, "h100-sxm", NULL, err, sizeof err);
    if (!sec) fail_msg("cluster section: %s", err);
    json_object_set_new(root, "cluster", sec);
    char *md = markdown(root);
    assert_has(md, "| chips | TP | PP | CP | DP | v | micro-batch | recompute |");
    const char *cmd = strstr(md, "`nodescale cluster --preset h100-sxm --node results.json --chips ");
    assert_non_null(cmd);
    cmd += strlen("`nodescale ");
    const char *end = strchr(cmd, '`');
    assert_non_null(end);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(end - cmd), cmd);
    char in[] = "/tmp/ns_test_repro_in_XXXXXX", out[] = "/tmp/ns_test_repro_out_XXXXXX";
    int fd = mkstemp(in);
    assert_true(fd >= 0);
    close(fd);
    fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(json_dump_file(root, in, 0), 0);
    char *argv[32];
    int argc = 0;
    for (char *t = strtok(line, " "); t && argc < 28; t = strtok(NULL, " "))
        argv[argc++] = strcmp(t, "results.json") ? t : in;
    argv[argc++] = "--json";
    argv[argc++] = out;
    argv[argc] = NULL;
    /* its table to /dev/null, stdout restored for cmocka */
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
    assert_true(saved >= 0 && null >= 0);
    dup2(null, STDOUT_FILENO);
    close(null);
    int rc = ns_cmd_cluster(argc, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(rc, 0);
    json_error_t je;
    json_t *got = json_load_file(out, 0, &je);
    if (!got) fail_msg("%s: %s", out, je.text);
    unlink(in);
    unlink(out);
    const json_t *want = json_object_get(json_object_get(root, "cluster"), "points");
    const json_t *pts = json_object_get(got, "points");
    assert_true(json_array_size(want) > 0);
    assert_int_equal(json_array_size(pts), json_array_size(want));
    static const char *const keys[] = {"chips", "tp", "pp", "cp", "dp", "interleave",
                                       "micro_batch_seqs", "recompute_layers_per_stage"};
    for (size_t i = 0; i < json_array_size(want); i++) {
        const json_t *w = json_array_get(want, i), *g = json_array_get(pts, i);
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            assert_int_equal(json_integer_value(json_object_get(g, keys[k])),
                             json_integer_value(json_object_get(w, keys[k])));
        assert_string_equal(json_string_value(json_object_get(g, "recompute")),
                            json_string_value(json_object_get(w, "recompute")));
        double gs = ns_json_get_num(g, "step_s"), ws = ns_json_get_num(w, "step_s");
        assert_true(fabs(gs - ws) <= 1e-12 * ws);
        /* the row prints what it was made with */
        char row[160];
        size_t n = 0;
        for (size_t k = 0; k < 7; k++) /* the table's first columns: keys[0..6] */
            n += (size_t)snprintf(row + n, sizeof row - n, "| %lld ",
                                  json_integer_value(json_object_get(w, keys[k])));
        snprintf(row + n, sizeof row - n, "| %s", json_string_value(json_object_get(w, "recompute")));
        assert_has(md, row);
    }
    json_decref(got);
    free(md);
    json_decref(root);
}

/* Defect 10: the GEMM table marks a number whose cv is above 5%, and a ratio either side of
 * which is marked (sgemm 512: own cv 0.44, BLIS 1.74, OpenBLAS 0.34). */
static void test_gemm_noise_marked(void **state) {
    (void)state;
    json_t *root = load_fixture();
    char *md = markdown(root);
    assert_has(md, "| sgemm (avx512) | 512 | 2 | 34.1 ⚠ | 43.1 ⚠ | 188.8 ⚠ | 0.18 ⚠ |");
    /* Own quiet, best peer (OpenBLAS, cv 0.81) noisy: the peer and the ratio are marked. */
    assert_has(md, "| sgemm (avx512) | 256 | 2 | 168.0 | 101.9 | 174.9 ⚠ | 0.96 ⚠ |");
    /* All three under 5%: no mark. */
    assert_has(md, "| dgemm (avx512) | 256 | 2 | 94.9 | 50.0 | 81.7 | 1.16 |");
    assert_has(md, "⚠ a number marked varied by more than 5% (cv)");
    free(md);
    json_decref(root);
}

/* Review 16 #8: report.md's "disturbed" mark is NS_DISTURBED_CV (the gate's too), and its
 * sentences print that value, not a second "5%" of their own. A cv just above it marks the own
 * dgemm 256 number and its ratio; just below it marks nothing. */
static void test_disturbed_mark_is_shared(void **state) {
    (void)state;
    json_t *root = load_fixture();
    json_t *own = json_array_get(json_object_get(root, "results"), 1);
    assert_string_equal(json_string_value(json_object_get(own, "id")),
                        "dgemm/avx512/dp/t2/m=256,n=256,k=256");
    json_t *t = json_object_get(own, "time_s");
    json_object_set_new(t, "cv", json_real(NS_DISTURBED_CV * 1.01));
    char *md = markdown(root);
    assert_has(md, "| dgemm (avx512) | 256 | 2 | 94.9 ⚠ | 50.0 | 81.7 | 1.16 ⚠ |");
    char want[128];
    snprintf(want, sizeof want, "⚠ a number marked varied by more than %g%% (cv)",
             100 * NS_DISTURBED_CV);
    assert_has(md, want);
    snprintf(want, sizeof want, "kernels varied by more than %g%% (cv)", 100 * NS_DISTURBED_CV);
    assert_has(md, want);
    free(md);
    json_object_set_new(t, "cv", json_real(NS_DISTURBED_CV * 0.99));
    md = markdown(root);
    assert_has(md, "| dgemm (avx512) | 256 | 2 | 94.9 | 50.0 | 81.7 | 1.16 |");
    free(md);
    json_decref(root);
}

/* The GEMM table's peer columns name the ISA each peer's kernels use
 * (context.gemm.peers[].isa), and a line says when it differs from the own kernel's. */
static void test_gemm_peer_isa_labelled(void **state) {
    (void)state;
    json_t *root = load_fixture();
    char *md = markdown(root);
    assert_has(md, "| BLIS | OpenBLAS | own / best peer |"); /* no isa recorded: no label */
    assert_lacks(md, "compares different instruction sets");
    free(md);
    json_t *ctx = json_object_get(root, "context"), *gemm = json_object();
    json_t *peers = json_pack("[{s:s, s:s}, {s:s, s:s}]", "name", "blis", "isa", "avx2", "name",
                              "openblas", "isa", "avx512");
    json_object_set_new(gemm, "peers", peers);
    json_object_set_new(ctx, "gemm", gemm);
    md = markdown(root);
    assert_has(md, "| BLIS (avx2) | OpenBLAS (avx512) | own / best peer |");
    assert_has(md, "not always the own kernel's (avx512): where they differ, own / best peer "
                   "compares different instruction sets.");
    free(md);
    json_decref(root);
}

/* The Node table's cache sizes go through ns_format_bytes, as every byte size printed: an L3
 * of 300 MiB reads "300 MiB", not "307200 KiB"; an L1 of 48 KiB "48 KiB". */
static void test_node_cache_sizes_formatted(void **state) {
    (void)state;
    json_t *root = load_fixture();
    json_t *cpu = json_object_get(json_object_get(root, "context"), "cpu");
    json_object_set_new(cpu, "caches",
                        json_pack("[{s:i, s:s, s:I, s:i, s:i}, {s:i, s:s, s:I, s:i, s:i}]", "level",
                                  1, "type", "data", "size_bytes", (json_int_t)49152, "count", 2,
                                  "shared_by_cores", 1, "level", 3, "type", "unified", "size_bytes",
                                  (json_int_t)314572800, "count", 1, "shared_by_cores", 2));
    char *md = markdown(root);
    assert_has(md, "| caches | L1 48 KiB x2 (shared by 1); L3 300 MiB x1 (shared by 2) |\n");
    assert_lacks(md, "307200 KiB");
    free(md);
    json_decref(root);
}

/* Defect 13: a ceiling's working set is the measured range (the sweep points it came from),
 * not working_set_bytes, their geometric middle (783.8 MiB for the DRAM ceiling, never run). */
static void test_ceiling_working_set_measured(void **state) {
    (void)state;
    json_t *root = load_fixture();
    char *md = markdown(root);
    assert_lacks(md, "783.8 MiB");
    assert_lacks(md, "784 MiB");
    assert_has(md, "| 1 | DRAM | stream_load | 512 MiB–1.17 GiB | 13.6 |");
    assert_has(md, "| 1 | L1 | stream_triad | 3 KiB–24 KiB | 466.5 |");
    assert_has(md, "| 1 | L2 | stream_load | 128 KiB–512 KiB | 129.2 |");
    free(md);

    /* One measured size: that size alone. */
    json_t *c = json_array_get(json_object_get(json_object_get(root, "ceilings"), "bandwidth"), 0);
    json_object_set_new(c, "working_set_max_bytes",
                        json_real(ns_json_get_num(c, "working_set_min_bytes")));
    md = markdown(root);
    assert_has(md, "| 1 | L2 | stream_load | 128 KiB | 129.2 |");
    free(md);
    json_decref(root);
}

/* The Bandwidth ceilings table lists the thread counts the file holds, ascending, whatever
 * their range: it scanned 1..4096 and stopped at the first count past 1024 with no row. */
static void test_bandwidth_thread_counts(void **state) {
    (void)state;
    json_t *root = load_fixture();
    json_t *bw = json_object_get(json_object_get(root, "ceilings"), "bandwidth");
    assert_true(json_array_size(bw) >= 2);
    json_object_set_new(json_array_get(bw, 0), "threads", json_integer(1030));
    json_object_set_new(json_array_get(bw, 1), "threads", json_integer(3));
    char *md = markdown(root);
    const char *three = strstr(md, "| 3 | "), *big = strstr(md, "| 1030 | ");
    if (!three || !big || big < three) fail_msg("want rows of 3 then 1030 threads:\n%s", md);
    free(md);
    json_decref(root);
}

/* The all-reduce line shows the fit's worst relative residual, with a warning
 * above 25% (the rule `cluster --allreduce` applies) and another for a poor fit (above 50%). */
static void test_allreduce_fit_quality(void **state) {
    (void)state;
    json_t *root = load_fixture();
    json_t *fit = json_pack("{s:f, s:f, s:f}", "alpha_s", 9.66e-7, "beta_s_per_byte", 1.11e-10,
                            "max_rel_residual", 0.456);
    json_object_set_new(
        root, "allreduce",
        json_pack("{s:i, s:s, s:o}", "threads", 2, "convention", "in place", "fit", fit));
    char *md = markdown(root);
    assert_has(md, "α = 9.66e-07 s, β = 1.11e-10 s/B (fitted; worst relative residual 46%).");
    assert_has(md, "- ring: α = 9.66e-07");
    assert_has(md, "**Warning: the ring fit's worst relative residual is 46% (> 25%): a straight "
                   "line describes this all-reduce poorly, and the times `cluster --allreduce`");
    free(md);

    json_object_set_new(fit, "max_rel_residual", json_real(0.1));
    md = markdown(root);
    assert_has(md, "(fitted; worst relative residual 10%).");
    assert_lacks(md, "Warning: the fit");
    assert_lacks(md, "a poor fit");
    free(md);

    json_object_set_new(fit, "max_rel_residual", json_real(0.852));
    json_object_set_new(fit, "status",
                        json_string("poor fit: max_rel_residual 0.85 > 0.5, the "
                                    "alpha-beta line does not describe these times; "
                                    "not a measurement of alpha and beta"));
    md = markdown(root);
    assert_has(md, "(poor fit: max_rel_residual 0.85 > 0.5, the alpha-beta line does not describe "
                   "these times; not a measurement of alpha and beta).\n");
    assert_has(md, "**Warning: the ring fit is a poor fit (above 50%");
    assert_lacks(md, "Warning: the fit");
    free(md);

    /* No residual recorded: nothing claimed. */
    json_object_del(fit, "max_rel_residual");
    json_object_del(fit, "status");
    md = markdown(root);
    assert_has(md, " s/B (fitted).\n");
    assert_lacks(md, "Warning: ");
    free(md);
    json_decref(root);
}

/* The all-reduce section named no schedule and showed the ring's fit only: the
 * tree's poor fit was hidden. Each fit is named, with its residual and its own warning. */
static void test_allreduce_both_fits(void **state) {
    (void)state;
    json_t *root = load_fixture();
    json_t *ring = json_pack("{s:s, s:f, s:f, s:f}", "schedule", "ring", "alpha_s", 9.21e-7,
                             "beta_s_per_byte", 1.12e-10, "max_rel_residual", 0.48);
    json_t *tree = json_pack("{s:s, s:f, s:f, s:f, s:s}", "schedule", "tree", "alpha_s", 7.6e-7,
                             "beta_s_per_byte", 2.27e-10, "max_rel_residual", 0.516, "status",
                             "poor fit: max_rel_residual 0.52 > 0.5, the alpha-beta line does "
                             "not describe these times; not a measurement of alpha and beta");
    json_object_set_new(root, "allreduce",
                        json_pack("{s:i, s:s, s:o, s:o}", "threads", 2, "convention", "in place",
                                  "fit", ring, "fit_tree", tree));
    char *md = markdown(root);
    assert_has(md, "- ring: α = 9.21e-07 s, β = 1.12e-10 s/B (fitted; worst relative residual "
                   "48%).");
    assert_has(md, "**Warning: the ring fit's worst relative residual is 48% (> 25%)");
    assert_has(md, "- tree: α = 7.6e-07 s, β = 2.27e-10 s/B (poor fit: max_rel_residual 0.52");
    assert_has(md, "**Warning: the tree fit is a poor fit (above 50% it is not a measurement of "
                   "α and β).**");
    free(md);
    json_decref(root);
}

/* A compute ceiling's note says what its kernel executes (its result's
 * `executes`), so that the scalar ISA's fma ceiling reads as SSE2 multiply then add. */
static void test_ceiling_executes(void **state) {
    (void)state;
    json_t *root = load_fixture();
    json_t *c = json_array_get(json_object_get(json_object_get(root, "ceilings"), "compute"), 0);
    json_object_set_new(c, "isa", json_string("scalar"));
    json_object_set_new(c, "result_id", json_string("peak_dp_fma/scalar/dp/t2/n=4096"));
    json_array_append_new(json_object_get(root, "results"),
                          json_pack("{s:s, s:s, s:s}", "id", "peak_dp_fma/scalar/dp/t2/n=4096",
                                    "name", "peak_dp_fma", "executes",
                                    "no FMA: mulpd then addpd on xmm (packed SSE2)"));
    char *md = markdown(root);
    assert_has(md, "| peak_dp_fma | dp | scalar | fma | 2 | 158.9 | executes `no FMA: mulpd "
                   "then addpd on xmm (packed SSE2)` |");
    free(md);
    json_decref(root);
}

/* The "Files:" line is ns_run_outputs, the list `run --help` prints: every name in backticks,
 * its extensions and what it holds (tests/cli/run_files.sh checks that list against the files
 * the writers produce). */
static void test_files_line_complete(void **state) {
    (void)state;
    json_t *root = load_fixture();
    char *md = ns_report_markdown_text(root, NULL, NULL);
    const char *files = strstr(md, "Files: ");
    assert_non_null(files);
    const char *end = strchr(files, '\n');
    assert_non_null(end);
    char line[2048], want[256];
    snprintf(line, sizeof line, "%.*s", (int)(end - files), files);
    size_t n = 0;
    for (const ns_run_output *o = ns_run_outputs; o->names[0]; o++, n++) {
        for (int i = 0; o->names[i]; i++) {
            snprintf(want, sizeof want, "`%s`", o->names[i]);
            assert_has(line, want);
        }
        if (*o->exts)
            snprintf(want, sizeof want, "(%s): %s", o->exts, o->what);
        else
            snprintf(want, sizeof want, "`%s`: %s", o->names[0], o->what);
        assert_has(line, want);
    }
    assert_true(n >= 10);
    assert_has(line, "`gbench.json`: with --format gbench");
    free(md);
    json_decref(root);
}

/* report.md written into a folder names only the files there (a run whose disk
 * filled named results.csv, sweep.csv and every picture it had not written), and itself. */
static void test_files_line_names_files_there(void **state) {
    (void)state;
    json_t *root = load_fixture();
    char dir[] = "/tmp/ns_test_files_XXXXXX", p[256], err[256] = "";
    assert_non_null(mkdtemp(dir));
    static const char *const there[] = {"results.json", "results.csv", "roofline_sp.png",
                                        "cluster_scaling.dat"};
    for (size_t i = 0; i < sizeof there / sizeof *there; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, there[i]);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/report.md", dir);
    if (ns_report_markdown(root, p, err, sizeof err) != 0) fail_msg("report: %s", err);
    char *md = ns_test_slurp(p);
    assert_has(md, "Files: `results.json`: all numbers, schema nodescale/1; `report.md`: the report; "
                   "`results.csv`: one row per result; `roofline_sp` (.png): the roofline of each "
                   "precision; `cluster_scaling` (.dat): the cluster model.\n");
    free(md);
    for (size_t i = 0; i < sizeof there / sizeof *there; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, there[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/report.md", dir);
    unlink(p);
    rmdir(dir);
    json_decref(root);
}

/* The report shows the cache-aware pictures, not only names them: in the plain ones
 * a point in a cache level sits above the only bandwidth roof drawn. */
static void test_cache_aware_pictures_embedded(void **state) {
    (void)state;
    json_error_t je;
    const char *ex = "examples/providers/vm-2core-run1/results.json"; /* has a roofline */
    json_t *root = json_load_file(ex, 0, &je);
    if (!root) fail_msg("%s: %s", ex, je.text);
    char *md = markdown(root);
    assert_has(md, "![DP roofline](roofline.svg)");
    assert_has(md, "![SP roofline](roofline_sp.svg)");
    assert_has(md, "![DP cache-aware roofline](roofline_cache_aware_dp.svg)");
    assert_has(md, "![SP cache-aware roofline](roofline_cache_aware_sp.svg)");
    free(md);
    json_decref(root);
}

/* report.md is written as every output file (ns_write_file): through a temporary file of its
 * own, never a fixed PATH.tmp (a file of that name was overwritten and renamed away), and a link
 * is written through, not replaced. */
static void test_markdown_write_file(void **state) {
    (void)state;
    char dir[] = "/tmp/ns_test_report_md_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char md[300], tmp[300], target[300];
    snprintf(md, sizeof md, "%s/report.md", dir);
    snprintf(tmp, sizeof tmp, "%s/report.md.tmp", dir);
    snprintf(target, sizeof target, "%s/target.md", dir);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs("keep", f);
    fclose(f);
    f = fopen(target, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(symlink("target.md", md), 0);
    json_t *root = load_fixture();
    char err[256] = "";
    assert_int_equal(ns_report_markdown(root, md, err, sizeof err), 0);
    char *kept = ns_test_slurp(tmp), *text = ns_test_slurp(target);
    assert_string_equal(kept, "keep");
    assert_non_null(strstr(text, "# nodescale report"));
    char link[300];
    ssize_t n = readlink(md, link, sizeof link - 1);
    assert_true(n > 0);
    link[n] = 0;
    assert_string_equal(link, "target.md");
    free(kept);
    free(text);
    json_decref(root);
    unlink(md);
    unlink(tmp);
    unlink(target);
    rmdir(dir);
}

/* Unescaped '|' cells of the report.md line that starts with prefix (-1 when none): split at
 * '|' not preceded by a backslash, as GFM does. */
static int row_cells(const char *md, const char *prefix) {
    const char *l = strstr(md, prefix);
    if (!l) return -1;
    int n = 0;
    for (const char *p = l; *p && *p != '\n'; p++)
        n += *p == '|' && (p == l || p[-1] != '\\');
    return n;
}

/* Every text cell from the file goes through ns_md_cell, not only the id: a '|' in
 * a status split the row (report.html dropped the rest) and <b> passed through as HTML. */
static void test_free_text_cells_escaped(void **state) {
    (void)state;
    json_t *root = load_fixture();
    json_t *r = json_array_get(json_object_get(root, "results"), 0);
    json_object_set_new(r, "status", json_string("ok, but | weird\\| `co|de` <b>b</b>"));
    json_object_set_new(r, "roof_limit", json_string("bandwidth:L2|x"));
    json_t *ceil = json_object_get(root, "ceilings");
    json_object_set_new(json_array_get(json_object_get(ceil, "compute"), 0), "mix",
                        json_string("fma|<i>"));
    json_t *bw = json_array_get(json_object_get(ceil, "bandwidth"), 0);
    json_object_set_new(bw, "kernel", json_string("stream|load"));
    json_object_set_new(bw, "status", json_string("odd | <u>x</u>"));
    json_t *ctx = json_object_get(root, "context");
    json_object_set_new(ctx, "os", json_string("Linux | <b>6</b>"));
    json_object_set_new(ctx, "cflags", json_string("-O3|-g"));
    char *md = markdown(root);
    assert_has(md, "| ok, but \\| weird\\\\\\| \\`co\\|de\\` &lt;b&gt;b&lt;/b&gt; |");
    assert_has(md, "| bandwidth:L2\\|x |");
    assert_has(md, "| fma\\|&lt;i&gt; |");
    assert_has(md, "| stream\\|load |");
    assert_has(md, "| odd \\| &lt;u&gt;x&lt;/u&gt; |");
    assert_has(md, "| OS | Linux \\| &lt;b&gt;6&lt;/b&gt; |");
    assert_has(md, ", -O3\\|-g |");
    assert_lacks(md, "<b>");
    assert_lacks(md, "<i>");
    assert_lacks(md, "<u>");
    /* The kernel row keeps its 10 cells (11 separators). */
    assert_int_equal(row_cells(md, "| stream_add/avx512/dp/t2/n=87040 |"), 11);
    free(md);
    json_decref(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_text_cells_escaped),
        cmocka_unit_test(test_cluster_variability),
        cmocka_unit_test(test_cluster_reproduce),
        cmocka_unit_test(test_gemm_noise_marked),
        cmocka_unit_test(test_disturbed_mark_is_shared),
        cmocka_unit_test(test_gemm_peer_isa_labelled),
        cmocka_unit_test(test_ceiling_working_set_measured),
        cmocka_unit_test(test_node_cache_sizes_formatted),
        cmocka_unit_test(test_bandwidth_thread_counts),
        cmocka_unit_test(test_files_line_complete),
        cmocka_unit_test(test_files_line_names_files_there),
        cmocka_unit_test(test_cache_aware_pictures_embedded),
        cmocka_unit_test(test_allreduce_fit_quality),
        cmocka_unit_test(test_allreduce_both_fits),
        cmocka_unit_test(test_ceiling_executes),
        cmocka_unit_test(test_markdown_write_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
