/* Tests of harness/counters.c and harness/clockprobe.c.
 *
 * Pure logic with synthetic inputs: multiplex scaling by time_enabled/time_running, the
 * validation of derived values (negative, zero with work done, beyond a physical bound),
 * the FLOP ratio window 0.95-1.05, the wording of the "why not" reasons.
 * Real paths on any Linux machine: the start-up probe, the context JSON, the software-event
 * counting pass (perf_event_open and the getrusage fallback) on a team kernel and on a kernel
 * that opens its own parallel region, the clock probe.
 * Hardware events: run where a PMU can be counted, skipped with the probe's reason elsewhere
 * (these VMs). Asserts correctness only, never speed. */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <unistd.h>

#include "harness/clockprobe.h"
#include "harness/counters.h"
#include "harness/json.h"
#include "harness/measure.h"

#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))
#define assert_contains(s, sub)                                                                    \
    do {                                                                                           \
        const char *s_ = (s);                                                                      \
        if (!s_ || !strstr(s_, (sub))) fail_msg("'%s' lacks '%s'", s_ ? s_ : "(null)", (sub));     \
    } while (0)

/* ---- A tiny kernel: a dependent-free sum over an array, split statically over the team ---- */

typedef struct {
    double *x;
    int64_t n;
    double out[64];
} toy;

static double toy_flops(const ns_params *p) {
    return (double)p->n;
}
static double toy_bytes(const ns_params *p) {
    return 8.0 * (double)p->n;
}
static void *toy_create(const ns_params *p) {
    toy *t = calloc(1, sizeof *t);
    t->n = p->n;
    t->x = malloc((size_t)p->n * sizeof(double));
    for (int64_t i = 0; i < p->n; i++)
        t->x[i] = 1.0;
    return t;
}
static void toy_run(void *st, int tid, int nth) {
    toy *t = st;
    int64_t lo = t->n * tid / nth, hi = t->n * (tid + 1) / nth;
    double s = 0;
    for (int64_t i = lo; i < hi; i++)
        s += t->x[i];
    t->out[tid & 63] = s;
}
/* NS_RUN_SELF: opens its own parallel region, as GEMM does. */
static void toy_run_self(void *st, int tid, int nth) {
    toy *t = st;
#pragma omp parallel num_threads(nth)
    toy_run(t, omp_get_thread_num(), omp_get_num_threads());
}
static void toy_destroy(void *st) {
    toy *t = st;
    free(t->x);
    free(t);
}

static const ns_kernel toy_team = {.name = "toy_sum",
                                   .family = "reduce",
                                   .isa = "scalar",
                                   .precision = NS_PREC_DP,
                                   .bytes_policy = "minimal",
                                   .run_model = NS_RUN_TEAM,
                                   .flops = toy_flops,
                                   .bytes = toy_bytes,
                                   .create = toy_create,
                                   .run = toy_run,
                                   .destroy = toy_destroy};
/* The same kernel run as NS_RUN_SELF (set up in main). */
static ns_kernel toy_self;

/* ---- Pure logic ---- */

static void test_scale(void **unused) {
    double r;
    const char *st;
    /* Not multiplexed: raw count, ratio 1. */
    assert_near(ns_counters_scale(1000, 500, 500, &r, &st), 1000, 0);
    assert_near(r, 1.0, 0);
    assert_string_equal(st, "ok");
    /* Counted 40 % of the time: scaled by enabled/running (unscaled would be 2.5x low). */
    assert_near(ns_counters_scale(858993459, 1000, 400, &r, &st), 858993459 * 2.5, 1);
    assert_near(r, 0.4, 1e-15);
    assert_contains(st, "scaled");
    /* Never scheduled, never enabled, kernel accounting error: no number at all. */
    assert_true(isnan(ns_counters_scale(0, 1000, 0, &r, &st)));
    assert_true(isnan(r));
    assert_contains(st, "never scheduled");
    assert_true(isnan(ns_counters_scale(0, 0, 0, &r, &st)));
    assert_contains(st, "never enabled");
    assert_true(isnan(ns_counters_scale(5, 100, 200, &r, &st)));
    assert_contains(st, "invalid");
    /* Large counts keep their precision (2^40 events, 3/4 of the time). */
    assert_near(ns_counters_scale(1ull << 40, 4, 3, &r, &st), (double)(1ull << 40) * 4 / 3, 1);
}

static void test_check(void **unused) {
    assert_null(ns_counters_check(1.5, 1, INFINITY));
    assert_null(ns_counters_check(0, 0, INFINITY)); /* no work, zero is a real answer */
    assert_string_equal(ns_counters_check(NAN, 1, INFINITY), "not measured");
    assert_contains(ns_counters_check(INFINITY, 1, INFINITY), "not finite");
    assert_contains(ns_counters_check(-3, 1, INFINITY), "negative");
    assert_contains(ns_counters_check(0, 1e9, INFINITY), "zero although");
    assert_contains(ns_counters_check(17, 1, NS_COUNTERS_MAX_IPC), "bound"); /* IPC 17 */
    assert_contains(ns_counters_check(1.88e19, 1, 1e12), "bound"); /* a phantom channel */
    assert_null(ns_counters_check(16, 1, NS_COUNTERS_MAX_IPC));
}

