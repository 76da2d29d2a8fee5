/* libnodescale as another program calls it: the stack a call needs (include/nodescale.h,
 * "Stack"), what a negative stride means, and the version (NODESCALE_VERSION_* and
 * nodescale_version()). Correctness only. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tests/unit/nstest.h"

#include "include/nodescale.h"
#include "kernels/reduce/reduce_internal.h"

enum { XN = 300000 }; /* large enough for a team of the reductions (32768 per thread) */
static double *xd, *yd;
static float *xs, *ys;

/* Every public function once per shape: unit and strided (+-), fast and deterministic, one
 * thread and a team, GEMM small and large. Returns the number of calls that failed. */
static void *all_calls(void *arg) {
    long *bad = arg;
    double r;
    float f;
    int64_t ix;
    const int64_t ns[] = {1000, XN / 3};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        int64_t n = ns[k];
        for (int inc = -2; inc <= 2; inc += 1) {
            if (inc == 0) continue;
            int64_t m = n / (inc < 0 ? -inc : inc);
            for (int mode = 0; mode <= 1; mode++) {
                *bad += nodescale_dsum(m, xd, inc, NodescaleSumPairwise, mode, &r) != 0 || r != m;
                *bad += nodescale_dsum(m, xd, inc, NodescaleSumCompensated, mode, &r) != 0;
                *bad += nodescale_ddot(m, xd, inc, yd, 1, NodescaleSumPlain, mode, &r) != 0 ||
                        r != 2.0 * (double)m;
                *bad += nodescale_ssum(m, xs, inc, NodescaleSumWide, mode, &f) != 0;
                *bad += nodescale_sdot(m, xs, 1, ys, inc, NodescaleSumCompensated, mode, &f) != 0;
                *bad += nodescale_dnrm2(m, xd, inc, NodescaleSumPlain, mode, &r) != 0;
                *bad += nodescale_snrm2(m, xs, inc, NodescaleSumPlain, mode, &f) != 0;
            }
            *bad += nodescale_idamax(m, xd, inc, &ix) != 0 || ix != 0;
            *bad += nodescale_isamax(m, xs, inc, &ix) != 0 || ix != 0;
        }
    }
    const int64_t gs[] = {50, 300};
    for (size_t k = 0; k < sizeof gs / sizeof *gs; k++) {
        int64_t g = gs[k];
        double *c = malloc(sizeof(double) * (size_t)(g * g));
        *bad += !c || nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleTrans, g, g, g,
                                      1.0, xd, g, yd, g, 0.0, c, g) != 0;
        *bad += c && c[0] != 2.0 * (double)g;
        free(c);
    }
    return NULL;
}

static int setup(void **st) {
    (void)st;
    xd = malloc(sizeof(double) * XN), yd = malloc(sizeof(double) * XN);
    xs = malloc(sizeof(float) * XN), ys = malloc(sizeof(float) * XN);
    if (!xd || !yd || !xs || !ys) return -1;
    for (int i = 0; i < XN; i++) xd[i] = xs[i] = 1, yd[i] = ys[i] = 2;
    return 0;
}

static int teardown(void **st) {
    (void)st;
    free(xd), free(yd), free(xs), free(ys);
    return 0;
}

/* The calls on a thread whose 32 KiB stack (pthread_attr_setstack) sits at the top of a region
 * filled with a pattern: nothing below the stack may change. The reductions put 64 KiB arrays
 * on the caller's stack whatever n (the frame jumped over the guard page of a small stack, or
 * crashed). Also measures the deepest byte used, for nodescale.h's statement. */
