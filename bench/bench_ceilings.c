/* make bench-ceilings: nodescale's ceilings beside likwid-bench's, measured in the same run,
 * interleaved round by round (ours then likwid-bench's, the other way round in the next round,
 * ROUNDS times), so drift of this shared machine's clock hits both alike. Prints, per ceiling,
 * the median of each and the median and range of the per-round ratio ours / likwid-bench, like
 * with like: ours in a round is the median sample of that round's measurement, likwid-bench's
 * its one run of that round (a mean over its calibrated iterations). A last column, for
 * information only, puts our ceiling as `nodescale run` reports it (the fastest sample, best
 * over the rounds) against likwid-bench's best round.
 *   DP FMA peak   peak_dp_fma      vs peakflops_avx_fma / peakflops_avx512_fma (1 and all threads)
 *   L1 read       stream_load 24 KiB vs load_avx / load_avx512
 *   DRAM triad    stream_triad     vs stream_avx_fma / stream_avx512_fma at 4x the LLC */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/context.h"
#include "harness/json.h"
#include "harness/likwid_ref.h"
#include "harness/result.h"
#include "harness/stats.h"

#define ROUNDS 7

typedef struct {
    const char *label, *ours, *isa, *likwid;
    double ws_bytes; /* 0: peak */
    int threads;
} bench_case;

/* One measurement of k in the case at its median sample, with *fastest its fastest sample (the
 * statistic `nodescale run` reports a ceiling by): GB/s or GFLOP/s; *ok 0 when it could not be
 * measured. */
static double ours_rate(const ns_kernel *k, const bench_case *c, int *ok, double *fastest) {
    ns_params p = {.threads = c->threads};
    if (c->ws_bytes > 0) {
        ns_params unit = {.n = 1, .threads = 1};
        p.n = (int64_t)(c->ws_bytes / k->working_set(&unit)) / (64 * c->threads) * (64 * c->threads);
    } else {
        p.n = 4096;
    }
    ns_measure_opts o = ns_measure_defaults(0);
    o.min_sample_s = c->ws_bytes > 1e8 ? 0.05 : 0.02;
    json_t *r = ns_measure_kernel(k, &p, &o, 0, 0, NULL);
    double v = ns_result_median_rate(r, c->ws_bytes > 0);
    *fastest = ns_result_fastest_rate(r, c->ws_bytes > 0);
    *ok = v > 0;
    json_decref(r);
    return v;
}