static void test_flops_ratio(void **unused) {
    int suspect;
    const char *st;
    /* DGEMM 1024^3 counts 2^31 FLOPs, INT_MAX + 1; no overflow anywhere. */
    assert_near(ns_counters_flops_ratio(2147483648.0, 2.0 * 1024 * 1024 * 1024, &suspect, &st), 1.0,
                0);
    assert_false(suspect);
    assert_string_equal(st, "ok");
    assert_near(ns_counters_flops_ratio(96, 100, &suspect, &st), 0.96, 1e-15);
    assert_false(suspect);
    /* Half the analytic count is suspect, and the roofline keeps the analytic count. */
    assert_near(ns_counters_flops_ratio(128.85e9, 257.7e9, &suspect, &st), 0.5, 1e-12);
    assert_true(suspect);
    assert_contains(st, "analytic");
    ns_counters_flops_ratio(106, 100, &suspect, &st);
    assert_true(suspect);
    ns_counters_flops_ratio(94, 100, &suspect, &st);
    assert_true(suspect);
    /* Nothing usable: null with a reason, never a ratio of 0. */
    assert_true(isnan(ns_counters_flops_ratio(0, 100, &suspect, &st)));
    assert_contains(st, "zero although");
    assert_false(suspect);
    assert_true(isnan(ns_counters_flops_ratio(-5, 100, &suspect, &st)));
    assert_contains(st, "negative");
    assert_true(isnan(ns_counters_flops_ratio(NAN, 100, &suspect, &st)));
    assert_contains(st, "not measured");
    assert_true(isnan(ns_counters_flops_ratio(100, NAN, &suspect, &st)));
    assert_true(isnan(ns_counters_flops_ratio(100, 0, &suspect, &st)));
}

static void test_bytes_ratio(void **unused) {
    const char *st;
    /* STREAM triad, 1e8 doubles: 2.4e9 minimal bytes; 3.2e9 with write-allocate = 1.33. */
    assert_near(ns_counters_bytes_ratio(3.2e9, 2.4e9, 0.1, &st), 3.2 / 2.4, 1e-12);
    assert_string_equal(st, "ok");
    /* Memory-controller counters reading 0, or a fraction, when not permitted. */
    assert_true(isnan(ns_counters_bytes_ratio(0, 2.4e9, 0.1, &st)));
    assert_contains(st, "zero although");
    assert_true(isnan(ns_counters_bytes_ratio(0.3 * 2.4e9, 2.4e9, 0.1, &st)));
    assert_contains(st, "perf_event_paranoid = 0");
    /* A phantom channel reading 1.88e19 in 0.1 s is beyond any node's bandwidth. */
    assert_true(isnan(ns_counters_bytes_ratio(1.88e19, 2.4e9, 0.1, &st)));
    assert_contains(st, "beyond physical bound");
    assert_true(isnan(ns_counters_bytes_ratio(-1, 2.4e9, 0.1, &st)));
    assert_contains(st, "negative");
    assert_true(isnan(ns_counters_bytes_ratio(1e9, 0, 0.1, &st))); /* peak kernels move none */
    assert_contains(st, "not applicable");
    assert_true(isnan(ns_counters_bytes_ratio(NAN, 1e9, 0.1, &st)));
    assert_contains(st, "not measured");
}

