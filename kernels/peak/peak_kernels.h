/* Descriptors of the compute-ceiling (FMA-peak) kernels, listed in the registry's order. */
#ifndef NS_PEAK_KERNELS_H
#define NS_PEAK_KERNELS_H

#include "kernels/registry.h"

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
