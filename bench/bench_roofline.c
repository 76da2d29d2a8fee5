/* make bench-roofline: every roofline ceiling nodescale measures, beside likwid-bench's at the
 * same working set and thread count, in the same run. For each ceiling the two tools alternate
 * round by round (ours then likwid-bench, the other way round in the next round, ROUNDS times),
 * so the drift of a shared machine's clock hits both alike; printed are the median of each,
 * their run-to-run CV over the rounds, and the median and range of the per-round ratio
 * nodescale / likwid-bench, which gives the verdict. It compares like with like: nodescale's
 * figure of a round is the median sample of that round's measurement, likwid-bench's its one run
 * of that round (a mean over its calibrated iterations). A second column, for information only,
 * puts nodescale's ceiling as `nodescale run` reports it (the fastest sample, best over the
 * rounds) against likwid-bench's best round.
 *
 *   compute   peak_dp_fma, peak_sp_fma       peakflops_[sp_]avx_fma, peakflops_[sp_]avx512_fma
 *   L1..DRAM  stream_load  (read only)       load_avx512, load_avx
 *             stream_copy                    copy_avx512, copy_avx
 *             stream_triad                   stream_avx512_fma, stream_avx_fma
 *   DRAM      stream_triad_nt (NT stores)    stream_mem_avx_fma (likwid has no AVX-512 variant)
 *
 * Working sets per level, for t threads placed one per core (aggregate capacities from hwloc, as
 * the roofline labels them): L1 half the aggregate L1; L2 half the aggregate L2; L3 the
 * geometric middle of 2x the aggregate L2 and half the aggregate L3; DRAM 4x the aggregate LLC,
 * at most 40% of the available memory. Both tools count bytes without write-allocate
 * (nodescale's "minimal" policy; likwid-bench counts useful bytes, likwid issue #649).
 *
 * Each for the AVX-512 (where the CPU has it) and the AVX2 variants, on 1 and on all threads.
 * usage: bench_roofline [--rounds N] [--only compute|bandwidth|L1|L2|L3|DRAM]
 *                       [--isa avx2|avx512]
 * Targets: ratio >= 0.95 (or above 1 with a reason), CV <= 3% on a quiet machine. */
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

#define MAX_ROUNDS 32

typedef struct {
    const char *level; /* "compute", "L1", ... */
    const char *ours, *isa, *likwid;
    double ws_bytes; /* 0 for compute ceilings (register-resident) */
    int threads;
} ceiling_case;

/* One nodescale measurement of the case at its median sample (the verdict's statistic), with
 * *fastest its fastest sample (the one `nodescale run` reports a ceiling by): GFLOP/s for
 * compute, GB/s otherwise; NAN if it could not be measured. */
static double nodescale_rate(const ceiling_case *c, double *fastest) {
    const ns_kernel *k = ns_registry_find(c->ours, c->isa);
    if (!k) return NAN;
    ns_params p = {.n = 4096, .threads = c->threads};
    if (c->ws_bytes > 0) {
        ns_params unit = {.n = 1, .threads = c->threads};
        int64_t chunk = 64 * (int64_t)c->threads; /* vector-aligned share per thread */
        p.n = (int64_t)(c->ws_bytes / k->working_set(&unit)) / chunk * chunk;
        if (p.n < chunk) p.n = chunk;
    }
    ns_measure_opts o = ns_measure_defaults(0);
    o.min_sample_s = c->ws_bytes > 1e8 ? 0.05 : 0.02;
    json_t *r = ns_measure_kernel(k, &p, &o, 0, 0, NULL);
    double v = ns_result_median_rate(r, c->ws_bytes > 0);
    *fastest = ns_result_fastest_rate(r, c->ws_bytes > 0);
    json_decref(r);
    return v;
}

/* likwid-bench at the case's working set (compute: 32 kB in total keeps likwid's single load
 * per iteration in L1), in GFLOP/s or GB/s. */
static double likwid_ws(const ceiling_case *c) {
    return c->ws_bytes > 0 ? c->ws_bytes : 32000.0 * c->threads;
}

static double likwid_rate(const ceiling_case *c, double iters, char *err, size_t errlen) {
    ns_likwid_result r;
    if (ns_likwid_bench(c->likwid, likwid_ws(c), c->threads, iters, &r, err, errlen) != 0) return NAN;
    return (c->ws_bytes > 0 ? r.mbytes_per_s : r.mflops_per_s) / 1e3;
}

