/* The library's own OpenMP teams (kernels/team_claim.h): one team at a time across callers
 *, one thread inside a parallel region, and one thread in a forked child, where
 * libgomp cannot open a team (the child hung), unless the parent had a single
 * thread (no libgomp pool). Correctness only: thread counts
 * as the library reports them, results against single-thread or long double references, and
 * the claim free after every call, a failed one included. */
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/nstest.h"

#include "include/nodescale.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_kernels.h"
#include "kernels/team_claim.h"

enum { GM = 256, GN = 256, GK = 256 }; /* 33.6 MFLOP: 2 threads by the GEMM's own rule */
enum { RN = 1 << 18 };                 /* 8 shares of 32768: 2 threads by the reductions' rule */

static double *ga, *gb, *gref; /* GEMM operands and C = A B in long double */
static double *rx, *ry;        /* reduction inputs */

static uint64_t seed = 0x243F6A8885A308D3ull;
static double rnd(void) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return (double)(seed >> 11) * 0x1.0p-52 - 1.0;
}

static int setup(void **st) {
    (void)st;
    ga = malloc(sizeof(double) * GM * GK), gb = malloc(sizeof(double) * GK * GN);
    gref = malloc(sizeof(double) * GM * GN);
    rx = malloc(sizeof(double) * RN), ry = malloc(sizeof(double) * RN);
    if (!ga || !gb || !gref || !rx || !ry) return -1;
    for (int i = 0; i < GM * GK; i++)
        ga[i] = rnd();
    for (int i = 0; i < GK * GN; i++)
        gb[i] = rnd();
    for (int j = 0; j < GN; j++)
        for (int i = 0; i < GM; i++) {
            long double s = 0;
            for (int p = 0; p < GK; p++)
                s += (long double)ga[i + p * GM] * gb[p + j * GK];
            gref[i + j * GM] = (double)s;
        }
    /* 2^53 first, zeros to the middle, ones after: a thread's share of ones is exact, while one
     * thread adds some ones to the slot that holds 2^53, where they round away. So fast mode
     * gives one result on 1 thread and another on 2, which shows how many a call ran on. */
    for (int i = 0; i < RN; i++)
        rx[i] = i == 0 ? 0x1p53 : i < RN / 2 ? 0.0 : 1.0, ry[i] = 1.0;
    omp_set_num_threads(2);
    omp_set_dynamic(0);
    return 0;
}

/* The tests need a runtime that gives 2 threads (not OMP_THREAD_LIMIT=1). */
#define NEED_TWO()                                                                                 \
    do {                                                                                           \
        if (omp_get_thread_limit() < 2) skip();                                                    \
    } while (0)

static int teardown(void **st) {
    (void)st;
    free(ga), free(gb), free(gref), free(rx), free(ry);
    return 0;
}

/* max |C - ref| over C = A B computed by the given entry (nthreads 0: the public path). */
static double gemm_err(int nthreads, int *ncpus) {
    double *c = malloc(sizeof(double) * GM * GN);
    int cpus[8];
    *ncpus = 0;
    int isa = ns_gemm_isa_index(ns_isa_dispatch());
    int rc = ns_gemm_d_isa_cpus(isa, 0, 0, GM, GN, GK, 1.0, ga, GM, gb, GK, 0.0, c, GM, nthreads,
                                cpus, 8, ncpus);
    double err = rc ? INFINITY : 0;
    for (int i = 0; i < GM * GN && !rc; i++) {
        double e = fabs(c[i] - gref[i]);
        if (!(e <= err)) err = e;
    }
    free(c);
    return err;
}

static double fast_dsum(void) {
    double r = NAN;
    assert_int_equal(nodescale_dsum(RN, rx, 1, NodescaleSumPlain, NodescaleFast, &r), 0);
    return r;
}

/* Claim free again after every call: a call never leaves it taken. */
static void assert_claim_free(void) {
    assert_int_equal(ns_team_claim(), 1);
    ns_team_release();
}

/* With the claim taken (another call's team), the public GEMM runs on the calling thread alone,
 * correctly; a call told its thread count (the registry's) keeps it. */
