/* Rank tests, distribution-free intervals and the suite bootstrap of the regression gate (see
 * gate_stats.h for the sources). Exact null distributions come from one dynamic program over
 * doubled (mid)ranks, which are integers even with ties, so the exact p-value of tied timing
 * samples is the true permutation p-value rather than the no-ties table's. */
#include "reports/gate_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/stats.h"

double ns_normal_cdf(double z) {
    return 0.5 * erfc(-z / sqrt(2.0));
}

double ns_normal_quantile(double p) {
    if (!(p > 0 && p < 1)) return NAN;
    /* Bisection on the CDF: 200 halvings of [-40, 40] reach double precision; called a few
     * times per gate run, so simplicity wins over a rational approximation. */
    double lo = -40, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (ns_normal_cdf(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

typedef struct {
    double v;
    size_t i;
} tagged;

static int cmp_tagged(const void *a, const void *b) {
    double x = ((const tagged *)a)->v, y = ((const tagged *)b)->v;
    return (x > y) - (x < y);
}

static int all_finite(const double *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* Doubled midranks of v[0..n) into r2 (r2[i] = 2 * rank of v[i]); *tie_sum receives
 * sum(t^3 - t) over tie groups and *sq_sum sum of squared (undoubled) ranks. 0 or -1 (memory). */
static int midranks2(const double *v, size_t n, long *r2, double *tie_sum, double *sq_sum) {
    tagged *t = malloc(n * sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < n; i++)
        t[i] = (tagged){v[i], i};
    qsort(t, n, sizeof *t, cmp_tagged);
    double ts = 0, ss = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && t[j].v == t[i].v)
            j++;
        long mid2 = (long)(i + 1 + j); /* ranks i+1..j: midrank (i+1+j)/2 */
        for (size_t k = i; k < j; k++)
            r2[t[k].i] = mid2;
        double g = (double)(j - i);
        ts += g * g * g - g;
        ss += g * (mid2 / 2.0) * (mid2 / 2.0);
        i = j;
    }
    free(t);
    if (tie_sum) *tie_sum = ts;
    if (sq_sum) *sq_sum = ss;
    return 0;
}

/* Counts of size-k subsets of the values r2[0..n) by their sum: returns an array of
 * (maxs + 1) doubles for subsets of size k (k = SIZE_MAX: subsets of any size), *maxs set.
 * Only additions of non-negative numbers: no cancellation. NULL on allocation failure. */
static double *subset_sum_counts(const long *r2, size_t n, size_t k, long *maxs) {
    long total = 0;
    for (size_t i = 0; i < n; i++)
        total += r2[i];
    *maxs = total;
    size_t width = (size_t)total + 1;
    int any = (k == SIZE_MAX);
    size_t rows = any ? 1 : k + 1;
    double *w = calloc(rows * width, sizeof *w);
    if (!w) return NULL;
    w[0] = 1;
    for (size_t j = 0; j < n; j++) {
        long r = r2[j];
        if (any) {
            for (long s = total - r; s >= 0; s--)
                w[s + r] += w[s];
            continue;
        }
        size_t top = j + 1 < k ? j + 1 : k;
        for (size_t c = top; c >= 1; c--) {
            double *dst = w + c * width, *src = w + (c - 1) * width;
            for (long s = total - r; s >= 0; s--)
                if (src[s] != 0) dst[s + r] += src[s];
        }
    }
    if (!any) memmove(w, w + k * width, width * sizeof *w);
    return w;
}

int ns_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, ns_rank_test *out) {
    *out = (ns_rank_test){.stat = NAN, .p = NAN, .exact = 0, .n_used = nx + ny};
    if (nx == 0 || ny == 0 || !all_finite(x, nx) || !all_finite(y, ny)) return -1;
    size_t n = nx + ny;
    double *v = malloc(n * sizeof *v);
    long *r2 = malloc(n * sizeof *r2);
    int rc = -1;
    double ties = 0;
    if (!v || !r2) goto out;
    memcpy(v, x, nx * sizeof *v);
    memcpy(v + nx, y, ny * sizeof *v);
    if (midranks2(v, n, r2, &ties, NULL) != 0) goto out;

    long w2 = 0; /* doubled rank sum of y */
    for (size_t i = nx; i < n; i++)
        w2 += r2[i];
    out->stat = w2 / 2.0 - (double)ny * (double)(ny + 1) / 2.0;
    long e2 = (long)(ny * (n + 1)); /* doubled expectation of the rank sum */
    long dev = labs(w2 - e2);

    if (n <= NS_EXACT_MAX_N) {
        long maxs;
        double *cnt = subset_sum_counts(r2, n, ny, &maxs);
        if (!cnt) goto out;
        double tail = 0, total = 0;
        for (long s = 0; s <= maxs; s++) {
            total += cnt[s];
            if (labs(s - e2) >= dev) tail += cnt[s];
        }
        free(cnt);
        out->p = fmin(1.0, tail / total);
        out->exact = 1;
    } else {
        double mu = (double)nx * (double)ny / 2.0;
        double var = (double)nx * (double)ny / 12.0 *
                     ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
        double d = fabs(out->stat - mu);
        if (var <= 0)
            out->p = d == 0 ? 1.0 : 0.0;
        else
            out->p = fmin(1.0, erfc(fmax(0.0, d - 0.5) / sqrt(var) / sqrt(2.0)));
    }
    rc = 0;
out:
    free(v);
    free(r2);
    return rc;
}

/* The largest k >= 1 with P(S <= k - 1) <= tail under the null distribution of a statistic
 * S = sum - offset with counts cnt[0..maxs]; 0 when even P(S <= 0) > tail. */
static long lower_critical(const double *cnt, long maxs, long offset, double tail) {
    double total = 0;
    for (long s = 0; s <= maxs; s++)
        total += cnt[s];
    double cum = 0;
    long k = 0;
    for (long s = 0; s <= maxs; s++) {
        if (cnt[s] == 0) continue;
        cum += cnt[s];
        /* S takes value (s - offset)/2 (doubled ranks): P(S <= that) = cum / total. */
        if (cum / total <= tail)
            k = (s - offset) / 2 + 1;
        else
            break;
    }
    return k;
}

int ns_shift_ci(const double *x, size_t nx, const double *y, size_t ny, double conf, double *est,
                double *lo, double *hi) {
    *est = *lo = *hi = NAN;
    if (nx == 0 || ny == 0 || !all_finite(x, nx) || !all_finite(y, ny) || !(conf > 0 && conf < 1))
        return -1;
    size_t m = nx * ny, n = nx + ny;
    double *dd = malloc(m * sizeof *dd);
    if (!dd) return -1;
    for (size_t i = 0; i < nx; i++)
        for (size_t j = 0; j < ny; j++)
            dd[i * ny + j] = y[j] - x[i];
    ns_sort_doubles(dd, m);
    *est = ns_quantile_sorted(dd, m, 0.5);

    double tail = (1 - conf) / 2;
    long k = 0;
    if (n <= NS_EXACT_MAX_N) {
        long *r2 = malloc(n * sizeof *r2), maxs;
        if (!r2) {
            free(dd);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            r2[i] = 2 * (long)(i + 1);
        double *cnt = subset_sum_counts(r2, n, ny, &maxs);
        free(r2);
        if (!cnt) {
            free(dd);
            return -1;
        }
        /* U = W - ny(ny+1)/2; in doubled units the offset is ny(ny+1). */
        k = lower_critical(cnt, maxs, (long)(ny * (ny + 1)), tail);
        free(cnt);
    } else {
        double z = ns_normal_quantile(1 - tail);
        k = (long)floor((double)m / 2 - z * sqrt((double)m * (double)(n + 1) / 12.0));
    }
    int rc = -1;
    if (k >= 1 && (size_t)k <= m) {
        *lo = dd[k - 1];
        *hi = dd[m - (size_t)k];
        rc = 0;
    }
    free(dd);
    return rc;
}

int ns_signed_rank(const double *d, size_t n, ns_rank_test *out) {
    *out = (ns_rank_test){.stat = NAN, .p = NAN, .exact = 0, .n_used = 0};
    if (n == 0 || !all_finite(d, n)) return -1;
    double *a = malloc(n * sizeof *a);
    long *r2 = malloc(n * sizeof *r2);
    int *pos = malloc(n * sizeof *pos);
    int rc = -1;
    if (!a || !r2 || !pos) goto out;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0) {
            a[m] = fabs(d[i]);
            pos[m++] = d[i] > 0;
        }
    out->n_used = m;
    if (m == 0) { /* every difference is zero: no evidence of any shift */
        out->stat = 0;
        out->p = 1;
        out->exact = 1;
        rc = 0;
        goto out;
    }
    double sq;
    if (midranks2(a, m, r2, NULL, &sq) != 0) goto out;
    long t2 = 0, s2 = 0;
    for (size_t i = 0; i < m; i++) {
        s2 += r2[i];
        if (pos[i]) t2 += r2[i];
    }
    out->stat = t2 / 2.0;
    long dev = labs(2 * t2 - s2);
    if (m <= NS_EXACT_MAX_N) {
        long maxs;
        double *cnt = subset_sum_counts(r2, m, SIZE_MAX, &maxs);
        if (!cnt) goto out;
        double tail = 0, total = 0;
        for (long s = 0; s <= maxs; s++) {
            total += cnt[s];
            if (labs(2 * s - s2) >= dev) tail += cnt[s];
        }
        free(cnt);
        out->p = fmin(1.0, tail / total);
        out->exact = 1;
    } else {
        double mu = s2 / 4.0, var = sq / 4.0; /* midranks: var is tie-corrected by construction */
        double dd = fabs(out->stat - mu);
        out->p = var <= 0 ? (dd == 0 ? 1.0 : 0.0)
                          : fmin(1.0, erfc(fmax(0.0, dd - 0.5) / sqrt(var) / sqrt(2.0)));
    }
    rc = 0;
out:
    free(a);
    free(r2);
    free(pos);
    return rc;
}

int ns_walsh_ci(const double *d, size_t n, double conf, double *est, double *lo, double *hi) {
    *est = *lo = *hi = NAN;
    if (n == 0 || !all_finite(d, n) || !(conf > 0 && conf < 1)) return -1;
    size_t m = n * (n + 1) / 2, c = 0;
    double *w = malloc(m * sizeof *w);
    if (!w) return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            w[c++] = 0.5 * (d[i] + d[j]);
    ns_sort_doubles(w, m);
    *est = ns_quantile_sorted(w, m, 0.5);

    double tail = (1 - conf) / 2;
    long k = 0;
    if (n <= NS_EXACT_MAX_N) {
        long *r2 = malloc(n * sizeof *r2), maxs;
        if (!r2) {
            free(w);
            return -1;
        }
        for (size_t i = 0; i < n; i++)
            r2[i] = 2 * (long)(i + 1);
        double *cnt = subset_sum_counts(r2, n, SIZE_MAX, &maxs);
        free(r2);
        if (!cnt) {
            free(w);
            return -1;
        }
        k = lower_critical(cnt, maxs, 0, tail);
        free(cnt);
    } else {
        double z = ns_normal_quantile(1 - tail);
        k = (long)floor((double)m / 2 -
                        z * sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24.0));
    }
    int rc = -1;
    if (k >= 1 && (size_t)k <= m) {
        *lo = w[k - 1];
        *hi = w[m - (size_t)k];
        rc = 0;
    }
    free(w);
    return rc;
}

