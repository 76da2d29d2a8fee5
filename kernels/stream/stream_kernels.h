/* Descriptors of the stream family, listed in the registry's order. */
#ifndef NS_STREAM_KERNELS_H
#define NS_STREAM_KERNELS_H

#include "kernels/registry.h"

#define NS_KERNELS_STREAM /* none yet */

#endif
