/* Plain-C reduction micro-kernels: the reference for the SIMD kernels and the "scalar" ISA.
 * They follow the micro-kernel contract of reduce_internal.h with the slot counts of the
 * AVX-512 kernels (64 DP slots, 128 SP slots), so that for the same range they give bitwise the
 * same result: element i goes to slot i mod L, products are fused (fma/fmaf, one rounding, as
 * the SIMD FMA does), and the slots meet in the same halving tree. Compiled for baseline
 * x86-64: the compiler may vectorise across slots (that keeps every slot's order) but never
 * reassociates, and ISO C mode keeps a*b+c from being contracted behind our back.
 * The same kernels also come in the AVX2 kernels' slot counts (32 DP, 64 SP, 16 / 32
 * compensated; ns_reduce_ukrs_plain_c): the registry's check() reruns a timed reduction with the
 * plain-C kernels of its layout and requires the same bits. Each kernel body takes its slot count
 * as a constant argument (inlined), with arrays of the largest count. */
#include <math.h>
#include <string.h>

#include "kernels/reduce/reduce_internal.h"

/* The largest slot counts, which size the kernels' slot arrays (the AVX-512 layout's). */
enum { LD = NS_RED_SLOTS_AVX512_D, LS = NS_RED_SLOTS_AVX512_S };
#define INL static inline __attribute__((always_inline))

/* Whole tiles first (slot j takes x[i + j]: the compiler vectorises across slots), then the
 * tail: the same order as a[i % L] += x[i]. */
INL double dsum_l(int64_t n, const double *x, const int L) {
    double a[LD] = {0};
    int64_t i = 0;
    for (; i + L <= n; i += L)
        for (int j = 0; j < L; j++)
            a[j] += x[i + j];
    for (int j = 0; i + j < n; j++)
        a[j] += x[i + j];
    return ns_tree_d(a, L);
}

INL ns_dd dsum_comp_l(int64_t n, const double *x, const int L) {
    ns_dd a[LD];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++)
        a[i % L] = ns_dd_combine(a[i % L], (ns_dd){x[i], 0.0});
    return ns_tree_dd(a, L);
}

INL double ddot_l(int64_t n, const double *x, const double *y, const int L) {
    double a[LD] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % L] = fma(x[i], y[i], a[i % L]);
    return ns_tree_d(a, L);
}

/* Dot2 of Ogita, Rump, Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6), 2005,
 * Alg. 5.3: TwoProduct by FMA, then TwoSum; both errors join the compensation. */
INL ns_dd ddot_comp_l(int64_t n, const double *x, const double *y, const int L) {
    ns_dd a[LD];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++) {
        double p = x[i] * y[i], ep = fma(x[i], y[i], -p);
        ns_dd *s = &a[i % L];
        double t = s->s + p, z = t - s->s;
        double e = (s->s - (t - z)) + (p - z);
        s->s = t;
        s->c = s->c + (ep + e);
    }
    return ns_tree_dd(a, L);
}

INL double dsumsq_l(int64_t n, const double *x, double scale, const int L) {
    double a[LD] = {0};
    if (scale == 1.0) {
        for (int64_t i = 0; i < n; i++)
            a[i % L] = fma(x[i], x[i], a[i % L]);
    } else {
        for (int64_t i = 0; i < n; i++) {
            double t = x[i] * scale;
            a[i % L] = fma(t, t, a[i % L]);
        }
    }
    return ns_tree_d(a, L);
}

INL float ssum_l(int64_t n, const float *x, const int L) {
    float a[LS] = {0};
    int64_t i = 0;
    for (; i + L <= n; i += L)
        for (int j = 0; j < L; j++)
            a[j] += x[i + j];
    for (int j = 0; i + j < n; j++)
        a[j] += x[i + j];
    return ns_tree_s(a, L);
}

INL ns_ff ssum_comp_l(int64_t n, const float *x, const int L) {
    ns_ff a[LS];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++)
        a[i % L] = ns_ff_combine(a[i % L], (ns_ff){x[i], 0.0f});
    return ns_tree_ff(a, L);
}

INL double ssum_wide_l(int64_t n, const float *x, const int L) {
    double a[LD] = {0};
    int64_t i = 0;
    for (; i + L <= n; i += L)
        for (int j = 0; j < L; j++)
            a[j] += (double)x[i + j];
    for (int j = 0; i + j < n; j++)
        a[j] += (double)x[i + j];
    return ns_tree_d(a, L);
}

INL float sdot_l(int64_t n, const float *x, const float *y, const int L) {
    float a[LS] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % L] = fmaf(x[i], y[i], a[i % L]);
    return ns_tree_s(a, L);
}

INL ns_ff sdot_comp_l(int64_t n, const float *x, const float *y, const int L) {
    ns_ff a[LS];
    memset(a, 0, sizeof a);
    for (int64_t i = 0; i < n; i++) {
        float p = x[i] * y[i], ep = fmaf(x[i], y[i], -p);
        ns_ff *s = &a[i % L];
        float t = s->s + p, z = t - s->s;
        float e = (s->s - (t - z)) + (p - z);
        s->s = t;
        s->c = s->c + (ep + e);
    }
    return ns_tree_ff(a, L);
}

