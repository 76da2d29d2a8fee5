/* The own GEMM: argument checking and BLAS semantics (nodescale_dgemm / nodescale_sgemm), block
 * sizes from the cache sizes hwloc reports, and the Goto/BLIS five loops with packing, written
 * once for both precisions (pointers are byte pointers plus an element size; the packing copies
 * are specialised by the compiler for 4- and 8-byte elements). Only the micro-kernels are per ISA
 * (gemm_internal.h states their contract).
 *
 * Loop order (van Zee & van de Geijn, "BLIS: A Framework for Rapidly Instantiating BLAS
 * Functionality", ACM TOMS 41(3), 2015, section 3; Goto & van de Geijn, "Anatomy of
 * High-Performance Matrix Multiplication", ACM TOMS 34(3), 2008):
 *
 *   jc: NC columns of C and B      B(pc:pc+KC, jc:jc+NC) packed into NR-wide micro-panels (L3)
 *    pc: KC of the k dimension
 *     ic: MC rows of C and A       A(ic:ic+MC, pc:pc+KC) packed into MR-tall micro-panels (L2)
 *      jr: NR columns               one B micro-panel stays in L1 while ...
 *       ir: MR rows                 ... the micro-kernel streams the A micro-panels from L2.
 *
 * Threads split jc, ic and jr (BLIS's choice; Smith et al., "Anatomy of High-Performance
 * Many-Threaded Matrix Multiplication", IPDPS 2014). Small and skinny shapes do not pay for
 * packing they cannot amortise (BLIS calls this path "sup"): with a single MC block of rows and
 * n <= SUP_N_MAX (256), A not transposed is read in place (cs_a = lda), and when one thread owns
 * its columns and there is a single block of rows, B is read in place too (rs_b/cs_b strides);
 * only partial edge micro-panels are copied, zero-padded, so nothing outside A or B is read. */
#include <errno.h>
#include <hwloc.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/nodescale.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_kernels.h"
#include "kernels/team_claim.h"

/* x86's page and cache-line sizes: the packing buffers are page-aligned and padded to whole
 * pages, B prefetches step by lines, and each group barrier has a line of its own. */
#define PAGE_BYTES 4096
#define CACHE_LINE_BYTES 64

/* ---- Micro-kernel table: one row per ISA and precision ------------------------------------- */

typedef struct ukr_entry {
    const char *name;
    int mr, nr;
    int nr_short; /* with n <= nr_short the kernel reads only nr_short columns of B (0: none) */
    int kc_l1_pct, mc_l2_pct; /* block-size table: see "Block sizes" below */
    ns_dgemm_ukr_fn d; /* exactly one of d, s is set */
    ns_sgemm_ukr_fn s;
    ns_gemm_pack_fn pack_b; /* full NR-column B panels, B not transposed (NULL: portable) */
} ukr_entry;

static const char *const isa_names[NS_GEMM_NISA] = {"avx512", "avx2", "scalar"};

/* [isa][precision]: NS_PREC_DP = 0, NS_PREC_SP = 1. */
static const ukr_entry ukr_table[NS_GEMM_NISA][2] = {
    {{"dgemm_ukr_16x14", 16, 14, 8, 60, 38, ns_dgemm_ukr_avx512_16x14, NULL,
      ns_gemm_pack_b14_avx512_d},
     {"sgemm_ukr_32x14", 32, 14, 8, 45, 57, NULL, ns_sgemm_ukr_avx512_32x14,
      ns_gemm_pack_b14_avx512_s}},
    {{"dgemm_ukr_8x6", 8, 6, 0, 50, 50, ns_dgemm_ukr_avx2_8x6, NULL, NULL},
     {"sgemm_ukr_16x6", 16, 6, 0, 50, 50, NULL, ns_sgemm_ukr_avx2_16x6, NULL}},
    {{"dgemm_ukr_4x4", 4, 4, 0, 50, 50, ns_dgemm_ukr_scalar_4x4, NULL, NULL},
     {"sgemm_ukr_8x4", 8, 4, 0, 50, 50, NULL, ns_sgemm_ukr_scalar_8x4, NULL}},
};

int ns_gemm_isa_index(const char *isa) {
    for (int i = 0; isa && i < NS_GEMM_NISA; i++)
        if (!strcmp(isa, isa_names[i])) return i;
    return -1;
}

static int isa_runnable(int isa) {
    if (isa == NS_GEMM_AVX512) return ns_cpu_has_avx512();
    if (isa == NS_GEMM_AVX2) return ns_cpu_has_avx2_fma();
    return isa == NS_GEMM_SCALAR;
}

/* ---- ISA selection: ns_isa_dispatch() (NODESCALE_ISA read once, as for the reductions) ---- */

const char *ns_gemm_isa(void) {
    return isa_names[ns_gemm_isa_index(ns_isa_dispatch())];
}

/* ---- Block sizes ---------------------------------------------------------------------------
 * Derived from the cache sizes hwloc reports, after Low et al., "Analytical Modeling Is Enough
 * for High-Performance BLIS", ACM TOMS 43(2), 2016: each block is sized as a fraction of the
 * cache level it must live in, one pair of fractions per micro-kernel (the table above):
 *   KC: the KC x NR micro-panel of B, reused by every A micro-panel of the ir loop, takes
 *       kc_l1_pct % of L1d (the rest holds the A micro-panel streaming through and the C tile);
 *       rounded down to a multiple of 32, and kept in [KC_MIN, KC_MAX] = [64, 1024];
 *   MC: the MC x KC block of A, reused by every B micro-panel of the jr loop, takes mc_l2_pct %
 *       of the per-core L2 (B micro-panels stream through the rest); a multiple of MR;
 *   NC: the KC x NC panel of B takes at most a quarter of L3 and at most NC_CAP columns (a VM
 *       may report the host's whole L3, as this one does), and at least NC_MIN (JC_MIN_COLS,
 *       the columns choose_ways keeps in each jc way) however small the L3; a multiple of NR.
 * Every level hwloc reports is used; a missing one is defaulted on its own and block_sizes_from
 * names it (L1d 32 KiB, L2 1 MiB; without an L3, NC is sized as if it were 4x L2). The cache
 * sizes recorded are those hwloc reported, 0 (JSON null) for a missing level.
 * The AVX-512 fractions were chosen on this Emerald Rapids VM (L1d 48 KiB, L2 2 MiB) by
 * interleaved runs against OpenBLAS at n = 1024 and 2048 (DGEMM 384/256, SGEMM 768/384 for
 * MC/KC); the others use halves. NODESCALE_GEMM_MC / _KC / _NC override them (rounded down to
 * multiples of MR, 1, NR). */

