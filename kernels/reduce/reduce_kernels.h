/* Descriptors of the reduce family, listed in the registry's order. */
#ifndef NS_REDUCE_KERNELS_H
#define NS_REDUCE_KERNELS_H

#include "kernels/registry.h"

#define NS_KERNELS_REDUCE /* none yet */

#endif
