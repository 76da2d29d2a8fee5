/* MPI collectives sweep (all-reduce, reduce-scatter, all-gather) with nccl-tests algbw/busbw and
 * the α–β fit of the all-reduce. See collectives.h for the conventions. */
#include "fleet/collectives.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/equations.h"
#include "harness/allreduce.h"
#include "harness/json.h"
#include "harness/measure.h"
#include "harness/stats.h"

ns_coll_opts ns_coll_defaults(int quick) {
    return (ns_coll_opts){.min_bytes = 8,
                          .max_bytes = quick ? (size_t)4 << 20 : (size_t)256 << 20,
                          .target_s = quick ? 0.002 : 0.02,
                          .samples = NS_MIN_SAMPLES};
}

double ns_coll_bus_factor(ns_coll_op op, int n) {
    return op == NS_COLL_ALLREDUCE ? ns_allreduce_bus_factor(n) : ns_rs_ag_bus_factor(n);
}

const char *ns_coll_name(ns_coll_op op) {
    static const char *names[] = {"allreduce", "reduce_scatter", "allgather"};
    return names[op];
}

static void run_op(MPI_Comm comm, ns_coll_op op, const float *send, float *recv, long long count,
                   int n) {
    int chunk = (int)(count / n);
    switch (op) {
    case NS_COLL_ALLREDUCE:
        MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, comm);
        break;
    case NS_COLL_REDUCE_SCATTER:
        MPI_Reduce_scatter_block(send, recv, chunk, MPI_FLOAT, MPI_SUM, comm);
        break;
    case NS_COLL_ALLGATHER:
        MPI_Allgather(send, chunk, MPI_FLOAT, recv, chunk, MPI_FLOAT, comm);
        break;
    }
}

/* The elements of recv an operation of count elements writes: all of them, one rank's block
 * for the reduce-scatter. */
static long long output_count(ns_coll_op op, long long count, int n) {
    return op == NS_COLL_REDUCE_SCATTER ? count / n : count;
}

/* Rank r sends r+1 everywhere, so sums are n(n+1)/2 and gathered blocks are k+1: exact in float
 * for any fleet size this tool will see (< 2^12 ranks). Checks every element the operation
 * wrote (a wrong interior element, a broken segment of a pipelined ring, passed when only the
 * ends of each block were read). */
int ns_coll_check_output(ns_coll_op op, const float *recv, long long count, int n) {
    long long chunk = count / n, nout = output_count(op, count, n);
    float sum = (float)n * (n + 1) / 2.0f;
    for (long long i = 0; i < nout; i++) {
        float want = op == NS_COLL_ALLGATHER ? (float)(i / chunk + 1) : sum;
        if (recv[i] != want) return 0;
    }
    return 1;
}

/* The element count the sweep measures at s bytes (a multiple of n for reduce-scatter and
 * all-gather), or -1 when it skips s. */
static long long sweep_count(ns_coll_op op, size_t s, int n, long long maxcount) {
    long long count = (long long)(s / sizeof(float));
    if (op != NS_COLL_ALLREDUCE) count = count / n * n;
    if (count < (op == NS_COLL_ALLREDUCE ? 1 : n) || count > maxcount) return -1;
    return count;
}

static long long max_count(const ns_coll_opts *o) {
    long long maxcount = (long long)(o->max_bytes / sizeof(float));
    return maxcount > 0x7fffffffLL ? 0x7fffffffLL : maxcount; /* MPI int counts */
}

int ns_coll_size_range(ns_coll_op op, const ns_coll_opts *o, int n, double *first, double *last) {
    long long maxcount = max_count(o), lo = -1, hi = -1;
    int rows = 0;
    for (size_t s = o->min_bytes; s > 0 && s <= o->max_bytes && rows < NS_COLL_MAX_ROWS; s *= 2) {
        long long c = sweep_count(op, s, n, maxcount);
        if (c < 0) continue;
        if (lo < 0) lo = c;
        hi = c;
        rows++;
    }
    *first = lo < 0 ? 0 : (double)lo * sizeof(float);
    *last = hi < 0 ? 0 : (double)hi * sizeof(float);
    return rows;
}