static void test_claim_gemm(void **st) {
    (void)st;
    NEED_TWO();
    const double tol = 2.0 * (GK + 2) * 0x1p-53 * GK; /* |A||B| <= k elementwise */
    int got;
    assert_true(gemm_err(0, &got) <= tol);
    assert_int_equal(got, 2); /* free claim: the usual 2 threads */
    assert_claim_free();
    assert_int_equal(ns_team_claim(), 1);
    assert_true(gemm_err(0, &got) <= tol);
    assert_int_equal(got, 1);
    assert_true(gemm_err(2, &got) <= tol);
    assert_int_equal(got, 2);
    ns_team_release();
    assert_claim_free();
    double *c = calloc(GM * GN, sizeof *c);
    assert_int_equal(nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, GM, GN,
                                     GK, 1.0, ga, GM, gb, GK, 0.0, c, GM),
                     0);
    for (int i = 0; i < GM * GN; i++)
        assert_true(fabs(c[i] - gref[i]) <= tol);
    free(c);
    assert_claim_free();
}

static int fail_alloc(void **p, size_t align, size_t bytes) {
    (void)p, (void)align, (void)bytes;
    return ENOMEM;
}

static void *nomem_call(void *rc) {
    double *c = calloc(GM * GN, sizeof *c);
    *(int *)rc = c ? nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, GM, GN,
                                     GK, 1.0, ga, GM, gb, GK, 0.0, c, GM)
                   : 0;
    free(c);
    return NULL;
}

/* A threaded GEMM that cannot allocate its buffers gives the claim back (a new thread: no
 * buffers kept from earlier calls). */
static void test_nomem_releases(void **st) {
    (void)st;
    NEED_TWO();
    int rc = 0;
    pthread_t t;
    ns_gemm_set_buffer_alloc(fail_alloc);
    int made = pthread_create(&t, NULL, nomem_call, &rc);
    if (made == 0) pthread_join(t, NULL);
    ns_gemm_set_buffer_alloc(NULL);
    assert_int_equal(made, 0);
    assert_int_equal(rc, NODESCALE_ERR_NOMEM);
    assert_claim_free();
}

/* Inside a parallel region every call runs on one thread (no nested team). */
static void test_nested_gemm(void **st) {
    (void)st;
    NEED_TWO();
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        int got;
        double e = gemm_err(0, &got);
        bad += !(e <= 1e-9) || got != 1;
    }
    assert_int_equal(bad, 0);
    assert_claim_free();
}

/* Inside a 1-thread region (inactive: omp_in_parallel() is 0, as in the harness's team of one)
 * every call still runs on one thread: the caller chose its team. */
static void test_one_thread_region(void **st) {
    (void)st;
    NEED_TWO();
    omp_set_num_threads(1);
    double r1 = fast_dsum();
    omp_set_num_threads(2);
    double r2 = fast_dsum(), r = NAN;
    assert_true(r1 != r2); /* the data tells 1 thread from 2 (see setup) */
    int got = -1;
    double e = INFINITY;
#pragma omp parallel num_threads(1)
    {
        r = fast_dsum();
        e = gemm_err(0, &got);
    }
    assert_true(r == r1);
    assert_true(e <= 1e-9);
    assert_int_equal(got, 1);
    assert_claim_free();
}

/* The registry's descriptor measures the thread count it is given even while another call
 * holds the claim: the claim never shortens a measured team. */
static void test_claim_descriptor(void **st) {
    (void)st;
    NEED_TWO();
    const ns_kernel *k = &ns_k_dgemm_scalar;
    ns_params p = {.m = 128, .n = 128, .k = 128, .threads = 2};
    void *s = k->create(&p);
    assert_non_null(s);
    assert_int_equal(ns_team_claim(), 1);
    k->run(s, 0, 2);
    ns_team_release();
    ns_team t = {0};
    k->team(s, &t);
    assert_int_equal(t.asked, 2);
    assert_int_equal(t.got, 2);
    ns_check ck;
    memset(&ck, 0, sizeof ck);
    k->check(s, &ck);
    assert_true(ck.ok);
    k->destroy(s);
    assert_claim_free();
}

/* With the claim taken, a reduction runs on one thread: fast mode gives the 1-thread result
 * bitwise; deterministic mode the same as always; i?amax and nrm2 stay right. */