/* The product of two floats is exact in double (24 + 24 < 53 bits): one rounding per element. */
INL double sdot_wide_l(int64_t n, const float *x, const float *y, const int L) {
    double a[LD] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % L] = fma((double)x[i], (double)y[i], a[i % L]);
    return ns_tree_d(a, L);
}

INL double ssumsq_wide_l(int64_t n, const float *x, const int L) {
    double a[LD] = {0};
    for (int64_t i = 0; i < n; i++)
        a[i % L] = fma((double)x[i], (double)x[i], a[i % L]);
    return ns_tree_d(a, L);
}

/* The kernels of one slot layout, named P##op: DP slots LD_, SP slots LS_, compensated LC_
 * (DP; SP twice as many), and their table. */
#define PLAIN_C_KERNELS(P, LD_, LS_, LC_)                                                          \
    static double P##dsum(int64_t n, const double *x) {                                            \
        return dsum_l(n, x, LD_);                                                                  \
    }                                                                                              \
    static ns_dd P##dsum_comp(int64_t n, const double *x) {                                        \
        return dsum_comp_l(n, x, LC_);                                                             \
    }                                                                                              \
    static double P##ddot(int64_t n, const double *x, const double *y) {                           \
        return ddot_l(n, x, y, LD_);                                                               \
    }                                                                                              \
    static ns_dd P##ddot_comp(int64_t n, const double *x, const double *y) {                       \
        return ddot_comp_l(n, x, y, LC_);                                                          \
    }                                                                                              \
    static double P##dsumsq(int64_t n, const double *x, double scale) {                            \
        return dsumsq_l(n, x, scale, LD_);                                                         \
    }                                                                                              \
    static float P##ssum(int64_t n, const float *x) {                                              \
        return ssum_l(n, x, LS_);                                                                  \
    }                                                                                              \
    static ns_ff P##ssum_comp(int64_t n, const float *x) {                                         \
        return ssum_comp_l(n, x, 2 * (LC_));                                                       \
    }                                                                                              \
    static double P##ssum_wide(int64_t n, const float *x) {                                        \
        return ssum_wide_l(n, x, LD_);                                                             \
    }                                                                                              \
    static float P##sdot(int64_t n, const float *x, const float *y) {                              \
        return sdot_l(n, x, y, LS_);                                                               \
    }                                                                                              \
    static ns_ff P##sdot_comp(int64_t n, const float *x, const float *y) {                         \
        return sdot_comp_l(n, x, y, 2 * (LC_));                                                    \
    }                                                                                              \
    static double P##sdot_wide(int64_t n, const float *x, const float *y) {                        \
        return sdot_wide_l(n, x, y, LD_);                                                          \
    }                                                                                              \
    static double P##ssumsq_wide(int64_t n, const float *x) {                                      \
        return ssumsq_wide_l(n, x, LD_);                                                           \
    }
#define PLAIN_C_TABLE(P, ISA, LD_, LS_, LC_)                                                       \
    {                                                                                              \
        .isa = ISA, .slots_d = LD_, .slots_s = LS_, .slots_comp = LC_, .dsum = P##dsum,            \
        .dsum_comp = P##dsum_comp, .ddot = P##ddot, .ddot_comp = P##ddot_comp,                     \
        .dsumsq = P##dsumsq, .ssum = P##ssum, .ssum_comp = P##ssum_comp,                           \
        .ssum_wide = P##ssum_wide, .sdot = P##sdot, .sdot_comp = P##sdot_comp,                     \
        .sdot_wide = P##sdot_wide, .ssumsq_wide = P##ssumsq_wide, .idamax = ns_red_c_idamax,       \
        .isamax = ns_red_c_isamax                                                                  \
    }

/* The plain-C ("scalar") kernels use the AVX-512 layout; c32_ are the AVX2 layout's twins
 * (reduce_ukr_avx2_8x4.c). */
PLAIN_C_KERNELS(c_, NS_RED_SLOTS_AVX512_D, NS_RED_SLOTS_AVX512_S, NS_RED_SLOTS_AVX512_COMP)
PLAIN_C_KERNELS(c32_, NS_RED_SLOTS_AVX2_D, NS_RED_SLOTS_AVX2_S, NS_RED_SLOTS_AVX2_COMP)

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

const ns_reduce_ukrs ns_reduce_ukrs_scalar = PLAIN_C_TABLE(
    c_, "scalar", NS_RED_SLOTS_AVX512_D, NS_RED_SLOTS_AVX512_S, NS_RED_SLOTS_AVX512_COMP);
static const ns_reduce_ukrs plain_c_avx2_layout = PLAIN_C_TABLE(
    c32_, "scalar/avx2-slots", NS_RED_SLOTS_AVX2_D, NS_RED_SLOTS_AVX2_S, NS_RED_SLOTS_AVX2_COMP);

const ns_reduce_ukrs *ns_reduce_ukrs_plain_c(const ns_reduce_ukrs *u) {
    const ns_reduce_ukrs *t[] = {&ns_reduce_ukrs_scalar, &plain_c_avx2_layout};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i]->slots_d == u->slots_d && t[i]->slots_s == u->slots_s &&
            t[i]->slots_comp == u->slots_comp)
            return t[i];
    return NULL;
}