static void test_small_stack(void **st) {
    (void)st;
    const size_t below = 256 * 1024, stack = 32 * 1024;
    unsigned char *reg = mmap(NULL, below + stack, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(reg != MAP_FAILED);
    memset(reg, 0xAB, below + stack);
    pthread_attr_t at;
    pthread_t t;
    long bad = 0;
    assert_int_equal(pthread_attr_init(&at), 0);
    assert_int_equal(pthread_attr_setstack(&at, reg + below, stack), 0);
    assert_int_equal(pthread_create(&t, &at, all_calls, &bad), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_attr_destroy(&at);
    size_t changed = 0, deepest = 0;
    for (size_t i = 0; i < below; i++)
        if (reg[i] != 0xAB) changed++, deepest = deepest ? deepest : below - i;
    size_t used = 0;
    for (size_t i = below; i < below + stack && !used; i++)
        if (reg[i] != 0xAB) used = below + stack - i;
    printf("# stack used (thread's TLS and descriptor included): %zu of %zu bytes\n", used, stack);
    munmap(reg, below + stack);
    if (changed)
        fail_msg("%zu bytes changed below the thread's 32 KiB stack (up to %zu bytes below it)",
                 changed, deepest);
    assert_int_equal(bad, 0);
}

/* A negative stride as nodescale.h states it (where BLAS returns 0 for incx <= 0): the logical
 * index counts from the far end, the element is x[(n - 1 - index) |incx|], a tie goes to the
 * highest address; sum and nrm2 reduce the same elements as stride |incx|. */
static void test_negative_stride(void **st) {
    (void)st;
    const double x[] = {9, 1, 2, 3};
    const float xf[] = {9, 1, 2, 3};
    int64_t ix;
    double r;
    float f;
    assert_int_equal(nodescale_idamax(4, x, -1, &ix), 0);
    assert_int_equal(ix, 3);
    assert_int_equal(nodescale_isamax(4, xf, -1, &ix), 0);
    assert_int_equal(ix, 3);
    assert_int_equal(nodescale_idamax(2, x, -3, &ix), 0); /* logical {3, 9} */
    assert_int_equal(ix, 1);
    const double tie[] = {-5, 0, 5, 1};
    assert_int_equal(nodescale_idamax(4, tie, -1, &ix), 0); /* logical {1, 5, 0, -5} */
    assert_int_equal(ix, 1);
    assert_true(tie[(4 - 1 - ix) * 1] == 5);
    assert_int_equal(nodescale_dnrm2(4, x, -1, NodescaleSumPlain, NodescaleFast, &r), 0);
    assert_double_equal(r, sqrt(95.0), 1e-15 * sqrt(95.0));
    assert_int_equal(nodescale_dnrm2(2, x, -3, NodescaleSumPlain, NodescaleFast, &r), 0);
    assert_double_equal(r, sqrt(90.0), 1e-15 * sqrt(90.0));
    assert_int_equal(nodescale_dsum(4, x, -1, NodescaleSumPlain, NodescaleFast, &r), 0);
    assert_true(r == 15.0);
    assert_int_equal(nodescale_ssum(2, xf, -2, NodescaleSumPlain, NodescaleFast, &f), 0);
    assert_true(f == 11.0f);
    /* ?dot: BLAS's convention, x backwards against y forwards. */
    const double y[] = {1, 10, 100, 1000};
    assert_int_equal(nodescale_ddot(4, x, -1, y, 1, NodescaleSumPlain, NodescaleFast, &r), 0);
    assert_true(r == 3 + 20 + 100 + 9000);
}

/* NODESCALE_ERR_NOMEM: a strided call on a thread without a gather buffer, when it cannot be
 * allocated, returns it and leaves the result alone; unit stride needs no buffer; a team whose
 * partials cannot be allocated runs on one thread, right. */
static void *no_alloc(size_t bytes) {
    (void)bytes;
    return NULL;
}

static void *nomem_calls(void *arg) {
    long *bad = arg;
    double r = -7;
    int64_t ix = -7;
    *bad += nodescale_dsum(1000, xd, 2, NodescaleSumPlain, NodescaleFast, &r) != NODESCALE_ERR_NOMEM;
    *bad += nodescale_ddot(XN / 2, xd, 1, yd, -2, NodescaleSumPlain, NodescaleDeterministic, &r) !=
            NODESCALE_ERR_NOMEM;
    *bad += nodescale_dnrm2(1000, xd, -1, NodescaleSumPlain, NodescaleFast, &r) != NODESCALE_ERR_NOMEM;
    *bad += r != -7;
    *bad += nodescale_dsum(XN, xd, 1, NodescaleSumPlain, NodescaleDeterministic, &r) != 0 || r != XN;
    *bad += nodescale_dsum(XN, xd, 1, NodescaleSumPlain, NodescaleFast, &r) != 0 || r != XN;
    *bad += nodescale_idamax(XN, xd, 1, &ix) != 0 || ix != 0;
    return NULL;
}

static void test_nomem(void **st) {
    (void)st;
    pthread_t t;
    long bad = 0;
    ns_red_set_alloc(no_alloc);
    assert_int_equal(pthread_create(&t, NULL, nomem_calls, &bad), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    ns_red_set_alloc(NULL);
    assert_int_equal(bad, 0);
    double r;
    assert_int_equal(nodescale_dsum(1000, xd, 2, NodescaleSumPlain, NodescaleFast, &r), 0);
    assert_true(r == 1000);
}

/* The header's version macros, nodescale_version() and the build's version (the Makefile's
 * -DNODESCALE_VERSION, read from the header) agree. */
static void test_version(void **st) {
    (void)st;
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", NODESCALE_VERSION_MAJOR, NODESCALE_VERSION_MINOR,
             NODESCALE_VERSION_PATCH);
    assert_non_null(nodescale_version());
    assert_string_equal(nodescale_version(), want);
    assert_string_equal(nodescale_version(), NODESCALE_VERSION);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_stack),
        cmocka_unit_test(test_negative_stride),
        cmocka_unit_test(test_nomem),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
