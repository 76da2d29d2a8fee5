/* `nodescale bench KERNEL [options]`: one kernel, one shape, measured, checked and printed; with
 * --json FILE also written as a one-result results.json (what `gate --ab` runs). */
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/clockprobe.h"
#include "harness/counters.h"
#include "harness/commands.h"
#include "harness/context.h"
#include "harness/gemm_context.h"
#include "harness/json.h"
#include "harness/measure.h"
#include "harness/outdir.h"
#include "harness/result.h"
#include "harness/run.h"
#include "kernels/gemm/gemm_kernels.h"
#include "kernels/peak/peak.h"
#include "kernels/registry.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: nodescale bench KERNEL [options]\n"
            "  --n N          elements (stream, reduce), iterations per thread (peak), or GEMM n\n"
            "  --m M, --k K   GEMM m and k (default: n)\n"
            "  --threads T    OpenMP threads (default: OMP_NUM_THREADS, else the CPUs in\n"
            "                 the affinity mask)\n"
            "  --isa ISA      avx512 | avx2 | scalar | blis | openblas (default: best on this CPU)\n"
            "  --samples S    at least S samples (default %d)\n"
            "  --min-time S   seconds a sample lasts at least (default %g)\n"
            "  --json FILE    also write a results.json holding this one result; FILE - writes\n"
            "                 it to standard output and the one-line summary to standard error\n"
            "  --events LIST  PAPI events to count (default NODESCALE_EVENTS, else the defaults)\n"
            "Sizes are counts (elements, iterations), never bytes. A suffix multiplies the count:\n"
            "k, K, M, G, T and kB, KB, MB, GB, TB by powers of 1000; KiB, MiB, GiB, TiB by powers\n"
            "of 1024 (the B does not mean bytes: --n 32KiB is 32768 elements). Sizes are >= 1, and\n"
            "one repetition may do at most 1e13 FLOPs and move at most 1e13 bytes.\n"
            "Ctrl-C stops at the next sample, writes what was measured (\"interrupted\": true) and\n"
            "exits 130 (SIGTERM: 143); a second one, 0.5 s or more later, exits at once.\n"
            "`nodescale list` shows the kernels.\n",
            NS_MIN_SAMPLES, NS_DEFAULT_SAMPLE_S);
}

/* The most FLOPs, and the most bytes, one repetition may do: about 3 minutes at 50 GFLOP/s, and
 * about 15 minutes at 10 GB/s, so a typo in --n cannot start an hour-long measurement. */
#define NS_BENCH_MAX_WORK 1e13

/* The larger of one repetition's analytic FLOPs and bytes. */
static double work_of(const ns_kernel *k, const ns_params *p) {
    return fmax(k->flops(p), k->bytes(p));
}

/* The largest size s such that the kernel at --n s (and --m s, --k s where those were not given)
 * stays within NS_BENCH_MAX_WORK; 0 if even s = 1 does not. Work grows with every size. */
static int64_t largest_size(const ns_kernel *k, const ns_params *p, int64_t m, int64_t kk) {
    int64_t lo = 0, hi = p->n; /* work(lo) fits (or lo = 0), work(hi) does not */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        ns_params q = *p;
        q.n = mid;
        q.m = m >= 0 ? m : mid;
        q.k = kk >= 0 ? kk : mid;
        if (work_of(k, &q) <= NS_BENCH_MAX_WORK) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Gives every null number of a bench result a *_status saying why, as results.json requires:
 * bench places nothing on the roofline, and a kernel without FLOPs (or bytes) has no rate. */
static void explain_nulls(json_t *r, const ns_kernel *k, const ns_params *p) {
    const char *measured = json_string_value(json_object_get(r, "status"));
    int ok = measured && !strcmp(measured, "ok");
    struct {
        const char *key, *status_key;
        double count;
        const char *none;
    } rates[] = {
        {"gflops", "gflops_status", k->flops(p), "not applicable: no FLOPs"},
        {"gbytes_per_s", "gbytes_per_s_status", k->bytes(p), "not applicable: no bytes moved"},
        {"ai_flop_per_byte", "ai_flop_per_byte_status", k->bytes(p),
         "not applicable: no bytes moved"},
    };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        if (!json_is_null(json_object_get(r, rates[i].key)) ||
            json_object_get(r, rates[i].status_key))
            continue;
        ns_json_set_str(r, rates[i].status_key,
                        !(rates[i].count > 0) ? rates[i].none
                        : ok                  ? "not measured: no valid time"
                                              : "not measured: see status");
    }
    if (json_is_null(json_object_get(r, "roof_gflops")) && !json_object_get(r, "roof_status"))
        ns_json_set_str(r, "roof_status",
                        "not placed: bench measures no ceilings; `nodescale run` "
                        "places kernels on the roofline");
}

