/* `nodescale run`: characterise this node end to end. ns_run_node is the whole measurement as a
 * function, so the fleet driver (fleet/) runs exactly what `run` runs on every node. */
#ifndef NS_RUN_H
#define NS_RUN_H

#include <jansson.h>
#include <stdio.h>

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

/* Checks a --kernels list as run and fleet take it: every name a STREAM or reduction kernel,
 * none empty, none named twice.
 * 0, or -1 with a one-line reason in err. */
int ns_run_check_kernels(const char *kernels, char *err, size_t errlen);

#endif
