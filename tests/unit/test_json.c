/* The JSON layer: non-finite numbers become null with a status (never NaN, Inf or 0), writes are
 * atomic and leave nothing behind on failure, loading is strict and checks the schema, and a
 * result entry built from a zero-time measurement carries no rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/nstest.h"
#include "harness/json.h"
#include "harness/result.h"

static char dir[64];

static int make_dir(void **state) {
    snprintf(dir, sizeof dir, "/tmp/ns_test_json_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static void non_finite_becomes_null_with_status(void **state) {
    json_t *o = json_object();
    assert_int_equal(ns_json_set_num(o, "gflops", 1.5, "x"), 0);
    assert_int_equal(ns_json_set_num(o, "rate", NAN, "invalid: zero elapsed"), 1);
    assert_int_equal(ns_json_set_num(o, "other", INFINITY, "second status ignored"), 1);
    assert_true(json_is_null(json_object_get(o, "rate")));
    assert_true(json_is_null(json_object_get(o, "other")));
    assert_string_equal(json_string_value(json_object_get(o, "status")), "invalid: zero elapsed");
    char *s = json_dumps(o, 0);
    assert_null(strstr(s, "nan"));
    assert_null(strstr(s, "inf"));
    free(s);
    json_decref(o);
}

static void atomic_write_then_strict_load(void **state) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_t *o = json_object();
    ns_json_set_str(o, "schema", NS_SCHEMA);
    json_object_set_new(o, "results", json_array());
    ns_json_set_num(o, "x", 2.0, NULL);
    assert_int_equal(ns_json_write_atomic(o, path, err, sizeof err), 0);
    json_decref(o);
    json_t *back = ns_json_load_results(path, err, sizeof err);
    assert_non_null(back);
    assert_true(ns_json_get_num(back, "x") == 2.0);
    assert_true(isnan(ns_json_get_num(back, "missing")));
    json_decref(back);
}

/* Defect trial3-16: doubles read back bit for bit (10 significant digits did not). */
static void doubles_round_trip_exactly(void **state) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/exact.json", dir);
    const double v[] = {1.0 / 3,
                        0.1 + 0.2,
                        131.72608512345678,
                        2.0 / 3e7,
                        1e300 / 7,
                        4.9406564584124654e-324,
                        -0.0011763552940286,
                        1048576.0};
    const size_t n = sizeof v / sizeof v[0];
    json_t *o = json_object(), *a = json_array();
    ns_json_set_str(o, "schema", NS_SCHEMA);
    json_object_set_new(o, "results", json_array());
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    json_object_set_new(o, "v", a);
    assert_int_equal(ns_json_write_atomic(o, path, err, sizeof err), 0);
    json_t *back = ns_json_load_results(path, err, sizeof err);
    assert_non_null(back);
    for (size_t i = 0; i < n; i++) {
        double got = json_number_value(json_array_get(json_object_get(back, "v"), i));
        assert_memory_equal(&got, &v[i], sizeof got);
    }
    assert_true(json_equal(o, back));
    json_decref(back);
    json_decref(o);
}

