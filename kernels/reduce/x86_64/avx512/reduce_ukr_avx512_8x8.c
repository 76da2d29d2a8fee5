/* AVX-512 reduction micro-kernels. Register tile: 8 accumulator registers of 8 DP lanes (64
 * slots) or 16 SP lanes (128 slots). Why 8: an add or FMA on zmm has a latency of 4 cycles and
 * two issue ports on Intel server cores since Skylake-SP (Intel Optimization Reference Manual,
 * ch. 2), so 8 independent chains keep both ports busy; two 64-byte loads a cycle then limit an
 * L1-resident sum. Loads are unaligned (no peel), so a range's result never depends on its
 * address; the tail of a range is read with masked loads, whose zero lanes add nothing (slots
 * start at +0.0 and x + 0.0 == x for every x != -0.0 reached from +0.0).
 * Slot order and combine tree follow reduce_internal.h, so results equal reduce_ukr_c.c's
 * bitwise. The compensated kernels keep 8 sum and 8 compensation registers (64 DP slots).
 * Their cost is issue, not latency: each slot's loop-carried chains are one add (s) and one add
 * (c), hidden by the 8 independent pairs. Knuth's branch-free TwoSum is 6 ops, the fewest with
 * additions alone (Kornerup, Lefevre, Louvet, Muller, IEEE TC 61(3), 2012); VRANGEPD's max-abs
 * and min-abs make FastTwoSum branch-free in 5, so a compensated sum issues 6 vector ops per 8
 * doubles against 1 for the plain sum, a compensated dot 9 per 16. With that much arithmetic per
 * line the loads run too few lines ahead at DRAM sizes; a software prefetch keeps them ahead. */
#include <immintrin.h>

#include "kernels/reduce/reduce_internal.h"

enum { R = 8 };
_Static_assert(NS_RED_SLOTS_AVX512_D == 8 * R && NS_RED_SLOTS_AVX512_S == 16 * R &&
                   NS_RED_SLOTS_AVX512_COMP == 8 * R,
               "the AVX-512 slot counts are the registers' lanes");
/* Software prefetch distance of the compensated loops, bytes ahead. Their ~7 vector ops per
 * cache line fill the out-of-order window with arithmetic, so demand loads alone run too few
 * lines ahead at DRAM (measured ~0.7x plain without, ~0.9-1.0x with, one thread on this VM). */
#define PF_BYTES 8192
static inline void pf(const void *p) {
    _mm_prefetch((const char *)p + PF_BYTES, _MM_HINT_T0);
}

static inline __mmask8 mask_d(int64_t rem, int k) {
    int64_t c = rem - 8 * (int64_t)k;
    return c <= 0 ? 0 : c >= 8 ? 0xff : (__mmask8)((1u << c) - 1);
}
static inline __mmask16 mask_s(int64_t rem, int k) {
    int64_t c = rem - 16 * (int64_t)k;
    return c <= 0 ? 0 : c >= 16 ? 0xffff : (__mmask16)((1u << c) - 1);
}

/* The slot tree (h = 32, 16, 8 slots for DP: register pairs; then 4, 2, 1: lane halves), all in
 * registers: the order of ns_tree_d over the 64 slots, without a trip through memory. */
static inline double tree_d(__m512d *a) {
    a[0] = _mm512_add_pd(a[0], a[4]), a[1] = _mm512_add_pd(a[1], a[5]);
    a[2] = _mm512_add_pd(a[2], a[6]), a[3] = _mm512_add_pd(a[3], a[7]);
    a[0] = _mm512_add_pd(a[0], a[2]), a[1] = _mm512_add_pd(a[1], a[3]);
    a[0] = _mm512_add_pd(a[0], a[1]);
    __m256d q = _mm256_add_pd(_mm512_castpd512_pd256(a[0]), _mm512_extractf64x4_pd(a[0], 1));
    __m128d d = _mm_add_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
    return _mm_cvtsd_f64(_mm_add_sd(d, _mm_unpackhi_pd(d, d)));
}
static inline float tree_s(__m512 *a) {
    a[0] = _mm512_add_ps(a[0], a[4]), a[1] = _mm512_add_ps(a[1], a[5]);
    a[2] = _mm512_add_ps(a[2], a[6]), a[3] = _mm512_add_ps(a[3], a[7]);
    a[0] = _mm512_add_ps(a[0], a[2]), a[1] = _mm512_add_ps(a[1], a[3]);
    a[0] = _mm512_add_ps(a[0], a[1]);
    __m256 o = _mm256_add_ps(_mm512_castps512_ps256(a[0]),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a[0]), 1)));
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(o), _mm256_extractf128_ps(o, 1));
    __m128 d = _mm_add_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_add_ss(d, _mm_shuffle_ps(d, d, 1)));
}