static void test_sum_threads(void **unused) {
    /* Events: cycles, instructions, PAPI_BR_PRC (a derived preset). */
    long long v[3][3] = {{1000, 2000, 10}, {1100, 2100, 12}, {900, 1500, 9}};
    const char *ok3[3] = {NULL, NULL, NULL};
    double tot[3];
    char why[256];
    assert_int_equal(ns_counters_sum_threads(&v[0][0], ok3, 3, 3, 0, tot, why, sizeof why), 1);
    assert_near(tot[0], 3000, 0);
    assert_near(tot[1], 5600, 0);
    assert_near(tot[2], 31, 0);
    assert_string_equal(why, "ok");
    /* Negative on one thread; the sum would hide it (10 - 3 + 9 > 0). */
    v[1][2] = -3;
    assert_int_equal(ns_counters_sum_threads(&v[0][0], ok3, 3, 3, 0, tot, why, sizeof why), 1);
    assert_true(isnan(tot[2]));
    assert_near(tot[0], 3000, 0);
    v[1][2] = 12;
    /* Thread 2 on a core type the PMU does not cover reads all zeros. */
    long long z[2][3] = {{1000, 2000, 10}, {0, 0, 0}};
    assert_int_equal(ns_counters_sum_threads(&z[0][0], ok3, 2, 3, 0, tot, why, sizeof why), 0);
    assert_true(isnan(tot[0]) && isnan(tot[1]) && isnan(tot[2]));
    assert_contains(why, "thread 1: zero cycles");
    /* Without a cycles event zeros cannot be told from real zeros: summed. */
    assert_int_equal(ns_counters_sum_threads(&z[0][0], ok3, 2, 3, -1, tot, why, sizeof why), 1);
    assert_near(tot[1], 2000, 0);
    /* A thread whose set failed: nothing is reported as a partial total. */
    const char *fail1[3] = {NULL, "PAPI_start(set): Permission level does not permit", NULL};
    assert_int_equal(ns_counters_sum_threads(&v[0][0], fail1, 3, 3, 0, tot, why, sizeof why), 0);
    assert_true(isnan(tot[0]));
    assert_contains(why, "thread 1: PAPI_start");
    assert_int_equal(ns_counters_sum_threads(&v[0][0], ok3, 0, 3, 0, tot, why, sizeof why), 0);
}

static void test_explain(void **unused) {
    char b[600];
    /* This VM: no core PMU, hypervisor bit set, ENOENT, paranoid 2, root. */
    ns_counters_explain(0, 1, ENOENT, 2, 1, b, sizeof b);
    assert_contains(b, "no PMU in this virtual machine");
    assert_contains(b, "perf_event_paranoid = 2 is not the obstacle");
    /* Debian's level 3/4 without a capability. */
    ns_counters_explain(1, 0, EACCES, 4, 0, b, sizeof b);
    assert_contains(b, "perf_event_paranoid = 4 forbids");
    assert_contains(b, "perf_event_paranoid=2");
    assert_contains(b, "CAP_PERFMON");
    /* Container without CAP_PERFMON at the default level. */
    ns_counters_explain(1, 0, EPERM, 2, 0, b, sizeof b);
    assert_contains(b, "missing CAP_PERFMON");
    /* Capable but blocked. */
    ns_counters_explain(1, 0, EACCES, 2, 1, b, sizeof b);
    assert_contains(b, "seccomp");
    ns_counters_explain(1, 0, EBUSY, 1, 0, b, sizeof b);
    assert_contains(b, "held by another");
    /* Bare metal without a PMU driver. */
    ns_counters_explain(0, 0, ENOENT, 2, 0, b, sizeof b);
    assert_contains(b, "no hardware PMU");
    /* perf works, PAPI does not (libpfm4 too old for the CPU). */
    ns_counters_explain(1, 0, 0, 2, 0, b, sizeof b);
    assert_contains(b, "no requested event counted through PAPI");
    /* Unknown paranoid level is said so, never printed as a number. */
    ns_counters_explain(1, 0, EACCES, INT32_MIN, 0, b, sizeof b);
    assert_contains(b, "unknown");
}

/* ---- Start-up probe and context (real) ---- */

/* The oracle: the sysctl as the kernel prints it. */
static int paranoid_now(void) {
    char b[32] = "";
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (!f) return INT32_MIN;
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    return n ? atoi(b) : INT32_MIN;
}

static void test_context(void **unused) {
    char err[200] = "";
    unsetenv("NODESCALE_SW_EVENTS");
    int rc = ns_counters_init(NULL, err, sizeof err);
    assert_true(rc == 0 || rc == 1);
    json_t *c = ns_counters_context_json();
    int avail = json_is_true(json_object_get(c, "available"));
    assert_int_equal(avail, rc == 0);
    assert_int_equal(avail, ns_counters_hw_available());
    const char *backend = json_string_value(json_object_get(c, "backend"));
    assert_string_equal(backend, avail ? "papi" : "none");
    const char *status = json_string_value(json_object_get(c, "status"));
    assert_non_null(status);
    if (!avail) {
        /* A reason, never a bare "unavailable". */
        assert_true(strlen(status) > 20);
        assert_true(strncmp(status, "ok", 2) != 0);
    }
    json_t *ev = json_object_get(c, "events");
    assert_int_equal(json_array_size(ev), 4); /* the defaults */
    size_t i;
    json_t *e;
    json_array_foreach(ev, i, e) assert_non_null(json_string_value(json_object_get(e, "status")));
    assert_int_equal(json_array_size(json_object_get(c, "software_events")), 4);
    int par = paranoid_now();
    if (par != INT32_MIN) assert_int_equal(json_integer_value(json_object_get(c, "paranoid")), par);
    /* Overhead: a measured positive number, or null with a reason. */
    json_t *ov = json_object_get(c, "overhead_s");
    if (json_is_null(ov))
        assert_non_null(json_object_get(c, "overhead_status"));
    else
        assert_true(json_real_value(ov) > 0 && json_real_value(ov) < 0.01);
    assert_contains(ns_counters_summary(), "counters: ");
    char *dump = json_dumps(c, 0);
    assert_non_null(dump);
    print_message("context.counters: %s\n", dump);
    free(dump);
    json_decref(c);
    ns_counters_finish();
}

