/* Registry descriptors of the STREAM-style bandwidth kernels (see stream.h): one per operation
 * and ISA. The index range is split into one contiguous chunk per thread, a multiple of 64
 * elements (512 B), and create() first-touches every chunk from the thread that will stream it,
 * with the same split. create() allocates only the arrays the operation uses, so a kernel's
 * working set is every byte it allocates (bench's memory check and run's sweep cap rely on
 * that), besides one cache line per thread for the sums. */
#include "kernels/stream/stream.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/alloc.h"
#include "kernels/stream/stream_kernels.h"

typedef double (*stream_fn)(ns_stream_op, int64_t, int64_t, double *, double *, double *);

typedef struct {
    double v;
    char pad[56];
} sink_t;

typedef struct {
    ns_stream_op op;
    stream_fn fn;
    int64_t n;
    int threads;
    double *a, *b, *c;
    sink_t *sum; /* per-thread partial sums (NS_STREAM_SUM, NS_STREAM_LOAD) */
} stream_state;

/* Arrays in the working set (a; a, b; or a, b, c: the ones create() allocates) and minimal
 * bytes per element, by operation. */
static const struct {
    int arrays;
    double bytes_per_el;
} op_info[] = {
    [NS_STREAM_LOAD] = {1, 8},      [NS_STREAM_SUM] = {1, 8},  [NS_STREAM_COPY] = {2, 16},
    [NS_STREAM_SCALE] = {2, 16},    [NS_STREAM_ADD] = {3, 24}, [NS_STREAM_TRIAD] = {3, 24},
    [NS_STREAM_TRIAD_NT] = {3, 24},
};

/* Passes over the arrays in one repetition: a thread's share under 32 Ki elements (256 KiB per
 * array) is streamed several times, so the cost of calling the kernel stays a few percent of a
 * repetition even in L1. flops() and bytes() count every pass. */
static int64_t passes(int64_t n, int threads) {
    int64_t per_thread = n / (threads > 0 ? threads : 1);
    return per_thread >= 32768 ? 1
                               : (32768 + (per_thread > 0 ? per_thread : 1) - 1) /
                                     (per_thread > 0 ? per_thread : 1);
}

/* FLOPs per element of the operation (stream.h), as STREAM counts them: sum 1 add, scale 1
 * multiply, add 1, triad 2, copy 0. The one exception is deliberate: stream_load, the
 * read-bandwidth ceiling of the sweep, counts 0 although it runs one FMA per two elements (1 flop
 * per element), because those FMAs only consume the loads; the roofline gives it no compute roof
 * (README, "What is measured"). stream_sum, a kernel and not a ceiling, counts its adds. */
static double flops_per_el(ns_stream_op op) {
    switch (op) {
    case NS_STREAM_LOAD: /* not counted: see above */
    case NS_STREAM_COPY:
        return 0;
    case NS_STREAM_SUM:
    case NS_STREAM_SCALE:
    case NS_STREAM_ADD:
        return 1;
    case NS_STREAM_TRIAD:
    case NS_STREAM_TRIAD_NT:
        return 2;
    default:
        return 0;
    }
}

/* [lo, hi) of thread tid: chunks of a multiple of 64 elements, the last one takes the rest. */
static void chunk(int64_t n, int tid, int nthreads, int64_t *lo, int64_t *hi) {
    int64_t per = (n / nthreads + 63) / 64 * 64;
    *lo = per * tid < n ? per * tid : n;
    *hi = per * (tid + 1) < n && tid + 1 < nthreads ? per * (tid + 1) : n;
}

/* x + i, or NULL for an array the operation does not use (not allocated). */
static double *at(double *x, int64_t i) {
    return x ? x + i : NULL;
}

static void stream_run(void *st, int tid, int nthreads) {
    stream_state *s = st;
    int64_t lo, hi;
    chunk(s->n, tid, nthreads, &lo, &hi);
    int64_t vec = (hi - lo) / 64 * 64; /* the vector kernels take multiples of 64 */
    int64_t np = passes(s->n, nthreads);
    double r = s->fn(s->op, vec, np, s->a + lo, at(s->b, lo), at(s->c, lo));
    if (vec < hi - lo) {
        double t = ns_stream_plain(s->op, hi - lo - vec, np, s->a + lo + vec, at(s->b, lo + vec),
                                   at(s->c, lo + vec));
        r += t;
    }
    if (s->op == NS_STREAM_SUM || s->op == NS_STREAM_LOAD) s->sum[tid].v = r;
}

static double init_a(int64_t i) {
    return 1.0 + (double)(i % 16) * 0.0625;
}
static double init_b(int64_t i) {
    return 2.0 - (double)(i % 8) * 0.125;
}

