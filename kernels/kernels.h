/* Every kernel descriptor, declared once here and listed in NS_KERNEL_LIST in the order the
 * registry (and so `nodescale list` and the report) shows them. */
#ifndef NS_KERNELS_H
#define NS_KERNELS_H

#include "kernels/registry.h"

#define NS_KERNEL_LIST /* filled as kernels land */ NULL

#endif