static void write_to_missing_folder_fails_cleanly(void **state) {
    char err[256];
    json_t *o = json_object();
    assert_int_equal(ns_json_write_atomic(o, "/nonexistent/dir/results.json", err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot"));
    assert_null(strchr(err, '\n'));
    json_decref(o);
}

/* An empty file name is refused with a reason, by the check made before measuring and by the
 * write itself (it used to fail only at the final rename, after the measurement). */
static void empty_path_is_refused(void **state) {
    (void)state;
    char err[256] = "";
    assert_int_equal(ns_json_check_writable("", err, sizeof err), -1);
    assert_non_null(strstr(err, "empty name"));
    json_t *root = json_object();
    err[0] = 0;
    assert_int_equal(ns_json_write_atomic(root, "", err, sizeof err), -1);
    assert_non_null(strstr(err, "empty name"));
    json_decref(root);
}

/* A message too long for its buffer keeps the reason and the path's two ends,
 * says how much of the path it cut, and never cuts a UTF-8 character in two. */
static void path_error_keeps_the_reason(void **state) {
    (void)state;
    char err[128], path[4300];
    ns_path_error(err, sizeof err, "cannot write", "/tmp/a.json", "No space left on device");
    assert_string_equal(err, "cannot write /tmp/a.json: No space left on device");
    size_t n = 0;
    n += (size_t)snprintf(path + n, sizeof path - n, "/tmp/lp");
    while (n < 4200)
        n += (size_t)snprintf(path + n, sizeof path - n, "/\xc3\xa9"); /* "/é" */
    snprintf(path + n, sizeof path - n, "/o.json");
    ns_path_error(err, sizeof err, "cannot write", path, "File name too long");
    assert_true(strlen(err) < sizeof err);
    assert_non_null(strstr(err, "characters cut]"));
    assert_true(!strncmp(err, "cannot write /tmp/lp/", 21));
    const char *end = "/o.json: File name too long";
    assert_string_equal(err + strlen(err) - strlen(end), end);
    for (const char *p = err; *p; p++) /* every é whole: a 0xc3 lead byte before each 0xa9 */
        if ((unsigned char)*p == 0xa9) assert_int_equal((unsigned char)p[-1], 0xc3);
    ns_path_error(err, 24, "cannot write", path, "File name too long");
    assert_true(strlen(err) < 24);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void load_rejects_bad_files(void **state) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    write_file(path, "{\"schema\": \"nodescale/1\", \"results\": [");
    assert_null(ns_json_load_results(path, err, sizeof err));
    assert_non_null(strstr(err, "not valid JSON"));
    write_file(path, "{\"schema\": \"nodescale/1\", \"x\": NaN}");
    assert_null(ns_json_load_results(path, err, sizeof err));
    write_file(path, "{\"schema\": \"other/2\"}");
    assert_null(ns_json_load_results(path, err, sizeof err));
    assert_non_null(strstr(err, "not a nodescale results file"));
    write_file(path, "[1, 2]");
    assert_null(ns_json_load_results(path, err, sizeof err));
    assert_null(ns_json_load_results("/nonexistent.json", err, sizeof err));
    unlink(path);
}

/* A kernel that does nothing: its measured time may be sub-resolution. */
static double one(const ns_params *p) { return 1; }
static double zero(const ns_params *p) { return 0; }

static void zero_time_gives_null_rates(void **state) {
    ns_kernel k = {.name = "fake", .family = "stream", .isa = "scalar", .bytes_policy = "minimal",
                   .flops = one, .bytes = one, .working_set = zero};
    ns_params p = {.n = 10, .threads = 1};
    ns_measurement m = {.reps = 1, .nsamples = 1, .threads = 1, .resized = 3};
    m.samples_s[0] = 0;
    ns_stats_compute(m.samples_s, 1, &m.stats);
    snprintf(m.status, sizeof m.status, "ok");
    json_t *r = ns_result_json(&k, &p, &m, NULL);
    /* The restarts of the samples are written beside reps. */
    assert_int_equal(json_integer_value(json_object_get(r, "resized")), 3);
    assert_true(json_is_null(json_object_get(r, "gflops")));
    assert_true(json_is_null(json_object_get(r, "gbytes_per_s")));
    assert_non_null(strstr(json_string_value(json_object_get(r, "status")), "invalid"));
    assert_true(json_is_null(json_object_get(r, "ai_flop_per_byte")) == 0);
    json_decref(r);
    /* Zero bytes: arithmetic intensity is undefined, null, not inf. */
    k.bytes = zero;
    r = ns_result_json(&k, &p, NULL, NULL);
    assert_true(json_is_null(json_object_get(r, "ai_flop_per_byte")));
    assert_string_equal(json_string_value(json_object_get(r, "status")), "not measured");
    assert_true(json_is_null(json_object_get(r, "resized")));
    json_decref(r);
}

/* Defect trial3-7: a sweep point records the bytes of a repetition and the passes over its
 * working set, so its rate recomputes as bytes / time_s.min (4 KiB of stream_load is streamed
 * 64 times per repetition: working_set / time_s.min was 64x too slow). */
static void sweep_point_rate_recomputes(void **state) {
    const ns_kernel *k = ns_registry_find("stream_load", "scalar");
    assert_non_null(k);
    const int64_t ns[2] = {512, 1 << 20};
    const int64_t want_passes[2] = {64, 1};
    for (int c = 0; c < 2; c++) {
        ns_params p = {.n = ns[c], .threads = 1};
        ns_measurement m = {.reps = 100, .nsamples = 3, .threads = 1};
        m.samples_s[0] = 1.1e-6 * (double)ns[c] / 512;
        m.samples_s[1] = 1.0938610340e-6 * (double)ns[c] / 512;
        m.samples_s[2] = 1.2e-6 * (double)ns[c] / 512;
        ns_stats_compute(m.samples_s, 3, &m.stats);
        snprintf(m.status, sizeof m.status, "ok");
        json_t *r = ns_result_json(k, &p, &m, NULL);
        /* results[] entries record the passes too (trial 7, #15). */
        assert_int_equal(json_integer_value(json_object_get(r, "passes")), want_passes[c]);
        assert_true(ns_json_get_num(r, "bytes_per_pass") == 8.0 * (double)ns[c]);
        assert_true(ns_json_get_num(r, "bytes") == 8.0 * (double)ns[c] * (double)want_passes[c]);
        json_t *pt = ns_sweep_point_json(k, &p, &m, r);
        double ws = ns_json_get_num(pt, "working_set_bytes"), by = ns_json_get_num(pt, "bytes");
        double tmin = ns_json_get_num(json_object_get(pt, "time_s"), "min");
        assert_true(ws == 8.0 * (double)ns[c]);
        assert_int_equal(json_integer_value(json_object_get(pt, "passes")), want_passes[c]);
        assert_true(by == ws * (double)want_passes[c]);
        assert_true(ns_json_get_num(pt, "gbytes_per_s") == by / tmin / 1e9);
        json_decref(pt);
        json_decref(r);
    }
}

/* The bench programs compare a ceiling at its fastest sample, as `nodescale run` reports it: the
 * result's median rates times median / min, i.e. flops or bytes / time_s.min; NAN without an
 * "ok" status. */
static void fastest_rate_uses_the_fastest_sample(void **state) {
    ns_kernel k = {.name = "fake", .family = "stream", .isa = "scalar", .bytes_policy = "minimal",
                   .flops = one, .bytes = one, .working_set = one};
    ns_params p = {.n = 10, .threads = 1};
    ns_measurement m = {.reps = 1, .nsamples = 3, .threads = 1};
    m.samples_s[0] = 2e-9, m.samples_s[1] = 1e-9, m.samples_s[2] = 4e-9;
    ns_stats_compute(m.samples_s, 3, &m.stats);
    snprintf(m.status, sizeof m.status, "ok");
    json_t *r = ns_result_json(&k, &p, &m, NULL);
    assert_true(fabs(ns_json_get_num(r, "gflops") - 0.5) < 1e-12); /* 1 flop / median 2 ns */
    assert_true(fabs(ns_result_fastest_rate(r, 0) - 1.0) < 1e-12); /* 1 flop / min 1 ns */
    assert_true(fabs(ns_result_fastest_rate(r, 1) - 1.0) < 1e-12);
    /* the median sample, the statistic the bench programs' verdict compares with likwid-bench's
     * mean over its iterations */
    assert_true(fabs(ns_result_median_rate(r, 0) - 0.5) < 1e-12);
    assert_true(fabs(ns_result_median_rate(r, 1) - 0.5) < 1e-12);
    json_decref(r);
    snprintf(m.status, sizeof m.status, "invalid: waited");
    r = ns_result_json(&k, &p, &m, NULL);
    assert_true(isnan(ns_result_fastest_rate(r, 0)));
    assert_true(isnan(ns_result_median_rate(r, 0)));
    json_decref(r);
}

/* Trial 7, #4: a call whose output check failed has no rate (a GEMM that could not allocate
 * returns at once, and its "rate" was written as data: 76404 GFLOP/s). */
static void failed_check_gives_null_rates(void **state) {
    ns_kernel k = {.name = "fake", .family = "stream", .isa = "scalar", .bytes_policy = "minimal",
                   .flops = one, .bytes = one, .working_set = one};
    ns_params p = {.n = 10, .threads = 1};
    ns_measurement m = {.reps = 1, .nsamples = 1, .threads = 1};
    m.samples_s[0] = 1e-6;
    ns_stats_compute(m.samples_s, 1, &m.stats);
    snprintf(m.status, sizeof m.status, "ok");
    ns_check c = {.ok = 0, .why = "GEMM could not allocate its packing buffers"};
    json_t *r = ns_result_json(&k, &p, &m, &c);
    assert_true(json_is_null(json_object_get(r, "gflops")));
    assert_true(json_is_null(json_object_get(r, "gbytes_per_s")));
    assert_true(json_is_false(json_object_get(r, "validated")));
    assert_string_equal(json_string_value(json_object_get(r, "status")),
                        "invalid: output check failed");
    json_decref(r);
    c.ok = 1;
    r = ns_result_json(&k, &p, &m, &c);
    assert_true(ns_json_get_num(r, "gflops") > 0 && ns_json_get_num(r, "gbytes_per_s") > 0);
    json_decref(r);
}

/* Two threads seen on one CPU in a single sched_getcpu() reading (unbound, or in a
 * place of several CPUs: they migrate) got a placement_warning. It is given only when both stayed
 * there: bound to a place of that CPU alone, or seen on it at every reading; never a failed status.
 */
static void placement_warning_needs_evidence(void **state) {
    ns_kernel k = {.name = "fake",
                   .family = "stream",
                   .isa = "scalar",
                   .bytes_policy = "minimal",
                   .flops = one,
                   .bytes = one,
                   .working_set = one};
    ns_params p = {.n = 10, .threads = 2};
    static ns_measurement m; /* large: not on the stack */
    memset(&m, 0, sizeof m);
    m.reps = 1, m.nsamples = 1, m.threads = 2, m.cpu_threads = 2, m.threads_used = 2;
    m.samples_s[0] = 1e-6;
    ns_stats_compute(m.samples_s, 1, &m.stats);
    snprintf(m.status, sizeof m.status, "ok");
    m.cpu_of_thread[0] = m.cpu_of_thread[1] = 1;
    struct {
        unsigned char held0, held1;
        int readings;
        const char *want; /* NULL: no warning */
    } cases[] = {
        {NS_CPU_MAY_MOVE, NS_CPU_MAY_MOVE, 1, NULL}, /* one snapshot of threads that migrate */
        {NS_CPU_MAY_MOVE, NS_CPU_MAY_MOVE, 18, NULL},
        {NS_CPU_READ, NS_CPU_MAY_MOVE, 18, NULL}, /* thread 1 moved between readings */
        {NS_CPU_BOUND, NS_CPU_MAY_MOVE, 18, NULL},
        {NS_CPU_READ, NS_CPU_READ, 18,
         "threads 0 and 1 both ran on CPU 1 (at every one of 18 "
         "readings)"},
        {NS_CPU_BOUND, NS_CPU_BOUND, 18,
         "threads 0 and 1 both ran on CPU 1 (bound to places of "
         "that CPU alone)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        m.cpu_held[0] = cases[i].held0, m.cpu_held[1] = cases[i].held1;
        m.cpu_readings = cases[i].readings;
        json_t *r = ns_result_json(&k, &p, &m, NULL);
        const char *pw = json_string_value(json_object_get(r, "placement_warning"));
        if (!cases[i].want && pw) fail_msg("case %zu: placement_warning '%s'", i, pw);
        if (cases[i].want && (!pw || strncmp(pw, cases[i].want, strlen(cases[i].want))))
            fail_msg("case %zu: placement_warning '%s', want '%s...'", i, pw ? pw : "(none)",
                     cases[i].want);
        assert_string_equal(json_string_value(json_object_get(r, "status")), "ok");
        json_decref(r);
    }
    /* Both bound, to different CPUs: nothing shared. */
    m.cpu_held[0] = m.cpu_held[1] = NS_CPU_BOUND;
    m.cpu_of_thread[0] = 0;
    json_t *r = ns_result_json(&k, &p, &m, NULL);
    assert_null(json_object_get(r, "placement_warning"));
    json_decref(r);
}

/* One formatter for every byte count: bytes below 1 KiB in B, a size that would print as 1024 of
 * a unit as the next unit's 1, three significant digits. */
static void format_bytes_units(void **state) {
    (void)state;
    char b[32];
    ns_format_bytes(b, sizeof b, 512);
    assert_string_equal(b, "512 B");
    ns_format_bytes(b, sizeof b, 1023);
    assert_string_equal(b, "1023 B");
    ns_format_bytes(b, sizeof b, 1048575);
    assert_string_equal(b, "1 MiB");
    ns_format_bytes(b, sizeof b, 1258291200);
    assert_string_equal(b, "1.17 GiB");
    ns_format_bytes(b, sizeof b, 7680);
    assert_string_equal(b, "7.5 KiB");
    ns_format_bytes(b, sizeof b, -1);
    assert_string_equal(b, "—");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(non_finite_becomes_null_with_status),
        cmocka_unit_test(path_error_keeps_the_reason),
        cmocka_unit_test(atomic_write_then_strict_load),
        cmocka_unit_test(doubles_round_trip_exactly),
        cmocka_unit_test(write_to_missing_folder_fails_cleanly),
        cmocka_unit_test(empty_path_is_refused),
        cmocka_unit_test(load_rejects_bad_files),
        cmocka_unit_test(zero_time_gives_null_rates),
        cmocka_unit_test(sweep_point_rate_recomputes),
        cmocka_unit_test(failed_check_gives_null_rates),
        cmocka_unit_test(fastest_rate_uses_the_fastest_sample),
        cmocka_unit_test(placement_warning_needs_evidence),
        cmocka_unit_test(format_bytes_units),
    };
    return cmocka_run_group_tests(tests, make_dir, NULL);
}