/* Packing A (about one load and store per element) pays off once each element feeds 2n >= 512
 * flops: with n <= SUP_N_MAX (and one MC block of rows) A is read in place (gemm_job's
 * unpacked_a). Each jc group packs its own A, so for the same reason choose_ways splits the
 * columns only while every jc way keeps JC_MIN_COLS of them, and NC is never below that. */
#define SUP_N_MAX 256
#define JC_MIN_COLS 256
#define NC_CAP 4200
#define NC_MIN JC_MIN_COLS
/* KC's floor and cap, for a tiny or an implausibly large reported L1d (not measured): the
 * micro-kernel loads and stores its C tile once per KC block, 2 vector accesses per KC FMAs of
 * each accumulator (3% at KC = 64, 0.2% at 1024), so below KC_MIN C traffic shows, and past
 * KC_MAX there is little left to gain while MC (the L2 share over KC) loses rows. */
#define KC_MIN 64
#define KC_MAX 1024

typedef struct blocks {
    int64_t mc, kc, nc;
    char source[192];
    int64_t l1, l2, l3;
} blocks;

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int64_t cache_l1 = 0, cache_l2 = 0, cache_l3 = 0; /* as hwloc reports them, 0: none */

static void cache_init(void) {
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_obj_type_t types[3] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE};
        int64_t *dst[3] = {&cache_l1, &cache_l2, &cache_l3};
        for (int i = 0; i < 3; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[i], 0);
            if (o && o->attr) *dst[i] = (int64_t)o->attr->cache.size;
        }
    }
    hwloc_topology_destroy(topo);
}

/* NODESCALE_GEMM_<name> as a block size (a multiple of mult), else dflt. A bad value is
 * ignored with a warning printed once per variable and process: this runs once per ISA and
 * precision (blocks_init, under pthread_once), and the value cannot change in between. */
static int64_t env_block(const char *name, int64_t dflt, int64_t mult, char *src, size_t srclen) {
    static const char *warned[8];
    static size_t nwarned;
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || *end || x < 1 || x > (1LL << 30)) {
        size_t w = 0;
        while (w < nwarned && strcmp(warned[w], name) != 0)
            w++;
        if (w == nwarned) {
            fprintf(stderr, "nodescale: warning: ignoring %s=%s (want an integer in [1, 2^30])\n",
                    name, v);
            if (nwarned < sizeof warned / sizeof *warned) warned[nwarned++] = name;
        }
        return dflt;
    }
    size_t used = strlen(src);
    snprintf(src + used, srclen - used, "; env %s", name + strlen("NODESCALE_GEMM_"));
    x = x / mult * mult;
    return x < mult ? mult : x;
}

static int64_t clamp_down(int64_t x, int64_t mult, int64_t lo) {
    x = x / mult * mult;
    return x < lo ? lo : x;
}

static void blocks_for(int isa, ns_precision prec, blocks *bk) {
    pthread_once(&cache_once, cache_init);
    const ukr_entry *u = &ukr_table[isa][prec];
    int64_t es = (int64_t)ns_prec_size(prec);
    int64_t l1 = cache_l1, l2 = cache_l2, l3 = cache_l3;
    bk->l1 = l1, bk->l2 = l2, bk->l3 = l3; /* as reported: a defaulted level is not recorded */
    char *src = bk->source;
    size_t n = sizeof bk->source;
    if (l1 <= 0 && l2 <= 0 && l3 <= 0) {
        snprintf(src, n, "defaults (hwloc reported no cache sizes): L1d 32 KiB, L2 1 MiB, NC "
                         "from 4x L2");
    } else {
        snprintf(src, n, "hwloc caches%s%s%s", l1 > 0 ? "" : "; L1d missing: default 32 KiB",
                 l2 > 0 ? "" : "; L2 missing: default 1 MiB", l3 > 0 ? "" : "; no L3: NC from 4x L2");
    }
    if (l1 <= 0) l1 = 32 << 10;
    if (l2 <= 0) l2 = 1 << 20;
    if (l3 <= 0) l3 = 4 * l2;
    int64_t kc = clamp_down(l1 * u->kc_l1_pct / 100 / (u->nr * es), 32, KC_MIN);
    if (kc > KC_MAX) kc = KC_MAX;
    kc = env_block("NODESCALE_GEMM_KC", kc, 1, bk->source, sizeof bk->source);
    int64_t mc = clamp_down(l2 * u->mc_l2_pct / 100 / (kc * es), u->mr, u->mr);
    mc = env_block("NODESCALE_GEMM_MC", mc, u->mr, bk->source, sizeof bk->source);
    int64_t nc = l3 / 4 / (kc * es);
    if (nc > NC_CAP) nc = NC_CAP;
    nc = clamp_down(nc, u->nr, u->nr);
    if (nc < NC_MIN) {
        nc = (NC_MIN + u->nr - 1) / u->nr * u->nr;
        size_t used = strlen(src);
        snprintf(src + used, n - used, "; NC raised to the %d-column floor", NC_MIN);
    }
    nc = env_block("NODESCALE_GEMM_NC", nc, u->nr, bk->source, sizeof bk->source);
    bk->mc = mc, bk->kc = kc, bk->nc = nc;
}

/* Block sizes are computed once per (ISA, precision): env and caches do not change mid-run. */
static pthread_once_t blocks_once = PTHREAD_ONCE_INIT;
static blocks blocks_table[NS_GEMM_NISA][2];

/* env_ways's view of NODESCALE_GEMM_JC_NT, _IC_NT, _JR_NT: the valid values (unset or bad: 1),
 * env_w_set (a valid one is set) and env_w_bad (the names and values of bad ones, "" if none). */
static const char *const env_w_names[3] = {"NODESCALE_GEMM_JC_NT", "NODESCALE_GEMM_IC_NT",
                                           "NODESCALE_GEMM_JR_NT"};
static int env_w[3], env_w_set, env_w_given[3]; /* given: set to a valid value */
static char env_w_bad[200];
static atomic_int env_w_warned; /* the product-mismatch warning was printed */

/* Reads NODESCALE_GEMM_JC_NT, _IC_NT, _JR_NT into env_w, env_w_set and env_w_bad. A bad value
 * (not an integer in [1, 1024]) counts as unset, with a warning; the valid ones are kept. This
 * runs once per process (blocks_init), so each warning is printed once, as env_block's. */