/* Default size per family: 1024^3 GEMM, NS_PEAK_DEFAULT_ITERS for peak, and for stream/reduce the
 * size run measures "in L2" on these threads (ns_l2_elements). */
static int64_t default_n(const ns_kernel *k, int threads) {
    if (!strcmp(k->family, "gemm")) return 1024;
    if (!strcmp(k->family, "peak")) return NS_PEAK_DEFAULT_ITERS;
    return ns_l2_elements(k, threads);
}

static const char cmd[] = "bench";

/* What a step of ns_cmd_bench returns to let the command go on; anything else is its exit
 * code. */
#define BENCH_GO_ON (-1)

/* The command line of bench; -1 for a size or a thread count not given (the default). */
typedef struct bench_args {
    const char *kname, *isa, *json_path, *events;
    int64_t n, m, kk, threads, samples;
    double min_time;
} bench_args;

/* Parses the options into *a and settles the thread count (the default, and no more than the
 * CPUs the process started with). BENCH_GO_ON, or the exit code: 0 after --help, else the
 * usage error's. */
static int bench_parse_args(int argc, char **argv, bench_args *a) {
    const char *v;
    *a = (bench_args){.n = -1, .m = -1, .kk = -1, .threads = -1, .samples = NS_MIN_SAMPLES,
                      .min_time = ns_measure_defaults(0).min_sample_s};
    if (ns_refuse_repeated(cmd, argc, argv, NULL, 0)) return NS_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return NS_EXIT_OK;
        }
#define OPT(name) ((r = ns_opt_value(argc, argv, &i, name, &v)) != 0)
        if (OPT("--n") || OPT("--m") || OPT("--k") || OPT("--threads") || OPT("--samples")) {
            const char *name = argv[i][0] == '-' && strchr(argv[i], '=') ? argv[i] : argv[i - 1];
            if (r < 0) return ns_usage_error(cmd, "%s needs a value", argv[i]);
            int64_t x;
            int is_threads = !strncmp(name, "--threads", 9), is_samples = !strncmp(name, "--samples", 9);
            int64_t lo = 1;
            int64_t hi = is_threads   ? NS_MAX_THREADS
                         : is_samples ? NS_MAX_SAMPLES
                                      : (INT64_C(1) << 40);
            /* What was given and what is wanted, as cluster's messages say. */
            if (ns_parse_int64(v, 0, hi, &x) != 0 || x < lo)
                return ns_usage_error(cmd,
                                      "%.*s wants a decimal integer (a K, M, G, KiB... suffix "
                                      "allowed) in [%lld, %lld], got '%s'",
                                      (int)strcspn(name, "="), name, (long long)lo,
                                      (long long)hi, v);
            if (!strncmp(name, "--n", 3) && (name[3] == 0 || name[3] == '=')) a->n = x;
            else if (!strncmp(name, "--m", 3)) a->m = x;
            else if (!strncmp(name, "--k", 3)) a->kk = x;
            else if (is_threads) a->threads = x;
            else a->samples = x;
        } else if (OPT("--isa")) {
            if (r < 0) return ns_usage_error(cmd, "--isa needs a value");
            a->isa = v;
        } else if (OPT("--events")) {
            if (r < 0 || !*v) return ns_usage_error(cmd, "--events needs a comma-separated list");
            a->events = v;
        } else if (OPT("--json")) {
            if (r < 0) return ns_usage_error(cmd, "--json needs a file name");
            a->json_path = v;
        } else if (OPT("--min-time")) {
            if (r < 0) return ns_usage_error(cmd, "--min-time needs a value");
            if (ns_parse_double(v, 1e-6, 60, &a->min_time) != 0)
                return ns_usage_error(cmd,
                                      "--min-time wants a decimal number of seconds in [1e-6, "
                                      "60], got '%s'",
                                      v);
        } else if (argv[i][0] == '-') {
            return ns_usage_error(cmd, "unknown option '%s' (see nodescale bench --help)", argv[i]);
        } else if (!a->kname) {
            a->kname = argv[i];
        } else {
            return ns_usage_error(cmd, "one kernel at a time ('%s' is extra)", argv[i]);
        }