/* Error-free addition by FastTwoSum on ordered operands (Dekker 1971): hi = the larger in
 * magnitude, lo = the other, t = hi + lo, e = lo - (t - hi), exact when |hi| >= |lo|. VRANGEPD
 * picks them without a branch (imm 0x7: max-abs, 0x6: min-abs, sign of the value picked; on a
 * magnitude tie the two calls still return the two operands). 5 ops against TwoSum's 6, and the
 * same t and e bitwise (both are the exact error), so results equal reduce_ukr_c.c's. t is
 * s + x, not hi + lo (the same value otherwise): VRANGE returns the other operand when one is
 * a quiet NaN, so hi + lo would drop a NaN input; s + x propagates it. */
#define RANGE_MAXABS 0x7
#define RANGE_MINABS 0x6
static inline __m512d two_sum_d(__m512d s, __m512d x, __m512d *e) {
    __m512d hi = _mm512_range_pd(s, x, RANGE_MAXABS), lo = _mm512_range_pd(x, s, RANGE_MINABS);
    __m512d t = _mm512_add_pd(s, x);
    *e = _mm512_sub_pd(lo, _mm512_sub_pd(t, hi));
    return t;
}
static inline __m512 two_sum_s(__m512 s, __m512 x, __m512 *e) {
    __m512 hi = _mm512_range_ps(s, x, RANGE_MAXABS), lo = _mm512_range_ps(x, s, RANGE_MINABS);
    __m512 t = _mm512_add_ps(s, x);
    *e = _mm512_sub_ps(lo, _mm512_sub_ps(t, hi));
    return t;
}

/* (s, c) += x; the vector form of ns_dd_combine with a zero compensation. */
static inline void comp_add_d(__m512d *s, __m512d *c, __m512d x) {
    __m512d e;
    *s = two_sum_d(*s, x, &e);
    *c = _mm512_add_pd(*c, e);
}
static inline void comp_add_s(__m512 *s, __m512 *c, __m512 x) {
    __m512 e;
    *s = two_sum_s(*s, x, &e);
    *c = _mm512_add_ps(*c, e);
}
/* (s, c) += x*y: TwoProduct by FMA, then the error-free sum; both errors join c (Ogita-Rump-Oishi
 * Dot2). */
static inline void comp_fma_d(__m512d *s, __m512d *c, __m512d x, __m512d y) {
    __m512d p = _mm512_mul_pd(x, y), ep = _mm512_fmsub_pd(x, y, p), e;
    *s = two_sum_d(*s, p, &e);
    *c = _mm512_add_pd(*c, _mm512_add_pd(ep, e));
}
static inline void comp_fma_s(__m512 *s, __m512 *c, __m512 x, __m512 y) {
    __m512 p = _mm512_mul_ps(x, y), ep = _mm512_fmsub_ps(x, y, p), e;
    *s = two_sum_s(*s, p, &e);
    *c = _mm512_add_ps(*c, _mm512_add_ps(ep, e));
}

/* Slot k += slot k + h of the compensated tree (ns_dd_combine on registers). */
static inline void comb_d(__m512d *s, __m512d *c, int k, int h) {
    __m512d t = _mm512_add_pd(s[k], s[k + h]), z = _mm512_sub_pd(t, s[k]);
    __m512d e = _mm512_add_pd(_mm512_sub_pd(s[k], _mm512_sub_pd(t, z)), _mm512_sub_pd(s[k + h], z));
    s[k] = t;
    c[k] = _mm512_add_pd(_mm512_add_pd(c[k], c[k + h]), e);
}
static inline void comb_s(__m512 *s, __m512 *c, int k, int h) {
    __m512 t = _mm512_add_ps(s[k], s[k + h]), z = _mm512_sub_ps(t, s[k]);
    __m512 e = _mm512_add_ps(_mm512_sub_ps(s[k], _mm512_sub_ps(t, z)), _mm512_sub_ps(s[k + h], z));
    s[k] = t;
    c[k] = _mm512_add_ps(_mm512_add_ps(c[k], c[k + h]), e);
}

