/* Allocation of kernel operands: 64-byte aligned always; arrays of 2 MiB or more are aligned to
 * 2 MiB and advised to use transparent huge pages (madvise(MADV_HUGEPAGE)), which removes most
 * TLB misses from bandwidth measurements and makes first touch of large arrays ~500x fewer page
 * faults. Where THP is disabled the advice is ignored and 4 KiB pages are used. */
#ifndef NS_ALLOC_H
#define NS_ALLOC_H

#include <stddef.h>

/* bytes may be 0 (returns a valid, freeable pointer). NULL on failure with errno set. Free with
 * free(). The memory is not touched here: first touch is the caller's (by the threads that will
 * use each part). */
void *ns_alloc_array(size_t bytes);

#endif