#undef OPT
    }
    if (!a->kname) return ns_usage_error(cmd, "which kernel? (nodescale list shows them)");
    char terr[256];
    if (a->threads < 0 && ns_default_threads(&a->threads, terr, sizeof terr) != 0)
        return ns_usage_error(cmd, "%s", terr);
    /* The start mask, not the OpenMP places: places covering fewer CPUs are the user's placement
     * (threads sharing them get a placement_warning, as with OMP_PROC_BIND=master). */
    int mask_cpus = ns_topology_get()->cpus_in_start_mask;
    if (mask_cpus > 0 && a->threads > mask_cpus)
        return ns_usage_error(cmd,
                              "--threads %lld is more than the %d CPUs of this process's "
                              "affinity mask",
                              (long long)a->threads, mask_cpus);
    return BENCH_GO_ON;
}

/* The kernel named on the command line, in --isa's variant, into *k. When there is none, the
 * reason: no such kernel, a peer library that did not load (its status says why), or no
 * variant this CPU runs. BENCH_GO_ON, or the usage error's exit code. */
static int bench_find_kernel(const bench_args *a, const ns_kernel **k) {
    const char *kname = a->kname, *isa = a->isa;
    *k = ns_registry_find(kname, isa);
    if (*k) return BENCH_GO_ON;
    size_t nk;
    const ns_kernel *const *all = ns_registry(&nk);
    int exists = 0;
    for (size_t i = 0; i < nk; i++) exists |= !strcmp(all[i]->name, kname);
    if (!exists)
        return ns_usage_error(cmd, "unknown kernel '%s' (nodescale list shows them)", kname);
    /* A peer's variant is missing when the peer did not load: its status says why (under a
     * tight ulimit -v OpenBLAS is not loaded at all), not "this CPU". */
    int peer = !isa ? -1 : !strcmp(isa, "blis") ? 0 : !strcmp(isa, "openblas") ? 1 : -1;
    int has_variant = 0;
    for (size_t i = 0; i < nk && peer >= 0; i++)
        has_variant |= !strcmp(all[i]->name, kname) && !strcmp(all[i]->isa, isa);
    ns_gemm_peer_info pi;
    if (has_variant && ns_gemm_peer_info_get(peer, &pi) == 0 && !pi.available) {
        const char *why = pi.status;
        if (!strncmp(why, "not loaded: ", 12)) why += 12;
        return ns_usage_error(cmd, "%s --isa %s: %s not loaded: %s", kname, isa,
                              peer ? "OpenBLAS" : "BLIS", why);
    }
    return ns_usage_error(cmd, "kernel '%s' has no variant for ISA '%s' that this CPU can run "
                               "(nodescale list shows its variants)",
                          kname, isa ? isa : ns_isa_selected());
}

/* The instance's parameters into *p (the family's default size where none was given), refused
 * when --m or --k name a non-GEMM kernel, when the working set would take more than
 * NS_BENCH_MEM_SHARE of the available memory, or when one repetition would exceed
 * NS_BENCH_MAX_WORK. BENCH_GO_ON, or the usage error's exit code. */
