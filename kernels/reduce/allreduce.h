/* Thread all-reduce over shared memory: each thread of an OpenMP team owns a send and a receive
 * buffer of count floats; afterwards every receive buffer holds the elementwise sum of all send
 * buffers. Two schedules, as message-passing libraries run them, with one barrier per step:
 *
 *   ring  reduce-scatter then all-gather over the ring t-1 -> t, 2(p-1) steps, each thread
 *         moving count/p elements per step (Patarasuk and Yuan, "Bandwidth optimal all-reduce
 *         algorithms for clusters of workstations", JPDC 69(2), 2009);
 *   tree  binary-tree reduce to thread 0, then broadcast down the same tree, 2 ceil(log2 p)
 *         steps, whole buffers (Thakur, Rabenseifner, Gropp, "Optimization of collective
 *         communication operations in MPICH", IJHPCA 19(1), 2005, section 4).
 *
 * Both are called by every thread of the team (inside the parallel region) with its tid; the
 * team synchronises with omp barriers (orphaned, binding to the caller's region). send and recv
 * are arrays of nthreads pointers; buffers must not overlap. Chunk boundaries of the ring are
 * multiples of 16 floats (64 bytes), so no two writers share a cache line. */
#ifndef NS_ALLREDUCE_H
#define NS_ALLREDUCE_H

#include <stdint.h>

void ns_allreduce_ring(float *const *send, float *const *recv, int64_t count, int tid,
                       int nthreads);
void ns_allreduce_tree(float *const *send, float *const *recv, int64_t count, int tid,
                       int nthreads);

#endif