int ns_coll_sweep(MPI_Comm comm, ns_coll_op op, const ns_coll_opts *o, ns_coll_row *rows,
                  int maxrows) {
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    long long maxcount = max_count(o);
    float *send = malloc((size_t)maxcount * sizeof *send);
    float *recv = malloc((size_t)maxcount * sizeof *recv);
    int ok = send && recv, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        free(send);
        free(recv);
        return -1;
    }
    for (long long i = 0; i < maxcount; i++) {
        send[i] = (float)(rank + 1);
        recv[i] = 0.0f; /* first touch before timing */
    }
    int samples = o->samples < NS_MIN_SAMPLES ? NS_MIN_SAMPLES : o->samples;
    double *ts = malloc((size_t)samples * sizeof *ts), *all = malloc((size_t)n * sizeof *all);
    int nrows = 0;
    for (size_t s = o->min_bytes; s <= o->max_bytes && nrows < maxrows && ts && all; s *= 2) {
        /* A stop signal on any rank (SIGINT, SIGTERM) ends the sweep on all, between sizes: the
         * finished ones are kept, and every rank takes the signal as its own. */
        int sig = ns_interrupted, any;
        MPI_Allreduce(&sig, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any) {
            ns_interrupted = any;
            break;
        }
        long long count = sweep_count(op, s, n, maxcount);
        if (count < 0) continue;
        if (o->progress) o->progress(o->progress_arg, op, nrows, (double)count * sizeof(float), 0);
        /* Warm-up (connections, registration), then iterations from the slowest first call. */
        run_op(comm, op, send, recv, count, n);
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        run_op(comm, op, send, recv, count, n);
        double first = MPI_Wtime() - t0, slowest;
        MPI_Allreduce(&first, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        double want = slowest > 0 ? ceil(o->target_s / slowest) : 1000.0;
        int iters = want < 1 ? 1 : want > 1000 ? 1000 : (int)want;
        for (int k = 0; k < samples; k++) {
            MPI_Barrier(comm);
            t0 = MPI_Wtime();
            for (int it = 0; it < iters; it++)
                run_op(comm, op, send, recv, count, n);
            ts[k] = (MPI_Wtime() - t0) / iters;
        }
        double mine = ns_median(ts, (size_t)samples);
        /* Validation, untimed: one more call into a poisoned buffer, read element by element. */
        for (long long i = 0; i < output_count(op, count, n); i++)
            recv[i] = -1.0f;
        run_op(comm, op, send, recv, count, n);
        int valid = ns_coll_check_output(op, recv, count, n), all_valid;
        MPI_Reduce(&valid, &all_valid, 1, MPI_INT, MPI_LAND, 0, comm);
        MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm);
        ns_coll_row *r = &rows[nrows++];
        memset(r, 0, sizeof *r);
        r->bytes = (double)count * sizeof(float);
        r->count = count;
        r->iters = iters;
        r->samples = samples;
        if (rank == 0) {
            ns_stats st;
            ns_stats_compute(all, (size_t)n, &st);
            r->t_min = st.min;
            r->t_avg = st.mean;
            r->t_max = st.max;
            r->algbw = ns_algbw(r->bytes, r->t_max) / 1e9;
            r->busbw = r->algbw * ns_coll_bus_factor(op, n);
            r->validated = all_valid;
            if (o->progress) o->progress(o->progress_arg, op, nrows - 1, r->bytes, 1);
        }
    }
    free(ts);
    free(all);
    free(send);
    free(recv);
    return nrows;
}

