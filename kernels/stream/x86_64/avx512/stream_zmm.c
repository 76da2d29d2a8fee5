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
        /* Three-way XOR (vpternlogq 0x96) folds two loads per ALU op: the two 512-bit load
         * ports, not the two vector ALU ports, bound the loop. */
        __m512i x[4];
        for (int j = 0; j < 4; j++)
            x[j] = _mm512_setzero_si512();
        for (int64_t pass = 0; pass < passes; pass++)
            for (int64_t i = 0; i < n; i += 8 * W)
                for (int j = 0; j < 4; j++)
                    x[j] = _mm512_ternarylogic_epi64(
                        x[j], _mm512_load_si512((const void *)(a + i + 2 * j * W)),
                        _mm512_load_si512((const void *)(a + i + (2 * j + 1) * W)), 0x96);
        x[0] = _mm512_ternarylogic_epi64(x[0], x[1], x[2], 0x96);
        x[0] = _mm512_xor_si512(x[0], x[3]);
        uint64_t words[W], t = 0;
        _mm512_storeu_si512((void *)words, x[0]);
        for (int l = 0; l < W; l++)
            t ^= words[l];
        return ns_stream_from_bits(t);
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