/* Working set of level li (1..3, or 4 = DRAM) for t threads; 0 when the cache is unknown. */
static double level_ws(int li, int t, double mem_cap) {
    double l1 = (double)ns_cache_aggregate(1, t), l2 = (double)ns_cache_aggregate(2, t);
    double l3 = (double)ns_cache_aggregate(3, t);
    int llc = ns_llc_level();
    switch (li) {
    case 1:
        return 0.5 * l1;
    case 2:
        return 0.5 * l2;
    case 3:
        return l3 > 4 * l2 ? sqrt(2 * l2 * 0.5 * l3) : 0;
    default: {
        double w = llc ? 4.0 * (double)ns_cache_aggregate(llc, t) : 256.0 * (1 << 20);
        return mem_cap > 0 && w > mem_cap ? mem_cap : w;
    }
    }
}

/* nodescale kernel -> likwid-bench test for AVX2 and for AVX-512, and where it is compared:
 * bit 0 compute, bits 1..4 the levels L1, L2, L3, DRAM. */
static const struct {
    const char *ours, *likwid_avx, *likwid_avx512;
    unsigned where;
} pairs[] = {
    {"peak_dp_fma", "peakflops_avx_fma", "peakflops_avx512_fma", 1u},
    {"peak_sp_fma", "peakflops_sp_avx_fma", "peakflops_sp_avx512_fma", 1u},
    {"stream_load", "load_avx", "load_avx512", 0x1eu},
    {"stream_copy", "copy_avx", "copy_avx512", 0x1eu},
    {"stream_triad", "stream_avx_fma", "stream_avx512_fma", 0x1eu},
    {"stream_triad_nt", "stream_mem_avx_fma", "stream_mem_avx_fma", 0x10u}, /* NT: DRAM only */
};

