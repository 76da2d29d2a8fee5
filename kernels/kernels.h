/* Every kernel descriptor, by family. Each family's header declares its descriptors and defines
 * NS_KERNELS_<FAMILY> as a comma-terminated list ("&ns_k_a, &ns_k_b,"); the registry shows them
 * in this order. Hand-tuned variants of one kernel share a name and differ by isa; peers (BLIS,
 * OpenBLAS) share the name of the operation and carry isa "blis"/"openblas". */
#ifndef NS_KERNELS_H
#define NS_KERNELS_H

#include "kernels/gemm/gemm_kernels.h"
#include "kernels/peak/peak_kernels.h"
#include "kernels/reduce/reduce_kernels.h"
#include "kernels/stream/stream_kernels.h"

#define NS_KERNEL_LIST NS_KERNELS_PEAK NS_KERNELS_STREAM NS_KERNELS_REDUCE NS_KERNELS_GEMM NULL

#endif
