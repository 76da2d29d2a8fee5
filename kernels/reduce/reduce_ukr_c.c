/* Plain-C reduction micro-kernels: the reference for the SIMD kernels and the "scalar" ISA.
 * They follow the micro-kernel contract of reduce_internal.h with the slot counts of the
 * AVX-512 kernels (64 DP slots, 128 SP slots), so that for the same range they give bitwise the
 * same result: element i goes to slot i mod L, products are fused (fma/fmaf, one rounding, as
 * the SIMD FMA does), and the slots meet in the same halving tree. Compiled for baseline
 * x86-64: the compiler may vectorise across slots (that keeps every slot's order) but never
 * reassociates, and ISO C mode keeps a*b+c from being contracted behind our back. */
#include <math.h>
#include <string.h>

#include "kernels/reduce/reduce_internal.h"

enum { LD = 64, LS = 128 };

/* Whole tiles first (slot j takes x[i + j]: the compiler vectorises across slots), then the
 * tail: the same order as a[i % L] += x[i]. */
static double c_dsum(int64_t n, const double *x) {
    double a[LD] = {0};
    int64_t i = 0;
    for (; i + LD <= n; i += LD)
        for (int j = 0; j < LD; j++)
            a[j] += x[i + j];
    for (int j = 0; i + j < n; j++)
        a[j] += x[i + j];
    return ns_tree_d(a, LD);
}

static ns_dd c_dsum_comp(int64_t n, const double *x) {
    ns_dd a[LD];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++)
        a[i % LD] = ns_dd_combine(a[i % LD], (ns_dd){x[i], 0.0});
    return ns_tree_dd(a, LD);
}

static double c_ddot(int64_t n, const double *x, const double *y) {
    double a[LD] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % LD] = fma(x[i], y[i], a[i % LD]);
    return ns_tree_d(a, LD);
}

/* Dot2 of Ogita, Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005,
 * Alg. 5.3: TwoProduct by FMA, then TwoSum; both errors join the compensation. */
static ns_dd c_ddot_comp(int64_t n, const double *x, const double *y) {
    ns_dd a[LD];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++) {
        double p = x[i] * y[i], ep = fma(x[i], y[i], -p);
        ns_dd *s = &a[i % LD];
        double t = s->s + p, z = t - s->s;
        double e = (s->s - (t - z)) + (p - z);
        s->s = t;
        s->c = s->c + (ep + e);
    }
    return ns_tree_dd(a, LD);
}

static double c_dsumsq(int64_t n, const double *x, double scale) {
    double a[LD] = {0};
    if (scale == 1.0) {
        for (int64_t i = 0; i < n; i++)
            a[i % LD] = fma(x[i], x[i], a[i % LD]);
    } else {
        for (int64_t i = 0; i < n; i++) {
            double t = x[i] * scale;
            a[i % LD] = fma(t, t, a[i % LD]);
        }
    }
    return ns_tree_d(a, LD);
}

static float c_ssum(int64_t n, const float *x) {
    float a[LS] = {0};
    int64_t i = 0;
    for (; i + LS <= n; i += LS)
        for (int j = 0; j < LS; j++)
            a[j] += x[i + j];
    for (int j = 0; i + j < n; j++)
        a[j] += x[i + j];
    return ns_tree_s(a, LS);
}

static ns_ff c_ssum_comp(int64_t n, const float *x) {
    ns_ff a[LS];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++)
        a[i % LS] = ns_ff_combine(a[i % LS], (ns_ff){x[i], 0.0f});
    return ns_tree_ff(a, LS);
}

static double c_ssum_wide(int64_t n, const float *x) {
    double a[LD] = {0};
    int64_t i = 0;
    for (; i + LD <= n; i += LD)
        for (int j = 0; j < LD; j++)
            a[j] += (double)x[i + j];
    for (int j = 0; i + j < n; j++)
        a[j] += (double)x[i + j];
    return ns_tree_d(a, LD);
}

static float c_sdot(int64_t n, const float *x, const float *y) {
    float a[LS] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % LS] = fmaf(x[i], y[i], a[i % LS]);
    return ns_tree_s(a, LS);
}

static ns_ff c_sdot_comp(int64_t n, const float *x, const float *y) {
    ns_ff a[LS];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++) {
        float p = x[i] * y[i], ep = fmaf(x[i], y[i], -p);
        ns_ff *s = &a[i % LS];
        float t = s->s + p, z = t - s->s;
        float e = (s->s - (t - z)) + (p - z);
        s->s = t;
        s->c = s->c + (ep + e);
    }
    return ns_tree_ff(a, LS);
}

/* The product of two floats is exact in double (24 + 24 < 53 bits): one rounding per element. */
static double c_sdot_wide(int64_t n, const float *x, const float *y) {
    double a[LD] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % LD] = fma((double)x[i], (double)y[i], a[i % LD]);
    return ns_tree_d(a, LD);
}

static double c_ssumsq_wide(int64_t n, const float *x) {
    double a[LD] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % LD] = fma((double)x[i], (double)x[i], a[i % LD]);
    return ns_tree_d(a, LD);
}

int64_t ns_red_c_idamax(int64_t n, const double *x, double *amax) {
    int64_t best = 0;
    double m = -1.0;
    for (int64_t i = 0; i < n; i++) {
        double v = fabs(x[i]);
        if (isnan(v)) {
            *amax = v;
            return i;
        }
        if (v > m) m = v, best = i;
    }
    *amax = m;
    return best;
}

int64_t ns_red_c_isamax(int64_t n, const float *x, float *amax) {
    int64_t best = 0;
    float m = -1.0f;
    for (int64_t i = 0; i < n; i++) {
        float v = fabsf(x[i]);
        if (isnan(v)) {
            *amax = v;
            return i;
        }
        if (v > m) m = v, best = i;
    }
    *amax = m;
    return best;
}

int64_t ns_red_isamax_chunked(int64_t n, const float *x, float *amax,
                              int64_t (*chunk)(int64_t, const float *, float *)) {
    const int64_t len = (int64_t)1 << 30;
    float best = -1.0f;
    int64_t bi = 0;
    for (int64_t i = 0; i < n; i += len) {
        float m;
        int64_t j = i + chunk(n - i < len ? n - i : len, x + i, &m);
        if (isnan(m)) {
            *amax = m;
            return j;
        }
        if (m > best) best = m, bi = j;
    }
    *amax = best;
    return bi;
}

const ns_reduce_ukrs ns_reduce_ukrs_scalar = {
    .isa = "scalar",
    .slots_d = LD,
    .slots_s = LS,
    .slots_comp = LD,
    .dsum = c_dsum,
    .dsum_comp = c_dsum_comp,
    .ddot = c_ddot,
    .ddot_comp = c_ddot_comp,
    .dsumsq = c_dsumsq,
    .ssum = c_ssum,
    .ssum_comp = c_ssum_comp,
    .ssum_wide = c_ssum_wide,
    .sdot = c_sdot,
    .sdot_comp = c_sdot_comp,
    .sdot_wide = c_sdot_wide,
    .ssumsq_wide = c_ssumsq_wide,
    .idamax = ns_red_c_idamax,
    .isamax = ns_red_c_isamax,
};
