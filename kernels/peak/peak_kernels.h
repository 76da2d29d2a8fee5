/* Descriptors of the peak family, listed in the registry's order. */
#ifndef NS_PEAK_KERNELS_H
#define NS_PEAK_KERNELS_H

#include "kernels/registry.h"

#define NS_KERNELS_PEAK /* none yet */

#endif
