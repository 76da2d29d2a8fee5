/* Floating-point control state of each OpenMP thread: MXCSR, and in it FTZ (flush-to-zero, bit
 * 15) and DAZ (denormals-are-zero, bit 6). Denormal operands slow x86 arithmetic by orders of
 * magnitude unless FTZ/DAZ are set; the suite keeps its inputs normal and records this state so
 * a reader can tell which case a timed sample was in (Intel SDM vol. 1, section 10.2.3). */
#include <omp.h>
#include <xmmintrin.h>

#include "kernels/reduce/reduce_kernels.h"

uint32_t ns_mxcsr_read(void) {
    return (uint32_t)_mm_getcsr();
}

int ns_fpstate_per_thread(int nthreads, uint32_t *mxcsr) {
    if (nthreads < 1) return 0;
    int got = 1;
#pragma omp parallel num_threads(nthreads)
    {
#pragma omp single
        got = omp_get_num_threads();
        mxcsr[omp_get_thread_num()] = ns_mxcsr_read();
    }
    return got;
}