static void test_bad_events(void **unused) {
    char err[200];
    assert_int_equal(ns_counters_init("PAPI_TOT_CYC,,PAPI_TOT_INS", err, sizeof err), -1);
    assert_contains(err, "empty event name");
    assert_int_equal(ns_counters_init("PAPI_TOT_CYC,", err, sizeof err), -1);
    assert_contains(err, "empty event name");
    assert_int_equal(ns_counters_init("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", err, sizeof err), -1);
    assert_contains(err, "more than 16");
    /* Usable afterwards: no hardware event asked, software events still there, and the status
     * says why there are no hardware events. */
    json_t *c = ns_counters_context_json();
    assert_contains(json_string_value(json_object_get(c, "status")), "more than 16");
    assert_int_equal(json_array_size(json_object_get(c, "events")), 0);
    assert_false(json_is_true(json_object_get(c, "available")));
    json_decref(c);
    assert_int_equal(ns_counters_init("L2_LINES_IN:ALL*", err, sizeof err), -1);
    assert_contains(err, "after '*'");
    assert_int_equal(ns_counters_init("L2_LINES_IN:ALL*0", err, sizeof err), -1);
    assert_int_equal(ns_counters_init("L2_LINES_IN:ALL*64x", err, sizeof err), -1);
    assert_int_equal(ns_counters_init("*64", err, sizeof err), -1);
    assert_contains(err, "empty event name");
    /* Blanks around names are ignored; NAME*BYTES marks a memory-traffic event. */
    ns_counters_init(" PAPI_TOT_CYC , L2_LINES_IN:ALL*64", err, sizeof err);
    c = ns_counters_context_json();
    json_t *evs = json_object_get(c, "events");
    assert_int_equal(json_array_size(evs), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(evs, 0), "name")),
                        "PAPI_TOT_CYC");
    assert_string_equal(json_string_value(json_object_get(json_array_get(evs, 1), "name")),
                        "L2_LINES_IN:ALL");
    assert_near(json_real_value(json_object_get(json_array_get(evs, 1), "bytes_per_count")), 64, 0);
    json_decref(c);
    /* `nodescale list` block: the summary, then every event with its status. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ns_counters_print_status(f);
    fclose(f);
    assert_true(strncmp(buf, "counters: ", 10) == 0); /* the summary line, with its label */
    assert_contains(buf, "L2_LINES_IN:ALL");
    assert_contains(buf, "perf::CPU-MIGRATIONS");
    free(buf);
    /* A name no CPU has: dropped with a status, never a crash. */
    assert_true(ns_counters_init("NODESCALE_NO_SUCH_EVENT", err, sizeof err) == 1);
    c = ns_counters_context_json();
    const char *st = json_string_value(
        json_object_get(json_array_get(json_object_get(c, "events"), 0), "status"));
    assert_contains(st, "not ");
    json_decref(c);
    ns_counters_finish();
}

/* ---- The counting pass (real) ---- */

static json_t *find_sw(json_t *ctr, const char *name) {
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(ctr, "software_events"), i, e) {
        if (!strcmp(json_string_value(json_object_get(e, "name")), name)) return e;
    }
    return NULL;
}

/* Every counter value is a number >= 0 or null with a status: never NaN, never negative, and
 * never 0 for a hardware event that was not counted. */
static void check_no_fake_numbers(json_t *ctr) {
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(ctr, "events"), i, e) {
        json_t *v = json_object_get(e, "value");
        assert_non_null(v);
        assert_non_null(json_string_value(json_object_get(e, "status")));
        if (!json_is_null(v)) assert_true(json_number_value(v) >= 0);
        if (!ns_counters_hw_available()) assert_true(json_is_null(v));
    }
    json_array_foreach(json_object_get(ctr, "software_events"), i, e) {
        json_t *v = json_object_get(e, "value");
        assert_non_null(v);
        if (!json_is_null(v)) assert_true(json_number_value(v) >= 0);
    }
    const char *k;
    json_t *d;
    json_object_foreach(json_object_get(ctr, "derived"), k, d) {
        json_t *v = json_object_get(d, "value");
        assert_non_null(v);
        assert_non_null(json_string_value(json_object_get(d, "status")));
        if (json_is_null(v))
            assert_true(strncmp(json_string_value(json_object_get(d, "status")), "ok", 2) != 0);
        else
            assert_true(json_number_value(v) > 0);
    }
    char *dump = json_dumps(ctr, 0);
    assert_non_null(dump); /* jansson refuses NaN/Inf: a dump proves there are none */
    free(dump);
}

