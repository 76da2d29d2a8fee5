/* AVX2+FMA reduction micro-kernels. Register tile: 8 accumulator registers of 4 DP lanes (32
 * slots) or 8 SP lanes (64 slots); the compensated kernels keep 4 sum and 4 compensation
 * registers (16 DP / 32 SP slots), because 16 ymm registers cannot hold 8 pairs and the
 * temporaries of TwoSum. 8 chains cover the 4-cycle add/FMA latency on two ports (Intel
 * Optimization Reference Manual, ch. 2). After the vector loop the registers are stored as the
 * slot array, the tail (< one register tile) is added slot by slot in C, and the slot tree of
 * reduce_internal.h finishes. The max-abs kernels keep (max, index) pairs updated by compare and
 * blend (no mask registers in AVX2). */
#include <immintrin.h>
#include <math.h>

#include "kernels/reduce/reduce_internal.h"

enum { R = 8, RC = 4 };
_Static_assert(NS_RED_SLOTS_AVX2_D == 4 * R && NS_RED_SLOTS_AVX2_S == 8 * R &&
                   NS_RED_SLOTS_AVX2_COMP == 4 * RC,
               "the AVX2 slot counts are the registers' lanes");

static double y_dsum(int64_t n, const double *x) {
    __m256d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 * R <= n; i += 4 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm256_add_pd(a[k], _mm256_loadu_pd(x + i + 4 * k));
    double s[4 * R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        _mm256_storeu_pd(s + 4 * k, a[k]);
    for (int64_t r = 0; i + r < n; r++)
        s[r] += x[i + r];
    return ns_tree_d(s, 4 * R);
}

static double y_ddot(int64_t n, const double *x, const double *y) {
    __m256d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 * R <= n; i += 4 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm256_fmadd_pd(_mm256_loadu_pd(x + i + 4 * k), _mm256_loadu_pd(y + i + 4 * k),
                                   a[k]);
    double s[4 * R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        _mm256_storeu_pd(s + 4 * k, a[k]);
    for (int64_t r = 0; i + r < n; r++)
        s[r] = fma(x[i + r], y[i + r], s[r]);
    return ns_tree_d(s, 4 * R);
}

static double y_dsumsq(int64_t n, const double *x, double scale) {
    __m256d a[R], sc = _mm256_set1_pd(scale);
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 * R <= n; i += 4 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __m256d v = _mm256_loadu_pd(x + i + 4 * k);
            if (scale != 1.0) v = _mm256_mul_pd(v, sc);
            a[k] = _mm256_fmadd_pd(v, v, a[k]);
        }
    double s[4 * R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        _mm256_storeu_pd(s + 4 * k, a[k]);
    for (int64_t r = 0; i + r < n; r++) {
        double v = scale != 1.0 ? x[i + r] * scale : x[i + r];
        s[r] = fma(v, v, s[r]);
    }
    return ns_tree_d(s, 4 * R);
}

static float y_ssum(int64_t n, const float *x) {
    __m256 a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm256_add_ps(a[k], _mm256_loadu_ps(x + i + 8 * k));
    float s[8 * R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        _mm256_storeu_ps(s + 8 * k, a[k]);
    for (int64_t r = 0; i + r < n; r++)
        s[r] += x[i + r];
    return ns_tree_s(s, 8 * R);
}

static float y_sdot(int64_t n, const float *x, const float *y) {
    __m256 a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8 * k), _mm256_loadu_ps(y + i + 8 * k),
                                   a[k]);
    float s[8 * R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        _mm256_storeu_ps(s + 8 * k, a[k]);
    for (int64_t r = 0; i + r < n; r++)
        s[r] = fmaf(x[i + r], y[i + r], s[r]);
    return ns_tree_s(s, 8 * R);
}

static double y_ssum_wide(int64_t n, const float *x) {
    __m256d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 * R <= n; i += 4 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm256_add_pd(a[k], _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4 * k)));
    double s[4 * R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        _mm256_storeu_pd(s + 4 * k, a[k]);
    for (int64_t r = 0; i + r < n; r++)
        s[r] += (double)x[i + r];
    return ns_tree_d(s, 4 * R);
}

static double y_sdot_wide(int64_t n, const float *x, const float *y) {
    __m256d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 * R <= n; i += 4 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i + 4 * k)),
                                   _mm256_cvtps_pd(_mm_loadu_ps(y + i + 4 * k)), a[k]);
    double s[4 * R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        _mm256_storeu_pd(s + 4 * k, a[k]);
    for (int64_t r = 0; i + r < n; r++)
        s[r] = fma((double)x[i + r], (double)y[i + r], s[r]);
    return ns_tree_d(s, 4 * R);
}

