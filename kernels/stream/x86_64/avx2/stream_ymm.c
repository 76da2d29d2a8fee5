/* STREAM-style micro-kernels, avx2 (see kernels/stream/stream.h). Four vectors per iteration for
 * the stores, eight independent accumulators for the read-only sum (add latency 4 x 2 ports). */
#include <immintrin.h>

#include "kernels/stream/stream.h"

#define W 4 /* doubles per vector */

double ns_stream_avx2(ns_stream_op op, int64_t n, int64_t passes, double *a, double *b, double *c) {
    const __m256d q = _mm256_set1_pd(NS_STREAM_Q);
    switch (op) {
    case NS_STREAM_LOAD: {
        /* Pairs (i, i+8) of every 16-element block, one FMA per pair of loads into 8
         * accumulators (two per block, four blocks per iteration): the FMA takes its second
         * operand from memory, so one vector op carries two loads and the three load ports, not
         * the two FMA ports, bound the loop (an XOR per load reached 0.7 of a pure load). */
        __m256d x[8];
        for (int j = 0; j < 8; j++)
            x[j] = _mm256_setzero_pd();
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 16 * W)
                for (int blk = 0; blk < 4; blk++)
                    for (int h = 0; h < 2; h++)
                        x[2 * blk + h] = _mm256_fmadd_pd(
                            _mm256_load_pd(a + i + 16 * blk + W * h),
                            _mm256_load_pd(a + i + 16 * blk + 8 + W * h), x[2 * blk + h]);
        for (int j = 1; j < 8; j++)
            x[0] = _mm256_add_pd(x[0], x[j]);
        double lanes[W], t = 0;
        _mm256_storeu_pd(lanes, x[0]);
        for (int l = 0; l < W; l++)
            t += lanes[l];
        return t;
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