static void read_env_ways(void) {
    int w[3], any = 0;
    size_t used = 0;
    env_w_bad[0] = 0;
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(env_w_names[i]);
        w[i] = 1, env_w_given[i] = 0;
        if (!v || !*v) continue;
        char *end;
        errno = 0;
        long x = strtol(v, &end, 10);
        if (errno || *end || x < 1 || x > 1024) {
            fprintf(stderr,
                    "nodescale: warning: ignoring %s=%s (want an integer in [1, 1024]); it "
                    "counts as unset (1)\n",
                    env_w_names[i], v);
            if (used < sizeof env_w_bad)
                used += (size_t)snprintf(env_w_bad + used, sizeof env_w_bad - used, "%s%s=%.20s",
                                         used ? ", " : "", env_w_names[i], v);
            continue;
        }
        w[i] = (int)x, any = 1, env_w_given[i] = 1;
    }
    memcpy(env_w, w, sizeof w);
    env_w_set = any;
    atomic_store(&env_w_warned, 0);
}

static void blocks_init(void) {
    read_env_ways();
    for (int i = 0; i < NS_GEMM_NISA; i++)
        for (int p = 0; p < 2; p++) blocks_for(i, (ns_precision)p, &blocks_table[i][p]);
}

static const blocks *blocks_get(int isa, ns_precision prec) {
    pthread_once(&blocks_once, blocks_init);
    return &blocks_table[isa][prec];
}

int ns_gemm_config_get(const char *isa, ns_precision precision, ns_gemm_config *out) {
    int i = isa ? ns_gemm_isa_index(isa) : ns_gemm_isa_index(ns_gemm_isa());
    if (i < 0 || !isa_runnable(i) || (precision != NS_PREC_DP && precision != NS_PREC_SP))
        return -1;
    const ukr_entry *u = &ukr_table[i][precision];
    const blocks *bk = blocks_get(i, precision);
    memset(out, 0, sizeof *out);
    out->isa = isa_names[i];
    out->precision = precision;
    out->ukernel = u->name;
    out->mr = u->mr, out->nr = u->nr;
    out->mc = bk->mc, out->kc = bk->kc, out->nc = bk->nc;
    snprintf(out->source, sizeof out->source, "%s", bk->source);
    out->l1d_bytes = bk->l1, out->l2_bytes = bk->l2, out->l3_bytes = bk->l3;
    return 0;
}

/* ---- Edge-tile store shared by the plain-C micro-kernels ----------------------------------- */

void ns_gemm_edge_store_d(const double *ct, int mr, double beta, double *c, int64_t ldc, int64_t m,
                          int64_t n) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double *cij = &c[i + j * ldc];
            *cij = beta == 0.0 ? ct[i + j * mr] : beta * *cij + ct[i + j * mr];
        }
}

void ns_gemm_edge_store_s(const float *ct, int mr, float beta, float *c, int64_t ldc, int64_t m,
                          int64_t n) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            float *cij = &c[i + j * ldc];
            *cij = beta == 0.0f ? ct[i + j * mr] : beta * *cij + ct[i + j * mr];
        }
}

/* ---- Packing (written once; ES is a compile-time constant after inlining) ---------------- */

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Element (i, j) of a column-major matrix x (leading dimension ld), transposed if trans. */
ALWAYS_INLINE const char *elem(const char *x, int trans, int64_t i, int64_t j, int64_t ld,
                               size_t es) {
    return trans ? x + (size_t)(j + i * ld) * es : x + (size_t)(i + j * ld) * es;
}

/* Packs rows [0, mb) x columns [0, kb) of op(X) (X at x, leading dimension ld) into micro-panels
 * of R rows: panel q holds rows q*R.. and stores element (i, p) at dst[q*R*kb + p*R + i], rows
 * past mb zero-filled. Used for A (R = MR, op(A) rows) and, with the roles of the indices
 * swapped by the caller, for B (R = NR, columns of op(B) = rows of op(B)^T). Panels [q0, q1).
 * ES and R are compile-time constants after inlining (see pack_panels), so the copies unroll. */
ALWAYS_INLINE void pack_panels_es(size_t es, char *dst, const char *x, int trans, int64_t ld,
                                  int64_t mb, int64_t kb, const int R, int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; q++) {
        char *d = dst + (size_t)(q * R * kb) * es;
        int64_t i0 = q * R, r = mb - i0 < R ? mb - i0 : R;
        if (!trans) {
            /* Rows are contiguous in X: R elements per column p, both sides contiguous. */
            for (int64_t p = 0; p < kb; p++) {
                const char *s = elem(x, 0, i0, p, ld, es);
                char *dp = d + (size_t)(p * R) * es;
                if (r == R) {
                    memcpy(dp, s, (size_t)R * es);
                } else {
                    memcpy(dp, s, (size_t)r * es);
                    memset(dp + (size_t)r * es, 0, (size_t)(R - r) * es);
                }
            }
        } else if (r == R) {
            /* Columns of op(X) are contiguous: gather from R streams, write contiguously. */
            const char *src[64];
            for (int i = 0; i < R; i++) src[i] = elem(x, 1, i0 + i, 0, ld, es);
            for (int64_t p = 0; p < kb; p++)
                for (int i = 0; i < R; i++)
                    memcpy(d + (size_t)(p * R + i) * es, src[i] + (size_t)p * es, es);
        } else {
            for (int64_t i = 0; i < R; i++) {
                if (i < r) {
                    const char *s = elem(x, 1, i0 + i, 0, ld, es);
                    for (int64_t p = 0; p < kb; p++)
                        memcpy(d + (size_t)(p * R + i) * es, s + (size_t)p * es, es);
                } else {
                    for (int64_t p = 0; p < kb; p++) memset(d + (size_t)(p * R + i) * es, 0, es);
                }
            }
        }
    }
}

/* Instantiates the packing for each (element size, R) pair the micro-kernel table uses. */
static void pack_panels(size_t es, char *dst, const char *x, int trans, int64_t ld, int64_t mb,
                        int64_t kb, int R, int64_t q0, int64_t q1) {
#define PACK_CASE(ES, RR)                                                                          \
    if (es == ES && R == RR) {                                                                     \
        pack_panels_es(ES, dst, x, trans, ld, mb, kb, RR, q0, q1);                                 \
        return;                                                                                    \
    }
    PACK_CASE(8, 16) PACK_CASE(8, 14) PACK_CASE(4, 32) PACK_CASE(4, 14) /* avx512 */
    PACK_CASE(8, 8) PACK_CASE(8, 6) PACK_CASE(4, 16) PACK_CASE(4, 6)    /* avx2 */
    PACK_CASE(8, 4) PACK_CASE(4, 8) PACK_CASE(4, 4)                     /* scalar */
#undef PACK_CASE
    if (es == 8)
        pack_panels_es(8, dst, x, trans, ld, mb, kb, R, q0, q1);
    else
        pack_panels_es(4, dst, x, trans, ld, mb, kb, R, q0, q1);
}