static double y_ssumsq_wide(int64_t n, const float *x) {
    return y_sdot_wide(n, x, x);
}

/* ---- compensated: (s, c) pairs, TwoSum per element; see the AVX-512 file and Dot2 ---------- */

static inline void comp_add(__m256d *s, __m256d *c, __m256d x) {
    __m256d t = _mm256_add_pd(*s, x), z = _mm256_sub_pd(t, *s);
    __m256d e = _mm256_add_pd(_mm256_sub_pd(*s, _mm256_sub_pd(t, z)), _mm256_sub_pd(x, z));
    *s = t;
    *c = _mm256_add_pd(*c, e);
}
static inline void comp_add_s(__m256 *s, __m256 *c, __m256 x) {
    __m256 t = _mm256_add_ps(*s, x), z = _mm256_sub_ps(t, *s);
    __m256 e = _mm256_add_ps(_mm256_sub_ps(*s, _mm256_sub_ps(t, z)), _mm256_sub_ps(x, z));
    *s = t;
    *c = _mm256_add_ps(*c, e);
}

static ns_dd dd_finish(const __m256d *s, const __m256d *c, ns_dd *slot) {
    double ls[4], lc[4];
#pragma GCC unroll 8
    for (int k = 0; k < RC; k++) {
        _mm256_storeu_pd(ls, s[k]);
        _mm256_storeu_pd(lc, c[k]);
        for (int j = 0; j < 4; j++)
            slot[4 * k + j] = (ns_dd){ls[j], lc[j]};
    }
    return slot[0];
}
static ns_ff ff_finish(const __m256 *s, const __m256 *c, ns_ff *slot) {
    float ls[8], lc[8];
#pragma GCC unroll 8
    for (int k = 0; k < RC; k++) {
        _mm256_storeu_ps(ls, s[k]);
        _mm256_storeu_ps(lc, c[k]);
        for (int j = 0; j < 8; j++)
            slot[8 * k + j] = (ns_ff){ls[j], lc[j]};
    }
    return slot[0];
}

static ns_dd y_dsum_comp(int64_t n, const double *x) {
    __m256d s[RC], c[RC];
#pragma GCC unroll 8
    for (int k = 0; k < RC; k++)
        s[k] = c[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 * RC <= n; i += 4 * RC)
#pragma GCC unroll 8
        for (int k = 0; k < RC; k++)
            comp_add(&s[k], &c[k], _mm256_loadu_pd(x + i + 4 * k));
    ns_dd slot[4 * RC];
    dd_finish(s, c, slot);
    for (int64_t r = 0; i + r < n; r++)
        slot[r] = ns_dd_combine(slot[r], (ns_dd){x[i + r], 0.0});
    return ns_tree_dd(slot, 4 * RC);
}

static ns_dd y_ddot_comp(int64_t n, const double *x, const double *y) {
    __m256d s[RC], c[RC];
#pragma GCC unroll 8
    for (int k = 0; k < RC; k++)
        s[k] = c[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 4 * RC <= n; i += 4 * RC)
#pragma GCC unroll 8
        for (int k = 0; k < RC; k++) {
            __m256d a = _mm256_loadu_pd(x + i + 4 * k), b = _mm256_loadu_pd(y + i + 4 * k);
            __m256d p = _mm256_mul_pd(a, b), ep = _mm256_fmsub_pd(a, b, p);
            __m256d t = _mm256_add_pd(s[k], p), z = _mm256_sub_pd(t, s[k]);
            __m256d e =
                _mm256_add_pd(_mm256_sub_pd(s[k], _mm256_sub_pd(t, z)), _mm256_sub_pd(p, z));
            s[k] = t;
            c[k] = _mm256_add_pd(c[k], _mm256_add_pd(ep, e));
        }
    ns_dd slot[4 * RC];
    dd_finish(s, c, slot);
    for (int64_t r = 0; i + r < n; r++) {
        double p = x[i + r] * y[i + r], ep = fma(x[i + r], y[i + r], -p);
        ns_dd t = ns_dd_combine((ns_dd){slot[r].s, 0.0}, (ns_dd){p, 0.0});
        slot[r] = (ns_dd){t.s, slot[r].c + (ep + t.c)};
    }
    return ns_tree_dd(slot, 4 * RC);
}