static void *stream_create(const ns_params *p, ns_stream_op op, stream_fn fn) {
    stream_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->op = op;
    s->fn = fn;
    s->n = p->n;
    s->threads = p->threads;
    size_t bytes = (size_t)p->n * sizeof(double);
    int arrays = op_info[op].arrays; /* only those: a stream_load holds 1x its n, not 3x */
    s->a = ns_alloc_array(bytes);
    s->b = arrays >= 2 ? ns_alloc_array(bytes) : NULL;
    s->c = arrays >= 3 ? ns_alloc_array(bytes) : NULL;
    s->sum = aligned_alloc(64, sizeof(sink_t) * (size_t)p->threads);
    if (!s->a || (arrays >= 2 && !s->b) || (arrays >= 3 && !s->c) || !s->sum) {
        free(s->a), free(s->b), free(s->c), free(s->sum), free(s);
        return NULL;
    }
#pragma omp parallel num_threads(p->threads)
    {
        int64_t lo, hi;
        chunk(s->n, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
        for (int64_t i = lo; i < hi; i++) {
            s->a[i] = init_a(i);
            if (s->b) s->b[i] = init_b(i);
            if (s->c) s->c[i] = 0;
        }
        s->sum[omp_get_thread_num()].v = 0;
    }
    return s;
}

static void stream_destroy(void *st) {
    stream_state *s = st;
    if (!s) return;
    free(s->a), free(s->b), free(s->c), free(s->sum), free(s);
}

/* Every output element against its formula (relative 2 eps: FMA and mul+add may differ by one
 * rounding); the read-only sum and pair products against a long double reference with bound
 * n eps sum|terms| (the pair products of the stream data are exact, so their error is 0). */
static void stream_check(void *st, ns_check *out) {
    stream_state *s = st;
    const double q = NS_STREAM_Q;
    out->error = 0;
    if (s->op == NS_STREAM_SUM || s->op == NS_STREAM_LOAD) {
        long double ref = 0, got = 0, abs_sum = 0;
        int64_t i = 0;
        if (s->op == NS_STREAM_LOAD) /* pair products, blocks of 16 from a[0] (stream.h) */
            for (; i + 16 <= s->n; i += 16)
                for (int j = 0; j < 8; j++) {
                    long double p = (long double)s->a[i + j] * s->a[i + 8 + j];
                    ref += p, abs_sum += fabsl(p);
                }
        for (; i < s->n; i++)
            ref += s->a[i], abs_sum += fabs(s->a[i]);
        for (int t = 0; t < s->threads; t++)
            got += s->sum[t].v;
        long double np = (long double)passes(s->n, s->threads); /* the sum runs over every pass */
        ref *= np, abs_sum *= np;
        out->error = ref != 0 ? (double)(fabsl(got - ref) / fabsl(ref)) : (double)fabsl(got);
        out->bound = ((double)(s->n * np) + 1) * DBL_EPSILON *
                     (double)(abs_sum / (ref != 0 ? fabsl(ref) : 1));
    } else {
        out->bound = 2 * DBL_EPSILON;
        for (int64_t i = 0; i < s->n; i++) {
            double want, got;
            switch (s->op) {
            case NS_STREAM_COPY:
                want = s->a[i], got = s->b[i];
                break;
            case NS_STREAM_SCALE:
                want = q * s->a[i], got = s->b[i];
                break;
            case NS_STREAM_ADD:
                want = s->a[i] + s->b[i], got = s->c[i];
                break;
            default:
                want = s->a[i] + q * s->b[i], got = s->c[i];
                break;
            }
            double e = fabs(got - want) / fabs(want);
            if (!(e <= out->error)) out->error = e;
        }
    }
    out->ok = out->error <= out->bound;
    snprintf(out->why, sizeof out->why, "%s: %s, max rel. error %.2e (bound %.2e)",
             out->ok ? "ok" : "FAILED",
             s->op == NS_STREAM_LOAD  ? "pair products vs long double reference"
             : s->op == NS_STREAM_SUM ? "sum vs long double reference"
                                      : "every element vs formula",
             out->error, out->bound);
}

static double bytes_of(ns_stream_op op, const ns_params *p) {
    return op_info[op].bytes_per_el * (double)p->n * (double)passes(p->n, p->threads);
}
static double ws_of(ns_stream_op op, const ns_params *p) {
    return op_info[op].arrays * 8.0 * (double)p->n;
}

static int any_cpu(void) {
    return 1;
}

#define NAME_NS_STREAM_LOAD "stream_load"
#define NAME_NS_STREAM_SUM "stream_sum"
#define NAME_NS_STREAM_COPY "stream_copy"
#define NAME_NS_STREAM_SCALE "stream_scale"
#define NAME_NS_STREAM_ADD "stream_add"
#define NAME_NS_STREAM_TRIAD "stream_triad"
#define NAME_NS_STREAM_TRIAD_NT "stream_triad_nt"
/* The compute ceiling each one's arithmetic is judged against (ns_kernel.mix). */
#define MIX_NS_STREAM_LOAD NULL
#define MIX_NS_STREAM_SUM "add"
#define MIX_NS_STREAM_COPY NULL
#define MIX_NS_STREAM_SCALE NULL
#define MIX_NS_STREAM_ADD "add"
#define MIX_NS_STREAM_TRIAD "fma"
#define MIX_NS_STREAM_TRIAD_NT "fma"

#define STREAM_KERNEL(ID, OP, ISA, FN, SUPPORTED)                                                  \
    static double flops_##ID(const ns_params *p) {                                                 \
        return flops_per_el(OP) * (double)p->n * (double)passes(p->n, p->threads);                 \
    }                                                                                              \
    static double bytes_##ID(const ns_params *p) {                                                 \
        return bytes_of(OP, p);                                                                    \
    }                                                                                              \
    static double ws_##ID(const ns_params *p) {                                                    \
        return ws_of(OP, p);                                                                       \
    }                                                                                              \
    static int64_t passes_##ID(const ns_params *p) {                                               \
        return passes(p->n, p->threads);                                                          \
    }                                                                                              \
    static void *create_##ID(const ns_params *p) {                                                 \
        return stream_create(p, OP, FN);                                                           \
    }                                                                                              \
    const ns_kernel ns_k_##ID = {.name = NAME_##OP,                                                \
                                 .family = "stream",                                               \
                                 .isa = ISA,                                                       \
                                 .precision = NS_PREC_DP,                                          \
                                 .mix = MIX_##OP,                                                  \
                                 .bytes_policy = "minimal",                                        \
                                 .run_model = NS_RUN_TEAM,                                         \
                                 .flops = flops_##ID,                                              \
                                 .bytes = bytes_##ID,                                              \
                                 .working_set = ws_##ID,                                           \
                                 .passes = passes_##ID,                                            \
                                 .supported = SUPPORTED,                                           \
                                 .create = create_##ID,                                            \
                                 .run = stream_run,                                                \
                                 .check = stream_check,                                            \
                                 .destroy = stream_destroy}