int main(int argc, char **argv) {
    if (ns_bench_help(argc, argv,
                      "usage: bench_roofline [options]   (make bench-roofline)\n"
                      "  every roofline ceiling beside likwid-bench's, interleaved round by round\n"
                      "  --rounds N     2..32 rounds (default 5)\n"
                      "  --only WHAT    compute | bandwidth | L1 | L2 | L3 | DRAM (default all)\n"
                      "  --isa ISA      avx2 | avx512 (default both where the CPU has them)\n"))
        return 0;
    ns_affinity_defaults(argv);
    int rounds = 5;
    const char *only = NULL, *isa_only = NULL;
    const char *cmd = "bench-roofline";
    for (int i = 1; i < argc; i++) {
        const char *v;
        int64_t n;
        int r;
        if ((r = ns_opt_value(argc, argv, &i, "--rounds", &v))) {
            if (r < 0) return ns_usage_error(cmd, "--rounds needs a value (2..%d)", MAX_ROUNDS);
            if (ns_parse_int64(v, 2, MAX_ROUNDS, &n) != 0)
                return ns_usage_error(cmd, "--rounds '%s' is not a whole number of 2 to %d", v,
                                      MAX_ROUNDS);
            rounds = (int)n;
        } else if ((r = ns_opt_value(argc, argv, &i, "--only", &v))) {
            if (r < 0)
                return ns_usage_error(cmd, "--only needs a value (compute, bandwidth, L1, L2, "
                                           "L3 or DRAM)");
            if (!(!strcmp(v, "compute") || !strcmp(v, "bandwidth") || !strcmp(v, "L1") ||
                           !strcmp(v, "L2") || !strcmp(v, "L3") || !strcmp(v, "DRAM")))
                return ns_usage_error(cmd,
                                      "--only '%s' is not one of compute, bandwidth, L1, L2, L3, "
                                      "DRAM (one word, as written)",
                                      v);
            only = v;
        } else if ((r = ns_opt_value(argc, argv, &i, "--isa", &v))) {
            if (r < 0) return ns_usage_error(cmd, "--isa needs a value (avx2 or avx512)");
            if (!(!strcmp(v, "avx2") || !strcmp(v, "avx512")))
                return ns_usage_error(cmd, "--isa '%s' is not avx2 or avx512", v);
            isa_only = v;
        } else {
            return ns_usage_error(cmd,
                                  "unknown argument '%s' (usage: bench_roofline [--rounds 2..%d] "
                                  "[--only compute|bandwidth|L1|L2|L3|DRAM] [--isa avx2|avx512])",
                                  argv[i], MAX_ROUNDS);
        }
    }
    int T = ns_topology_get()->cpus_in_mask > 0 ? ns_topology_get()->cpus_in_mask : 1;
    double mem_cap = 0.4 * (double)ns_topology_get()->mem_available_bytes;

    ceiling_case cases[128];
    int nc = 0;
    static const char *level_names[] = {"compute", "L1", "L2", "L3", "DRAM"};
    const char *isas[2] = {"avx512", "avx2"};
    int tcs[2] = {1, T}, ntc = T > 1 ? 2 : 1;
    for (int ii = 0; ii < 2; ii++) {
        int w512 = ii == 0;
        if ((w512 && !ns_cpu_has_avx512()) || !ns_cpu_has_avx2_fma() ||
            (isa_only && strcmp(isa_only, isas[ii])))
            continue;
        for (int ti = 0; ti < ntc; ti++)
            for (int li = 0; li <= 4; li++) {
                double ws = li ? level_ws(li, tcs[ti], mem_cap) : 0;
                if (li && !(ws > 0)) continue;
                for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
                    if ((pairs[k].where >> li) & 1u)
                        cases[nc++] =
                            (ceiling_case){level_names[li],
                                           pairs[k].ours,
                                           isas[ii],
                                           w512 ? pairs[k].likwid_avx512 : pairs[k].likwid_avx,
                                           ws,
                                           tcs[ti]};
            }
    }

    printf("nodescale vs likwid-bench: roofline ceilings, %d interleaved rounds, CPU %s\n", rounds,
           ns_cpu_model());
    printf("%-7s %-6s %-16s %3s %9s %14s %6s %14s %6s %7s %15s %9s  %s\n", "level", "isa", "kernel",
           "thr", "ws", "nodescale", "cv%", "likwid-bench", "cv%", "ratio", "ratio min..max",
           "best/best", "verdict");
    int noisy = 0, below = 0, measured = 0;
    for (int i = 0; i < nc; i++) {
        const ceiling_case *c = &cases[i];
        if (only && strcmp(only, c->level) &&
            !(strcmp(only, "bandwidth") == 0 && strcmp(c->level, "compute")))
            continue;
        double ours[MAX_ROUNDS], theirs[MAX_ROUNDS], ratio[MAX_ROUNDS];
        double best_ours = 0, best_theirs = 0; /* fastest sample, best likwid-bench round */
        int n = 0;
        char err[512] = "";
        double iters = ns_likwid_calibrate(c->likwid, likwid_ws(c), c->threads,
                                           c->ws_bytes > 1e8 ? 1.0 : 0.3, err, sizeof err);
        for (int r = 0; r < rounds && iters > 0; r++) {
            /* the order alternates round by round, so a drift within a round does not always
             * land on the same side of the ratio */
            double a = NAN, b = NAN, fast = NAN;
            if (r % 2) b = likwid_rate(c, iters, err, sizeof err);
            a = nodescale_rate(c, &fast);
            if (!(r % 2)) b = likwid_rate(c, iters, err, sizeof err);
            if (!isfinite(b) && *err) break; /* likwid-bench missing or failing: say why */
            if (!(a > 0) || !(b > 0)) continue;
            ours[n] = a;
            theirs[n] = b;
            ratio[n] = a / b;
            best_ours = fmax(best_ours, fast);
            best_theirs = fmax(best_theirs, b);
            n++;
        }
        char ws[32];
        if (c->ws_bytes > 0)
            ns_format_bytes(ws, sizeof ws, c->ws_bytes);
        else
            snprintf(ws, sizeof ws, "-");
        if (n < 2) {
            printf("%-7s %-6s %-16s %3d %9s  not measured: %s\n", c->level, c->isa, c->ours,
                   c->threads, ws, *err ? err : "too few valid rounds");
            continue;
        }
        ns_stats so, st, sr;
        ns_stats_compute(ours, (size_t)n, &so);
        ns_stats_compute(theirs, (size_t)n, &st);
        ns_stats_compute(ratio, (size_t)n, &sr);
        const char *unit = c->ws_bytes > 0 ? "GB/s" : "GF/s";
        int is_noisy = so.cv > 0.03 || st.cv > 0.03;
        const char *verdict = sr.median >= 0.95 && sr.median <= 1.05 ? "ok"
                              : sr.median > 1.05                     ? "above"
                                                                     : "BELOW";
        measured++;
        noisy += is_noisy;
        below += sr.median < 0.95;
        printf("%-7s %-6s %-16s %3d %9s %9.1f %s %5.1f%% %9.1f %s %5.1f%% %7.3f %7.3f..%-7.3f "
               "%9.3f  %s%s\n",
               c->level, c->isa, c->ours, c->threads, ws, so.median, unit, 100 * so.cv, st.median,
               unit, 100 * st.cv, sr.median, sr.min, sr.max,
               best_ours > 0 ? best_ours / best_theirs : NAN, verdict, is_noisy ? ", noisy" : "");
        fflush(stdout);
    }
    printf("ratio = nodescale / likwid-bench per round (median, range), the verdict's figure: "
           "nodescale's median sample against likwid-bench's run of that round (a mean over its "
           "calibrated iterations); cv = run-to-run spread over the rounds.\n"
           "best/best (information only): nodescale's ceiling as `nodescale run` reports it (its "
           "fastest sample, best over the rounds) / likwid-bench's best round.\n");
    if (noisy)
        printf("warning: %d of %d ceilings varied by more than 3%% between rounds: the machine "
               "was disturbed, rerun on a quiet one before reading the ratios\n",
               noisy, measured);
    if (below) printf("%d ceiling(s) more than 5%% below likwid-bench's\n", below);
    return 0;
}
