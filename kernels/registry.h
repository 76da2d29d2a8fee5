/* The kernel registry: one descriptor per (kernel, ISA) pair. The harness, the roofline builder
 * and the report writers know kernels only through these descriptors; nothing outside kernels/
 * calls a kernel directly. A descriptor states the kernel's analytic FLOP and byte counts (with
 * its write-allocate policy), how to create its inputs (first-touched by the threads that will
 * use them), how to run one repetition, and how to check its output against a plain-C reference.
 */
#ifndef NS_REGISTRY_H
#define NS_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum { NS_PREC_DP = 0, NS_PREC_SP = 1 } ns_precision;

/* The most threads one kernel instance runs on, and so the --threads bound of run, bench and
 * fleet and the range the results check accepts. One number, so that a count the CLI accepts is
 * one every kernel can run and the harness can record: the reductions size their per-thread
 * partials from it, the timing loop records the CPU of each thread up to it. 1024 holds every
 * hardware thread of today's largest shared-memory nodes (2 x 192 cores x 2-way SMT = 768;
 * 8 x 60 x 2 = 960) while those arrays stay small enough for the stack (the i?amax partials,
 * NS_MAX_THREADS x 4 x 16 bytes = 64 KiB). */
#define NS_MAX_THREADS 1024

/* How run() is called. NS_RUN_TEAM: by every thread of the harness's OpenMP team, each doing its
 * static share (tid, nthreads); the harness times each thread and keeps the slowest.
 * NS_RUN_SELF: once, from one thread; the kernel opens its own parallel region (GEMM, BLAS peers). */
typedef enum { NS_RUN_TEAM = 0, NS_RUN_SELF = 1 } ns_run_model;

/* Shape and size of one kernel instance. Meaning per family:
 *   gemm:   C(m x n) += A(m x k) * B(k x n), column-major, lda = m, ldb = k, ldc = m.
 *   stream, reduce: n = elements per array (all threads together).
 *   peak:   n = repetitions of the kernel's unrolled FMA block per thread; k unused. */
typedef struct ns_params {
    int64_t m, n, k;
    int threads; /* OpenMP threads; >= 1 */
} ns_params;

/* Result of a kernel's output check. */
typedef struct ns_check {
    int ok;           /* 1 = output matches the reference within bound */
    double error;     /* max relative error found (or absolute where stated in why) */
    double bound;     /* the bound it was checked against */
    char why[160];    /* one line: what was compared, or what failed */
} ns_check;

/* The team a kernel's last run() ran on (ns_kernel.team). */
typedef struct ns_team {
    int asked;     /* threads the kernel asked the OpenMP runtime for: p->threads, or fewer by
                      its own choice (why) */
    int got;       /* threads the runtime gave; fewer than asked invalidates the measurement */
    char why[160]; /* when asked < p->threads: one line saying why, else "" */
    int ways[3];   /* the own GEMM: its threads over the jc, ic and jr loops; else 0s */
    char ways_note[320]; /* the own GEMM: what became of NODESCALE_GEMM_{JC,IC,JR}_NT ("" if
                            none is set) */
} ns_team;

