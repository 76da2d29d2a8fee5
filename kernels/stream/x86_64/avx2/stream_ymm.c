/* STREAM-style micro-kernels, avx2 (see kernels/stream/stream.h). Four vectors per iteration for
 * the stores, eight independent accumulators for the read-only sum (add latency 4 x 2 ports). */
#include <immintrin.h>

#include "kernels/stream/stream.h"

#define W 4 /* doubles per vector */

double ns_stream_avx2(ns_stream_op op, int64_t n, int64_t passes, double *a, double *b, double *c) {
    const __m256d q = _mm256_set1_pd(NS_STREAM_Q);
    switch (op) {
    case NS_STREAM_LOAD: {
        /* 16 loads per iteration into 8 accumulators: vpxor issues on three ports, so the
         * loads bound the loop and its overhead is spread over twice as many loads. */
        __m256i x[8];
        for (int j = 0; j < 8; j++)
            x[j] = _mm256_setzero_si256();
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 16 * W)
                for (int j = 0; j < 16; j++)
                    x[j & 7] = _mm256_xor_si256(x[j & 7],
                                                _mm256_load_si256((const __m256i *)(a + i + j * W)));
        for (int j = 1; j < 8; j++)
            x[0] = _mm256_xor_si256(x[0], x[j]);
        uint64_t words[W], t = 0;
        _mm256_storeu_si256((__m256i *)words, x[0]);
        for (int l = 0; l < W; l++)
            t ^= words[l];
        return ns_stream_from_bits(t);
    }
    case NS_STREAM_SUM: {
        __m256d s[8];
        for (int j = 0; j < 8; j++)
            s[j] = _mm256_setzero_pd();
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 8 * W)
                for (int j = 0; j < 8; j++)
                    s[j] = _mm256_add_pd(s[j], _mm256_load_pd(a + i + j * W));
        for (int j = 1; j < 8; j++)
            s[0] = _mm256_add_pd(s[0], s[j]);
        double lanes[W], t = 0;
        _mm256_storeu_pd(lanes, s[0]);
        for (int l = 0; l < W; l++)
            t += lanes[l];
        return t;
    }
    case NS_STREAM_COPY:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm256_store_pd(b + i + j * W, _mm256_load_pd(a + i + j * W));
        return 0;
    case NS_STREAM_SCALE:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm256_store_pd(b + i + j * W, _mm256_mul_pd(q, _mm256_load_pd(a + i + j * W)));
        return 0;
    case NS_STREAM_ADD:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm256_store_pd(c + i + j * W, _mm256_add_pd(_mm256_load_pd(a + i + j * W),
                                                                 _mm256_load_pd(b + i + j * W)));
        return 0;
    case NS_STREAM_TRIAD:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm256_store_pd(c + i + j * W, _mm256_fmadd_pd(q, _mm256_load_pd(b + i + j * W),
                                                                   _mm256_load_pd(a + i + j * W)));
        return 0;
    case NS_STREAM_TRIAD_NT:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm256_stream_pd(c + i + j * W,
                                     _mm256_fmadd_pd(q, _mm256_load_pd(b + i + j * W),
                                                     _mm256_load_pd(a + i + j * W)));
        _mm_sfence(); /* NT stores are weakly ordered: visible before the barrier that ends the
                         sample */
        return 0;
    }
    return 0;
}
