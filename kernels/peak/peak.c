/* Registry descriptors of the compute-ceiling kernels: one per precision x mix x ISA.
 * Each thread runs p->n iterations of its micro-kernel per repetition; check() compares every
 * thread's lane sum with the recurrence replayed in the kernel's precision (peak.h). */
#include "kernels/peak/peak.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/peak/peak_kernels.h"

typedef struct {
    double v;
    char pad[56]; /* one cache line per thread: no false sharing of the sinks */
} sink_t;

typedef struct {
    ns_precision prec;
    ns_peak_mix mix;
    const char *isa;
    int lanes;  /* elements per chain */
    int chains; /* independent chains */
    int64_t iters;
    int threads;
    sink_t *sink;
} peak_state;

static double flops_per_lane(ns_peak_mix mix) {
    return mix == NS_MIX_FMA ? 2.0 : mix == NS_MIX_ADD ? 1.0 : 1.5;
}

/* The per-ISA parameters live in the descriptor's name/isa/mix; decode them once. */
static ns_peak_mix mix_of(const char *mix) {
    return !strcmp(mix, "add") ? NS_MIX_ADD : !strcmp(mix, "fma+add") ? NS_MIX_FMA_ADD : NS_MIX_FMA;
}

static double run_one(const peak_state *s) {
    /* The scalar_fma mix (isa avx2) runs scalar FMA instructions: one lane per chain. */
    int scalar_ins = s->lanes == 1;
    if (s->prec == NS_PREC_DP) {
        if (scalar_ins) return ns_peak_dp_scalar_fma(s->mix, s->iters);
        if (!strcmp(s->isa, "avx512")) return ns_peak_dp_avx512(s->mix, s->iters);
        if (!strcmp(s->isa, "avx2")) return ns_peak_dp_avx2(s->mix, s->iters);
        return ns_peak_dp_plain(s->mix, s->iters);
    }
    if (scalar_ins) return ns_peak_sp_scalar_fma(s->mix, s->iters);
    if (!strcmp(s->isa, "avx512")) return ns_peak_sp_avx512(s->mix, s->iters);
    if (!strcmp(s->isa, "avx2")) return ns_peak_sp_avx2(s->mix, s->iters);
    return ns_peak_sp_plain(s->mix, s->iters);
}

static void peak_run(void *st, int tid, int nthreads) {
    peak_state *s = st;
    s->sink[tid].v = run_one(s);
}

/* x after iters steps of one fma chain, replayed in the kernel's precision: fused (one rounding,
 * as FMA instructions) or not (multiply, round, add, round). The rounded map is monotone and x
 * rises towards its fixed point, so once a step leaves x unchanged it stays (peak.h: after at
 * most ~116K steps), and the replay stops there. */
static double fma_chain(ns_precision prec, int fused, int64_t iters) {
    if (prec == NS_PREC_DP) {
        double x = NS_PEAK_X0, a = NS_PEAK_A, b = NS_PEAK_B;
        for (int64_t i = 0; i < iters; i++) {
            double p = x * a, y = fused ? fma(x, a, b) : p + b;
            if (y == x) break;
            x = y;
        }
        return x;
    }
    float x = (float)NS_PEAK_X0, a = (float)NS_PEAK_A, b = (float)NS_PEAK_B;
    for (int64_t i = 0; i < iters; i++) {
        float p = x * a, y = fused ? fmaf(x, a, b) : p + b;
        if (y == x) break;
        x = y;
    }
    return x;
}

/* x after iters steps of one add chain: X0 + iters B exactly (B is a power of two, and below
 * the cap every multiple of B is representable) until x reaches 2^12 (SP) or 2^41 (DP), where
 * B is half an ulp and the tie rounds back to x (even). */
static double add_chain(ns_precision prec, int64_t iters) {
    double cap = prec == NS_PREC_DP ? 0x1p41 : 0x1p12;
    double steps = (cap - NS_PEAK_X0) / NS_PEAK_B;
    return (double)iters >= steps ? cap : NS_PEAK_X0 + (double)iters * NS_PEAK_B;
}

double ns_peak_expected(ns_precision prec, ns_peak_mix mix, int fused, int lanes, int chains,
                        int64_t iters) {
    int fma_chains = mix == NS_MIX_FMA ? chains : mix == NS_MIX_ADD ? 0 : chains / 2;
    double f = fma_chains ? fma_chain(prec, fused, iters) : 0;
    double a = fma_chains < chains ? add_chain(prec, iters) : 0;
    return (double)lanes * ((double)fma_chains * f + (double)(chains - fma_chains) * a);
}

double ns_peak_bound(ns_precision prec, int lanes, int chains) {
    /* The kernel adds its chains x lanes positive values in its precision (any order: at most
     * m - 1 roundings per term, gamma_{m-1}); the expected value above rounds at most 3 times
     * in double. Independent of the iteration count. */
    double u = prec == NS_PREC_DP ? 0x1p-53 : 0x1p-24, m1 = (double)lanes * chains - 1;
    return m1 * u / (1 - m1 * u) + 3 * 0x1p-53;
}

