/* CLOCK_MONOTONIC wall clock and its measured resolution (see timer.h). */
#include "harness/timer.h"

#include <time.h>

double ns_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double getres(clockid_t id) {
    struct timespec ts;
    if (clock_getres(id, &ts) != 0) return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double ns_timer_resolution_reported(void) {
    return getres(CLOCK_MONOTONIC);
}

double ns_cputime_resolution_reported(void) {
    return getres(CLOCK_PROCESS_CPUTIME_ID);
}

double ns_timer_resolution_measured(void) {
    double best = 1.0;
    for (int i = 0; i < 2000; i++) {
        double t0 = ns_now(), t1;
        do t1 = ns_now();
        while (t1 == t0);
        if (t1 - t0 < best) best = t1 - t0;
    }
    return best;
}