static inline ns_dd tree_dd(__m512d *s, __m512d *c) {
    comb_d(s, c, 0, 4), comb_d(s, c, 1, 4), comb_d(s, c, 2, 4), comb_d(s, c, 3, 4);
    comb_d(s, c, 0, 2), comb_d(s, c, 1, 2), comb_d(s, c, 0, 1);
    double ls[8], lc[8];
    _mm512_storeu_pd(ls, s[0]);
    _mm512_storeu_pd(lc, c[0]);
    ns_dd l[8];
    for (int j = 0; j < 8; j++)
        l[j] = (ns_dd){ls[j], lc[j]};
    return ns_tree_dd(l, 8);
}
static inline ns_ff tree_ff(__m512 *s, __m512 *c) {
    comb_s(s, c, 0, 4), comb_s(s, c, 1, 4), comb_s(s, c, 2, 4), comb_s(s, c, 3, 4);
    comb_s(s, c, 0, 2), comb_s(s, c, 1, 2), comb_s(s, c, 0, 1);
    float ls[16], lc[16];
    _mm512_storeu_ps(ls, s[0]);
    _mm512_storeu_ps(lc, c[0]);
    ns_ff l[16];
    for (int j = 0; j < 16; j++)
        l[j] = (ns_ff){ls[j], lc[j]};
    return ns_tree_ff(l, 16);
}

/* ---- DP -------------------------------------------------------------------------------------- */

static double z_dsum(int64_t n, const double *x) {
    __m512d a[R]; /* indexed only by constants after unrolling: stays in registers */
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_add_pd(a[k], _mm512_loadu_pd(x + i + 8 * k));
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_add_pd(a[k], _mm512_maskz_loadu_pd(mask_d(n - i, k), x + i + 8 * k));
    return tree_d(a);
}

static double z_ddot(int64_t n, const double *x, const double *y) {
    __m512d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_fmadd_pd(_mm512_loadu_pd(x + i + 8 * k), _mm512_loadu_pd(y + i + 8 * k),
                                   a[k]);
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __mmask8 m = mask_d(n - i, k);
            a[k] = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, x + i + 8 * k),
                                   _mm512_maskz_loadu_pd(m, y + i + 8 * k), a[k]);
        }
    return tree_d(a);
}

static double z_dsumsq(int64_t n, const double *x, double scale) {
    __m512d a[R], sc = _mm512_set1_pd(scale);
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_pd();
    int64_t i = 0;
    if (scale == 1.0) {
        for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
            for (int k = 0; k < R; k++) {
                __m512d v = _mm512_loadu_pd(x + i + 8 * k);
                a[k] = _mm512_fmadd_pd(v, v, a[k]);
            }
    } else {
        for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
            for (int k = 0; k < R; k++) {
                __m512d v = _mm512_mul_pd(_mm512_loadu_pd(x + i + 8 * k), sc);
                a[k] = _mm512_fmadd_pd(v, v, a[k]);
            }
    }
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __m512d v = _mm512_maskz_loadu_pd(mask_d(n - i, k), x + i + 8 * k);
            if (scale != 1.0) v = _mm512_mul_pd(v, sc);
            a[k] = _mm512_fmadd_pd(v, v, a[k]);
        }
    return tree_d(a);
}