static int bench_check_size(const ns_kernel *k, const bench_args *a, ns_params *p) {
    int64_t m = a->m, kk = a->kk;
    *p = (ns_params){.n = a->n >= 0 ? a->n : default_n(k, (int)a->threads),
                     .threads = (int)a->threads};
    p->m = m >= 0 ? m : p->n;
    p->k = kk >= 0 ? kk : p->n;
    if (strcmp(k->family, "gemm") && (m >= 0 || kk >= 0))
        return ns_usage_error(cmd, "--m and --k apply to GEMM kernels only");
    /* The working set is what the inputs allocate (a STREAM kernel only the arrays its
     * operation uses: bench_args.sh), so a size that passes here is not refused by malloc. */
    double ws = k->working_set ? k->working_set(p) : 0;
    const ns_topology *t = ns_topology_get();
    if (t->mem_available_bytes > 0 && ws > NS_BENCH_MEM_SHARE * (double)t->mem_available_bytes)
        return ns_usage_error(cmd,
                              "working set %.3g GB exceeds %.0f%% of the %.3g GB of available "
                              "memory (%s)",
                              ws / 1e9, 100 * NS_BENCH_MEM_SHARE,
                              (double)t->mem_available_bytes / 1e9,
                              t->mem_available_source);
    double fl = k->flops(p), by = k->bytes(p);
    if (!(fmax(fl, by) <= NS_BENCH_MAX_WORK)) {
        int64_t s = largest_size(k, p, m, kk);
        char hint[96] = "";
        if (s > 0)
            snprintf(hint, sizeof hint, "; --n %lld%s is the largest that fits", (long long)s,
                     !strcmp(k->family, "gemm") && (m >= 0 || kk >= 0) ? " at this --m, --k" : "");
        return ns_usage_error(cmd,
                              "one repetition would do %.3g FLOPs and move %.3g bytes, over the "
                              "limit of %.0e%s",
                              fl, by, NS_BENCH_MAX_WORK, hint);
    }
    return BENCH_GO_ON;
}

/* Refuses a --json file (not -) before measuring: only a missing file or an earlier one-result
 * bench file (gate --ab rewrites those) is replaced, never a run's, fleet's or another
 * command's (bench_args.sh), and it must be writable. BENCH_GO_ON, or the usage
 * error's exit code. */
static int bench_check_json_path(const char *json_path) {
    char err[512];
    if (!json_path || !strcmp(json_path, "-")) return BENCH_GO_ON;
    if (ns_report_may_write("--json", json_path, NS_REPORT_BENCH, err, sizeof err) != 0)
        return ns_usage_error(cmd, "%s", err);
    if (ns_json_check_writable(json_path, err, sizeof err) != 0)
        return ns_usage_error(cmd, "%s", err); /* refuse before measuring, not after */
    return BENCH_GO_ON;
}

/* The one-line summary of result r on human (id, times, spread, rates, status, a short team),
 * and the thread placement warning on stderr when r has one. */
static void bench_print_summary(FILE *human, const json_t *r, const ns_measurement *meas,
                                const ns_params *p, int interrupted) {
    const char *status = json_string_value(json_object_get(r, "status"));
    double gf = ns_json_get_num(r, "gflops"), gb = ns_json_get_num(r, "gbytes_per_s");
    fprintf(human, "%s  ", json_string_value(json_object_get(r, "id")));
    if (json_is_array(json_object_get(r, "samples_s"))) {
        fprintf(human, "median %.4g s/rep  min %.4g  ", meas->stats.median, meas->stats.min);
        if (isfinite(meas->stats.cv)) /* one sample has no spread */
            fprintf(human, "cv %.2f%%  ", 100 * meas->stats.cv);
        else
            fprintf(human, "cv -  ");
    }
    if (isfinite(gf)) fprintf(human, "%.2f GFLOP/s  ", gf);
    if (isfinite(gb)) fprintf(human, "%.2f GB/s  ", gb);
    if (!isfinite(gf) && !isfinite(gb)) fprintf(human, "no rate  ");
    fprintf(human, "[%s]%s", status,
            interrupted && !strstr(status, "interrupted") ? " (interrupted)" : "");
    json_int_t used = json_integer_value(json_object_get(r, "threads_used"));
    if (used > 0 && used < p->threads)
        fprintf(human, " (ran on %lld of %d threads: see threads_note)", (long long)used,
                p->threads);
    fputc('\n', human);
    const char *placement = json_string_value(json_object_get(r, "placement_warning"));
    if (placement)
        fprintf(stderr,
                "nodescale %s: warning: thread placement: %s (OMP_PROC_BIND=%s, OMP_PLACES=%s)\n",
                cmd, placement, getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "unset",
                getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "unset");
}

