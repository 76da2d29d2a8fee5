/* The ring and tree thread all-reduce schedules (see allreduce.h). The element loops are plain
 * C that the compiler vectorises; at the sizes where all-reduce time matters they stream from
 * DRAM or L3, and the schedule (steps, bytes per step, which thread works) is what is measured. */
#include "kernels/reduce/allreduce.h"

#include <string.h>

static int64_t chunk_edge(int64_t count, int c, int p) {
    int64_t e = (int64_t)((__int128)count * c / p);
    e = (e + 15) / 16 * 16;
    return e < count ? e : count;
}

static void add(float *restrict d, const float *restrict a, const float *restrict b, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        d[i] = a[i] + b[i];
}

void ns_allreduce_ring(float *const *send, float *const *recv, int64_t count, int tid,
                       int nthreads) {
    int p = nthreads, left = (tid + p - 1) % p;
    if (p == 1) {
        memcpy(recv[0], send[0], (size_t)count * sizeof(float));
        return;
    }
    /* Reduce-scatter: at step s thread t adds chunk (t - s - 1) mod p of its left neighbour's
     * partial (its send buffer at step 0) into its own; after p - 1 steps thread t holds the
     * complete chunk (t + 1) mod p. */
    for (int s = 0; s < p - 1; s++) {
        int c = ((tid - s - 1) % p + p) % p;
        int64_t lo = chunk_edge(count, c, p), hi = chunk_edge(count, c + 1, p);
        const float *src = s == 0 ? send[left] : recv[left];
        add(recv[tid] + lo, send[tid] + lo, src + lo, hi - lo);
#pragma omp barrier
    }
    /* All-gather: at step s thread t copies chunk (t - s) mod p, complete at its left
     * neighbour since the step before. */
    for (int s = 0; s < p - 1; s++) {
        int c = ((tid - s) % p + p) % p;
        int64_t lo = chunk_edge(count, c, p), hi = chunk_edge(count, c + 1, p);
        memcpy(recv[tid] + lo, recv[left] + lo, (size_t)(hi - lo) * sizeof(float));
#pragma omp barrier
    }
}

void ns_allreduce_tree(float *const *send, float *const *recv, int64_t count, int tid,
                       int nthreads) {
    int p = nthreads, top = 1;
    if (p == 1) {
        memcpy(recv[0], send[0], (size_t)count * sizeof(float));
        return;
    }
    /* Reduce: at distance d, thread t (a multiple of 2d) adds thread t + d's partial. A thread
     * holds its partial in recv once it has reduced at d = 1 (it had a right neighbour). */
    for (int d = 1; d < p; d *= 2, top = d) {
        if (tid % (2 * d) == 0 && tid + d < p) {
            int q = tid + d;
            const float *mine = d == 1 ? send[tid] : recv[tid];
            const float *theirs = d > 1 && q + 1 < p ? recv[q] : send[q];
            add(recv[tid], mine, theirs, count);
        }
#pragma omp barrier
    }
    /* Broadcast down the same tree: thread t + d copies from its parent t. */
    for (int d = top / 2; d >= 1; d /= 2) {
        if (tid % (2 * d) == d) memcpy(recv[tid], recv[tid - d], (size_t)count * sizeof(float));
#pragma omp barrier
    }
}
