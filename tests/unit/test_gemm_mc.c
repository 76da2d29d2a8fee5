/* Trial 7, #4: a large MC (NODESCALE_GEMM_MC accepts up to 2^30) must not size the packed-A
 * buffer: it was sized from MC and not from the rows the call has, so a 64x64x64 DGEMM asked for
 * gigabytes and returned NODESCALE_ERR_NOMEM. With MC = 2^30 every shape here must succeed, on 1
 * and 2 threads, and match the definition. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/nstest.h"
#include "include/nodescale.h"
#include "kernels/gemm/gemm_kernels.h"

static int check_shape(int64_t m, int64_t n, int64_t k) {
    double *a = malloc(sizeof(double) * (size_t)(m * k));
    double *b = malloc(sizeof(double) * (size_t)(k * n));
    double *c = calloc((size_t)(m * n), sizeof(double));
    assert_true(a && b && c);
    for (int64_t i = 0; i < m * k; i++) a[i] = (double)(i % 7) - 3;
    for (int64_t i = 0; i < k * n; i++) b[i] = (double)(i % 5) - 2;
    int rc = nodescale_dgemm(NodescaleColMajor, NodescaleNoTrans, NodescaleNoTrans, m, n, k, 1.0,
                             a, m, b, k, 0.0, c, m);
    int wrong = 0;
    for (int64_t j = 0; j < n && rc == 0; j++)
        for (int64_t i = 0; i < m; i++) {
            double s = 0; /* small integers: exact */
            for (int64_t l = 0; l < k; l++) s += a[i + l * m] * b[l + j * k];
            wrong += c[i + j * m] != s;
        }
    free(a), free(b), free(c);
    if (rc != 0 || wrong)
        print_error("%lldx%lldx%lld: rc %d, %d wrong elements\n", (long long)m, (long long)n,
                    (long long)k, rc, wrong);
    return rc != 0 || wrong;
}

static void huge_mc_allocates_what_the_call_needs(void **state) {
    (void)state;
    ns_gemm_config cfg; /* the block sizes are read once, after main set NODESCALE_GEMM_MC */
    assert_int_equal(ns_gemm_config_get(NULL, NS_PREC_DP, &cfg), 0);
    assert_int_equal(cfg.mc, (int64_t)1 << 30);
    static const int64_t shapes[][3] = {{13, 7, 5}, {64, 64, 64}, {512, 512, 64}, {100, 300, 70}};
    int bad = 0;
    for (int t = 1; t <= 2; t++) {
        omp_set_num_threads(t);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            bad += check_shape(shapes[s][0], shapes[s][1], shapes[s][2]);
    }
    assert_int_equal(bad, 0);
}

int main(void) {
    setenv("NODESCALE_GEMM_MC", "1073741824", 1); /* the largest value the variable accepts */
    const struct CMUnitTest tests[] = {cmocka_unit_test(huge_mc_allocates_what_the_call_needs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
