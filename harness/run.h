/* `nodescale run`: characterise this node end to end. ns_run_node is the whole measurement as a
 * function, so the fleet driver (fleet/) runs exactly what `run` runs on every node. */
#ifndef NS_RUN_H
#define NS_RUN_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* One entry of a run folder's file list: the names (NULL-terminated), the extensions each is
 * written with (".svg, .png"; "" when the names are whole file names) and what they hold. */
typedef struct ns_run_output {
    const char *names[6];
    const char *exts;
    const char *what;
} ns_run_output;

/* The files `nodescale run` writes into its folder, ended by an entry without names: the one
 * list that `run --help` and report.md's "Files:" line print. */
extern const ns_run_output ns_run_outputs[];

typedef struct ns_run_opts {
    int quick;            /* --quick: the short run (coarser sweep, fewer sizes) */
    int threads;          /* all-thread runs use this many; < 1: ns_default_threads */
    const char *kernels;  /* comma-separated kernel names to run, NULL = all */
    const char *events;   /* PAPI events (--events), NULL = NODESCALE_EVENTS or defaults */
    FILE *log;            /* progress and messages (stderr and run.log) */
} ns_run_opts;

/* Measures this node and returns a complete results.json document (schema "nodescale/1"):
 * context (with counters and the clock probe), ceilings, sweep, results. The caller adds the
 * roofline and cluster sections. Initialises the counter backends (ns_counters_init); the
 * caller calls ns_counters_finish() when done with them. NULL only on allocation failure. */
json_t *ns_run_node(const ns_run_opts *o);

/* Working sets of the bandwidth sweep into ws (at most cap): from 4 KiB up by factors of step,
 * ending exactly at max_ws (so the largest point meets the 4x-LLC rule the roofline builder
 * checks); a step within 5% of max_ws (above max_ws / 1.05) gives way to max_ws, so the last
 * two points are never all but the same. Returns how many. */
int ns_sweep_points(double step, double max_ws, double *ws, int cap);

/* The element counts the sweep measures a kernel at, into n (at most nws): each of the nws
 * ascending working sets ws[] over per_el (the kernel's working-set bytes per element), rounded
 * down to whole 64-element chunks per thread (at least one each), and a count no larger than
 * the one before dropped, so no working set is measured twice (on 64 threads the small steps
 * all rounded to 4096 elements; test_kernels.c). Returns how many. */
int ns_sweep_sizes(const double *ws, int nws, double per_el, int threads, int64_t *n);

/* The element count at which run measures a STREAM or reduction kernel "in L2" on `threads`
 * threads (bench's default --n for them): its working set half the L2 those threads reach
 * together (ns_cache_aggregate; 256 KiB when unknown), a multiple of 1024 elements, at least
 * 1024. */
struct ns_kernel;
int64_t ns_l2_elements(const struct ns_kernel *k, int threads);

/* Checks a --kernels list as run and fleet take it: every name a STREAM or reduction kernel,
 * none empty, none named twice.
 * 0, or -1 with a one-line reason in err. */
int ns_run_check_kernels(const char *kernels, char *err, size_t errlen);

#endif