/* ---- Group barrier for threads that share a packed block ---------------------------------- */

typedef struct group_barrier {
    _Alignas(CACHE_LINE_BYTES) atomic_int count;
    atomic_int sense;
    int n;
} group_barrier;

static void gb_wait(group_barrier *b, int *local_sense) {
    if (b->n <= 1) return;
    int s = !*local_sense;
    *local_sense = s;
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->sense, s, memory_order_release);
    } else {
        /* Spin briefly, then yield: the machine may be oversubscribed. */
        for (long spins = 0; atomic_load_explicit(&b->sense, memory_order_acquire) != s; spins++)
            if (spins > 1000) sched_yield();
            else __builtin_ia32_pause();
    }
}

/* ---- The five loops ----------------------------------------------------------------------- */

typedef struct gemm_job {
    size_t es;
    const ukr_entry *u;
    int64_t mc, kc, nc;
    int transa, transb;
    int64_t m, n, k;
    double alpha, beta; /* converted back to float for SGEMM: exact */
    const char *a, *b;
    char *c;
    int64_t lda, ldb, ldc;
    /* 1: the micro-kernel reads A in place (cs_a = lda; only a partial edge panel is copied).
     * Set only when all three hold (see gemm_plan): transa == 0, as the micro-kernel wants
     * each micro-panel's MR rows contiguous, which only an untransposed A has; each ic way's rows
     * fit one MC block (ceil(m / ic_ways) <= MC), the small-shape path that has no packing to
     * amortise; and n <= SUP_N_MAX (256), as packing (about one load and store per element)
     * pays off once each element of A feeds 2n >= 512 flops. */
    int unpacked_a;
    int b_direct;            /* 1: B micro-panels are not packed ahead (single block of rows) */
    int b_inplace;           /* with b_direct: 1 = read in place, 0 = copied just before use */
    int jc_ways, ic_ways, jr_ways;
    char *bufb, *bufa;       /* per jc group: B pack; per (jc, ic) group: A pack */
    size_t bsz, asz;         /* bytes of one B pack / one A pack */
    group_barrier *bar_jc;   /* [jc_ways] */
    group_barrier *bar_ic;   /* [jc_ways * ic_ways] */
} gemm_job;

static inline void call_ukr(const gemm_job *J, int64_t kb, const char *ap, int64_t cs_a,
                            const char *bp, int64_t rs_b, int64_t cs_b, double beta, char *c,
                            int64_t mr, int64_t nr) {
    if (J->es == 8)
        J->u->d(kb, J->alpha, (const double *)ap, cs_a, (const double *)bp, rs_b, cs_b, beta,
                (double *)c, J->ldc, mr, nr);
    else
        J->u->s(kb, (float)J->alpha, (const float *)ap, cs_a, (const float *)bp, rs_b, cs_b,
                (float)beta, (float *)c, J->ldc, mr, nr);
}

/* Splits [0, len) in `ways` nearly equal parts on multiples of `mult`; part `id` -> [*lo, *hi). */
static void split_range(int64_t len, int64_t mult, int ways, int id, int64_t *lo, int64_t *hi) {
    int64_t units = (len + mult - 1) / mult;
    int64_t u0 = units * id / ways, u1 = units * (id + 1) / ways;
    *lo = u0 * mult < len ? u0 * mult : len;
    *hi = u1 * mult < len ? u1 * mult : len;
}

/* Packs panels [q0, q1) of B(pc:pc+kb, jc:jc+nb) (b points at its first element) as pack_panels
 * does, with the micro-kernel table's vectorised packing for the full panels of a B not
 * transposed; partial panels and transposed B take the portable copy. */
static void pack_b(const gemm_job *J, char *dst, const char *b, int64_t nb, int64_t kb, int64_t q0,
                   int64_t q1) {
    const int64_t NR = J->u->nr;
    if (J->transb || !J->u->pack_b) {
        pack_panels(J->es, dst, b, !J->transb, J->ldb, nb, kb, (int)NR, q0, q1);
        return;
    }
    for (int64_t q = q0; q < q1; q++) {
        if (nb - q * NR >= NR)
            J->u->pack_b(dst + (size_t)(q * NR * kb) * J->es,
                         b + (size_t)(q * NR) * (size_t)J->ldb * J->es, J->ldb, kb);
        else
            pack_panels(J->es, dst, b, 1, J->ldb, nb, kb, (int)NR, q, q + 1);
    }
}