STREAM_KERNEL(stream_load_avx512, NS_STREAM_LOAD, "avx512", ns_stream_avx512, ns_cpu_has_avx512);
STREAM_KERNEL(stream_load_avx2, NS_STREAM_LOAD, "avx2", ns_stream_avx2, ns_cpu_has_avx2_fma);
STREAM_KERNEL(stream_load_scalar, NS_STREAM_LOAD, "scalar", ns_stream_plain, any_cpu);
STREAM_KERNEL(stream_sum_avx512, NS_STREAM_SUM, "avx512", ns_stream_avx512, ns_cpu_has_avx512);
STREAM_KERNEL(stream_sum_avx2, NS_STREAM_SUM, "avx2", ns_stream_avx2, ns_cpu_has_avx2_fma);
STREAM_KERNEL(stream_sum_scalar, NS_STREAM_SUM, "scalar", ns_stream_plain, any_cpu);
STREAM_KERNEL(stream_copy_avx512, NS_STREAM_COPY, "avx512", ns_stream_avx512, ns_cpu_has_avx512);
STREAM_KERNEL(stream_copy_avx2, NS_STREAM_COPY, "avx2", ns_stream_avx2, ns_cpu_has_avx2_fma);
STREAM_KERNEL(stream_copy_scalar, NS_STREAM_COPY, "scalar", ns_stream_plain, any_cpu);
STREAM_KERNEL(stream_scale_avx512, NS_STREAM_SCALE, "avx512", ns_stream_avx512, ns_cpu_has_avx512);
STREAM_KERNEL(stream_scale_avx2, NS_STREAM_SCALE, "avx2", ns_stream_avx2, ns_cpu_has_avx2_fma);
STREAM_KERNEL(stream_scale_scalar, NS_STREAM_SCALE, "scalar", ns_stream_plain, any_cpu);
STREAM_KERNEL(stream_add_avx512, NS_STREAM_ADD, "avx512", ns_stream_avx512, ns_cpu_has_avx512);
STREAM_KERNEL(stream_add_avx2, NS_STREAM_ADD, "avx2", ns_stream_avx2, ns_cpu_has_avx2_fma);
STREAM_KERNEL(stream_add_scalar, NS_STREAM_ADD, "scalar", ns_stream_plain, any_cpu);
STREAM_KERNEL(stream_triad_avx512, NS_STREAM_TRIAD, "avx512", ns_stream_avx512, ns_cpu_has_avx512);
STREAM_KERNEL(stream_triad_avx2, NS_STREAM_TRIAD, "avx2", ns_stream_avx2, ns_cpu_has_avx2_fma);
STREAM_KERNEL(stream_triad_scalar, NS_STREAM_TRIAD, "scalar", ns_stream_plain, any_cpu);
STREAM_KERNEL(stream_triad_nt_avx512, NS_STREAM_TRIAD_NT, "avx512", ns_stream_avx512,
              ns_cpu_has_avx512);
STREAM_KERNEL(stream_triad_nt_avx2, NS_STREAM_TRIAD_NT, "avx2", ns_stream_avx2,
              ns_cpu_has_avx2_fma);