static ns_ff y_ssum_comp(int64_t n, const float *x) {
    __m256 s[RC], c[RC];
#pragma GCC unroll 8
    for (int k = 0; k < RC; k++)
        s[k] = c[k] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 * RC <= n; i += 8 * RC)
#pragma GCC unroll 8
        for (int k = 0; k < RC; k++)
            comp_add_s(&s[k], &c[k], _mm256_loadu_ps(x + i + 8 * k));
    ns_ff slot[8 * RC];
    ff_finish(s, c, slot);
    for (int64_t r = 0; i + r < n; r++)
        slot[r] = ns_ff_combine(slot[r], (ns_ff){x[i + r], 0.0f});
    return ns_tree_ff(slot, 8 * RC);
}

static ns_ff y_sdot_comp(int64_t n, const float *x, const float *y) {
    __m256 s[RC], c[RC];
#pragma GCC unroll 8
    for (int k = 0; k < RC; k++)
        s[k] = c[k] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 * RC <= n; i += 8 * RC)
#pragma GCC unroll 8
        for (int k = 0; k < RC; k++) {
            __m256 a = _mm256_loadu_ps(x + i + 8 * k), b = _mm256_loadu_ps(y + i + 8 * k);
            __m256 p = _mm256_mul_ps(a, b), ep = _mm256_fmsub_ps(a, b, p);
            __m256 t = _mm256_add_ps(s[k], p), z = _mm256_sub_ps(t, s[k]);
            __m256 e = _mm256_add_ps(_mm256_sub_ps(s[k], _mm256_sub_ps(t, z)), _mm256_sub_ps(p, z));
            s[k] = t;
            c[k] = _mm256_add_ps(c[k], _mm256_add_ps(ep, e));
        }
    ns_ff slot[8 * RC];
    ff_finish(s, c, slot);
    for (int64_t r = 0; i + r < n; r++) {
        float p = x[i + r] * y[i + r], ep = fmaf(x[i + r], y[i + r], -p);
        ns_ff t = ns_ff_combine((ns_ff){slot[r].s, 0.0f}, (ns_ff){p, 0.0f});
        slot[r] = (ns_ff){t.s, slot[r].c + (ep + t.c)};
    }
    return ns_tree_ff(slot, 8 * RC);
}

/* ---- max |x| with its index: as the AVX-512 kernels, with compare masks and blends -------- *
 * (a vector merge: the largest lane value, then its smallest index). The rest after the full
 * blocks is one masked block (maskload; lanes at or past n take nothing) when it holds AMAX_TAIL
 * elements or more, else plain C; a range shorter than AMAX_MIN_D (_S) is plain C alone. Measured
 * per call on the VM: plain C ~1.3 ns per element, a masked block ~23 ns, a masked tail ~11 ns
 * over the full blocks; the cutoffs are the crossovers (for doubles that is the one-block cutoff,
 * 4 * RM, kept; for floats the old 8 * RM sent n = 31 to C at ~42 ns against ~23 ns masked). */
enum { RM = 4, AMAX_MIN_D = 16, AMAX_MIN_S = 20, AMAX_TAIL = 12 };
_Static_assert(AMAX_MIN_D >= AMAX_TAIL && AMAX_MIN_S >= AMAX_TAIL,
               "a range past the cutoff is all one masked block");
_Static_assert(RM == 4, "y_idamax merges its four registers in a tree");

static inline __m256i min_epi64(__m256i a, __m256i b) {
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}