static void run_pass(const ns_kernel *k, int threads, int64_t reps, const char *sw_mode) {
    char err[200];
    if (sw_mode)
        setenv("NODESCALE_SW_EVENTS", sw_mode, 1);
    else
        unsetenv("NODESCALE_SW_EVENTS");
    ns_counters_init(NULL, err, sizeof err);
    ns_params p = {.m = 0, .n = 1 << 20, .k = 0, .threads = threads};
    void *st = k->create(&p);
    json_t *c = ns_counters_measure(k, st, &p, reps, k->flops(&p), k->bytes(&p));
    char *dump = json_dumps(c, JSON_INDENT(1));
    print_message("%s t%d sw=%s: %s\n", k->name, threads, sw_mode ? sw_mode : "default", dump);
    free(dump);
    check_no_fake_numbers(c);
    assert_int_equal(json_integer_value(json_object_get(c, "reps")), reps);
    assert_int_equal(json_integer_value(json_object_get(c, "threads_counted")), threads);
    json_t *tc = find_sw(c, "perf::TASK-CLOCK");
    assert_non_null(tc);
    /* The task clock is measured on every machine (perf software event or getrusage). */
    assert_true(json_is_real(json_object_get(tc, "value")));
    double task_s = json_real_value(json_object_get(tc, "value"));
    double elapsed = json_real_value(json_object_get(c, "elapsed_s"));
    assert_true(task_s > 0);
    /* Counted threads cannot have run longer than threads x wall time (plus getrusage's tick). */
    assert_true(task_s <= threads * elapsed * 1.05 + 0.02);
    json_t *pf = find_sw(c, "perf::PAGE-FAULTS");
    assert_true(json_is_integer(json_object_get(pf, "value")));
    json_t *mig = find_sw(c, "perf::CPU-MIGRATIONS");
    const char *src = json_string_value(json_object_get(c, "software_source"));
    /* Forced, or unprivileged at perf_event_paranoid >= 2 (kernel-side software events refused,
     * and user-only ones read 0 page faults and context switches): getrusage per thread. */
    int rusage = (sw_mode && !strcmp(sw_mode, "rusage")) || !strncmp(src, "getrusage", 9);
    if (sw_mode && !strcmp(sw_mode, "rusage")) assert_contains(src, "getrusage");
    if (geteuid() == 0 && !sw_mode) assert_contains(src, "perf_event_open");
    if (rusage) {
        assert_true(json_is_null(json_object_get(mig, "value")));
        assert_contains(json_string_value(json_object_get(mig, "status")), "not measured");
    } else {
        assert_contains(src, "perf_event_open");
        /* Software events always run: the ratio is 1 (scaling checked above). */
        assert_near(json_real_value(json_object_get(tc, "running_enabled_ratio")), 1.0, 1e-9);
        assert_true(json_is_integer(json_object_get(mig, "value")));
    }
    const char *cov = json_string_value(json_object_get(json_object_get(c, "coverage"), "status"));
    assert_non_null(cov);
    if (!strncmp(cov, "partial", 7)) {
        char *cd = json_dumps(json_object_get(c, "coverage"), 0);
        print_message("coverage: %s\n", cd);
        free(cd);
    }
    /* Every thread that ran is in the team, so nothing is outside it. (With fewer threads than
     * an earlier team, idle pool threads may spin under OMP_WAIT_POLICY=active: not asserted.) */
    if (threads == 2) assert_true(strncmp(cov, "partial", 7) != 0);
    if (!ns_counters_hw_available()) {
        json_t *ipc = json_object_get(json_object_get(c, "derived"), "ipc");
        assert_true(json_is_null(json_object_get(ipc, "value")));
        assert_contains(json_string_value(json_object_get(ipc, "status")), "unavailable");
    }
    json_decref(c);
    k->destroy(st);
    ns_counters_finish();
    unsetenv("NODESCALE_SW_EVENTS");
}

static void test_measure_team(void **unused) {
    run_pass(&toy_team, 2, 20, NULL);
    run_pass(&toy_team, 1, 20, NULL);
}

static void test_measure_self(void **unused) {
    run_pass(&toy_self, 2, 20, NULL); /* pool threads: both counted, coverage not partial */
    run_pass(&toy_self, 1, 20, NULL);
}

static void test_measure_without_init(void **unused) {
    ns_counters_finish(); /* nothing initialised */
    unsetenv("NODESCALE_SW_EVENTS");
    ns_params p = {.n = 1 << 16, .threads = 1};
    void *st = toy_team.create(&p);
    json_t *c = ns_counters_measure(&toy_team, st, &p, 3, toy_flops(&p), toy_bytes(&p));
    check_no_fake_numbers(c);
    assert_true(strlen(json_string_value(json_object_get(c, "status"))) > 0);
    json_t *tc = find_sw(c, "perf::TASK-CLOCK");
    assert_true(strlen(json_string_value(json_object_get(tc, "status"))) > 0);
    json_decref(c);
    toy_team.destroy(st);
    ns_counters_finish();
}