static ns_dd z_dsum_comp(int64_t n, const double *x) {
    __m512d s[R], c[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        s[k] = c[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            pf(x + i + 8 * k);
            comp_add_d(&s[k], &c[k], _mm512_loadu_pd(x + i + 8 * k));
        }
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            comp_add_d(&s[k], &c[k], _mm512_maskz_loadu_pd(mask_d(n - i, k), x + i + 8 * k));
    return tree_dd(s, c);
}

static ns_dd z_ddot_comp(int64_t n, const double *x, const double *y) {
    __m512d s[R], c[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        s[k] = c[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            pf(x + i + 8 * k);
            pf(y + i + 8 * k);
            comp_fma_d(&s[k], &c[k], _mm512_loadu_pd(x + i + 8 * k),
                       _mm512_loadu_pd(y + i + 8 * k));
        }
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __mmask8 m = mask_d(n - i, k);
            comp_fma_d(&s[k], &c[k], _mm512_maskz_loadu_pd(m, x + i + 8 * k),
                       _mm512_maskz_loadu_pd(m, y + i + 8 * k));
        }
    return tree_dd(s, c);
}

/* ---- SP accumulated in SP (128 slots) -------------------------------------------------------- */

static float z_ssum(int64_t n, const float *x) {
    __m512 a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 * R <= n; i += 16 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_add_ps(a[k], _mm512_loadu_ps(x + i + 16 * k));
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_add_ps(a[k], _mm512_maskz_loadu_ps(mask_s(n - i, k), x + i + 16 * k));
    return tree_s(a);
}

static float z_sdot(int64_t n, const float *x, const float *y) {
    __m512 a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 * R <= n; i += 16 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16 * k), _mm512_loadu_ps(y + i + 16 * k),
                                   a[k]);
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __mmask16 m = mask_s(n - i, k);
            a[k] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + i + 16 * k),
                                   _mm512_maskz_loadu_ps(m, y + i + 16 * k), a[k]);
        }
    return tree_s(a);
}

static ns_ff z_ssum_comp(int64_t n, const float *x) {
    __m512 s[R], c[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        s[k] = c[k] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 * R <= n; i += 16 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            pf(x + i + 16 * k);
            comp_add_s(&s[k], &c[k], _mm512_loadu_ps(x + i + 16 * k));
        }
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            comp_add_s(&s[k], &c[k], _mm512_maskz_loadu_ps(mask_s(n - i, k), x + i + 16 * k));
    return tree_ff(s, c);
}

static ns_ff z_sdot_comp(int64_t n, const float *x, const float *y) {
    __m512 s[R], c[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        s[k] = c[k] = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 16 * R <= n; i += 16 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            pf(x + i + 16 * k), pf(y + i + 16 * k);
            comp_fma_s(&s[k], &c[k], _mm512_loadu_ps(x + i + 16 * k),
                       _mm512_loadu_ps(y + i + 16 * k));
        }
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __mmask16 m = mask_s(n - i, k);
            comp_fma_s(&s[k], &c[k], _mm512_maskz_loadu_ps(m, x + i + 16 * k),
                       _mm512_maskz_loadu_ps(m, y + i + 16 * k));
        }
    return tree_ff(s, c);
}

/* ---- SP input accumulated in DP (64 DP slots; 8 floats widened per register) ----------------- */

static inline __m512d widen(__mmask8 m, const float *p) {
    return _mm512_cvtps_pd(_mm256_maskz_loadu_ps(m, p));
}

static double z_ssum_wide(int64_t n, const float *x) {
    __m512d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_add_pd(a[k], _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8 * k)));
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_add_pd(a[k], widen(mask_d(n - i, k), x + i + 8 * k));
    return tree_d(a);
}

static double z_sdot_wide(int64_t n, const float *x, const float *y) {
    __m512d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++)
            a[k] = _mm512_fmadd_pd(_mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8 * k)),
                                   _mm512_cvtps_pd(_mm256_loadu_ps(y + i + 8 * k)), a[k]);
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __mmask8 m = mask_d(n - i, k);
            a[k] = _mm512_fmadd_pd(widen(m, x + i + 8 * k), widen(m, y + i + 8 * k), a[k]);
        }
    return tree_d(a);
}

static double z_ssumsq_wide(int64_t n, const float *x) {
    __m512d a[R];
#pragma GCC unroll 8
    for (int k = 0; k < R; k++)
        a[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 8 * R <= n; i += 8 * R)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __m512d v = _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8 * k));
            a[k] = _mm512_fmadd_pd(v, v, a[k]);
        }
    if (i < n)
