/* Descriptive statistics for timing samples (see stats.h). Sorting-based: sample counts are
 * small (tens to thousands), so clarity beats selection algorithms here. */
#include "harness/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void ns_sort_doubles(double *x, size_t n) {
    qsort(x, n, sizeof *x, cmp_double);
}

double ns_quantile_sorted(const double *s, size_t n, double p) {
    if (n == 0) return NAN;
    if (p <= 0) return s[0];
    if (p >= 1) return s[n - 1];
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)h;
    double frac = h - (double)lo;
    if (lo + 1 >= n) return s[n - 1];
    return s[lo] + frac * (s[lo + 1] - s[lo]);
}

double ns_median(const double *x, size_t n) {
    if (n == 0) return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s) return NAN;
    memcpy(s, x, n * sizeof *s);
    ns_sort_doubles(s, n);
    double m = ns_quantile_sorted(s, n, 0.5);
    free(s);
    return m;
}

int ns_stats_compute(const double *x, size_t n, ns_stats *out) {
    *out = (ns_stats){.n = n, .min = NAN, .max = NAN, .median = NAN, .mean = NAN,
                      .stddev = NAN, .cv = NAN, .q1 = NAN, .q3 = NAN, .mad = NAN};
    if (n == 0) return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return -1;

    double *s = malloc(n * sizeof *s);
    if (!s) return -1;
    memcpy(s, x, n * sizeof *s);
    ns_sort_doubles(s, n);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = ns_quantile_sorted(s, n, 0.5);
    out->q1 = ns_quantile_sorted(s, n, 0.25);
    out->q3 = ns_quantile_sorted(s, n, 0.75);

    /* Two-pass mean and variance: samples are close together, so the naive one-pass
     * formula would cancel catastrophically. */
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += x[i];
    out->mean = sum / (double)n;
    if (n >= 2) {
        double ss = 0;
        for (size_t i = 0; i < n; i++) ss += (x[i] - out->mean) * (x[i] - out->mean);
        out->stddev = sqrt(ss / (double)(n - 1));
        if (out->mean != 0) out->cv = out->stddev / fabs(out->mean);
    }
    for (size_t i = 0; i < n; i++) s[i] = fabs(x[i] - out->median);
    ns_sort_doubles(s, n);
    out->mad = ns_quantile_sorted(s, n, 0.5);
    free(s);
    return 0;
}

int ns_alpha_beta_fit(const double *S, const double *t, int n, int nonneg, double *alpha,
                      double *beta, double *max_rel) {
    /* Weighted normal equations with w_i = 1 / t_i^2. */
    double sw = 0, sws = 0, swss = 0, swt = 0, swst = 0;
    int used = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(S[i]) && isfinite(t[i]) && t[i] > 0)) continue;
        double w = 1.0 / (t[i] * t[i]);
        sw += w, sws += w * S[i], swss += w * S[i] * S[i];
        swt += w * t[i], swst += w * S[i] * t[i];
        used++;
    }
    if (used < 2) return -1;
    double det = sw * swss - sws * sws, a = NAN, b = NAN;
    if (!nonneg && !(fabs(det) > 0)) return -1;
    if (!nonneg || det > 0) {
        a = (swss * swt - sws * swst) / det;
        b = (sw * swst - sws * swt) / det;
    }
    if (nonneg && (!(det > 0) || a < 0)) { /* pin alpha = 0: pure bandwidth */
        a = 0;
        b = swss > 0 ? swst / swss : 0;
    }
    if (nonneg && b < 0) { /* pin beta = 0: pure latency */
        b = 0;
        a = swt / sw;
    }
    double worst = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(S[i]) && isfinite(t[i]) && t[i] > 0)) continue;
        double r = fabs(a + b * S[i] - t[i]) / t[i];
        if (r > worst) worst = r;
    }
    *alpha = a;
    *beta = b;
    *max_rel = worst;
    return 0;
}
