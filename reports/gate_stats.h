/* Statistics of the regression gate: rank tests and distribution-free confidence intervals for
 * comparing two sets of timing samples (unpaired: baseline file vs current file) or one set of
 * paired differences (interleaved A/B rounds), and a fixed-seed bootstrap for the suite-level
 * geometric mean. Everything is rank-based, so one slow or fast outlier moves a result by at most
 * one rank, and nothing divides by a spread: zero spread (all samples equal) is a valid input.
 *
 * Sources: Mann-Whitney U and the Hodges-Lehmann shift estimate with its Moses interval:
 * Hollander, Wolfe & Chicken, "Nonparametric Statistical Methods", 3rd ed., sections 4.1-4.3;
 * Wilcoxon signed-rank test and the Walsh-average interval: same book, sections 3.1-3.3. Tie
 * correction of the normal approximation: ibid. eq. (4.9) and (3.12). Exact null distributions
 * are computed by dynamic programming over (mid)ranks, so ties are handled exactly too. */
#ifndef NS_GATE_STATS_H
#define NS_GATE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Exact distributions are used up to this many values (both groups together for U, pairs for
 * the signed-rank test); the normal approximation with tie and continuity correction above. */
#define NS_EXACT_MAX_N 40

/* Standard normal CDF and its inverse (0 < p < 1). */
double ns_normal_cdf(double z);
double ns_normal_quantile(double p);

typedef struct ns_rank_test {
    double stat;   /* U = #{(i,j): y_j > x_i} + #{ties}/2, or T+ = sum of ranks of positive d */
    double p;      /* two-sided p-value; 1 when every value is tied */
    int exact;     /* 1 = exact permutation distribution, 0 = normal approximation */
    size_t n_used; /* values the test used (signed-rank drops zero differences) */
} ns_rank_test;

/* Two-sided Mann-Whitney U test of x[0..nx) against y[0..ny). Returns 0, or -1 when nx or ny
 * is 0 or a value is not finite (out->p = NAN). */
int ns_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, ns_rank_test *out);

/* Hodges-Lehmann estimate of the shift y - x (median of the nx*ny differences y_j - x_i) and its
 * distribution-free confidence interval [D(k), D(nx*ny+1-k)] at level conf (e.g. 0.95), k from
 * the null distribution of U (Hollander-Wolfe sec. 4.3). Returns 0; returns -1 with *lo, *hi =
 * NAN (and *est still set when possible) when the samples are too few for that level. */
int ns_shift_ci(const double *x, size_t nx, const double *y, size_t ny, double conf, double *est,
                double *lo, double *hi);

/* Two-sided Wilcoxon signed-rank test of d[0..n) against a zero median; zero differences are
 * dropped (Wilcoxon's convention). Returns 0, or -1 when n == 0 or a value is not finite. */
int ns_signed_rank(const double *d, size_t n, ns_rank_test *out);

/* One-sample Hodges-Lehmann estimate (median of the n(n+1)/2 Walsh averages) and its
 * distribution-free interval at level conf (Hollander-Wolfe sec. 3.3). 0, or -1 as above. */
int ns_walsh_ci(const double *d, size_t n, double conf, double *est, double *lo, double *hi);

/* splitmix64: the bootstrap's fixed-seed generator (Steele, Lea & Flood, OOPSLA 2014). */
uint64_t ns_rng_next(uint64_t *state);

/* One benchmark's data for the suite bootstrap: unpaired samples (base, cur; lower is better) or,
 * when paired, log-ratios d[0..nd) of paired medians. */
typedef struct ns_boot_item {
    const double *base, *cur;
    size_t nbase, ncur;
    const double *d;
    size_t nd;
} ns_boot_item;

/* Geometric mean over the items of the ratio the gate's rows show, exp of the Hodges-Lehmann
 * estimate (unpaired: of the shift of log times, as ns_shift_ci; paired: of d, as ns_walsh_ci),
 * and its percentile bootstrap interval at level conf from `resamples` resamples drawn with
 * splitmix64 from `seed` (each item's samples resampled within that item; paired items with the
 * same number of rounds by whole rounds, jointly). An item with more than 256 x 256 sample pairs
 * is resampled by its difference of medians of log times instead, shifted to equal its estimate
 * on the data: its cost per resample is linear in its samples. Returns 0, or -1 when nitems == 0
 * or memory runs out (outputs NAN). */
int ns_bootstrap_geomean(const ns_boot_item *items, size_t nitems, double conf, int resamples,
                         uint64_t seed, double *geomean, double *lo, double *hi);

#endif
