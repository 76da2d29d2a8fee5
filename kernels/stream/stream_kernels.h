/* Descriptors of the STREAM-style bandwidth kernels, listed in the registry's order. */
#ifndef NS_STREAM_KERNELS_H
#define NS_STREAM_KERNELS_H

#include "kernels/registry.h"

extern const ns_kernel ns_k_stream_load_avx512, ns_k_stream_load_avx2, ns_k_stream_load_scalar,
    ns_k_stream_sum_avx512, ns_k_stream_sum_avx2, ns_k_stream_sum_scalar, ns_k_stream_copy_avx512,
    ns_k_stream_copy_avx2, ns_k_stream_copy_scalar, ns_k_stream_scale_avx512,
    ns_k_stream_scale_avx2, ns_k_stream_scale_scalar, ns_k_stream_add_avx512, ns_k_stream_add_avx2,
    ns_k_stream_add_scalar, ns_k_stream_triad_avx512, ns_k_stream_triad_avx2,
    ns_k_stream_triad_scalar, ns_k_stream_triad_nt_avx512, ns_k_stream_triad_nt_avx2;

#define NS_KERNELS_STREAM                                                                          \
    &ns_k_stream_load_avx512, &ns_k_stream_load_avx2, &ns_k_stream_load_scalar,                    \
        &ns_k_stream_sum_avx512, &ns_k_stream_sum_avx2, &ns_k_stream_sum_scalar,                   \
        &ns_k_stream_copy_avx512, &ns_k_stream_copy_avx2, &ns_k_stream_copy_scalar,                \
        &ns_k_stream_scale_avx512, &ns_k_stream_scale_avx2, &ns_k_stream_scale_scalar,             \
        &ns_k_stream_add_avx512, &ns_k_stream_add_avx2, &ns_k_stream_add_scalar,                   \
        &ns_k_stream_triad_avx512, &ns_k_stream_triad_avx2, &ns_k_stream_triad_scalar,             \
        &ns_k_stream_triad_nt_avx512, &ns_k_stream_triad_nt_avx2,

#endif
