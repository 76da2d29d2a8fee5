/* Statistics of timing samples: known values, quartile interpolation, and the inputs that make
 * naive code divide by zero (one sample, zero mean, zero spread) or accept non-finite data. */

#include "tests/unit/nstest.h"
#include "harness/stats.h"

static void known_values(void **state) {
    const double x[] = {4, 1, 3, 2, 5};
    ns_stats s;
    assert_int_equal(ns_stats_compute(x, 5, &s), 0);
    assert_true(s.min == 1 && s.max == 5 && s.median == 3 && s.mean == 3);
    assert_double_equal(s.stddev, sqrt(2.5), 1e-15);
    assert_double_equal(s.cv, sqrt(2.5) / 3, 1e-15);
    assert_true(s.q1 == 2 && s.q3 == 4);
    assert_true(s.mad == 1);
    assert_true(x[0] == 4); /* input untouched */
}

static void even_count_median_interpolates(void **state) {
    const double x[] = {1, 2, 3, 10};
    ns_stats s;
    ns_stats_compute(x, 4, &s);
    assert_true(s.median == 2.5);
    assert_double_equal(s.q1, 1.75, 1e-15);
    assert_double_equal(s.q3, 4.75, 1e-15);
}

static void one_sample_has_no_spread(void **state) {
    const double x[] = {7};
    ns_stats s;
    assert_int_equal(ns_stats_compute(x, 1, &s), 0);
    assert_true(s.median == 7 && s.min == 7);
    assert_true(isnan(s.stddev) && isnan(s.cv)); /* undefined, written as null, never 0 */
}

static void zero_spread_and_zero_mean(void **state) {
    const double same[] = {2, 2, 2, 2};
    const double zeros[] = {0, 0, 0};
    ns_stats s;
    ns_stats_compute(same, 4, &s);
    assert_true(s.stddev == 0 && s.cv == 0 && s.mad == 0);
    ns_stats_compute(zeros, 3, &s);
    assert_true(s.stddev == 0 && isnan(s.cv)); /* no division by a zero mean */
}

static void rejects_empty_and_non_finite(void **state) {
    const double bad[] = {1, NAN, 3};
    const double inf[] = {1, INFINITY};
    ns_stats s;
    assert_int_equal(ns_stats_compute(bad, 0, &s), -1);
    assert_int_equal(ns_stats_compute(bad, 3, &s), -1);
    assert_true(isnan(s.median));
    assert_int_equal(ns_stats_compute(inf, 2, &s), -1);
    assert_true(isnan(ns_median(bad, 0)));
}

static void variance_is_two_pass(void **state) {
    /* Samples near 1e9 differing by 1: the one-pass formula cancels to garbage. */
    const double x[] = {1e9 + 1, 1e9 + 2, 1e9 + 3};
    ns_stats s;
    ns_stats_compute(x, 3, &s);
    assert_double_equal(s.stddev, 1.0, 1e-9);
}

/* The one alpha-beta fit: an exact line comes back the same from both modes; a line whose
 * intercept is negative is kept by the unconstrained fit and pinned to 0 by the non-negative
 * one (beta refitted); non-finite points and t <= 0 are skipped, not fitted. */
static void alpha_beta_fit_modes(void **state) {
    double S[6] = {8, 64, 1024, 65536, 1 << 20, 1 << 24}, t[6], a0, b0, m0, a1, b1, m1;
    for (int i = 0; i < 6; i++)
        t[i] = 3e-6 + 2e-10 * S[i];
    assert_int_equal(ns_alpha_beta_fit(S, t, 6, 0, &a0, &b0, &m0), 0);
    assert_int_equal(ns_alpha_beta_fit(S, t, 6, 1, &a1, &b1, &m1), 0);
    assert_double_equal(a0, 3e-6, 1e-15);
    assert_double_equal(b0, 2e-10, 1e-19);
    assert_true(a0 == a1 && b0 == b1 && m0 == m1 && m0 < 1e-9);

    double X[3] = {10000, 200000, 2100000}, T[3]; /* t = -1 us + 1 ns/B * S */
    for (int i = 0; i < 3; i++)
        T[i] = -1e-6 + 1e-9 * X[i];
    assert_int_equal(ns_alpha_beta_fit(X, T, 3, 0, &a0, &b0, &m0), 0);
    assert_double_equal(a0, -1e-6, 1e-15);
    assert_int_equal(ns_alpha_beta_fit(X, T, 3, 1, &a1, &b1, &m1), 0);
    assert_true(a1 == 0 && b1 > 0 && m1 > 0);

    double Sb[4] = {8, NAN, 1024, 4096}, tb[4] = {3e-6 + 2e-10 * 8, 1e-5, 0, 3e-6 + 2e-10 * 4096};
    assert_int_equal(ns_alpha_beta_fit(Sb, tb, 4, 0, &a0, &b0, &m0), 0);
    assert_double_equal(a0, 3e-6, 1e-15);
    assert_double_equal(b0, 2e-10, 1e-17);
    assert_int_equal(ns_alpha_beta_fit(Sb, tb, 3, 1, &a0, &b0, &m0), -1); /* one usable point */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_values),
        cmocka_unit_test(even_count_median_interpolates),
        cmocka_unit_test(one_sample_has_no_spread),
        cmocka_unit_test(zero_spread_and_zero_mean),
        cmocka_unit_test(rejects_empty_and_non_finite),
        cmocka_unit_test(variance_is_two_pass),
        cmocka_unit_test(alpha_beta_fit_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
