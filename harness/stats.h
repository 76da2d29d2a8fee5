/* Descriptive statistics of timing samples: min, max, median, mean, sample standard deviation,
 * coefficient of variation, quartiles and the median absolute deviation. All functions take
 * plain arrays of doubles and never divide by zero: a statistic that is undefined for the input
 * (CV of a zero mean, stddev of one sample) is reported as NAN in the struct, and writers turn
 * NAN into JSON null with a status (see harness/result.h). */
#ifndef NS_STATS_H
#define NS_STATS_H

#include <stddef.h>

/* The fewest samples a measurement takes (ns_measure_defaults' min_samples, bench's --samples
 * default, the all-reduce sweep's samples per size; the README's "at least 9 samples"), and the
 * fewest on a side below which the gate notes that rank tests can show only large effects
 * (Google Benchmark's compare.py warns below 9 repetitions). */
#define NS_MIN_SAMPLES 9

/* The coefficient of variation (time_s.cv) above which a result's samples show a disturbed
 * machine: report.md marks such numbers (and prints this value in its sentences), and the gate
 * warns when an input's median result CV exceeds it (or its threshold, when larger). One value
 * for both, so a run the report marks is one the gate calls disturbed. */
#define NS_DISTURBED_CV 0.05

typedef struct ns_stats {
    size_t n;
    double min, max, median, mean;
    double stddev; /* sample standard deviation (n - 1); NAN when n < 2 */
    double cv;     /* stddev / mean; NAN when n < 2 or mean == 0 */
    double q1, q3; /* quartiles, linear interpolation between order statistics (type 7) */
    double mad;    /* median absolute deviation from the median (unscaled) */
} ns_stats;

/* Fills *out from x[0..n). Returns 0, or -1 when n == 0 or any x is not finite (then *out is
 * all NAN with out->n = n). x is not modified. */
int ns_stats_compute(const double *x, size_t n, ns_stats *out);

/* The p-quantile (0 <= p <= 1) of sorted[0..n), type-7 interpolation. n >= 1. */
double ns_quantile_sorted(const double *sorted, size_t n, double p);

/* Median of x[0..n) (copies; x untouched). NAN when n == 0. */
double ns_median(const double *x, size_t n);

/* Sorts x[0..n) ascending in place. */
void ns_sort_doubles(double *x, size_t n);

/* Fits Hockney's alpha-beta model (R. W. Hockney, Parallel Computing 20(3), 1994),
 * t = alpha + beta * S: alpha in s, beta in s/byte, S in bytes, t in s. Weighted least squares
 * with weights 1/t_i^2, i.e. on the relative residuals (t_i - alpha - beta S_i) / t_i, so that each
 * point counts equally: the small sizes fix alpha and the large ones beta. Points with a
 * non-finite S_i or t_i, or t_i <= 0, are skipped. nonneg = 0: unconstrained (alpha or beta may
 * come out negative; -1 when the system is singular); nonneg = 1: both >= 0 (a negative alpha,
 * or a singular system, is pinned to 0 and beta refitted; then a negative beta is pinned to 0
 * and alpha refitted). Returns 0 with *max_rel = max |t_i - fit_i| / t_i over the points used,
 * or -1 when fewer than 2 points are usable. */
int ns_alpha_beta_fit(const double *S, const double *t, int n, int nonneg, double *alpha,
                      double *beta, double *max_rel);

#endif
