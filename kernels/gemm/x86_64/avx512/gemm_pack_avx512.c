/* AVX-512 packing of a full 14-column B micro-panel (the NR of the AVX-512 micro-kernels) from
 * op(B) = B not transposed, column-major: column j of the panel is contiguous in k. The portable
 * packing copies such a panel one element at a time (14 loads and 14 scalar stores per step of
 * k: bound by the one store a cycle); here eight steps of k are loaded as one vector per column
 * and transposed in registers (two 8x8 transposes, 48 shuffles), then stored as eight rows of 14:
 * about 6 cycles per step instead of 14. Contract: gemm_internal.h (ns_gemm_pack_b14_*). */
#include <immintrin.h>

#include "kernels/gemm/gemm_internal.h"

#define NR 14

/* Transposes the 8x8 block r[0..7] (r[i] = 8 values of column i) in place, so that r[p] holds
 * element p of every column: unpack pairs, then swap 128-bit and 256-bit halves. */
static inline __attribute__((always_inline)) void transpose8_pd(__m512d r[8]) {
    __m512d t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);     /* c_i[0] c_i+1[0] c_i[2] c_i+1[2] ... */
        t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]); /* c_i[1] c_i+1[1] c_i[3] c_i+1[3] ... */
    }
    const __m512i lo128 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    const __m512i hi128 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (int h = 0; h < 8; h += 4) /* columns h..h+3 */
        for (int e = 0; e < 2; e++) {
            u[h + e] = _mm512_permutex2var_pd(t[h + e], lo128, t[h + 2 + e]);
            u[h + 2 + e] = _mm512_permutex2var_pd(t[h + e], hi128, t[h + 2 + e]);
        }
    /* u[k] (k < 4): element k (low 256 bits) and k + 4 (high) of columns 0-3; u[k + 4]: of 4-7 */
    const __m512i lo256 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    const __m512i hi256 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    for (int k = 0; k < 4; k++) {
        r[k] = _mm512_permutex2var_pd(u[k], lo256, u[k + 4]);
        r[k + 4] = _mm512_permutex2var_pd(u[k], hi256, u[k + 4]);
    }
}

void ns_gemm_pack_b14_avx512_d(void *dstv, const void *bv, int64_t ldb, int64_t kb) {
    double *dst = dstv;
    const double *b = bv;
    int64_t p = 0;
    for (; p + 8 <= kb; p += 8) {
        __m512d lo[8], hi[8];
        for (int j = 0; j < 8; j++)
            lo[j] = _mm512_loadu_pd(b + j * ldb + p);
        for (int j = 0; j < 8; j++)
            hi[j] = j < NR - 8 ? _mm512_loadu_pd(b + (8 + j) * ldb + p) : _mm512_setzero_pd();
        transpose8_pd(lo);
        transpose8_pd(hi);
        for (int q = 0; q < 8; q++) {
            _mm512_storeu_pd(dst + (p + q) * NR, lo[q]);
            _mm512_mask_storeu_pd(dst + (p + q) * NR + 8, (__mmask8)0x3F, hi[q]);
        }
    }
    for (; p < kb; p++)
        for (int j = 0; j < NR; j++)
            dst[p * NR + j] = b[j * ldb + p];
}

/* The same for 8 floats of each column at a time (256-bit rows): 8x8 float transposes. */
static inline __attribute__((always_inline)) void transpose8_ps(__m256 r[8]) {
    __m256 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]); /* c_i[0] c_i+1[0] c_i[1] c_i+1[1] | [4],[5] */
        t[i + 1] =
            _mm256_unpackhi_ps(r[i], r[i + 1]); /* c_i[2] c_i+1[2] c_i[3] c_i+1[3] | [6],[7] */
    }
    for (int h = 0; h < 8; h += 4)
        for (int e = 0; e < 2; e++) {
            /* columns h..h+3, elements 2e, 2e + 4 (low selector) and 2e + 1, 2e + 5 (high) */
            u[h + 2 * e] = _mm256_shuffle_ps(t[h + e], t[h + 2 + e], _MM_SHUFFLE(1, 0, 1, 0));
            u[h + 2 * e + 1] = _mm256_shuffle_ps(t[h + e], t[h + 2 + e], _MM_SHUFFLE(3, 2, 3, 2));
        }
    /* u[k] (k < 4): element k (low 128 bits) and k + 4 (high) of columns 0-3; u[k + 4]: of 4-7 */
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
        r[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
    }
}

void ns_gemm_pack_b14_avx512_s(void *dstv, const void *bv, int64_t ldb, int64_t kb) {
    float *dst = dstv;
    const float *b = bv;
    int64_t p = 0;
    for (; p + 8 <= kb; p += 8) {
        __m256 lo[8], hi[8];
        for (int j = 0; j < 8; j++)
            lo[j] = _mm256_loadu_ps(b + j * ldb + p);
        for (int j = 0; j < 8; j++)
            hi[j] = j < NR - 8 ? _mm256_loadu_ps(b + (8 + j) * ldb + p) : _mm256_setzero_ps();
        transpose8_ps(lo);
        transpose8_ps(hi);
        for (int q = 0; q < 8; q++) {
            _mm256_storeu_ps(dst + (p + q) * NR, lo[q]);
            _mm256_mask_storeu_ps(dst + (p + q) * NR + 8, (__mmask8)0x3F, hi[q]);
        }
    }
    for (; p < kb; p++)
        for (int j = 0; j < NR; j++)
            dst[p * NR + j] = b[j * ldb + p];
}
