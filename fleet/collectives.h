/* MPI collectives across the fleet: all-reduce, reduce-scatter and all-gather over a message-size
 * sweep, reported the nccl-tests way, and the α–β fit of the all-reduce time that the cluster
 * model reads (`nodescale cluster --allreduce fleet.json` reads "allreduce.fit"): Hockney's model
 * t = α + β·S (Parallel Computing 20(3), 1994), α in s, β in s/byte, S in bytes, fitted by
 * harness/stats.h ns_alpha_beta_fit with α, β >= 0.
 *
 * Conventions (nccl-tests, doc/PERFORMANCE.md): the size S of a row is the whole buffer in bytes
 * (count floats of 4 B, MPI_FLOAT, MPI_SUM): the all-reduce input and output, the reduce-scatter
 * input, the all-gather output. time t = seconds per operation of the slowest rank (each rank's
 * median over samples of the mean over iterations; min/avg/max across ranks also kept).
 * algbw = S / t. busbw = algbw * 2(n-1)/n for all-reduce and algbw * (n-1)/n for reduce-scatter
 * and all-gather, n = ranks: the per-rank link bandwidth a ring algorithm needs, comparable with
 * the hardware's bandwidth whatever n is. 1 GB = 1e9 B. */
#ifndef NS_COLLECTIVES_H
#define NS_COLLECTIVES_H

#include <jansson.h>
#include <mpi.h>
#include <stddef.h>

typedef enum {
    NS_COLL_ALLREDUCE = 0,
    NS_COLL_REDUCE_SCATTER = 1,
    NS_COLL_ALLGATHER = 2
} ns_coll_op;

#define NS_COLL_MAX_ROWS 64

typedef struct ns_coll_row {
    double bytes;               /* S: whole buffer, count * 4 B */
    long long count;            /* floats in the whole buffer */
    int iters, samples;         /* operations per sample, samples per rank */
    double t_min, t_avg, t_max; /* s per operation across ranks */
    double algbw, busbw;        /* GB/s from t_max */
    int validated;              /* every rank's output held the exact expected sums */
} ns_coll_row;

typedef struct ns_coll_opts {
    size_t min_bytes, max_bytes; /* sweep S = min, 2 min, ..., <= max (S rounded down to n floats
                                    for reduce-scatter and all-gather) */
    double target_s;             /* a sample lasts about this long (iterations chosen from the
                                    slowest rank's first operation) */
    int samples;                 /* samples per size (raised to NS_MIN_SAMPLES, 9) */
    /* Optional (NULL: none): called by every rank of comm before a size's first operation
     * (done 0; row = the index the row will get, bytes its S) and, on comm's rank 0 only, once
     * that row is complete in rows[] (done 1): how a caller keeps the sizes that finished and
     * tracks each rank's progress when a later size hangs. */
    void (*progress)(void *arg, ns_coll_op op, int row, double bytes, int done);
    void *progress_arg;
} ns_coll_opts;

/* Defaults: 8 B to 256 MiB (quick: to 4 MiB), NS_MIN_SAMPLES (9) samples of 20 ms (quick: 2 ms),
 * the harness's sample floor. */
ns_coll_opts ns_coll_defaults(int quick);

/* busbw / algbw for op on n ranks (nccl-tests factors, cluster/equations.h); 0 for n < 2. */
double ns_coll_bus_factor(ns_coll_op op, int n);

const char *ns_coll_name(ns_coll_op op); /* "allreduce", "reduce_scatter", "allgather" */

/* 1 when recv holds what op over count elements on n ranks writes when rank r sends r+1
 * everywhere (the sweep's data): every element checked, 0 at the first wrong one. */
int ns_coll_check_output(ns_coll_op op, const float *recv, long long count, int n);

/* Runs the sweep of op on comm (every rank of comm calls it). Rows are complete on comm's rank 0
 * (elsewhere only bytes/count/iters are set). Returns the number of rows, or -1 when the buffers
 * cannot be allocated on some rank (all ranks return -1 together). A stop signal on any rank
 * (ns_interrupted) ends it on every rank before the next size, the finished rows kept, and sets
 * ns_interrupted on all. */
int ns_coll_sweep(MPI_Comm comm, ns_coll_op op, const ns_coll_opts *o, ns_coll_row *rows,
                  int maxrows);

/* The first and last message sizes in bytes (*first, *last; 0 when none) that ns_coll_sweep
 * measures for op over n ranks with o (at most NS_COLL_MAX_ROWS sizes). Returns how many. */
int ns_coll_size_range(ns_coll_op op, const ns_coll_opts *o, int n, double *first, double *last);

/* {ranks, busbw_convention, allreduce[rows], reduce_scatter[rows], allgather[rows]}. */
json_t *ns_coll_json(int ranks, const ns_coll_row *const rows[3], const int nrows[3]);

/* fleet.json "allreduce": {ranks, fit{alpha_s, beta_s_per_byte, ranks, model, points,
 * max_rel_residual[, status]}} or a null fit with a status. A fit whose max_rel_residual exceeds
 * NS_ALLREDUCE_POOR_FIT gets the status "poor fit: ..." (harness/allreduce.h, the same rule as
 * results.json's thread fit). */
json_t *ns_coll_allreduce_fit_json(int ranks, const ns_coll_row *rows, int nrows);

#endif