uint64_t ns_rng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* k-th smallest (0-based) of v[0..n), reordering v so that v[0..k) holds the k smallest
 * (quickselect with Hoare's partition around the middle element). */
static double select_kth(double *v, size_t n, size_t k) {
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        ptrdiff_t i = lo - 1, j = hi + 1;
        for (;;) {
            do
                i++;
            while (v[i] < pivot);
            do
                j--;
            while (v[j] > pivot);
            if (i >= j) break;
            double t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
        /* v[lo..j] <= pivot <= v[j+1..hi] */
        if (kk <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return v[k];
}

/* Median of v[0..n) (reordered), the same value ns_quantile_sorted(v, n, 0.5) gives after a
 * sort (its interpolation: lower + 0.5 (upper - lower)). */
static double select_median(double *v, size_t n) {
    double upper = select_kth(v, n, n / 2);
    if (n % 2) return upper;
    double lower = v[0]; /* after the selection v[0..n/2) holds the n/2 smallest */
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lower) lower = v[i];
    return lower + 0.5 * (upper - lower);
}

/* The scratch space of one item's estimate: x and y (one value per sample or round) and w (one
 * per pair: nx * ny, or nd(nd + 1)/2 Walsh averages). */
typedef struct {
    double *x, *y, *w;
} boot_scratch;

static size_t item_pairs(const ns_boot_item *it) {
    return it->d ? it->nd * (it->nd + 1) / 2 : it->nbase * it->ncur;
}

/* The estimate the rows use, in log units: the Hodges-Lehmann shift of log times (median of
 * the pairwise differences log cur_j - log base_i) unpaired, the median of the Walsh averages of
 * d paired. Resampled within the item with rng, or by the shared rounds idx (paired), or on the
 * data themselves when both are NULL. */
static double item_log_ratio(const ns_boot_item *it, boot_scratch *sc, uint64_t *rng,
                             const size_t *idx) {
    size_t m = 0;
    if (it->d) {
        size_t n = it->nd;
        for (size_t i = 0; i < n; i++)
            sc->x[i] = it->d[idx ? idx[i] : rng ? ns_rng_next(rng) % n : i];
        for (size_t i = 0; i < n; i++)
            for (size_t j = i; j < n; j++)
                sc->w[m++] = 0.5 * (sc->x[i] + sc->x[j]);
        return select_median(sc->w, m);
    }
    for (size_t i = 0; i < it->nbase; i++)
        sc->x[i] = log(it->base[rng ? ns_rng_next(rng) % it->nbase : i]);
    for (size_t j = 0; j < it->ncur; j++)
        sc->y[j] = log(it->cur[rng ? ns_rng_next(rng) % it->ncur : j]);
    for (size_t i = 0; i < it->nbase; i++)
        for (size_t j = 0; j < it->ncur; j++)
            sc->w[m++] = sc->y[j] - sc->x[i];
    return select_median(sc->w, m);
}

/* Above this many pair differences in an item (256 x 256: every file nodescale writes stays at
 * or below it), a resample of the item costs O(n) instead of O(n^2): its statistic is the
 * difference of the medians of log times (the median of d, paired), shifted by a constant so
 * that on the data themselves it equals the item's Hodges-Lehmann estimate. Gate resampled
 * every pair of every sample 2000 times, and 2e6 samples had not finished in 60 s (test_gate.c). */
#define NS_BOOT_MAX_PAIRS 65536

/* The large items' statistic (see NS_BOOT_MAX_PAIRS), resampled as item_log_ratio. */
static double item_median_diff(const ns_boot_item *it, boot_scratch *sc, uint64_t *rng,
                               const size_t *idx) {
    if (it->d) {
        size_t n = it->nd;
        for (size_t i = 0; i < n; i++)
            sc->x[i] = it->d[idx ? idx[i] : rng ? ns_rng_next(rng) % n : i];
        return select_median(sc->x, n);
    }
    for (size_t i = 0; i < it->nbase; i++)
        sc->x[i] = log(it->base[rng ? ns_rng_next(rng) % it->nbase : i]);
    for (size_t j = 0; j < it->ncur; j++)
        sc->y[j] = log(it->cur[rng ? ns_rng_next(rng) % it->ncur : j]);
    return select_median(sc->y, it->ncur) - select_median(sc->x, it->nbase);
}

int ns_bootstrap_geomean(const ns_boot_item *items, size_t nitems, double conf, int resamples,
                         uint64_t seed, double *geomean, double *lo, double *hi) {
    *geomean = *lo = *hi = NAN;
    if (nitems == 0 || resamples < 1 || !(conf > 0 && conf < 1)) return -1;
    size_t maxn = 1, maxw = 1;
    for (size_t i = 0; i < nitems; i++) {
        size_t a = items[i].d ? items[i].nd
                              : (items[i].nbase > items[i].ncur ? items[i].nbase : items[i].ncur);
        if (a > maxn) maxn = a;
        if (item_pairs(&items[i]) > maxw) maxw = item_pairs(&items[i]);
    }
    /* Paired items with the same rounds share each round's machine state: resample whole
     * rounds, jointly for every item, to keep that correlation. */
    int joint = 1;
    for (size_t i = 0; i < nitems; i++)
        if (!items[i].d || items[i].nd != items[0].nd) joint = 0;
    boot_scratch sc = {malloc(maxn * sizeof *sc.x), malloc(maxn * sizeof *sc.y),
                       malloc(maxw * sizeof *sc.w)};
    double *g = malloc((size_t)resamples * sizeof *g);
    size_t *idx = malloc(maxn * sizeof *idx);
    double *shift = malloc(nitems * sizeof *shift); /* large items: HL - median difference */
    if (!sc.x || !sc.y || !sc.w || !g || !idx || !shift) {
        free(sc.x);
        free(sc.y);
        free(sc.w);
        free(g);
        free(idx);
        free(shift);
        return -1;
    }
    double sum = 0;
    for (size_t i = 0; i < nitems; i++) {
        double est = item_log_ratio(&items[i], &sc, NULL, NULL);
        sum += est;
        shift[i] = item_pairs(&items[i]) > NS_BOOT_MAX_PAIRS
                       ? est - item_median_diff(&items[i], &sc, NULL, NULL)
                       : NAN;
    }
    *geomean = exp(sum / (double)nitems);
    uint64_t rng = seed;
    for (int b = 0; b < resamples; b++) {
        double s = 0;
        if (joint)
            for (size_t j = 0; j < items[0].nd; j++)
                idx[j] = ns_rng_next(&rng) % items[0].nd;
        for (size_t i = 0; i < nitems; i++)
            s += isnan(shift[i]) ? item_log_ratio(&items[i], &sc, &rng, joint ? idx : NULL)
                                 : item_median_diff(&items[i], &sc, &rng, joint ? idx : NULL) +
                                       shift[i];
        g[b] = exp(s / (double)nitems);
    }
    ns_sort_doubles(g, (size_t)resamples);
    *lo = ns_quantile_sorted(g, (size_t)resamples, (1 - conf) / 2);
    *hi = ns_quantile_sorted(g, (size_t)resamples, (1 + conf) / 2);
    free(sc.x);
    free(sc.y);
    free(sc.w);
    free(g);
    free(idx);
    free(shift);
    return 0;
}