static void test_measure_rusage(void **unused) {
    run_pass(&toy_team, 2, 50, "rusage");
}

static void test_measure_no_software(void **unused) {
    char err[200];
    setenv("NODESCALE_SW_EVENTS", "none", 1);
    ns_counters_init(NULL, err, sizeof err);
    ns_params p = {.n = 1 << 16, .threads = 2};
    void *st = toy_team.create(&p);
    json_t *c = ns_counters_measure(&toy_team, st, &p, 3, toy_flops(&p), toy_bytes(&p));
    check_no_fake_numbers(c);
    json_t *tc = find_sw(c, "perf::TASK-CLOCK");
    assert_true(json_is_null(json_object_get(tc, "value")));
    assert_contains(json_string_value(json_object_get(tc, "status")), "not measured");
    json_decref(c);
    toy_team.destroy(st);
    ns_counters_finish();
    unsetenv("NODESCALE_SW_EVENTS");
}

/* ---- Hardware events: only where a PMU can be counted ---- */

static void test_hardware(void **unused) {
    char err[200];
    unsetenv("NODESCALE_SW_EVENTS");
    ns_counters_init("PAPI_TOT_CYC,PAPI_TOT_INS", err, sizeof err);
    if (!ns_counters_hw_available()) {
        json_t *c = ns_counters_context_json();
        print_message("skipped: no hardware counters here: %s\n",
                      json_string_value(json_object_get(c, "status")));
        json_decref(c);
        ns_counters_finish();
        skip();
    }
    ns_params p = {.n = 1 << 20, .threads = 2};
    void *st = toy_team.create(&p);
    json_t *c = ns_counters_measure(&toy_team, st, &p, 20, toy_flops(&p), toy_bytes(&p));
    check_no_fake_numbers(c);
    json_t *ev0 = json_array_get(json_object_get(c, "events"), 0);
    json_t *ev1 = json_array_get(json_object_get(c, "events"), 1);
    /* 20 passes over 2^20 doubles: at least one instruction per element. */
    assert_true(json_number_value(json_object_get(ev1, "value")) >= 20.0 * (1 << 20));
    assert_true(json_number_value(json_object_get(ev0, "value")) > 0);
    json_t *ipc = json_object_get(json_object_get(c, "derived"), "ipc");
    assert_true(json_number_value(json_object_get(ipc, "value")) > 0.05);
    json_t *clk = json_object_get(json_object_get(c, "derived"), "effective_clock_ghz");
    double ghz = json_number_value(json_object_get(clk, "value"));
    assert_true(ghz >= NS_COUNTERS_MIN_CLOCK_GHZ && ghz <= NS_COUNTERS_MAX_CLOCK_GHZ);
    json_decref(c);
    toy_team.destroy(st);
    ns_counters_finish();
}

/* The value of the named event in a counters object; NAN when null or absent. */
static double event_value(json_t *ctr, const char *name) {
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(ctr, "events"), i, e) {
        if (!strcmp(json_string_value(json_object_get(e, "name")), name)) {
            json_t *v = json_object_get(e, "value");
            return json_is_number(v) ? json_number_value(v) : NAN;
        }
    }
    return NAN;
}

/* One counting pass of the toy sum (1 thread, 2^20 doubles, 20 reps) with these events. */
static json_t *hw_pass(const char *events) {
    char err[200];
    ns_counters_init(events, err, sizeof err);
    if (!ns_counters_hw_available()) return NULL;
    ns_params p = {.n = 1 << 20, .threads = 1};
    void *st = toy_team.create(&p);
    json_t *c = ns_counters_measure(&toy_team, st, &p, 20, toy_flops(&p), toy_bytes(&p));
    toy_team.destroy(st);
    ns_counters_finish();
    return c;
}

