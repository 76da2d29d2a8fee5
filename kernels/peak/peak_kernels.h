/* Descriptors of the compute-ceiling (FMA-peak) kernels, listed in the registry's order. */
#ifndef NS_PEAK_KERNELS_H
#define NS_PEAK_KERNELS_H

#include "kernels/peak/peak.h"
#include "kernels/registry.h"

/* What check() expects from one thread: the sum over chains x lanes of the final values after
 * iters steps of the mix, the recurrences of peak.h replayed in precision prec, the fma step
 * fused (one rounding, FMA instructions) or not (multiply and add). */
double ns_peak_expected(ns_precision prec, ns_peak_mix mix, int fused, int lanes, int chains,
                        int64_t iters);

/* The relative bound check() allows between a kernel's lane sum and ns_peak_expected: the
 * rounding of the kernel's own sum of lanes x chains values, whatever the iteration count. */
double ns_peak_bound(ns_precision prec, int lanes, int chains);

extern const ns_kernel ns_k_peak_dp_fma_avx512, ns_k_peak_dp_fma_avx2, ns_k_peak_dp_fma_scalar,
    ns_k_peak_dp_fma_add_avx512, ns_k_peak_dp_fma_add_avx2, ns_k_peak_dp_add_avx512,
    ns_k_peak_dp_add_avx2, ns_k_peak_dp_scalar_fma_avx2, ns_k_peak_sp_fma_avx512,
    ns_k_peak_sp_fma_avx2, ns_k_peak_sp_fma_scalar, ns_k_peak_sp_fma_add_avx512,
    ns_k_peak_sp_fma_add_avx2, ns_k_peak_sp_add_avx512, ns_k_peak_sp_add_avx2,
    ns_k_peak_sp_scalar_fma_avx2;

#define NS_KERNELS_PEAK                                                                            \
    &ns_k_peak_dp_fma_avx512, &ns_k_peak_dp_fma_avx2, &ns_k_peak_dp_fma_scalar,                    \
        &ns_k_peak_dp_fma_add_avx512, &ns_k_peak_dp_fma_add_avx2, &ns_k_peak_dp_add_avx512,        \
        &ns_k_peak_dp_add_avx2, &ns_k_peak_dp_scalar_fma_avx2, &ns_k_peak_sp_fma_avx512,           \
        &ns_k_peak_sp_fma_avx2, &ns_k_peak_sp_fma_scalar, &ns_k_peak_sp_fma_add_avx512,            \
        &ns_k_peak_sp_fma_add_avx2, &ns_k_peak_sp_add_avx512, &ns_k_peak_sp_add_avx2,              \
        &ns_k_peak_sp_scalar_fma_avx2,

#endif
