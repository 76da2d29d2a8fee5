/* STREAM-style kernels in plain C, the baseline fallback (see kernels/stream/stream.h). */
#include "kernels/stream/stream.h"

double ns_stream_plain(ns_stream_op op, int64_t n, int64_t passes, double *a, double *b,
                       double *c) {
    const double q = NS_STREAM_Q;
    double s[4] = {0, 0, 0, 0};
    for (int64_t pass = 0; pass < passes; pass++) {
        int64_t i = 0;
        switch (op) {
        case NS_STREAM_LOAD:
            for (; i + 16 <= n; i += 16)
                for (int j = 0; j < 8; j++)
                    s[j & 3] += a[i + j] * a[i + 8 + j];
            for (; i < n; i++) /* a trailing partial block counts its elements alone */
                s[0] += a[i];
            break;
        case NS_STREAM_SUM:
            for (; i + 4 <= n; i += 4)
                for (int j = 0; j < 4; j++)
                    s[j] += a[i + j];
            for (; i < n; i++)
                s[0] += a[i];
            break;
        case NS_STREAM_COPY:
            for (; i < n; i++)
                b[i] = a[i];
            break;
        case NS_STREAM_SCALE:
            for (; i < n; i++)
                b[i] = q * a[i];
            break;
        case NS_STREAM_ADD:
            for (; i < n; i++)
                c[i] = a[i] + b[i];
            break;
        case NS_STREAM_TRIAD:
        case NS_STREAM_TRIAD_NT: /* no portable non-temporal store in C */
            for (; i < n; i++)
                c[i] = a[i] + q * b[i];
            break;
        }
    }
    if (op == NS_STREAM_LOAD || op == NS_STREAM_SUM) return (s[0] + s[1]) + (s[2] + s[3]);
    return 0;
}