static void test_hardware_multiplexed(void **unused) {
    /* Multiplexing, run 1: three events; run 2: the same plus seven more, multiplexed and scaled. */
    json_t *c1 = hw_pass("PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_DP_OPS");
    if (!c1) {
        print_message("skipped: no hardware counters here\n");
        skip();
    }
    json_t *c2 = hw_pass("PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_DP_OPS,PAPI_L1_DCM,PAPI_L2_DCM,"
                         "PAPI_L3_TCM,PAPI_BR_INS,PAPI_BR_MSP,PAPI_BR_PRC,PAPI_BR_NTK");
    assert_non_null(c2);
    check_no_fake_numbers(c1);
    check_no_fake_numbers(c2); /* no negative derived preset (PAPI_BR_PRC, PAPI_BR_NTK) */
    double i1 = event_value(c1, "PAPI_TOT_INS"), i2 = event_value(c2, "PAPI_TOT_INS");
    print_message("PAPI_TOT_INS alone %.0f, multiplexed %.0f\n", i1, i2);
    if (isfinite(i1) && isfinite(i2)) assert_true(fabs(i2 / i1 - 1) < 0.10);
    /* The sum is not vectorised (no -ffast-math): 2^20 * 20 scalar DP adds. The flag must agree
     * with the window whatever this CPU's FLOP counter does. */
    json_t *fr = json_object_get(json_object_get(c1, "derived"), "flops_ratio");
    json_t *rv = json_object_get(fr, "value");
    if (json_is_number(rv)) {
        double r = json_number_value(rv);
        print_message("PAPI_DP_OPS / analytic = %.4f\n", r);
        assert_int_equal(json_is_true(json_object_get(fr, "suspect")),
                         r < NS_COUNTERS_FLOPS_LO || r > NS_COUNTERS_FLOPS_HI);
    }
    json_decref(c1);
    json_decref(c2);
}

/* ---- Clock probe ---- */

static void test_clockprobe(void **unused) {
    double ghz = ns_clockprobe_ghz();
    print_message("clock probe: %.3f GHz\n", ghz);
    assert_true(isfinite(ghz));
    assert_true(ghz > 0.2 && ghz < 10); /* a real clock, not a folded add-immediate chain */
    /* Too short to resolve: NAN, never a number. */
    assert_true(isnan(ns_clockprobe_ghz_n(0, 3)));
    assert_true(isnan(ns_clockprobe_ghz_n(64 * 1000, 0)));
    char why[160];
    assert_int_equal(ns_clockprobe_changed(2.5, 2.0, 0.05, why, sizeof why), 1);
    assert_contains(why, "-20.0 %");
    assert_int_equal(ns_clockprobe_changed(2.5, 2.55, 0.05, why, sizeof why), 0);
    assert_int_equal(ns_clockprobe_changed(2.5, 2.7, 0.05, NULL, 0), 1);
    assert_int_equal(ns_clockprobe_changed(NAN, 2.5, 0.05, why, sizeof why), -1);
    assert_int_equal(ns_clockprobe_changed(2.5, 0, 0.05, why, sizeof why), -1);
    /* 1 ms for 1e6 elements at 2.5 GHz = 2.5 cycles per element. */
    assert_near(ns_clockprobe_cycles_per_element(1e-3, 1e6, 2.5), 2.5, 1e-12);
    assert_true(isnan(ns_clockprobe_cycles_per_element(1e-3, 0, 2.5)));
    assert_true(isnan(ns_clockprobe_cycles_per_element(1e-3, 1e6, NAN)));
    json_t *j = ns_clockprobe_json(2.5, NAN, NS_CLOCKPROBE_THRESHOLD);
    assert_true(json_is_null(json_object_get(j, "after_ghz")));
    assert_true(json_is_null(json_object_get(j, "changed")));
    assert_contains(json_string_value(json_object_get(j, "status")), "missing");
    json_decref(j);
    j = ns_clockprobe_json(2.5, 2.0, NS_CLOCKPROBE_THRESHOLD);
    assert_true(json_is_true(json_object_get(j, "changed")));
    assert_near(json_real_value(json_object_get(j, "change_rel")), -0.2, 1e-12);
    json_decref(j);
}

/* A stream results[] entry: 1e6 elements on `threads` threads, 1 ms a repetition. */
static json_t *stream_entry(int threads, double flops, double bytes) {
    return json_pack("{s:s, s:i, s:{s:i}, s:f, s:f, s:{s:f}}", "family", "stream", "threads",
                     threads, "params", "n", 1000000, "flops", flops, "bytes", bytes, "time_s",
                     "median", 1e-3);
}