static void test_claim_reductions(void **st) {
    (void)st;
    NEED_TWO();
    omp_set_num_threads(1);
    double r1 = fast_dsum();
    omp_set_num_threads(2);
    double r2 = fast_dsum();
    assert_claim_free();
    assert_true(r1 != r2);              /* the data tells 1 thread from 2 (see setup) */
    assert_true(r2 == 0x1p53 + RN / 2); /* 2 threads: each share exact */
    double d_free, d_held, n_free, n_held;
    assert_int_equal(
        nodescale_ddot(RN, rx, 1, ry, 1, NodescaleSumPlain, NodescaleDeterministic, &d_free), 0);
    assert_int_equal(nodescale_dnrm2(RN, ry, 1, NodescaleSumPlain, NodescaleFast, &n_free), 0);
    int64_t i_free = -2, i_held = -2;
    assert_int_equal(nodescale_idamax(RN, rx, 1, &i_free), 0);

    assert_int_equal(ns_team_claim(), 1);
    double r = fast_dsum();
    assert_true(
        nodescale_ddot(RN, rx, 1, ry, 1, NodescaleSumPlain, NodescaleDeterministic, &d_held) == 0);
    assert_true(nodescale_dnrm2(RN, ry, 1, NodescaleSumPlain, NodescaleFast, &n_held) == 0);
    assert_true(nodescale_idamax(RN, rx, 1, &i_held) == 0);
    ns_team_release();
    assert_true(r == r1);
    assert_memory_equal(&d_held, &d_free, sizeof d_held);
    assert_double_equal(n_held, sqrt((double)RN), 1e-12 * sqrt((double)RN));
    assert_double_equal(n_free, sqrt((double)RN), 1e-12 * sqrt((double)RN));
    assert_int_equal(i_free, 0);
    assert_int_equal(i_held, 0);
    assert_claim_free();
}

/* Four callers at once: whoever holds the claim runs 2 threads, the others 1; every result
 * right (deterministic mode: bitwise the 1-call value), and the claim free afterwards. */
typedef struct {
    double want_dot;
    int bad;
} caller_arg;

static void *caller(void *argv) {
    caller_arg *a = argv;
    double *c = malloc(sizeof(double) * GM * GN);
    for (int it = 0; it < 6 && c; it++) {
        double d = 0;
        int64_t idx = -1;
        if (nodescale_ddot(RN, rx, 1, ry, 1, NodescaleSumPlain, NodescaleDeterministic, &d) ||
            d != a->want_dot)
            a->bad++;
        if (nodescale_idamax(RN, rx, 1, &idx) || idx != 0) a->bad++;
        if (nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, GM, GN, GK, 1.0,
                            ga, GM, gb, GK, 0.0, c, GM))
            a->bad++;
        for (int i = 0; i < GM * GN; i++)
            if (!(fabs(c[i] - gref[i]) <= 1e-9)) {
                a->bad++;
                break;
            }
    }
    if (!c) a->bad++;
    free(c);
    return NULL;
}