typedef struct ns_kernel {
    const char *name;      /* e.g. "stream_triad"; unique together with isa */
    const char *family;    /* "peak" | "stream" | "reduce" | "gemm" */
    const char *isa;       /* "avx512" | "avx2" | "scalar" | "blis" | "openblas" */
    ns_precision precision;
    const char *mix;       /* instruction mix: of a peak kernel, the ceiling it measures
                              ("fma", "fma+add", "add", "scalar_fma"); of a memory-bound one
                              (ns_family_memory_bound), the compute ceiling its arithmetic is
                              judged against ("add": sums; "fma": dot products, norms, triads);
                              NULL when no ceiling measures its arithmetic (copy, scale, load,
                              max-abs) and for GEMM. `executes` says which instructions carry
                              out a peak kernel's mix */
    const char *bytes_policy; /* how bytes() counts: "minimal" (useful bytes, no write-allocate)
                                 or "with_write_allocate" */
    ns_run_model run_model;
    /* Analytic counts for one repetition with these params (all threads). */
    double (*flops)(const ns_params *p);
    double (*bytes)(const ns_params *p);
    /* Bytes the kernel touches (its working set) for these params. */
    double (*working_set)(const ns_params *p);
    /* 1 if this CPU can run it (cpuid), else 0. */
    int (*supported)(void);
    /* Allocate and initialise inputs; NS_RUN_TEAM kernels first-touch in parallel with the same
     * static partition run() uses. Returns NULL on failure, errno set: ENOMEM when the inputs
     * cannot be allocated, another value (EINVAL, ENOTSUP) when the kernel cannot be set up. */
    void *(*create)(const ns_params *p);
    /* One repetition. See ns_run_model. */
    void (*run)(void *state, int tid, int nthreads);
    /* Compare the output of the last run() with the plain-C reference. */
    void (*check)(void *state, ns_check *out);
    void (*destroy)(void *state);
    /* NS_RUN_SELF kernels that run on threads of their own (may be NULL): writes the CPU each
     * of them ran on in the last run() to cpu_of_thread[0..], at most max entries, and returns
     * how many; 0 when unknown (the harness then records the calling thread's CPU alone). */
    int (*cpus)(void *state, int *cpu_of_thread, int max);
    /* Passes over the working set in one repetition (flops() and bytes() count them all);
     * NULL: 1. STREAM kernels stream a small working set several times per repetition. */
    int64_t (*passes)(const ns_params *p);
    /* NS_RUN_SELF kernels (may be NULL: taken to run on p->threads): the team of the last
     * run(), filled into *out. GEMM runs small calls on fewer threads. */
    void (*team)(void *state, ns_team *out);
    /* Peak kernels (may be NULL): what one repetition executes, in instruction terms
     * ("packed SSE2 mulpd then addpd, no FMA: ..."), since isa and mix alone do not say it (the
     * `scalar` ISA is baseline x86-64, and its fma mix is a multiply then an add). */
    const char *executes;
} ns_kernel;

/* All descriptors, in registration order; *count receives the number. */
const ns_kernel *const *ns_registry(size_t *count);

/* The descriptor for name. isa non-NULL: exactly that variant ("avx512", "blis", ...), if this
 * CPU supports it. isa NULL: the hand-tuned variant for the ISA that ns_isa_selected() picks
 * (honouring NODESCALE_ISA), else the next narrower ISA; a name that only peers carry gives the
 * first supported peer. NULL if none. */
const ns_kernel *ns_registry_find(const char *name, const char *isa);

/* The ISA that NODESCALE_ISA or cpuid selects for hand-tuned kernels: "avx512", "avx2" or
 * "scalar". An unknown NODESCALE_ISA value, or one this CPU cannot run, gives NULL. */
const char *ns_isa_selected(void);

/* The ISA the library's public functions (nodescale_?gemm and the reductions) dispatch to:
 * NODESCALE_ISA, read once at the first call; when it is unknown or this CPU cannot run it, one
 * warning line on stderr (once) and the widest ISA cpuid reports. Never NULL. */
const char *ns_isa_dispatch(void);

/* cpuid probes (with OS support for the register state checked through xgetbv), read once per
 * process and cached: cheap enough for every library call. */
int ns_cpu_has_avx2_fma(void);
int ns_cpu_has_avx512(void);
/* How many times the probes have read cpuid in this process (0 or 1; for tests). */
unsigned ns_cpu_probe_count(void);

/* 1 for the families whose kernels are memory bound ("stream", "reduce"): judged by the
 * bandwidth roof and compared by GB/s; 0 for the others and for NULL. */
static inline int ns_family_memory_bound(const char *family) {
    return family && (!strcmp(family, "stream") || !strcmp(family, "reduce"));
}

/* 1 when isa names a peer library ("blis", "openblas") rather than one of nodescale's own ISAs
 * ("avx512", "avx2", "scalar"). */
static inline int ns_isa_is_peer(const char *isa) {
    return strcmp(isa, "avx512") && strcmp(isa, "avx2") && strcmp(isa, "scalar");
}

static inline size_t ns_prec_size(ns_precision p) {
    return p == NS_PREC_DP ? sizeof(double) : sizeof(float);
}
static inline const char *ns_prec_name(ns_precision p) {
    return p == NS_PREC_DP ? "dp" : "sp";
}

#endif
