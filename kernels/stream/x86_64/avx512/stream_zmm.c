/* STREAM-style micro-kernels, avx512 (see kernels/stream/stream.h). Four vectors per iteration for
 * the stores, eight independent accumulators for the read-only sum (add latency 4 x 2 ports). */
#include <immintrin.h>

#include "kernels/stream/stream.h"

#define W 8 /* doubles per vector */

double ns_stream_avx512(ns_stream_op op, int64_t n, int64_t passes, double *a, double *b,
                        double *c) {
    const __m512d q = _mm512_set1_pd(NS_STREAM_Q);
    switch (op) {
    case NS_STREAM_LOAD: {
        /* Pairs (i, i+8) of every 16-element block: one FMA per block takes both loads (the
         * second from memory), so the two 512-bit load ports, not the FMA ports, bound the loop;
         * four accumulators cover the FMA latency at one FMA per cycle. */
        __m512d x[4];
        for (int j = 0; j < 4; j++)
            x[j] = _mm512_setzero_pd();
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 8 * W)
                for (int j = 0; j < 4; j++)
                    x[j] = _mm512_fmadd_pd(_mm512_load_pd(a + i + 2 * j * W),
                                           _mm512_load_pd(a + i + (2 * j + 1) * W), x[j]);
        return _mm512_reduce_add_pd(
            _mm512_add_pd(_mm512_add_pd(x[0], x[1]), _mm512_add_pd(x[2], x[3])));
    }
    case NS_STREAM_SUM: {
        __m512d s[8];
        for (int j = 0; j < 8; j++)
            s[j] = _mm512_setzero_pd();
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 8 * W)
                for (int j = 0; j < 8; j++)
                    s[j] = _mm512_add_pd(s[j], _mm512_load_pd(a + i + j * W));
        for (int j = 1; j < 8; j++)
            s[0] = _mm512_add_pd(s[0], s[j]);
        double lanes[W], t = 0;
        _mm512_storeu_pd(lanes, s[0]);
        for (int l = 0; l < W; l++)
            t += lanes[l];
        return t;
    }
    case NS_STREAM_COPY:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm512_store_pd(b + i + j * W, _mm512_load_pd(a + i + j * W));
        return 0;
    case NS_STREAM_SCALE:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm512_store_pd(b + i + j * W, _mm512_mul_pd(q, _mm512_load_pd(a + i + j * W)));
        return 0;
    case NS_STREAM_ADD:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm512_store_pd(c + i + j * W, _mm512_add_pd(_mm512_load_pd(a + i + j * W),
                                                                 _mm512_load_pd(b + i + j * W)));
        return 0;
    case NS_STREAM_TRIAD:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm512_store_pd(c + i + j * W, _mm512_fmadd_pd(q, _mm512_load_pd(b + i + j * W),
                                                                   _mm512_load_pd(a + i + j * W)));
        return 0;
    case NS_STREAM_TRIAD_NT:
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 4 * W)
                for (int j = 0; j < 4; j++)
                    _mm512_stream_pd(c + i + j * W,
                                     _mm512_fmadd_pd(q, _mm512_load_pd(b + i + j * W),
                                                     _mm512_load_pd(a + i + j * W)));
        _mm_sfence(); /* NT stores are weakly ordered: visible before the barrier that ends the
                         sample */
        return 0;
    }
    return 0;
}
