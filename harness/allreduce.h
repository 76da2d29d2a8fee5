/* The thread all-reduce measurement for `nodescale run` (results.json key "allreduce") and the
 * per-thread floating-point state for the run's context.
 *
 * ns_allreduce_measure sweeps the message size S (bytes per thread, float32 sum, out of place)
 * from 8 B to 256 MiB in steps of 2x (quick: 4x up to 32 MiB), 9 samples per size, for the
 * ring and the tree schedule of kernels/reduce/allreduce.h on `threads` OpenMP threads, and
 * returns
 *   { "convention": "busbw = algbw * 2(n-1)/n (nccl-tests)", "threads", "dtype", "op",
 *     "in_place": false, "min_sample_s", "ring": [point...], "tree": [point...],
 *     "fit": { "model", "schedule": "ring", "alpha_s", "beta_s_per_byte", "per_step_alpha_s",
 *              "link_beta_s_per_byte", "asymptotic_algbw_gbytes_per_s", "steps", "ranks", "points",
 *              "max_rel_residual", "method" },
 *     "fit_tree": { same for the tree, without "ranks" }, "status" }
 * with point = { "size_bytes", "count", "reps", "samples_s": [...], "time_s": {min, median, mean,
 * stddev, cv}, "algbw_gbytes_per_s", "busbw_gbytes_per_s", "validated" }.
 * algbw = S / t (median); busbw = algbw * 2(n-1)/n, n = threads (nccl-tests, doc/PERFORMANCE.md);
 * with one thread busbw is null with a status (the factor is 0). Every point's result is checked
 * exactly (integer-valued floats) after its samples. Sizes whose buffers do not fit in half of
 * the free memory are left out, and "status" says so. threads <= 0: omp_get_max_threads().
 * Per size, one untimed all-reduce warms up, then "reps" (repetitions per sample) grows from 1
 * until a sample lasts at least min_sample_s (ns_allreduce_min_sample_s), aiming 20% past it;
 * when the samples' median times reps still falls short, they are taken again with more reps
 * (at most 3 times).
 * The fit: alpha = median time of the smallest sizes (<= 64 B), beta = median (t - alpha) / S over
 * the sizes whose buffers exceed twice the last-level cache (the alpha-beta model's two ends;
 * cache-resident sizes between are listed, not fitted); with no such size, a 1/t^2-weighted
 * least-squares line over all (harness/stats.h ns_alpha_beta_fit, unconstrained). alpha in s,
 * beta in s/byte, S in bytes: Hockney's model (Parallel Computing 20(3), 1994). alpha_s,
 * beta_s_per_byte: the whole all-reduce; per_step_alpha_s and link_beta_s_per_byte: the same
 * divided into the schedule's steps and per-step volume.
 * A fit whose max_rel_residual exceeds NS_ALLREDUCE_POOR_FIT gets "status": "poor fit: ...".
 * Fewer than 2 threads (after threads <= 0 is resolved): nothing is measured; "ring" and "tree"
 * are empty, "fit" and "fit_tree" hold null alpha_s and beta_s_per_byte, and they and the section
 * carry "status": "one thread: nothing to reduce across" (cluster --allreduce refuses it).
 * Progress lines go to log (may be NULL). NULL only on allocation failure. */
#ifndef NS_HARNESS_ALLREDUCE_H
#define NS_HARNESS_ALLREDUCE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* Largest relative residual of a fit still taken as a measurement of alpha and beta. */
#define NS_ALLREDUCE_POOR_FIT 0.5

/* Largest relative residual of a fit used without a warning: above it (and up to
 * NS_ALLREDUCE_POOR_FIT) the fit is used, but one size is a quarter off the straight line, so
 * `cluster --allreduce` warns that the times built on it are rough. */
#define NS_ALLREDUCE_ROUGH_FIT 0.25

/* The "poor fit: ..." status for a fit's max_rel_residual, written into buf; NULL when the fit
 * is within NS_ALLREDUCE_POOR_FIT. The one poor-fit rule of results.json's thread fits and
 * fleet.json's MPI fit. */
const char *ns_allreduce_poor_fit(double max_rel, char *buf, size_t len);

/* The value of a fit object's worst relative residual, whatever its type: under
 * "max_rel_residual" (the key results.json and fleet.json write) when that key holds a value,
 * else under "max_rel_resid" (fleet.json before 2026-11-29); NULL when neither does. The one
 * reading of the two keys, for the callers that check the value as well as read it. */
const json_t *ns_allreduce_fit_residual_json(const json_t *fit);

/* A fit object's worst relative residual (ns_allreduce_fit_residual_json) as a number; NAN when
 * it is not one. */
double ns_allreduce_fit_residual(const json_t *fit);

/* Whether a fit object is a poor fit: its residual (ns_allreduce_fit_residual) above
 * NS_ALLREDUCE_POOR_FIT, or a "status" that starts with "poor fit". */
int ns_allreduce_fit_is_poor(const json_t *fit);

json_t *ns_allreduce_measure(int threads, int quick, FILE *log);

/* Seconds a sample of the sweep lasts at least: max(200 us with quick, else 2 ms; 1000 x the
 * measured timer resolution). */
double ns_allreduce_min_sample_s(int quick);

/* The same sweep ending at max_bytes (a power of two, >= 8) instead of 256 MiB; for tests. */
json_t *ns_allreduce_measure_upto(int threads, int quick, int64_t max_bytes, FILE *log);

/* [{ "thread", "mxcsr", "ftz", "daz" }] for a team of threads (the timed loops' team): the
 * flush-to-zero and denormals-are-zero state each thread ran with. */
json_t *ns_fpstate_json(int threads);

#endif