static void gemm_thread(const gemm_job *J, int tid) {
    const int64_t MR = J->u->mr, NR = J->u->nr;
    const size_t es = J->es;
    int jr_id = tid % J->jr_ways;
    int ic_id = (tid / J->jr_ways) % J->ic_ways;
    int jc_id = tid / (J->jr_ways * J->ic_ways);
    int grp_tid = tid % (J->jr_ways * J->ic_ways); /* rank inside the jc group */
    int grp_n = J->jr_ways * J->ic_ways;
    group_barrier *bjc = &J->bar_jc[jc_id];
    group_barrier *bic = &J->bar_ic[jc_id * J->ic_ways + ic_id];
    int sense_jc = 0, sense_ic = 0;
    char *bp = J->bufb + (size_t)jc_id * J->bsz;
    char *ap = J->bufa + (size_t)(jc_id * J->ic_ways + ic_id) * J->asz;

    int64_t n0, n1, m0, m1;
    split_range(J->n, NR, J->jc_ways, jc_id, &n0, &n1);
    split_range(J->m, MR, J->ic_ways, ic_id, &m0, &m1);

    for (int64_t jc = n0; jc < n1; jc += J->nc) {
        int64_t nb = n1 - jc < J->nc ? n1 - jc : J->nc;
        int64_t npan = (nb + NR - 1) / NR;
        for (int64_t pc = 0; pc < J->k; pc += J->kc) {
            int64_t kb = J->k - pc < J->kc ? J->k - pc : J->kc;
            double beta = pc == 0 ? J->beta : 1.0;
            /* Pack B(pc:pc+kb, jc:jc+nb): op(B)^T rows are op(B) columns, so B is packed as
             * the transpose with the opposite trans flag. The jc group shares the work. */
            if (!J->b_direct) {
                const char *bsrc = elem(J->b, J->transb, pc, jc, J->ldb, es);
                int64_t q0 = npan * grp_tid / grp_n, q1 = npan * (grp_tid + 1) / grp_n;
                pack_b(J, bp, bsrc, nb, kb, q0, q1);
                gb_wait(bjc, &sense_jc);
            }
            for (int64_t ic = m0; ic < m1; ic += J->mc) {
                int64_t mb = m1 - ic < J->mc ? m1 - ic : J->mc;
                int64_t mpan = (mb + MR - 1) / MR;
                const char *asrc = elem(J->a, J->transa, ic, pc, J->lda, es);
                if (!J->unpacked_a) {
                    int64_t q0 = mpan * jr_id / J->jr_ways, q1 = mpan * (jr_id + 1) / J->jr_ways;
                    pack_panels(es, ap, asrc, J->transa, J->lda, mb, kb, (int)MR, q0, q1);
                    gb_wait(bic, &sense_ic);
                } else if (mb % MR) {
                    /* Only the partial edge panel is copied (zero-padded), into this thread's
                     * own slot, so the micro-kernel never reads past A's last row. */
                    char *edge = ap + (size_t)jr_id * (size_t)(MR * kb) * es;
                    const char *esrc = elem(asrc, 0, (mpan - 1) * MR, 0, J->lda, es);
                    pack_panels(es, edge, esrc, 0, J->lda, mb - (mpan - 1) * MR, kb, (int)MR, 0,
                                1);
                }
                int64_t j0, j1;
                split_range(npan, 1, J->jr_ways, jr_id, &j0, &j1);
                for (int64_t jr = j0; jr < j1; jr++) {
                    int64_t nr = nb - jr * NR < NR ? nb - jr * NR : NR;
                    const char *bpan = bp + (size_t)(jr * NR * kb) * es;
                    int64_t rs_b = NR, cs_b = 1;
                    if (J->b_direct) {
                        /* One block of rows only: each B micro-panel serves this ir loop alone,
                         * so the micro-kernel reads it in place (it stays in L1 across ir)
                         * instead of B being packed out to L3 and read back. A partial edge
                         * panel is copied, zero-padded, so nothing past B's last column is read
                         * (unless the kernel reads exactly its width: nr_short); so is every
                         * panel whose columns would collide in L1 sets. */
                        const char *bj = elem(J->b, J->transb, pc, jc + jr * NR, J->ldb, es);
                        if ((nr == NR || nr == J->u->nr_short) && J->b_inplace) {
                            bpan = bj;
                            rs_b = J->transb ? J->ldb : 1, cs_b = J->transb ? 1 : J->ldb;
                        } else {
                            pack_b(J, bp, bj, nr, kb, 0, 1);
                            bpan = bp;
                        }
                    }
                    /* Lines of the next packed B micro-panel to prefetch into L2 per ir step,
                     * spread over the ir loop so it is there when jr advances. */
                    const char *bnext = bpan + (size_t)(NR * kb) * es;
                    int64_t blines = (int64_t)((size_t)(NR * kb) * es / CACHE_LINE_BYTES);
                    int64_t bstep = !J->b_direct && jr + 1 < j1 ? (blines + mpan - 1) / mpan : 0;
                    for (int64_t ir = 0; ir < mpan; ir++) {
                        int64_t mr = mb - ir * MR < MR ? mb - ir * MR : MR;
                        for (int64_t l = ir * bstep; l < (ir + 1) * bstep && l < blines; l++)
                            __builtin_prefetch(bnext + l * CACHE_LINE_BYTES, 0, 2);
                        char *cij = J->c + (size_t)((ic + ir * MR) + (jc + jr * NR) * J->ldc) * es;
                        const char *apan;
                        int64_t cs_a;
                        if (!J->unpacked_a) {
                            apan = ap + (size_t)(ir * MR * kb) * es, cs_a = MR;
                        } else if (mr == MR) {
                            apan = asrc + (size_t)(ir * MR) * es, cs_a = J->lda;
                        } else {
                            apan = ap + (size_t)jr_id * (size_t)(MR * kb) * es, cs_a = MR;
                        }
                        call_ukr(J, kb, apan, cs_a, bpan, rs_b, cs_b, beta, cij, mr, nr);
                    }
                }
                if (!J->unpacked_a) gb_wait(bic, &sense_ic); /* before A is repacked */
            }
            if (!J->b_direct) gb_wait(bjc, &sense_jc); /* before B is repacked */
        }
    }
}

/* Factor nthreads into jc x ic x jr ways. Columns first while each part keeps >= JC_MIN_COLS:
 * each jc group then runs an independent GEMM on its columns (own packed B, no barrier at all),
 * which on a 2-core VM shared with other work beat sharing B across an ic split (measured with
 * bench-gemm: own/OpenBLAS 0.98 vs 0.80 at n = 1024, 2 threads); A is packed once per group,
 * amortised over >= 512 flops per element. Then rows while each thread keeps half an MC block,
 * then jr (threads share one A block). */
static void choose_ways(int64_t m, int64_t n, int64_t mr, int64_t nr, int64_t mc, int nt, int *jc,
                        int *ic, int *jr) {
    *jc = *ic = *jr = 1;
    int rest = nt;
    for (int f = 2; rest > 1;) {
        if (rest % f) {
            f++;
            continue;
        }
        rest /= f;
        if (n / (*jc * f) >= JC_MIN_COLS)
            *jc *= f;
        else if (m / (*ic * f) >= mc / 2 && m / (*ic * f) >= mr)
            *ic *= f;
        else if (n / (*jr * *jc * f) >= nr)
            *jr *= f;
        else
            *ic *= f;
    }
}

void ns_gemm_reread_env_ways(void) {
    read_env_ways();
}

/* The valid NODESCALE_GEMM_*_NT variables set, as "NODESCALE_GEMM_JC_NT=2 NODESCALE_GEMM_IC_NT=1"
 * (unset and bad ones left out). */
static void env_ways_set(char *buf, size_t len) {
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < 3 && used < len; i++) {
        if (!env_w_given[i]) continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%d", used ? " " : "",
                                 env_w_names[i], env_w[i]);
    }
}

/* NODESCALE_GEMM_JC_NT, _IC_NT, _JR_NT (BLIS's BLIS_JC_NT, BLIS_IC_NT, BLIS_JR_NT): the ways
 * of each loop, used when the valid ones (unset or bad ones count as 1) have the call's thread
 * count as product; otherwise choose_ways decides, and the first such call warns (once per
 * process). Read once, with the block sizes (blocks_init, at the first GEMM call). */