static int64_t y_idamax(int64_t n, const double *x, double *amax) {
    if (n < AMAX_MIN_D) return ns_red_c_idamax(n, x, amax);
    const __m256d sign = _mm256_set1_pd(-0.0);
    __m256d m[RM], nan = _mm256_setzero_pd();
    __m256i ix[RM], cur = _mm256_set_epi64x(3, 2, 1, 0);
    const __m256i step = _mm256_set1_epi64x(4);
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++)
        m[k] = _mm256_set1_pd(-1.0), ix[k] = _mm256_setzero_si256();
    int64_t i = 0;
    for (; i + 4 * RM <= n; i += 4 * RM)
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __m256d v = _mm256_andnot_pd(sign, _mm256_loadu_pd(x + i + 4 * k));
            nan = _mm256_or_pd(nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
            __m256d gt = _mm256_cmp_pd(v, m[k], _CMP_GT_OQ);
            m[k] = _mm256_blendv_pd(m[k], v, gt);
            ix[k] = _mm256_castpd_si256(
                _mm256_blendv_pd(_mm256_castsi256_pd(ix[k]), _mm256_castsi256_pd(cur), gt));
            cur = _mm256_add_epi64(cur, step);
        }
    if (n - i >= AMAX_TAIL) { /* the rest as one masked block: lanes past n take nothing */
        const __m256i nv = _mm256_set1_epi64x(n);
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __m256i lm = _mm256_cmpgt_epi64(nv, cur);
            __m256d v = _mm256_andnot_pd(sign, _mm256_maskload_pd(x + i + 4 * k, lm));
            nan = _mm256_or_pd(nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
            __m256d gt = _mm256_and_pd(_mm256_cmp_pd(v, m[k], _CMP_GT_OQ),
                                       _mm256_castsi256_pd(lm));
            m[k] = _mm256_blendv_pd(m[k], v, gt);
            ix[k] = _mm256_castpd_si256(
                _mm256_blendv_pd(_mm256_castsi256_pd(ix[k]), _mm256_castsi256_pd(cur), gt));
            cur = _mm256_add_epi64(cur, step);
        }
        i = n;
    }
    if (_mm256_movemask_pd(nan)) return ns_red_c_idamax(n, x, amax);
    __m256d mx = m[0];
#pragma GCC unroll 8
    for (int k = 1; k < RM; k++)
        mx = _mm256_max_pd(mx, m[k]);
    __m128d h = _mm_max_pd(_mm256_castpd256_pd128(mx), _mm256_extractf128_pd(mx, 1));
    double best = _mm_cvtsd_f64(_mm_max_sd(h, _mm_unpackhi_pd(h, h)));
    const __m256d b = _mm256_set1_pd(best);
    const __m256i none = _mm256_set1_epi64x(INT64_MAX);
    __m256i c[RM];
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++) /* the lane's index where it holds best, else none */
        c[k] = _mm256_blendv_epi8(none, ix[k],
                                  _mm256_castpd_si256(_mm256_cmp_pd(m[k], b, _CMP_EQ_OQ)));
    __m256i lo = min_epi64(min_epi64(c[0], c[1]), min_epi64(c[2], c[3]));
    __m128i l = _mm256_castsi256_si128(lo), u = _mm256_extracti128_si256(lo, 1);
    l = _mm_blendv_epi8(l, u, _mm_cmpgt_epi64(l, u));
    u = _mm_unpackhi_epi64(l, l);
    int64_t bi = _mm_cvtsi128_si64(_mm_blendv_epi8(l, u, _mm_cmpgt_epi64(l, u)));
    double tm;
    int64_t ti = i < n ? i + ns_red_c_idamax(n - i, x + i, &tm) : -1;
    if (ti >= 0 && (isnan(tm) || tm > best)) best = tm, bi = ti;
    *amax = best;
    return bi;
}