static void peak_check(void *st, ns_check *out) {
    peak_state *s = st;
    /* FMA instructions round once; the baseline SSE2 kernel multiplies and adds, unless a build
     * with FMA and -ffp-contract=fast fused them: it may match either. */
    int plain = !strcmp(s->isa, "scalar");
    double want = ns_peak_expected(s->prec, s->mix, !plain, s->lanes, s->chains, s->iters);
    double want2 =
        plain ? ns_peak_expected(s->prec, s->mix, 1, s->lanes, s->chains, s->iters) : want;
    out->bound = ns_peak_bound(s->prec, s->lanes, s->chains);
    out->error = 0;
    for (int t = 0; t < s->threads; t++) {
        double e = fabs(s->sink[t].v - want) / want, e2 = fabs(s->sink[t].v - want2) / want2;
        if (e2 < e) e = e2;
        if (!(e <= out->error)) out->error = e; /* NaN propagates as failure */
    }
    out->ok = out->error <= out->bound;
    snprintf(out->why, sizeof out->why,
             "%s: lane sum vs recurrence replayed in %s, max rel. error %.2e (bound %.2e)",
             out->ok ? "ok" : "FAILED", s->prec == NS_PREC_DP ? "DP" : "SP", out->error,
             out->bound);
}

static void *peak_create_for(const ns_params *p, ns_precision prec, const char *mix,
                             const char *isa, int lanes, int chains) {
    peak_state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->sink = aligned_alloc(64, sizeof(sink_t) * (size_t)p->threads);
    if (!s->sink) {
        free(s);
        return NULL;
    }
    memset(s->sink, 0, sizeof(sink_t) * (size_t)p->threads);
    s->prec = prec;
    s->mix = mix_of(mix);
    s->isa = isa;
    s->lanes = lanes;
    s->chains = chains;
    s->iters = p->n;
    s->threads = p->threads;
    return s;
}

static void peak_destroy(void *st) {
    peak_state *s = st;
    if (s) free(s->sink);
    free(s);
}

static double zero(const ns_params *p) {
    return 0;
}

static int any_cpu(void) {
    return 1;
}

/* The tile in words, from the CHAINS and LANES a kernel is built with, so that `nodescale list`,
 * results[].executes and report.md follow a change of NS_PEAK_CHAINS_* (peak_executes.sh): DP or SP
 * lanes of a vector, or one lane per chain (scalar instructions: lanes 1, checked). */
#define PEAK_STR_(x) #x
#define PEAK_STR(x) PEAK_STR_(x)
#define TILE_DP(CHAINS, LANES) ", " PEAK_STR(CHAINS) " chains x " PEAK_STR(LANES) " DP lanes"
#define TILE_SP(CHAINS, LANES) ", " PEAK_STR(CHAINS) " chains x " PEAK_STR(LANES) " SP lanes"
#define TILE_ONE(CHAINS, LANES) ", " PEAK_STR(CHAINS) " chains"
#define TILE_OK_TILE_DP(PREC, LANES) ((PREC) == NS_PREC_DP && (LANES) > 1)
#define TILE_OK_TILE_SP(PREC, LANES) ((PREC) == NS_PREC_SP && (LANES) > 1)
#define TILE_OK_TILE_ONE(PREC, LANES) ((LANES) == 1)

/* One descriptor: flops depend on lanes and mix, fixed per descriptor, so each gets its own
 * tiny flops() and create() through this macro. EXECUTES: what one step runs, in instruction
 * terms; TILE (TILE_DP, TILE_SP or TILE_ONE) appends its chains and lanes. */
#define PEAK_KERNEL(ID, NAME, PREC, MIX, ISA, LANES, CHAINS, SUPPORTED, EXECUTES, TILE)           \
    _Static_assert(TILE_OK_##TILE(PREC, LANES),                                                    \
                   NAME "/" ISA ": its tile words do not fit its precision or lanes");            \
    static double flops_##ID(const ns_params *p) {                                                 \
        return (double)p->threads * (double)p->n * (CHAINS) * (LANES) *                            \
               flops_per_lane(mix_of(MIX));                                                        \
    }                                                                                              \
    static void *create_##ID(const ns_params *p) {                                                 \
        return peak_create_for(p, PREC, MIX, ISA, LANES, CHAINS);                                  \
    }                                                                                              \
    const ns_kernel ns_k_##ID = {.name = NAME,                                                     \
                                 .family = "peak",                                                 \
                                 .isa = ISA,                                                       \
                                 .precision = PREC,                                                \
                                 .mix = MIX,                                                       \
                                 .bytes_policy = "minimal",                                        \
                                 .run_model = NS_RUN_TEAM,                                         \
                                 .flops = flops_##ID,                                              \
                                 .bytes = zero,                                                    \
                                 .working_set = zero,                                              \
                                 .supported = SUPPORTED,                                           \
                                 .create = create_##ID,                                            \
                                 .run = peak_run,                                                  \
                                 .check = peak_check,                                              \
                                 .destroy = peak_destroy,                                          \
                                 .executes = EXECUTES TILE(CHAINS, LANES)}

