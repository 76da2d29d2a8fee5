/* Kernel operand allocation (see alloc.h). */
#include "kernels/alloc.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20)

void *ns_alloc_array(size_t bytes) {
    size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
    size_t size = (bytes + align - 1) / align * align;
    if (size == 0) size = align;
    void *p = aligned_alloc(align, size);
#ifdef MADV_HUGEPAGE
    if (p && align == HUGE_PAGE) madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}
