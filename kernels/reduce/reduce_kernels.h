/* Descriptors of the reduce family, listed in the registry's order, and the per-thread
 * floating-point state probe the harness records with every run. */
#ifndef NS_REDUCE_KERNELS_H
#define NS_REDUCE_KERNELS_H

#include <stdint.h>

#include "kernels/registry.h"

/* MXCSR of the calling thread. Bit 15 = FTZ, bit 6 = DAZ. */
uint32_t ns_mxcsr_read(void);
#define NS_MXCSR_FTZ (1u << 15)
#define NS_MXCSR_DAZ (1u << 6)

/* MXCSR of each thread of a team of nthreads (the same runtime and binding the timed loops use),
 * into mxcsr[0..nthreads). Returns the number of threads the runtime gave. */
int ns_fpstate_per_thread(int nthreads, uint32_t *mxcsr);

/* Names: d/s = DP/SP input; _pairwise; _kahan, the suite's name for the compensated variant
 * (Sum2/Dot2 of Ogita-Rump-Oishi, Neumaier-style; not Kahan's algorithm: the names are kept for
 * the baselines); _dpacc, SP input accumulated in DP (NodescaleSumWide); _det (deterministic
 * mode: bitwise the same for any thread count). reduce_internal.h (NS_VAR_COMP, NS_VAR_WIDE)
 * states both variants. Plain names are the fast mode of the plain variant. Each in avx512, avx2
 * and scalar. */
extern const ns_kernel ns_k_dsum_avx512, ns_k_dsum_avx2, ns_k_dsum_scalar;
extern const ns_kernel ns_k_dsum_pairwise_avx512, ns_k_dsum_pairwise_avx2,
    ns_k_dsum_pairwise_scalar;
extern const ns_kernel ns_k_dsum_kahan_avx512, ns_k_dsum_kahan_avx2, ns_k_dsum_kahan_scalar;
extern const ns_kernel ns_k_dsum_det_avx512, ns_k_dsum_det_avx2, ns_k_dsum_det_scalar;
extern const ns_kernel ns_k_ddot_avx512, ns_k_ddot_avx2, ns_k_ddot_scalar;
extern const ns_kernel ns_k_ddot_kahan_avx512, ns_k_ddot_kahan_avx2, ns_k_ddot_kahan_scalar;
extern const ns_kernel ns_k_ddot_det_avx512, ns_k_ddot_det_avx2, ns_k_ddot_det_scalar;
extern const ns_kernel ns_k_dnrm2_avx512, ns_k_dnrm2_avx2, ns_k_dnrm2_scalar;
extern const ns_kernel ns_k_idamax_avx512, ns_k_idamax_avx2, ns_k_idamax_scalar;
extern const ns_kernel ns_k_ssum_avx512, ns_k_ssum_avx2, ns_k_ssum_scalar;
extern const ns_kernel ns_k_ssum_pairwise_avx512, ns_k_ssum_pairwise_avx2,
    ns_k_ssum_pairwise_scalar;
extern const ns_kernel ns_k_ssum_kahan_avx512, ns_k_ssum_kahan_avx2, ns_k_ssum_kahan_scalar;
extern const ns_kernel ns_k_ssum_dpacc_avx512, ns_k_ssum_dpacc_avx2, ns_k_ssum_dpacc_scalar;
extern const ns_kernel ns_k_ssum_det_avx512, ns_k_ssum_det_avx2, ns_k_ssum_det_scalar;
extern const ns_kernel ns_k_sdot_avx512, ns_k_sdot_avx2, ns_k_sdot_scalar;
extern const ns_kernel ns_k_sdot_kahan_avx512, ns_k_sdot_kahan_avx2, ns_k_sdot_kahan_scalar;
extern const ns_kernel ns_k_sdot_dpacc_avx512, ns_k_sdot_dpacc_avx2, ns_k_sdot_dpacc_scalar;
extern const ns_kernel ns_k_sdot_det_avx512, ns_k_sdot_det_avx2, ns_k_sdot_det_scalar;
extern const ns_kernel ns_k_snrm2_avx512, ns_k_snrm2_avx2, ns_k_snrm2_scalar;
extern const ns_kernel ns_k_isamax_avx512, ns_k_isamax_avx2, ns_k_isamax_scalar;

#define NS_KERNELS_REDUCE                                                                          \
    &ns_k_dsum_avx512, &ns_k_dsum_avx2, &ns_k_dsum_scalar, &ns_k_dsum_pairwise_avx512,             \
        &ns_k_dsum_pairwise_avx2, &ns_k_dsum_pairwise_scalar, &ns_k_dsum_kahan_avx512,             \
        &ns_k_dsum_kahan_avx2, &ns_k_dsum_kahan_scalar, &ns_k_dsum_det_avx512,                     \
        &ns_k_dsum_det_avx2, &ns_k_dsum_det_scalar, &ns_k_ddot_avx512, &ns_k_ddot_avx2,            \
        &ns_k_ddot_scalar, &ns_k_ddot_kahan_avx512, &ns_k_ddot_kahan_avx2,                         \
        &ns_k_ddot_kahan_scalar, &ns_k_ddot_det_avx512, &ns_k_ddot_det_avx2,                       \
        &ns_k_ddot_det_scalar, &ns_k_dnrm2_avx512, &ns_k_dnrm2_avx2, &ns_k_dnrm2_scalar,           \
        &ns_k_idamax_avx512, &ns_k_idamax_avx2, &ns_k_idamax_scalar, &ns_k_ssum_avx512,            \
        &ns_k_ssum_avx2, &ns_k_ssum_scalar, &ns_k_ssum_pairwise_avx512, &ns_k_ssum_pairwise_avx2,  \
        &ns_k_ssum_pairwise_scalar, &ns_k_ssum_kahan_avx512, &ns_k_ssum_kahan_avx2,                \
        &ns_k_ssum_kahan_scalar, &ns_k_ssum_dpacc_avx512, &ns_k_ssum_dpacc_avx2,                   \
        &ns_k_ssum_dpacc_scalar, &ns_k_ssum_det_avx512, &ns_k_ssum_det_avx2,                       \
        &ns_k_ssum_det_scalar, &ns_k_sdot_avx512, &ns_k_sdot_avx2, &ns_k_sdot_scalar,              \
        &ns_k_sdot_kahan_avx512, &ns_k_sdot_kahan_avx2, &ns_k_sdot_kahan_scalar,                   \
        &ns_k_sdot_dpacc_avx512, &ns_k_sdot_dpacc_avx2, &ns_k_sdot_dpacc_scalar,                   \
        &ns_k_sdot_det_avx512, &ns_k_sdot_det_avx2, &ns_k_sdot_det_scalar, &ns_k_snrm2_avx512,     \
        &ns_k_snrm2_avx2, &ns_k_snrm2_scalar, &ns_k_isamax_avx512, &ns_k_isamax_avx2,              \
        &ns_k_isamax_scalar,

#endif