int main(int argc, char **argv) {
    if (ns_bench_help(argc, argv,
                      "usage: bench_ceilings   (make bench-ceilings)\n"
                      "  nodescale's DP FMA peak, L1 read and DRAM triad ceilings beside\n"
                      "  likwid-bench's, interleaved over 7 rounds, on 1 and all CPUs in the\n"
                      "  affinity mask. No options.\n"))
        return 0;
    if (ns_bench_no_args("bench-ceilings", argc, argv)) return NS_EXIT_USAGE;
    ns_affinity_defaults(argv);
    int T = ns_topology_get()->cpus_in_mask > 0 ? ns_topology_get()->cpus_in_mask : 1;
    int llc = ns_llc_level();
    double dram = 4.0 * (double)(llc ? ns_cache_aggregate(llc, T) : (64 << 20));
    double avail = 0.4 * (double)ns_topology_get()->mem_available_bytes;
    if (avail > 0 && dram > avail) dram = avail;
    int avx512 = ns_cpu_has_avx512();
    bench_case cases[16];
    int nc = 0;
    for (int t = 1; t <= T; t += (T > 1 ? T - 1 : 1)) {
        cases[nc++] = (bench_case){"DP FMA peak (AVX2)", "peak_dp_fma", "avx2", "peakflops_avx_fma", 0, t};
        if (avx512)
            cases[nc++] = (bench_case){"DP FMA peak (AVX-512)", "peak_dp_fma", "avx512", "peakflops_avx512_fma", 0, t};
        cases[nc++] = (bench_case){"L1 read 24 KiB/thread (AVX2)", "stream_load", "avx2", "load_avx", 24576.0 * t, t};
        if (avx512)
            cases[nc++] = (bench_case){"L1 read 24 KiB/thread (AVX-512)", "stream_load", "avx512", "load_avx512", 24576.0 * t, t};
        cases[nc++] = (bench_case){"DRAM triad (AVX2)", "stream_triad", "avx2", "stream_avx_fma", dram, t};
        if (avx512)
            cases[nc++] = (bench_case){"DRAM triad (AVX-512)", "stream_triad", "avx512", "stream_avx512_fma", dram, t};
        if (T == 1) break;
    }
    printf("nodescale vs likwid-bench, %d interleaved rounds; CPU %s; DRAM working set %.3g GB\n",
           ROUNDS, ns_cpu_model(), dram / 1e9);
    printf("%-34s %3s %12s %12s %8s %17s %9s\n", "ceiling", "thr", "nodescale", "likwid", "ratio",
           "ratio min..max", "best/best");
    for (int i = 0; i < nc; i++) {
        const bench_case *c = &cases[i];
        /* NULL where this CPU or build has no such variant (the AVX2 cases are listed on every
         * CPU) */
        const ns_kernel *k = ns_registry_find(c->ours, c->isa);
        if (!k) {
            printf("%-34s %3d  not measured: no %s kernel for %s on this CPU\n", c->label,
                   c->threads, c->ours, c->isa);
            continue;
        }
        double ours[ROUNDS], theirs[ROUNDS], ratio[ROUNDS];
        double best_ours = 0, best_theirs = 0; /* fastest sample, best likwid-bench round */
        int n = 0;
        char err[512] = "";
        double lws = c->ws_bytes > 0 ? c->ws_bytes : 32000.0 * c->threads;
        double iters = ns_likwid_calibrate(c->likwid, lws, c->threads, c->ws_bytes > 1e8 ? 1.0 : 0.3,
                                           err, sizeof err);
        for (int r = 0; r < ROUNDS && iters > 0; r++) {
            /* the order alternates round by round, so a drift within a round does not always
             * land on the same side of the ratio */
            int ok = 0, lok;
            double a = NAN, fast = NAN;
            ns_likwid_result lr;
            if (!(r % 2)) a = ours_rate(k, c, &ok, &fast);
            lok = ns_likwid_bench(c->likwid, lws, c->threads, iters, &lr, err, sizeof err) == 0;
            if (r % 2) a = ours_rate(k, c, &ok, &fast);
            if (!lok) break;
            double b = c->ws_bytes > 0 ? lr.mbytes_per_s / 1e3 : lr.mflops_per_s / 1e3;
            if (!ok || !(b > 0)) continue;
            ours[n] = a, theirs[n] = b, ratio[n] = a / b;
            best_ours = fmax(best_ours, fast), best_theirs = fmax(best_theirs, b);
            n++;
        }
        if (n == 0) {
            printf("%-34s %3d  not measured: %s\n", c->label, c->threads, err);
            continue;
        }
        ns_stats so, st, sr;
        ns_stats_compute(ours, n, &so), ns_stats_compute(theirs, n, &st), ns_stats_compute(ratio, n, &sr);
        printf("%-34s %3d %9.1f %s %9.1f %s %8.3f %8.3f..%-8.3f %9.3f\n", c->label, c->threads,
               so.median, c->ws_bytes > 0 ? "GB/s" : "GF/s", st.median,
               c->ws_bytes > 0 ? "GB/s" : "GF/s", sr.median, sr.min, sr.max,
               best_ours > 0 ? best_ours / best_theirs : NAN);
        fflush(stdout);
    }
    printf("ratio = nodescale / likwid-bench per round; median and range over rounds.\n"
           "nodescale per round: its median sample; likwid-bench per round: its one run (a mean "
           "over its calibrated iterations).\n"
           "best/best (information only): nodescale's ceiling as `nodescale run` reports it (its "
           "fastest sample, best over the rounds) / likwid-bench's best round.\n");
    return 0;
}