#pragma GCC unroll 8
        for (int k = 0; k < R; k++) {
            __m512d v = widen(mask_d(n - i, k), x + i + 8 * k);
            a[k] = _mm512_fmadd_pd(v, v, a[k]);
        }
    return tree_d(a);
}

/* ---- max |x| with its index ------------------------------------------------------------------
 * Four (max, index) register pairs; a lane takes a new element only when strictly greater, so
 * each lane holds its first maximum, and the lane merge prefers the smaller index on ties: the
 * result is the first maximum of the range. An unordered compare flags NaNs; a range holding one
 * is rescanned by the plain-C kernel, which returns the first NaN. The merge is vector work: the
 * largest lane value, then the smallest index among the lanes holding it (every lane holds a
 * real element once one block ran; a lane that took none keeps -1, below every real one). What
 * is left after the full blocks is one masked block (lanes past n take nothing) when it holds
 * AMAX_TAIL elements or more, else a plain-C loop; a range shorter than AMAX_MIN_D (_S) elements
 * is scanned in plain C alone, and a longer short one is a single masked block. Measured per call
 * on the AVX-512 VM (old: everything under one block, 8 * RM, in C, so n = 31 took ~51 ns against
 * ~21 ns at n = 32): plain C costs ~1.7 ns per double and ~1.3 per float, a masked block ~22 ns
 * (~32 for float), a masked tail ~11 ns over the full blocks: the cutoffs are the crossovers. */
enum { RM = 4, AMAX_MIN_D = 14, AMAX_MIN_S = 20, AMAX_TAIL = 8 };
_Static_assert(AMAX_MIN_D >= AMAX_TAIL && AMAX_MIN_S >= AMAX_TAIL,
               "a range past the cutoff is all one masked block");

static int64_t z_idamax(int64_t n, const double *x, double *amax) {
    if (n < AMAX_MIN_D) return ns_red_c_idamax(n, x, amax);
    __m512d m[RM];
    __m512i ix[RM];
    __m512i cur = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i step = _mm512_set1_epi64(8);
    __mmask8 nan = 0;
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++)
        m[k] = _mm512_set1_pd(-1.0), ix[k] = _mm512_setzero_si512();
    int64_t i = 0;
    for (; i + 8 * RM <= n; i += 8 * RM)
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __m512d v = _mm512_abs_pd(_mm512_loadu_pd(x + i + 8 * k));
            nan |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);
            __mmask8 gt = _mm512_cmp_pd_mask(v, m[k], _CMP_GT_OQ);
            m[k] = _mm512_mask_mov_pd(m[k], gt, v);
            ix[k] = _mm512_mask_mov_epi64(ix[k], gt, cur);
            cur = _mm512_add_epi64(cur, step);
        }
    if (n - i >= AMAX_TAIL) { /* the rest as one masked block: lanes past n take nothing */
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __mmask8 lm = mask_d(n - i, k);
            __m512d v = _mm512_abs_pd(_mm512_maskz_loadu_pd(lm, x + i + 8 * k));
            nan |= _mm512_mask_cmp_pd_mask(lm, v, v, _CMP_UNORD_Q);
            __mmask8 gt = _mm512_mask_cmp_pd_mask(lm, v, m[k], _CMP_GT_OQ);
            m[k] = _mm512_mask_mov_pd(m[k], gt, v);
            ix[k] = _mm512_mask_mov_epi64(ix[k], gt, cur);
            cur = _mm512_add_epi64(cur, step);
        }
        i = n;
    }
    if (nan) return ns_red_c_idamax(n, x, amax);
    __m512d mx = m[0];
#pragma GCC unroll 8
    for (int k = 1; k < RM; k++)
        mx = _mm512_max_pd(mx, m[k]);
    double best = _mm512_reduce_max_pd(mx);
    const __m512d b = _mm512_set1_pd(best);
    __m512i lo = _mm512_set1_epi64(INT64_MAX);
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++)
        lo = _mm512_mask_min_epi64(lo, _mm512_cmp_pd_mask(m[k], b, _CMP_EQ_OQ), lo, ix[k]);
    int64_t bi = _mm512_reduce_min_epi64(lo);
    for (; i < n; i++) {
        double v = x[i] < 0 ? -x[i] : x[i];
        if (v != v) return ns_red_c_idamax(n, x, amax);
        if (v > best) best = v, bi = i;
    }
    *amax = best;
    return bi;
}