/* Writes the results document of result r of kernel k (its context with the counters and the
 * measured clock ghz) to --json: standard output for -, else the file, atomically.
 * BENCH_GO_ON, or the exit code of a failed write. */
static int bench_write_json(const bench_args *a, const ns_kernel *k, json_t *r, double ghz,
                            int interrupted) {
    json_t *root = json_object();
    ns_json_set_str(root, "schema", NS_SCHEMA);
    json_t *ctx = ns_context_json((int)a->threads);
    json_object_set_new(ctx, "counters", ns_counters_context_json());
    ns_json_set_num(json_object_get(ctx, "cpu"), "freq_measured_hz", ghz * 1e9, NULL);
    if (!strcmp(k->family, "gemm"))
        json_object_set_new(ctx, "gemm",
                            ns_gemm_context_json(ns_isa_is_peer(k->isa) ? NULL : k->isa));
    json_object_set_new(root, "context", ctx);
    json_t *results = json_array();
    json_array_append(results, r);
    json_object_set_new(root, "results", results);
    if (interrupted) json_object_set_new(root, "interrupted", json_true());
    char err[512];
    int rc = BENCH_GO_ON;
    if (!strcmp(a->json_path, "-")) {
        if (json_dumpf(root, stdout, NS_JSON_DUMP_FLAGS) != 0 || puts("") < 0 ||
            fflush(stdout) != 0) {
            fprintf(stderr, "nodescale %s: error: cannot write the JSON to standard output\n",
                    cmd);
            rc = NS_EXIT_FAIL;
        }
    } else if (ns_json_write_atomic(root, a->json_path, err, sizeof err) != 0) {
        rc = ns_usage_error(cmd, "%s", err);
    }
    json_decref(root);
    return rc;
}

int ns_cmd_bench(int argc, char **argv) {
    bench_args a;
    const ns_kernel *k;
    ns_params p;
    int rc;
    if ((rc = bench_parse_args(argc, argv, &a)) != BENCH_GO_ON ||
        (rc = bench_find_kernel(&a, &k)) != BENCH_GO_ON ||
        (rc = bench_check_size(k, &a, &p)) != BENCH_GO_ON ||
        (rc = bench_check_json_path(a.json_path)) != BENCH_GO_ON)
        return rc;
    char err[512];
    ns_measure_opts o = ns_measure_defaults(0);
    o.min_samples = (int)a.samples;
    if (o.max_samples < o.min_samples) o.max_samples = o.min_samples;
    o.min_sample_s = a.min_time;
    if (ns_counters_init(a.events, err, sizeof err) < 0) return ns_usage_error(cmd, "%s", err);
    /* Like `nodescale run`: Ctrl-C stops at the next sample and keeps what was measured. */
    ns_install_stop_handler();
    double ghz = ns_clockprobe_ghz();
    ns_measurement meas = {0};
    json_t *r = ns_measure_kernel(k, &p, &o, 1, 1, &meas);
    explain_nulls(r, k, &p);
    int interrupted = ns_interrupted != 0;

    /* With --json - standard output carries only the JSON; the summary goes to stderr. */
    int json_stdout = a.json_path && !strcmp(a.json_path, "-");
    bench_print_summary(json_stdout ? stderr : stdout, r, &meas, &p, interrupted);
    const char *status = json_string_value(json_object_get(r, "status"));
    rc = interrupted                 ? ns_exit_signal(ns_interrupted)
         : strcmp(status, "ok") == 0 ? NS_EXIT_OK
                                     : NS_EXIT_FAIL;
    int written = a.json_path ? bench_write_json(&a, k, r, ghz, interrupted) : BENCH_GO_ON;
    json_decref(r);
    if (written != BENCH_GO_ON) return written;
    ns_counters_finish();
    return rc;
}
