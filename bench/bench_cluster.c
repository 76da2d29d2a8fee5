/* make bench-cluster: how many configurations a second `nodescale cluster --search` evaluates
 * (target >= 100,000/s). Llama 3 405B on the H100 SXM preset; each sample is one search at each
 * of several chip counts (powers of two and multiples of 3 and 9, whose many divisors make large
 * searches), timed whole, preparation (the order statistic) included. Prints the median, the
 * spread (min, max, CV) over the samples, and whether the median meets the target. */
#include <stdio.h>
#include <time.h>

#include "cluster/cluster.h"
#include "harness/cli.h"
#include "harness/stats.h"

#define SAMPLES 11
#define TARGET_PER_S 100000.0

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (ns_bench_help(argc, argv,
                      "usage: bench_cluster   (make bench-cluster)\n"
                      "  configurations per second a `nodescale cluster --search` evaluates\n"
                      "  (Llama 3 405B on H100 SXM; target >= 100,000/s). No options.\n"))
        return 0;
    if (ns_bench_no_args("bench-cluster", argc, argv)) return NS_EXIT_USAGE;
    ns_cluster_input in;
    char err[256];
    ns_cluster_defaults(&in);
    if (ns_cluster_apply_preset(&in, NS_CLUSTER_DEFAULT_MODEL, err, sizeof err) ||
        ns_cluster_apply_preset(&in, "h100-sxm", err, sizeof err)) {
        fprintf(stderr, "bench_cluster: %s\n", err);
        return 2;
    }
    const int chips[] = {1024, 2304, 4096, 6144, 8192, 12288, 16384, 18432};
    const int n_chips = sizeof chips / sizeof chips[0];
    double rate[SAMPLES];
    long per_sample = 0;
    ns_breakdown best[1];
    for (int s = -1; s < SAMPLES; s++) { /* sample -1 warms caches and is discarded */
        long evaluated = 0;
        double t0 = now_s();
        for (int i = 0; i < n_chips; i++) {
            long ev = 0;
            ns_cluster_search(&in, chips[i], best, 1, &ev);
            evaluated += ev;
        }
        double dt = now_s() - t0;
        if (s >= 0) rate[s] = evaluated / dt;
        per_sample = evaluated;
    }
    ns_stats st;
    ns_stats_compute(rate, SAMPLES, &st);
    printf("bench_cluster: --search, Llama 3 405B on H100 SXM, %d chip counts from %d to %d\n",
           n_chips, chips[0], chips[n_chips - 1]);
    printf("  configurations per sample: %ld, samples: %d\n", per_sample, SAMPLES);
    printf("  configurations per second: median %.0f  (min %.0f, max %.0f, cv %.3f)\n", st.median,
           st.min, st.max, st.cv);
    printf("  target >= %.0f/s: %s\n", TARGET_PER_S, st.median >= TARGET_PER_S ? "met" : "MISSED");
    return 0;
}