static json_t *rows_json(const ns_coll_row *rows, int nrows) {
    json_t *arr = json_array();
    for (int i = 0; i < nrows; i++) {
        const ns_coll_row *r = &rows[i];
        json_t *o = json_object(), *t = json_object();
        ns_json_set_num(o, "bytes", r->bytes, NULL);
        ns_json_set_int(o, "count", r->count);
        ns_json_set_int(o, "iters", r->iters);
        ns_json_set_int(o, "samples", r->samples);
        ns_json_set_num(t, "min", r->t_min, NULL);
        ns_json_set_num(t, "avg", r->t_avg, NULL);
        ns_json_set_num(t, "max", r->t_max, NULL);
        json_object_set_new(o, "time_s", t);
        ns_json_set_num(o, "algbw_gbytes_per_s", r->algbw, "time not measurable");
        ns_json_set_num(o, "busbw_gbytes_per_s", r->busbw, "time not measurable");
        json_object_set_new(o, "validated", json_boolean(r->validated));
        json_array_append_new(arr, o);
    }
    return arr;
}

json_t *ns_coll_json(int ranks, const ns_coll_row *const rows[3], const int nrows[3]) {
    json_t *c = json_object();
    ns_json_set_int(c, "ranks", ranks);
    ns_json_set_str(c, "datatype", "MPI_FLOAT, MPI_SUM");
    ns_json_set_str(c, "busbw_convention",
                    "nccl-tests: bytes = whole buffer (all-reduce in/out, reduce-scatter input, "
                    "all-gather output); time = slowest rank's median seconds per operation; "
                    "algbw = bytes / time; busbw = algbw * 2(n-1)/n (all-reduce), "
                    "algbw * (n-1)/n (reduce-scatter, all-gather); 1 GB = 1e9 B");
    for (int op = 0; op < 3; op++)
        json_object_set_new(c, ns_coll_name((ns_coll_op)op), rows_json(rows[op], nrows[op]));
    return c;
}

json_t *ns_coll_allreduce_fit_json(int ranks, const ns_coll_row *rows, int nrows) {
    json_t *a = json_object(), *fit = json_object();
    ns_json_set_int(a, "ranks", ranks);
    double S[NS_COLL_MAX_ROWS], t[NS_COLL_MAX_ROWS], alpha, beta, resid;
    int n = 0;
    for (int i = 0; i < nrows && n < NS_COLL_MAX_ROWS; i++) {
        if (!rows[i].validated) continue;
        S[n] = rows[i].bytes;
        t[n++] = rows[i].t_max;
    }
    ns_json_set_str(fit, "model",
                    "t(bytes) = alpha_s + beta_s_per_byte * bytes: one MPI_Allreduce of a "
                    "`bytes` buffer on `ranks` ranks, slowest rank; least squares on relative "
                    "residuals, alpha and beta >= 0");
    if (ns_alpha_beta_fit(S, t, n, 1, &alpha, &beta, &resid) == 0) {
        ns_json_set_num(fit, "alpha_s", alpha, NULL);
        ns_json_set_num(fit, "beta_s_per_byte", beta, NULL);
        ns_json_set_int(fit, "ranks", ranks); /* the cluster model derives per-link α, β from it */
        ns_json_set_num(fit, "bandwidth_gbytes_per_s", beta > 0 ? 1e-9 / beta : NAN,
                        "beta is 0: no bandwidth term");
        ns_json_set_num(fit, "max_rel_residual", resid, NULL);
        ns_json_set_int(fit, "points", n);
        char st[200]; /* the thread fit's rule (harness/allreduce.h) */
        if (ns_allreduce_poor_fit(resid, st, sizeof st)) ns_json_set_str(fit, "status", st);
    } else {
        json_object_set_new(fit, "alpha_s", json_null());
        json_object_set_new(fit, "beta_s_per_byte", json_null());
        ns_json_set_str(fit, "status",
                        ranks < 2 ? "one rank: no all-reduce measured"
                                  : "fewer than 2 validated sizes");
    }
    json_object_set_new(a, "fit", fit);
    return a;
}