/* Lane indices are 32-bit, counted from the start of chunks of at most 2^30 elements. */
static int64_t z_isamax_chunk(int64_t n, const float *x, float *amax) {
    if (n < AMAX_MIN_S) return ns_red_c_isamax(n, x, amax);
    __m512 m[RM];
    __m512i ix[RM];
    __m512i cur = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i step = _mm512_set1_epi32(16);
    __mmask16 nan = 0;
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++)
        m[k] = _mm512_set1_ps(-1.0f), ix[k] = _mm512_setzero_si512();
    int64_t i = 0;
    for (; i + 16 * RM <= n; i += 16 * RM)
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __m512 v = _mm512_abs_ps(_mm512_loadu_ps(x + i + 16 * k));
            nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
            __mmask16 gt = _mm512_cmp_ps_mask(v, m[k], _CMP_GT_OQ);
            m[k] = _mm512_mask_mov_ps(m[k], gt, v);
            ix[k] = _mm512_mask_mov_epi32(ix[k], gt, cur);
            cur = _mm512_add_epi32(cur, step);
        }
    if (n - i >= AMAX_TAIL) { /* the rest as one masked block: lanes past n take nothing */
#pragma GCC unroll 8
        for (int k = 0; k < RM; k++) {
            __mmask16 lm = mask_s(n - i, k);
            __m512 v = _mm512_abs_ps(_mm512_maskz_loadu_ps(lm, x + i + 16 * k));
            nan |= _mm512_mask_cmp_ps_mask(lm, v, v, _CMP_UNORD_Q);
            __mmask16 gt = _mm512_mask_cmp_ps_mask(lm, v, m[k], _CMP_GT_OQ);
            m[k] = _mm512_mask_mov_ps(m[k], gt, v);
            ix[k] = _mm512_mask_mov_epi32(ix[k], gt, cur);
            cur = _mm512_add_epi32(cur, step);
        }
        i = n;
    }
    if (nan) return ns_red_c_isamax(n, x, amax);
    __m512 mx = m[0];
#pragma GCC unroll 8
    for (int k = 1; k < RM; k++)
        mx = _mm512_max_ps(mx, m[k]);
    float best = _mm512_reduce_max_ps(mx);
    const __m512 b = _mm512_set1_ps(best);
    __m512i lo = _mm512_set1_epi32(INT32_MAX);
#pragma GCC unroll 8
    for (int k = 0; k < RM; k++)
        lo = _mm512_mask_min_epi32(lo, _mm512_cmp_ps_mask(m[k], b, _CMP_EQ_OQ), lo, ix[k]);
    int64_t bi = _mm512_reduce_min_epi32(lo);
    for (; i < n; i++) {
        float v = x[i] < 0 ? -x[i] : x[i];
        if (v != v) return ns_red_c_isamax(n, x, amax);
        if (v > best) best = v, bi = i;
    }
    *amax = best;
    return bi;
}

static int64_t z_isamax(int64_t n, const float *x, float *amax) {
    if (n < AMAX_MIN_S) return ns_red_c_isamax(n, x, amax);
    return ns_red_isamax_chunked(n, x, amax, z_isamax_chunk);
}

const ns_reduce_ukrs ns_reduce_ukrs_avx512 = {
    .isa = "avx512",
    .slots_d = NS_RED_SLOTS_AVX512_D,
    .slots_s = NS_RED_SLOTS_AVX512_S,
    .slots_comp = NS_RED_SLOTS_AVX512_COMP,
    .dsum = z_dsum,
    .dsum_comp = z_dsum_comp,
    .ddot = z_ddot,
    .ddot_comp = z_ddot_comp,
    .dsumsq = z_dsumsq,
    .ssum = z_ssum,
    .ssum_comp = z_ssum_comp,
    .ssum_wide = z_ssum_wide,
    .sdot = z_sdot,
    .sdot_comp = z_sdot_comp,
    .sdot_wide = z_sdot_wide,
    .ssumsq_wide = z_ssumsq_wide,
    .idamax = z_idamax,
    .isamax = z_isamax,
};