static void test_clockprobe_annotate(void **unused) {
    /* STREAM triad, 2 threads, 1e6 elements, 1 ms a repetition at 2.5 GHz: each thread handles
     * 5e5 elements in 2.5e6 cycles = 5 cycles per element; 2e6 FLOPs / 2.5e6 cycles / 2. */
    json_t *r = stream_entry(2, 2e6, 24e6);
    ns_clockprobe_annotate(r, 2.5, 2.5);
    json_t *pc = json_object_get(r, "per_cycle");
    assert_near(json_real_value(json_object_get(pc, "cycles_per_rep")), 2.5e6, 1e-6);
    assert_near(json_real_value(json_object_get(pc, "cycles_per_element")), 5.0, 1e-12);
    assert_near(json_real_value(json_object_get(pc, "flops_per_cycle_per_core")), 0.4, 1e-12);
    assert_near(json_real_value(json_object_get(pc, "bytes_per_cycle_per_core")), 4.8, 1e-12);
    json_decref(r);
    /* Stream_triad n=1000 on 1 thread streams its arrays 33 times a repetition
     * (passes 33): 27830 cycles a repetition are 27830 / 33000 = 0.843 cycles per element (24 B
     * per element at 28.46 B per cycle), not 27.83. */
    r = json_pack("{s:s, s:i, s:{s:i}, s:i, s:f, s:f, s:{s:f}}", "family", "stream", "threads", 1,
                  "params", "n", 1000, "passes", 33, "flops", 66000.0, "bytes", 792000.0,
                  "time_s", "median", 27830 / 2.5e9);
    ns_clockprobe_annotate(r, 2.5, 2.5);
    pc = json_object_get(r, "per_cycle");
    assert_near(json_real_value(json_object_get(pc, "cycles_per_rep")), 27830, 1e-6);
    assert_near(json_real_value(json_object_get(pc, "cycles_per_element")), 27830 / 33000.0, 1e-12);
    assert_near(24 / json_real_value(json_object_get(pc, "cycles_per_element")),
                json_real_value(json_object_get(pc, "bytes_per_cycle_per_core")), 1e-9);
    json_decref(r);
    /* No probe: nulls with reasons, never 0. */
    r = json_pack("{s:s, s:i, s:f, s:{s:f}}", "family", "gemm", "threads", 1, "flops", 2e9,
                  "time_s", "median", 0.1);
    ns_clockprobe_annotate(r, NAN, NAN);
    pc = json_object_get(r, "per_cycle");
    assert_true(json_is_null(json_object_get(pc, "clock_ghz")));
    assert_true(json_is_null(json_object_get(pc, "cycles_per_rep")));
    assert_true(json_is_null(json_object_get(pc, "cycles_per_element")));
    assert_non_null(json_object_get(pc, "cycles_per_element_status"));
    assert_true(json_is_null(json_object_get(pc, "flops_per_cycle_per_core")));
    assert_non_null(json_object_get(pc, "flops_per_cycle_status"));
    json_decref(r);
}

/* Defect trial3-15: per_cycle states its clock: the mean of the probes right before and after
 * the measurement, and when they differ by more than 5 % a clock_status that says the clock
 * changed and by how much the figures may be off; one probe only: which. Never a silent pick. */
/* per_cycle[key] of a results[] entry (NAN when null). */
static double per_cycle(const json_t *r, const char *key) {
    return ns_json_get_num(json_object_get(r, "per_cycle"), key);
}

static void test_clockprobe_annotate_which_clock(void **unused) {
    json_t *r = stream_entry(1, 0, 8e6);
    ns_clockprobe_annotate(r, 2.58, 2.78);
    assert_near(per_cycle(r, "clock_ghz"), 2.68, 1e-12);
    assert_near(per_cycle(r, "clock_before_ghz"), 2.58, 1e-12);
    assert_near(per_cycle(r, "clock_after_ghz"), 2.78, 1e-12);
    assert_near(per_cycle(r, "cycles_per_rep"), 2.68e6, 1e-6);
    const char *st =
        json_string_value(json_object_get(json_object_get(r, "per_cycle"), "clock_status"));
    assert_contains(st, "clock changed from 2.58 to 2.78 GHz");
    assert_contains(st, "mean");
    assert_contains(st, "3.7 %");

    ns_clockprobe_annotate(r, 2.50, 2.52); /* steady: replaces the earlier per_cycle */
    assert_near(per_cycle(r, "clock_ghz"), 2.51, 1e-12);
    st = json_string_value(json_object_get(json_object_get(r, "per_cycle"), "clock_status"));
    assert_true(strncmp(st, "ok: ", 4) == 0);

    ns_clockprobe_annotate(r, NAN, 2.6); /* the probe before failed */
    assert_near(per_cycle(r, "clock_ghz"), 2.6, 1e-12);
    assert_true(isnan(per_cycle(r, "clock_before_ghz")));
    st = json_string_value(json_object_get(json_object_get(r, "per_cycle"), "clock_status"));
    assert_contains(st, "only the probe after");
    json_decref(r);
}

int main(void) {
    toy_self = toy_team;
    toy_self.name = "toy_sum_self";
    toy_self.run_model = NS_RUN_SELF;
    toy_self.run = toy_run_self;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_flops_ratio),
        cmocka_unit_test(test_bytes_ratio),
        cmocka_unit_test(test_sum_threads),
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_context),
        cmocka_unit_test(test_bad_events),
        cmocka_unit_test(test_measure_team),
        cmocka_unit_test(test_measure_self),
        cmocka_unit_test(test_measure_without_init),
        cmocka_unit_test(test_measure_rusage),
        cmocka_unit_test(test_measure_no_software),
        cmocka_unit_test(test_hardware),
        cmocka_unit_test(test_hardware_multiplexed),
        cmocka_unit_test(test_clockprobe),
        cmocka_unit_test(test_clockprobe_annotate),
        cmocka_unit_test(test_clockprobe_annotate_which_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