static void env_ways(int nt, int *jc, int *ic, int *jr) {
    pthread_once(&blocks_once, blocks_init);
    if (!env_w_set) return;
    if (env_w[0] * env_w[1] * env_w[2] == nt) {
        *jc = env_w[0], *ic = env_w[1], *jr = env_w[2];
        return;
    }
    if (atomic_exchange(&env_w_warned, 1)) return;
    char set[128];
    env_ways_set(set, sizeof set);
    fprintf(stderr,
            "nodescale: warning: ignoring %s (product %d) for a GEMM on %d "
            "threads: the product must be the thread count; GEMM chose its own split\n",
            set, env_w[0] * env_w[1] * env_w[2], nt);
}

void ns_gemm_env_ways_note(int nt, const int ways[3], char *buf, size_t len) {
    pthread_once(&blocks_once, blocks_init);
    buf[0] = 0;
    if (!env_w_set && !env_w_bad[0]) return;
    char set[128];
    env_ways_set(set, sizeof set);
    int prod = env_w[0] * env_w[1] * env_w[2];
    size_t used = 0;
    if (env_w_bad[0])
        used = (size_t)snprintf(buf, len, "ignored %s (want an integer in [1, 1024]); ",
                                env_w_bad);
    if (used >= len) return;
    if (!env_w_set)
        snprintf(buf + used, len - used, "no valid one set: GEMM chose its own split");
    else if (prod == nt && ways[0] == env_w[0] && ways[1] == env_w[1] && ways[2] == env_w[2])
        snprintf(buf + used, len - used, "used %s", set);
    else
        snprintf(buf + used, len - used,
                 "ignored %s: product %d is not the %d thread%s this call ran on; GEMM chose "
                 "its own split",
                 set, prod, nt, nt == 1 ? "" : "s");
}

/* 1 if NR columns `stride` bytes apart fall into fewer than NR/2 distinct L1 sets (L1D_SETS sets
 * of 64-byte lines, as on every x86 core with a 32 or 48 KiB L1d): read in place, a B micro-panel
 * of a power-of-two leading dimension would keep evicting itself (4 KiB aliasing). */
#define L1D_SETS 64 /* at most 64: `seen` is a 64-bit mask */
static int l1_set_conflict(size_t stride, int nr) {
    uint64_t seen = 0;
    int distinct = 0;
    for (int j = 0; j < nr; j++) {
        unsigned set = (unsigned)((stride * (size_t)j / CACHE_LINE_BYTES) % L1D_SETS);
        if (!(seen >> set & 1)) seen |= 1ull << set, distinct++;
    }
    return distinct < nr / 2;
}

/* Pack buffers are cached per calling thread and reused: a fresh multi-MB buffer per call would
 * page-fault on every call. The thread's buffer is also registered under a pthread key whose
 * destructor frees it when the thread exits (the key is created once, on first use); the main
 * thread's buffer stays reachable until exit. buffers_live counts buffers not yet freed. */
static _Thread_local char *tls_buf;
static _Thread_local size_t tls_size;
static pthread_once_t buf_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t buf_key;
static int buf_key_ok;
static atomic_long buffers_live;
static int (*buf_alloc)(void **, size_t, size_t) = posix_memalign;

static void buf_free(void *p) {
    if (!p) return;
    free(p);
    atomic_fetch_sub(&buffers_live, 1);
    if (p == tls_buf) tls_buf = NULL, tls_size = 0;
}

static void buf_key_init(void) {
    buf_key_ok = pthread_key_create(&buf_key, buf_free) == 0;
}

static char *get_buffer(size_t bytes) {
    if (bytes <= tls_size) return tls_buf;
    pthread_once(&buf_key_once, buf_key_init);
    if (tls_buf) {
        if (buf_key_ok) pthread_setspecific(buf_key, NULL);
        buf_free(tls_buf);
    }
    void *p = NULL;
    if (buf_alloc(&p, PAGE_BYTES, bytes) != 0) return NULL;
    atomic_fetch_add(&buffers_live, 1);
    tls_buf = p, tls_size = bytes;
    /* Without a key (or if registering fails) the buffer is still freed by the next resize, as
     * before; it only leaks at thread exit. */
    if (buf_key_ok) pthread_setspecific(buf_key, p);
    return tls_buf;
}

long ns_gemm_buffers_live(void) {
    return atomic_load(&buffers_live);
}

void ns_gemm_set_buffer_alloc(int (*alloc)(void **, size_t, size_t)) {
    buf_alloc = alloc ? alloc : posix_memalign;
}

/* Threads: a call runs on at most 2mnk / GEMM_MIN_FLOPS_PER_THREAD threads (one per ~2 MFLOP,
 * so one thread below ~4 MFLOP: a 10 MFLOP call asked for 8 runs on 5), or the fork/join and the
 * group barriers cost more than the extra threads save. The value dates from the first GEMM
 * (73d784d); no measurement of the cut-off itself is on record. The one timing near it (README,
 * ML shapes, 2026-11-29): 64x64x64 (0.5 MFLOP) on one thread ran at 0.87 (DGEMM) and 0.88
 * (SGEMM) of OpenBLAS's rate on two. */
#define GEMM_MIN_FLOPS_PER_THREAD 2e6

int ns_gemm_ways(int isa, ns_precision prec, int64_t m, int64_t n, int64_t k, int nthreads,
                 int ways[3]) {
    int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    if (omp_get_level() > 0) nt = 1; /* any enclosing region, even a 1-thread (inactive) one */
    double flops = 2.0 * (double)m * (double)n * (double)k;
    if (flops / GEMM_MIN_FLOPS_PER_THREAD < nt)
        nt = flops < 2 * GEMM_MIN_FLOPS_PER_THREAD ? 1 : (int)(flops / GEMM_MIN_FLOPS_PER_THREAD);
    if (nt < 1) nt = 1;
    ways[0] = ways[1] = ways[2] = 1;
    if (nt == 1) return 1; /* small calls: no getenv, no factoring */
    const ukr_entry *u = &ukr_table[isa][prec];
    choose_ways(m, n, u->mr, u->nr, blocks_get(isa, prec)->mc, nt, &ways[0], &ways[1], &ways[2]);
    env_ways(nt, &ways[0], &ways[1], &ways[2]);
    return nt;
}

/* C := beta * C on the m x n block (alpha == 0 or k == 0); beta == 0 stores zeros unread. */
static void scale_c(size_t es, int64_t m, int64_t n, double beta, char *c, int64_t ldc) {
    for (int64_t j = 0; j < n; j++) {
        if (es == 8) {
            double *cj = (double *)c + j * ldc;
            for (int64_t i = 0; i < m; i++) cj[i] = beta == 0.0 ? 0.0 : beta * cj[i];
        } else {
            float *cj = (float *)c + j * ldc;
            float bf = (float)beta;
            for (int64_t i = 0; i < m; i++) cj[i] = bf == 0.0f ? 0.0f : bf * cj[i];
        }
    }
}

