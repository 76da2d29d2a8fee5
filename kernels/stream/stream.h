/* STREAM-style bandwidth micro-kernels (McCalpin, "Memory Bandwidth and Machine Balance in
 * Current High Performance Computers", IEEE TCCA Newsletter, 1995), made idempotent so every
 * repetition does the same work and the output can be checked exactly:
 *   load     x  = sum a[i] * a[i+8] over 16-element blocks (i mod 16 < 8), plus the elements of
 *                a trailing partial block: 8 B/elem read-only, the read ceiling. One FMA takes
 *                two loads (a three-operand op), so on every x86 core the load ports, not the
 *                FP ports, limit it (likwid-bench's load kernels discard the data instead). The
 *                stream arrays hold multiples of 1/16 in [1, 2), so every product and partial
 *                sum is exact and the result is the same in any order, on any ISA. Counted
 *                as 0 FLOPs: a bandwidth ceiling, whose FMAs only consume the loads.
 *   sum      s  = sum a[i]              8 B/elem read-only, 1 flop/elem (8 accumulators; 4 in plain C)
 *   copy     b  = a                     16 B/elem
 *   scale    b  = q * a                 16 B/elem
 *   add      c  = a + b                 24 B/elem
 *   triad    c  = a + q * b             24 B/elem
 *   triad_nt c  = a + q * b, non-temporal stores (no write-allocate)  24 B/elem
 * Bytes are counted "minimal" (useful bytes, as STREAM and likwid-bench count them); a normal
 * store also reads the line first (write-allocate), so the traffic the memory sees is 1.5x for
 * copy/scale and 1.33x for add/triad, 1.0x for triad_nt.
 * Each function processes [0, n) of its arrays; callers split the index range per thread
 * on 64-byte boundaries, so arrays 64-byte aligned stay aligned per thread. */
#ifndef NS_STREAM_H
#define NS_STREAM_H

#include <stdint.h>

#define NS_STREAM_Q 3.0

typedef enum {
    NS_STREAM_LOAD,
    NS_STREAM_SUM,
    NS_STREAM_COPY,
    NS_STREAM_SCALE,
    NS_STREAM_ADD,
    NS_STREAM_TRIAD,
    NS_STREAM_TRIAD_NT,
} ns_stream_op;

/* One micro-kernel per ISA; a, b, c 64-byte aligned, n a multiple of 64 (the plain-C one takes
 * any n). The operation runs `passes` times over the same arrays with the accumulators kept
 * across passes, so a small working set pays the final reduction once per call, not per pass.
 * Returns the sum over all passes for NS_STREAM_SUM and NS_STREAM_LOAD (the pair products above,
 * blocks counted from a[0]); 0 otherwise. */
double ns_stream_avx512(ns_stream_op op, int64_t n, int64_t passes, double *a, double *b,
                        double *c);
double ns_stream_avx2(ns_stream_op op, int64_t n, int64_t passes, double *a, double *b, double *c);
double ns_stream_plain(ns_stream_op op, int64_t n, int64_t passes, double *a, double *b, double *c);

#endif