/* Lane indices are 32-bit, counted from the start of chunks of at most 2^30 elements. */
static int64_t y_isamax_chunk(int64_t n, const float *x, float *amax) {
    if (n < AMAX_MIN_S) return ns_red_c_isamax(n, x, amax);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 m[RM], nan = _mm256_setzero_ps();
    __m256i ix[RM], cur = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
    const __m256i step = _mm256_set1_epi32(8);
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++)
        m[k] = _mm256_set1_ps(-1.0f), ix[k] = _mm256_setzero_si256();
    int64_t i = 0;
    for (; i + 8 * RM <= n; i += 8 * RM)
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __m256 v = _mm256_andnot_ps(sign, _mm256_loadu_ps(x + i + 8 * k));
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
            __m256 gt = _mm256_cmp_ps(v, m[k], _CMP_GT_OQ);
            m[k] = _mm256_blendv_ps(m[k], v, gt);
            ix[k] = _mm256_castps_si256(
                _mm256_blendv_ps(_mm256_castsi256_ps(ix[k]), _mm256_castsi256_ps(cur), gt));
            cur = _mm256_add_epi32(cur, step);
        }
    if (n - i >= AMAX_TAIL) { /* the rest as one masked block: lanes past n take nothing */
        const __m256i nv = _mm256_set1_epi32((int)n);
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __m256i lm = _mm256_cmpgt_epi32(nv, cur);
            __m256 v = _mm256_andnot_ps(sign, _mm256_maskload_ps(x + i + 8 * k, lm));
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
            __m256 gt = _mm256_and_ps(_mm256_cmp_ps(v, m[k], _CMP_GT_OQ),
                                      _mm256_castsi256_ps(lm));
            m[k] = _mm256_blendv_ps(m[k], v, gt);
            ix[k] = _mm256_castps_si256(
                _mm256_blendv_ps(_mm256_castsi256_ps(ix[k]), _mm256_castsi256_ps(cur), gt));
            cur = _mm256_add_epi32(cur, step);
        }
        i = n;
    }
    if (_mm256_movemask_ps(nan)) return ns_red_c_isamax(n, x, amax);
    __m256 mx = m[0];
#pragma GCC unroll 8
    for (int k = 1; k < RM; k++)
        mx = _mm256_max_ps(mx, m[k]);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    float best = _mm_cvtss_f32(_mm_max_ss(h, _mm_shuffle_ps(h, h, 1)));
    const __m256 b = _mm256_set1_ps(best);
    const __m256i none = _mm256_set1_epi32(INT32_MAX);
    __m256i lo = none;
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++) {
        __m256i eq = _mm256_castps_si256(_mm256_cmp_ps(m[k], b, _CMP_EQ_OQ));
        lo = _mm256_min_epi32(lo, _mm256_blendv_epi8(none, ix[k], eq));
    }
    __m128i l = _mm_min_epi32(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1));
    l = _mm_min_epi32(l, _mm_unpackhi_epi64(l, l));
    int64_t bi = _mm_cvtsi128_si32(_mm_min_epi32(l, _mm_shuffle_epi32(l, 1)));
    float tm;
    int64_t ti = i < n ? i + ns_red_c_isamax(n - i, x + i, &tm) : -1;
    if (ti >= 0 && (isnan(tm) || tm > best)) best = tm, bi = ti;
    *amax = best;
    return bi;
}

static int64_t y_isamax(int64_t n, const float *x, float *amax) {
    if (n < AMAX_MIN_S) return ns_red_c_isamax(n, x, amax);
    return ns_red_isamax_chunked(n, x, amax, y_isamax_chunk);
}

const ns_reduce_ukrs ns_reduce_ukrs_avx2 = {
    .isa = "avx2",
    .slots_d = NS_RED_SLOTS_AVX2_D,
    .slots_s = NS_RED_SLOTS_AVX2_S,
    .slots_comp = NS_RED_SLOTS_AVX2_COMP,
    .dsum = y_dsum,
    .dsum_comp = y_dsum_comp,
    .ddot = y_ddot,
    .ddot_comp = y_ddot_comp,
    .dsumsq = y_dsumsq,
    .ssum = y_ssum,
    .ssum_comp = y_ssum_comp,
    .ssum_wide = y_ssum_wide,
    .sdot = y_sdot,
    .sdot_comp = y_sdot_comp,
    .sdot_wide = y_sdot_wide,
    .ssumsq_wide = y_ssumsq_wide,
    .idamax = y_idamax,
    .isamax = y_isamax,
};
