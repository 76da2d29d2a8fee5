/* Descriptors of the gemm family, listed in the registry's order. */
#ifndef NS_GEMM_KERNELS_H
#define NS_GEMM_KERNELS_H

#include "kernels/registry.h"

#define NS_KERNELS_GEMM /* none yet */

#endif