/* The plan of a call whose J holds its shape, operands and block sizes: sets its ways over jc,
 * ic and jr (ns_gemm_ways's), its paths (A read in place or packed; B packed ahead, read in place
 * or copied per panel) and the bytes of one B and one A pack buffer. Allocates nothing. */
static void gemm_plan(gemm_job *J, const int ways[3]) {
    const int64_t MR = J->u->mr, NR = J->u->nr, m = J->m, n = J->n, k = J->k;
    const size_t es = J->es;
    J->jc_ways = ways[0], J->ic_ways = ways[1], J->jr_ways = ways[2];

    /* Packing A costs about one load and store per element and saves strided, TLB-hungry
     * reads in every jr iteration; it pays off once each element feeds 2n >= 512 flops. Below
     * that, with one MC block of rows and A not transposed, A is read in place. */
    int64_t m_ic = (m + J->ic_ways - 1) / J->ic_ways;
    J->unpacked_a = !J->transa && m_ic <= J->mc && n <= SUP_N_MAX;

    /* A single thread per jc group and a single block of rows: B is not packed. */
    J->b_direct = J->ic_ways * J->jr_ways == 1 && m <= J->mc;
    J->b_inplace = J->transb || !l1_set_conflict((size_t)J->ldb * es, (int)NR);

    int64_t kc = k < J->kc ? k : J->kc;
    int64_t nc_max = n < J->nc ? n : J->nc;
    J->bsz = (size_t)(((nc_max + NR - 1) / NR) * NR * kc) * es;
    if (J->b_direct) J->bsz = (size_t)(NR * kc) * es;
    /* An ic group has at most ceil(ceil(m / MR) / ic_ways) panels of rows (split_range): A's
     * buffer holds no more, whatever MC (NODESCALE_GEMM_MC may be up to 2^30). */
    int64_t rows_max = (((m + MR - 1) / MR + J->ic_ways - 1) / J->ic_ways) * MR;
    int64_t mc_max = rows_max < J->mc ? rows_max : J->mc;
    J->asz = (size_t)(((mc_max + MR - 1) / MR) * MR * kc) * es;
    if (J->unpacked_a) J->asz = (size_t)(MR * kc * J->jr_ways) * es; /* edge panels only */
    J->bsz = (J->bsz + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
    J->asz = (J->asz + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
}

/* Group barriers (jc_ways + jc_ways * ic_ways of them) that a call keeps on its stack; a call
 * with more allocates them. 8 (512 bytes) covers teams of up to 4 threads: 128 of them took
 * 8 KiB of the caller's stack, whose size the library does not choose (nodescale.h, Stack). */
#define STACK_GROUPS 8

/* The workspace of a planned call: its pack buffers (the calling thread's cached buffer: a B
 * pack per jc group, then an A pack per (jc, ic) group) and its initialised group barriers, in
 * bars (STACK_GROUPS of them) or, for more groups, in *heap_bars (to free after the call; NULL
 * otherwise). Returns 0, or NODESCALE_ERR_NOMEM when an allocation failed. */
static int gemm_workspace(gemm_job *J, group_barrier *bars, group_barrier **heap_bars) {
    int ngroups_jc = J->jc_ways, ngroups_ic = J->jc_ways * J->ic_ways;
    *heap_bars = NULL;
    char *buf = get_buffer(J->bsz * (size_t)ngroups_jc + J->asz * (size_t)ngroups_ic);
    if (!buf) return NODESCALE_ERR_NOMEM;
    J->bufb = buf;
    J->bufa = buf + J->bsz * (size_t)ngroups_jc;
    if (ngroups_jc + ngroups_ic > STACK_GROUPS) {
        /* calloc guarantees only 16-byte alignment; the barriers need their
         * _Alignas(CACHE_LINE_BYTES). */
        size_t bar_bytes = (size_t)(ngroups_jc + ngroups_ic) * sizeof **heap_bars;
        void *mem = NULL;
        if (buf_alloc(&mem, _Alignof(group_barrier), bar_bytes) != 0) return NODESCALE_ERR_NOMEM;
        *heap_bars = memset(mem, 0, bar_bytes);
        J->bar_jc = *heap_bars;
    } else {
        J->bar_jc = bars;
    }
    J->bar_ic = J->bar_jc + ngroups_jc;
    for (int g = 0; g < ngroups_jc + ngroups_ic; g++) {
        atomic_init(&J->bar_jc[g].count, 0);
        atomic_init(&J->bar_jc[g].sense, 0);
        J->bar_jc[g].n = g < ngroups_jc ? J->ic_ways * J->jr_ways : J->jr_ways;
    }
    return 0;
}

/* cpus (may be NULL): see ns_gemm_d_isa_cpus. The caller's CPU first, for the paths that stay
 * on the calling thread; the parallel region overwrites it with every thread's. */
static int gemm_generic(int isa, ns_precision prec, int transa, int transb, int64_t m, int64_t n,
                        int64_t k, double alpha, const void *a, int64_t lda, const void *b,
                        int64_t ldb, double beta, void *c, int64_t ldc, int nthreads, int *cpus,
                        int max_cpus, int *ncpus) {
    if (cpus && max_cpus > 0) cpus[0] = sched_getcpu(), *ncpus = 1;
    size_t es = ns_prec_size(prec);
    if (m <= 0 || n <= 0) return 0;
    if (alpha == 0.0 || k <= 0) {
        /* Reference BLAS: with beta == 1 C is not touched at all (it may be read-only). */
        if (beta != 1.0) scale_c(es, m, n, beta, c, ldc);
        return 0;
    }
    const blocks *bk = blocks_get(isa, prec);
    gemm_job J = {.es = es, .u = &ukr_table[isa][prec], .mc = bk->mc, .kc = bk->kc,
                  .nc = bk->nc, .transa = transa, .transb = transb, .m = m, .n = n, .k = k,
                  .alpha = alpha, .beta = beta, .a = a, .b = b, .c = c, .lda = lda, .ldb = ldb,
                  .ldc = ldc};

    int ways[3];
    int nt = ns_gemm_ways(isa, prec, m, n, k, nthreads, ways);
    /* One library team at a time (team_claim.h). A call that chooses its threads (nthreads <= 0:
     * the public API) runs on one without the claim. A call told its count (the registry's,
     * which measures that count) keeps it, and takes the claim only to keep public calls beside
     * it from stacking their teams on it. In a forked child every call runs on one thread: the
     * registry's team hook then reports got (ncpus) 1 of the asked count, not a silent 1. */
    int held = 0;
    if (nt > 1) {
        held = ns_team_claim();
        if (ns_team_forked() || (!held && nthreads <= 0))
            nt = ns_gemm_ways(isa, prec, m, n, k, 1, ways);
    }
    gemm_plan(&J, ways);
    group_barrier bars[STACK_GROUPS], *heap_bars;
    if (gemm_workspace(&J, bars, &heap_bars) != 0) {
        /* nothing written yet: C untouched, nothing printed */
        if (held) ns_team_release();
        return NODESCALE_ERR_NOMEM;
    }

    if (nt == 1) {
        gemm_thread(&J, 0);
    } else {
#pragma omp parallel num_threads(nt)
        {
            if (omp_get_num_threads() == nt) {
                int tid = omp_get_thread_num();
                gemm_thread(&J, tid);
                if (cpus && tid < max_cpus) cpus[tid] = sched_getcpu();
#pragma omp master
                if (cpus && max_cpus > 0) *ncpus = nt < max_cpus ? nt : max_cpus;
            } else {
#pragma omp single
                {
                    /* The runtime gave fewer threads than asked (OMP_DYNAMIC, thread limit):
                     * one thread does it all with the group-0 buffers. */
                    gemm_job J1 = J;
                    J1.jc_ways = J1.ic_ways = J1.jr_ways = 1;
                    J1.bar_jc[0].n = 1; /* a group of one never waits */
                    J1.bar_ic = J1.bar_jc;
                    /* b_direct only needs this thread to own its columns, which it now does;
                     * the buffers of group 0 hold a full B panel or more. */
                    gemm_thread(&J1, 0);
                    if (cpus && max_cpus > 0) cpus[0] = sched_getcpu(), *ncpus = 1;
                }
            }
        }
    }
    if (held) ns_team_release();
    free(heap_bars);
    return 0;
}

int ns_gemm_d_isa(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                  const double *a, int64_t lda, const double *b, int64_t ldb, double beta,
                  double *c, int64_t ldc, int nthreads) {
    return gemm_generic(isa, NS_PREC_DP, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                        ldc, nthreads, NULL, 0, NULL);
}

int ns_gemm_s_isa(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k, float alpha,
                  const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                  int64_t ldc, int nthreads) {
    return gemm_generic(isa, NS_PREC_SP, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                        ldc, nthreads, NULL, 0, NULL);
}

int ns_gemm_d_isa_cpus(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k,
                       double alpha, const double *a, int64_t lda, const double *b, int64_t ldb,
                       double beta, double *c, int64_t ldc, int nthreads, int *cpus, int max_cpus,
                       int *ncpus) {
    return gemm_generic(isa, NS_PREC_DP, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                        ldc, nthreads, cpus, max_cpus, ncpus);
}

int ns_gemm_s_isa_cpus(int isa, int transa, int transb, int64_t m, int64_t n, int64_t k,
                       float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                       float beta, float *c, int64_t ldc, int nthreads, int *cpus, int max_cpus,
                       int *ncpus) {
    return gemm_generic(isa, NS_PREC_SP, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                        ldc, nthreads, cpus, max_cpus, ncpus);
}

/* ---- Public API: CBLAS argument checking, row-major by transposition ---------------------- */

static int64_t max1(int64_t x) {
    return x > 1 ? x : 1;
}

/* 1 when t transposes, 0 when it does not, -1 when it is no transpose value. CBLAS's
 * CblasConjNoTrans (114, OpenBLAS's extension) is NoTrans for real data, as in cblas_dgemm. */
static int trans_of(nodescale_transpose t) {
    switch (t) {
    case NodescaleNoTrans:
    case NodescaleConjNoTrans: return 0;
    case NodescaleTrans:
    case NodescaleConjTrans: return 1;
    }
    return -1;
}

/* Returns 0 or the 1-based number of the first invalid argument (cblas_?gemm's order).
 * A, B and C may be NULL exactly when the call does not touch them: A and B when m, n or k is
 * 0 or alpha == 0, C when m or n is 0, or when C := beta C leaves C alone (alpha == 0 or k == 0,
 * with beta == 1). The callers then hand row-major calls to the column-major core as
 * C^T = op(B)^T op(A)^T. */
static int check_args(nodescale_layout layout, nodescale_transpose transa,
                      nodescale_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                      const void *a, int64_t lda, const void *b, int64_t ldb, double beta,
                      const void *c, int64_t ldc) {
    if (layout != NodescaleRowMajor && layout != NodescaleColMajor) return 1;
    int ta = trans_of(transa), tb = trans_of(transb);
    if (ta < 0) return 2;
    if (tb < 0) return 3;
    if (m < 0) return 4;
    if (n < 0) return 5;
    if (k < 0) return 6;
    int col = layout == NodescaleColMajor;
    /* Rows of the stored matrix (column-major) or its row length (row-major). */
    int64_t a_need = col ? (ta ? k : m) : (ta ? m : k);
    int64_t b_need = col ? (tb ? n : k) : (tb ? k : n);
    int64_t c_need = col ? m : n;
    int reads_ab = m > 0 && n > 0 && k > 0 && alpha != 0.0;
    int touches_c = m > 0 && n > 0 && (reads_ab || beta != 1.0);
    if (reads_ab && !a) return 8;
    if (lda < max1(a_need)) return 9;
    if (reads_ab && !b) return 10;
    if (ldb < max1(b_need)) return 11;
    if (touches_c && !c) return 13;
    if (ldc < max1(c_need)) return 14;
    return 0;
}

int nodescale_dgemm(nodescale_layout layout, nodescale_transpose transa,
                    nodescale_transpose transb, int64_t m, int64_t n, int64_t k, double alpha,
                    const double *a, int64_t lda, const double *b, int64_t ldb, double beta,
                    double *c, int64_t ldc) {
    int bad = check_args(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (bad) return bad;
    int isa = ns_gemm_isa_index(ns_isa_dispatch());
    int ta = trans_of(transa), tb = trans_of(transb);
    if (layout == NodescaleColMajor)
        return ns_gemm_d_isa(isa, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 0);
    return ns_gemm_d_isa(isa, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc, 0);
}

int nodescale_sgemm(nodescale_layout layout, nodescale_transpose transa,
                    nodescale_transpose transb, int64_t m, int64_t n, int64_t k, float alpha,
                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                    float *c, int64_t ldc) {
    int bad = check_args(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (bad) return bad;
    int isa = ns_gemm_isa_index(ns_isa_dispatch());
    int ta = trans_of(transa), tb = trans_of(transb);
    if (layout == NodescaleColMajor)
        return ns_gemm_s_isa(isa, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 0);
    return ns_gemm_s_isa(isa, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc, 0);
}
