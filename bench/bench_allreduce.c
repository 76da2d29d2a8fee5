/* make bench-allreduce: the thread all-reduce sweep that `nodescale run` stores under
 * "allreduce" (harness/allreduce.h), printed as a table: per size the ring's and the tree's
 * median time, algbw and busbw (nccl-tests convention), then the alpha-beta fits.
 * NODESCALE_BENCH_QUICK=1 takes the 4x size steps. Threads: OMP_NUM_THREADS or all CPUs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/allreduce.h"
#include "harness/cli.h"
#include "harness/context.h"
#include "harness/json.h"

static double num(const json_t *o, const char *k) {
    return ns_json_get_num(o, k);
}

/* The fit's figures, or, for a poor fit or one without alpha and beta, its status and residual
 * only: a fit the suite disowns (harness/allreduce.c) is not printed as a measurement. */
static void print_fit(const char *name, const json_t *f) {
    const char *st = json_string_value(json_object_get(f, "status"));
    const json_t *pts = json_object_get(f, "points");
    int npts = json_is_integer(pts) ? (int)json_integer_value(pts) : 0;
    if (ns_allreduce_fit_is_poor(f) || !isfinite(num(f, "alpha_s")) ||
        !isfinite(num(f, "beta_s_per_byte"))) {
        printf("%s fit: %s (max relative residual %.2f over %d points); alpha, beta and the "
               "asymptotic algbw not printed\n",
               name, st ? st : "no fit", ns_allreduce_fit_residual(f), npts);
        return;
    }
    printf("%s fit: t = %.3g s + %.4g s/B * S  (asymptotic algbw %.2f GB/s; per step alpha %.3g "
           "s, link beta %.4g s/B; max relative residual %.2f over %d points); status: %s\n",
           name, num(f, "alpha_s"), num(f, "beta_s_per_byte"),
           num(f, "asymptotic_algbw_gbytes_per_s"), num(f, "per_step_alpha_s"),
           num(f, "link_beta_s_per_byte"), num(f, "max_rel_residual"), npts, st ? st : "ok");
}

int main(int argc, char **argv) {
    if (ns_bench_help(argc, argv,
                      "usage: bench_allreduce   (make bench-allreduce)\n"
                      "  the thread all-reduce sweep (ring and tree): median time, algbw, busbw,\n"
                      "  alpha-beta fits. No options.\n"
                      "  NODESCALE_BENCH_QUICK=1  4x size steps\n"
                      "  OMP_NUM_THREADS          threads, 2 .. the CPUs in the affinity mask\n"
                      "                           (default: all of them)\n"))
        return 0;
    if (ns_bench_no_args("bench-allreduce", argc, argv)) return NS_EXIT_USAGE;
    ns_affinity_defaults(argv);
    int quick = getenv("NODESCALE_BENCH_QUICK") ? atoi(getenv("NODESCALE_BENCH_QUICK")) : 0;
    /* As `nodescale run` and `bench`: no more threads than the affinity mask's CPUs (they would
     * measure the scheduler), and two at least (one thread has nothing to reduce across). */
    int64_t threads;
    char terr[256];
    if (ns_default_threads(&threads, terr, sizeof terr) != 0)
        return ns_usage_error("bench-allreduce", "%s", terr);
    if (threads < 2)
        return ns_usage_error("bench-allreduce",
                              "one thread: nothing to reduce across; the all-reduce needs >= 2 "
                              "threads (OMP_NUM_THREADS, or the CPUs in the affinity mask)");
    json_t *r = ns_allreduce_measure((int)threads, quick, NULL);
    if (!r) {
        fprintf(stderr, "bench_allreduce: out of memory\n");
        return 1;
    }
    const json_t *ring = json_object_get(r, "ring"), *tree = json_object_get(r, "tree");
    printf("thread all-reduce, %d threads, float32 sum, out of place; %s; status: %s\n",
           (int)num(r, "threads"), json_string_value(json_object_get(r, "convention")),
           json_string_value(json_object_get(r, "status")));
    printf("%12s | %11s %9s %9s | %11s %9s %9s\n", "size B", "ring t s", "algbw", "busbw",
           "tree t s", "algbw", "busbw");
    for (size_t i = 0; i < json_array_size(ring); i++) {
        const json_t *a = json_array_get(ring, i), *b = json_array_get(tree, i);
        printf("%12.0f | %11.3e %9.3f %9.3f | %11.3e %9.3f %9.3f%s\n", num(a, "size_bytes"),
               num(json_object_get(a, "time_s"), "median"), num(a, "algbw_gbytes_per_s"),
               num(a, "busbw_gbytes_per_s"), num(json_object_get(b, "time_s"), "median"),
               num(b, "algbw_gbytes_per_s"), num(b, "busbw_gbytes_per_s"),
               json_is_true(json_object_get(a, "validated")) &&
                       json_is_true(json_object_get(b, "validated"))
                   ? ""
                   : "  WRONG RESULT");
    }
    printf("GB/s (1e9 B/s); times are medians of 9 samples.\n");
    print_fit("ring", json_object_get(r, "fit"));
    print_fit("tree", json_object_get(r, "fit_tree"));
    json_decref(r);
    return 0;
}