static void test_concurrent_callers(void **st) {
    (void)st;
    NEED_TWO();
    double want;
    assert_int_equal(
        nodescale_ddot(RN, rx, 1, ry, 1, NodescaleSumPlain, NodescaleDeterministic, &want), 0);
    pthread_t t[4];
    caller_arg a[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (caller_arg){want, 0};
        assert_int_equal(pthread_create(&t[i], NULL, caller, &a[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(a[i].bad, 0);
    }
    assert_claim_free();
}

/* The child's calls: 0 when every result is right and ran on one thread, else a code. */
static int child_calls(double want_dot, void *desc) {
    int got = -1;
    if (!(gemm_err(0, &got) <= 1e-9) || got != 1) return 10 + got;
    if (!(gemm_err(2, &got) <= 1e-9) || got != 1) return 20 + got; /* told 2: 1, and says so */
    double *c = malloc(sizeof(double) * GM * GN);
    if (!c || nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, GM, GN, GK,
                              1.0, ga, GM, gb, GK, 0.0, c, GM))
        return 30;
    for (int i = 0; i < GM * GN; i++)
        if (!(fabs(c[i] - gref[i]) <= 1e-9)) return 31;
    free(c);
    double d = 0;
    if (nodescale_ddot(RN, rx, 1, ry, 1, NodescaleSumPlain, NodescaleDeterministic, &d) ||
        d != want_dot)
        return 40;
    if (nodescale_ddot(RN, rx, 1, ry, 1, NodescaleSumPlain, NodescaleFast, &d) ||
        d == 0x1p53 + RN / 2)
        return 41; /* the 2-thread value: a team would have been opened */
    int64_t idx = -1;
    if (nodescale_idamax(RN, rx, 1, &idx) || idx != 0) return 50;
    /* The registry's team hook reports the shortfall of a measured GEMM (got 1 of 2). The
     * descriptor was created by the parent: its create fills the operands in a team. */
    if (!desc) return 60;
    ns_k_dgemm_scalar.run(desc, 0, 2);
    ns_team t = {0};
    ns_k_dgemm_scalar.team(desc, &t);
    if (t.asked != 2 || t.got != 1) return 61;
    return 0;
}

/* Waits at most secs seconds for child pid, then kills it. Returns its exit code, or -1 when it
 * was killed, by us or by a signal. A waiting child waits less than its parent, so that no hung
 * process is left behind. */
static int wait_child(pid_t pid, int secs) {
    int status = 0;
    pid_t w = 0;
    for (int i = 0; i < 100 * secs && w == 0; i++) {
        w = waitpid(pid, &status, WNOHANG);
        if (w == 0) nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (w == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        return -1;
    }
    return w == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Ran on 2 threads (2) or 1 (1) as the public GEMM and a fast-mode reduction agree, else 0. */
static int child_threads(void) {
    int got = -1;
    if (!(gemm_err(0, &got) <= 1e-9)) return 0;
    double r = fast_dsum();
    return got == 2 && r == 0x1p53 + RN / 2 ? 2 : got == 1 && r != 0x1p53 + RN / 2 ? 1 : 0;
}

/* Forks; the child exits with child_threads() (a grandchild first when nested). Returns the
 * child's exit code (-1: it hung or died). Waits 40 s for a child, 20 s for a grandchild. */
static int fork_and_count(int nested) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int n = child_threads();
        if (nested && n == 1 && fork_and_count(0) != 1) n = 9; /* a child of a marked child */
        _exit(n);
    }
    return wait_child(pid, nested ? 40 : 20);
}

/* The body of test_fork_unteamed_parent, in a fresh process (argv[1] "--fork-fresh"), so it
 * starts with one thread and no libgomp pool. Returns an exit code: 0 when all held. */
static int fork_fresh_process(void) {
    if (setup(NULL)) return 1;
    /* One thread, no team yet: the child opens teams (a pre-fork server, a Python worker). */
    int n = fork_and_count(0);
    if (n != 2) return 10 + (n < 0 ? 9 : n);
    /* The user's own region leaves libgomp's pool: the child runs on one thread, as does its
     * own child. */
    int in_region = 0;
#pragma omp parallel num_threads(2) reduction(+ : in_region)
    in_region += 1;
    if (in_region != 2) return 20;
    n = fork_and_count(1);
    if (n != 1) return 30 + (n < 0 ? 8 : n);
    return 0;
}

/* A child of a process that never had a second thread (no libgomp pool) keeps its
 * teams; a child of one that ran only its own parallel region runs on one thread, and so does
 * that child's child. In a fresh copy of this program, which the parent waits 120 s for. */
static void test_fork_unteamed_parent(void **st) {
    (void)st;
    NEED_TWO();
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", "test_team", "--fork-fresh", (char *)NULL);
        _exit(127);
    }
    int rc = wait_child(pid, 120);
    if (rc != 0)
        fail_msg("fresh process: exit %d (1x: unteamed parent's child ran x threads, 19 hung; "
                 "3x: after the user's region, 38 hung, 39 grandchild not on 1 thread)",
                 rc);
}

/* After fork() in a process that ran threaded calls, the child's calls return, right, on one
 * thread (libgomp would wait forever for pool threads the child does not have). The parent
 * waits at most 60 s, then kills the child and fails. */
static void test_fork_child(void **st) {
    (void)st;
    NEED_TWO();
    int got;
    assert_true(gemm_err(0, &got) <= 1e-9);
    assert_int_equal(got, 2); /* the parent ran a team: the case that hung */
    double want;
    assert_int_equal(
        nodescale_ddot(RN, rx, 1, ry, 1, NodescaleSumPlain, NodescaleDeterministic, &want), 0);
    assert_true(fast_dsum() == 0x1p53 + RN / 2); /* and a 2-thread reduction */
    ns_params p = {.m = 128, .n = 128, .k = 128, .threads = 2};
    void *desc = ns_k_dgemm_scalar.create(&p);
    assert_non_null(desc);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(child_calls(want, desc));
    int rc = wait_child(pid, 60);
    if (rc < 0) fail_msg("the forked child's calls did not return within 60 s");
    assert_int_equal(rc, 0);
    ns_k_dgemm_scalar.destroy(desc);
    /* The parent keeps its teams. */
    assert_true(gemm_err(0, &got) <= 1e-9);
    assert_int_equal(got, 2);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--fork-fresh")) return fork_fresh_process();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_gemm),         cmocka_unit_test(test_nested_gemm),
        cmocka_unit_test(test_claim_descriptor),   cmocka_unit_test(test_claim_reductions),
        cmocka_unit_test(test_concurrent_callers), cmocka_unit_test(test_fork_child),
        cmocka_unit_test(test_nomem_releases),     cmocka_unit_test(test_one_thread_region),
        cmocka_unit_test(test_fork_unteamed_parent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
