/* Descriptors of the gemm family, listed in the registry's order, and what the lead records in
 * results.json about them: which micro-kernel (ISA, MR x NR) and which block sizes (MC, KC, NC)
 * each precision used, and the BLAS peers' versions, threading and status. Plain C structs; the
 * library does not depend on jansson. */
#ifndef NS_GEMM_KERNELS_H
#define NS_GEMM_KERNELS_H

#include <stdint.h>

#include "kernels/registry.h"

/* Own GEMM (kernels/gemm/gemm_desc.c): name "dgemm"/"sgemm", isa "avx512"/"avx2"/"scalar".
 * Peers (kernels/peers/peers.c): same names, isa "blis"/"openblas". */
extern const ns_kernel ns_k_dgemm_avx512, ns_k_dgemm_avx2, ns_k_dgemm_scalar;
extern const ns_kernel ns_k_sgemm_avx512, ns_k_sgemm_avx2, ns_k_sgemm_scalar;
extern const ns_kernel ns_k_dgemm_blis, ns_k_dgemm_openblas;
extern const ns_kernel ns_k_sgemm_blis, ns_k_sgemm_openblas;

#define NS_KERNELS_GEMM                                                                            \
    &ns_k_dgemm_avx512, &ns_k_dgemm_avx2, &ns_k_dgemm_scalar, &ns_k_dgemm_blis,                    \
        &ns_k_dgemm_openblas, &ns_k_sgemm_avx512, &ns_k_sgemm_avx2, &ns_k_sgemm_scalar,            \
        &ns_k_sgemm_blis, &ns_k_sgemm_openblas,

/* The configuration one (ISA, precision) of the own GEMM runs with. */
typedef struct ns_gemm_config {
    const char *isa;        /* "avx512" | "avx2" | "scalar" */
    ns_precision precision;
    const char *ukernel;    /* micro-kernel's name, e.g. "dgemm_ukr_16x14" */
    int mr, nr;             /* register tile of the micro-kernel (C rows x columns) */
    int64_t mc, kc, nc;     /* cache block sizes in elements (multiples of mr / 1 / nr) */
    /* Where mc/kc/nc came from: "hwloc caches" (L1d, L2, L3 sizes and the table in gemm.c),
     * with "; L2 missing: default 1 MiB" (or L1d; "no L3: NC from 4x L2") per level hwloc did
     * not report, "; NC raised to the 256-column floor", "; env KC" (or MC, NC) per
     * NODESCALE_GEMM_* override; or "defaults (hwloc reported no cache sizes): ...". */
    char source[192];
    /* The cache sizes hwloc reported, from which the block sizes were derived; 0 for a level
     * it did not report (the default used instead is named in source). */
    int64_t l1d_bytes, l2_bytes, l3_bytes;
} ns_gemm_config;

/* The configuration for isa ("avx512", "avx2", "scalar"; NULL: the one nodescale_?gemm
 * dispatches to) and precision. Returns 0, or -1 for an unknown isa or one this CPU cannot run. */
int ns_gemm_config_get(const char *isa, ns_precision precision, ns_gemm_config *out);

/* The ISA nodescale_dgemm/nodescale_sgemm dispatch to: ns_isa_dispatch() (kernels/registry.h). */
const char *ns_gemm_isa(void);

/* One BLAS peer loaded into this process (dlopen RTLD_LOCAL|RTLD_DEEPBIND). */
typedef struct ns_gemm_peer_info {
    const char *name;       /* "blis" | "openblas" */
    int available;          /* 1 = loaded and callable */
    char path[160];         /* the shared object loaded */
    char version[96];       /* bli_info_get_version_str() / openblas_get_config() */
    char threading[64];     /* "openmp", "pthreads (OpenMP build not found)", ... */
    int threads;            /* thread count last set on it (what the last run used) */
    char status[200];       /* "ok" or why it is unavailable */
    char note[200];         /* what was done to give it its best kernels here, or "" */
    /* The widest ISA its GEMM kernels use here: "avx512", "avx2", "avx", "sse" or "scalar"
     * (from OpenBLAS's core name, BLIS's configuration); "" when unknown. */
    char isa[16];
} ns_gemm_peer_info;

/* Loads the peers on first use (thread-safe) and describes them. which: 0 = BLIS, 1 = OpenBLAS.
 * Returns 0, or -1 for another which. */
int ns_gemm_peer_info_get(int which, ns_gemm_peer_info *out);

/* Calls peer `which` (0 BLIS, 1 OpenBLAS) as cblas_?gemm with column-major operands after
 * setting its thread count to threads. Return 0, or -1 if the peer is unavailable. */
int ns_gemm_peer_dgemm(int which, int threads, int transa, int transb, int64_t m, int64_t n,
                       int64_t k, double alpha, const double *a, int64_t lda, const double *b,
                       int64_t ldb, double beta, double *c, int64_t ldc);
int ns_gemm_peer_sgemm(int which, int threads, int transa, int transb, int64_t m, int64_t n,
                       int64_t k, float alpha, const float *a, int64_t lda, const float *b,
                       int64_t ldb, float beta, float *c, int64_t ldc);

#endif