/* clang-format off */
/*          id                       name                   precision   mix           isa       lanes chains
 *          supported, executes (what one step runs, in instruction terms), its tile's words */
PEAK_KERNEL(peak_dp_fma_avx512,         "peak_dp_fma",          NS_PREC_DP, "fma",        "avx512",  8, NS_PEAK_CHAINS_ZMM, ns_cpu_has_avx512,
            "FMA: vfmadd*pd on zmm (AVX-512F)", TILE_DP);
PEAK_KERNEL(peak_dp_fma_avx2,           "peak_dp_fma",          NS_PREC_DP, "fma",        "avx2",    4, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "FMA: vfmadd*pd on ymm (FMA3)", TILE_DP);
PEAK_KERNEL(peak_dp_fma_scalar,         "peak_dp_fma",          NS_PREC_DP, "fma",        "scalar",  2, NS_PEAK_CHAINS_YMM, any_cpu,
            "no FMA: mulpd then addpd on xmm (packed SSE2, baseline x86-64)", TILE_DP);
PEAK_KERNEL(peak_dp_fma_add_avx512,     "peak_dp_fma_add",      NS_PREC_DP, "fma+add",    "avx512",  8, NS_PEAK_CHAINS_ZMM, ns_cpu_has_avx512,
            "vfmadd*pd and vaddpd 1:1 on zmm (AVX-512F)", TILE_DP);
PEAK_KERNEL(peak_dp_fma_add_avx2,       "peak_dp_fma_add",      NS_PREC_DP, "fma+add",    "avx2",    4, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "vfmadd*pd and vaddpd 1:1 on ymm (FMA3, AVX)", TILE_DP);
PEAK_KERNEL(peak_dp_add_avx512,         "peak_dp_add",          NS_PREC_DP, "add",        "avx512",  8, NS_PEAK_CHAINS_ZMM, ns_cpu_has_avx512,
            "vaddpd on zmm (AVX-512F)", TILE_DP);
PEAK_KERNEL(peak_dp_add_avx2,           "peak_dp_add",          NS_PREC_DP, "add",        "avx2",    4, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "vaddpd on ymm (AVX)", TILE_DP);
PEAK_KERNEL(peak_dp_scalar_fma_avx2,    "peak_dp_scalar_fma",   NS_PREC_DP, "scalar_fma", "avx2",    1, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "scalar FMA: vfmadd*sd on one DP lane per chain (FMA3)", TILE_ONE);
PEAK_KERNEL(peak_sp_fma_avx512,         "peak_sp_fma",          NS_PREC_SP, "fma",        "avx512", 16, NS_PEAK_CHAINS_ZMM, ns_cpu_has_avx512,
            "FMA: vfmadd*ps on zmm (AVX-512F)", TILE_SP);
PEAK_KERNEL(peak_sp_fma_avx2,           "peak_sp_fma",          NS_PREC_SP, "fma",        "avx2",    8, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "FMA: vfmadd*ps on ymm (FMA3)", TILE_SP);
PEAK_KERNEL(peak_sp_fma_scalar,         "peak_sp_fma",          NS_PREC_SP, "fma",        "scalar",  4, NS_PEAK_CHAINS_YMM, any_cpu,
            "no FMA: mulps then addps on xmm (packed SSE2, baseline x86-64)", TILE_SP);
PEAK_KERNEL(peak_sp_fma_add_avx512,     "peak_sp_fma_add",      NS_PREC_SP, "fma+add",    "avx512", 16, NS_PEAK_CHAINS_ZMM, ns_cpu_has_avx512,
            "vfmadd*ps and vaddps 1:1 on zmm (AVX-512F)", TILE_SP);
PEAK_KERNEL(peak_sp_fma_add_avx2,       "peak_sp_fma_add",      NS_PREC_SP, "fma+add",    "avx2",    8, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "vfmadd*ps and vaddps 1:1 on ymm (FMA3, AVX)", TILE_SP);
PEAK_KERNEL(peak_sp_add_avx512,         "peak_sp_add",          NS_PREC_SP, "add",        "avx512", 16, NS_PEAK_CHAINS_ZMM, ns_cpu_has_avx512,
            "vaddps on zmm (AVX-512F)", TILE_SP);
PEAK_KERNEL(peak_sp_add_avx2,           "peak_sp_add",          NS_PREC_SP, "add",        "avx2",    8, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "vaddps on ymm (AVX)", TILE_SP);
PEAK_KERNEL(peak_sp_scalar_fma_avx2,    "peak_sp_scalar_fma",   NS_PREC_SP, "scalar_fma", "avx2",    1, NS_PEAK_CHAINS_YMM, ns_cpu_has_avx2_fma,
            "scalar FMA: vfmadd*ss on one SP lane per chain (FMA3)", TILE_ONE);
/* clang-format on */
