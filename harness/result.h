/* One results[] entry of results.json from a kernel descriptor, its parameters, its timing and
 * its check; and the driver that creates, measures, checks and destroys one kernel instance.
 * Used by `nodescale run`, `nodescale bench` and the fleet driver alike. */
#ifndef NS_RESULT_H
#define NS_RESULT_H

#include <jansson.h>
#include <stdio.h>

#include "harness/measure.h"
#include "kernels/registry.h"

/* The unique id of a kernel instance: "name/isa/prec/tT/n=N" (gemm: "m=M,n=N,k=K"). */
void ns_result_id(const ns_kernel *k, const ns_params *p, char *buf, size_t len);

/* Builds the results[] entry. m or c may be NULL (not measured / not checked); every number that
 * could not be measured is null with a status. */
json_t *ns_result_json(const ns_kernel *k, const ns_params *p, const ns_measurement *m,
                       const ns_check *c);

/* One sweep[] entry of results.json from the entry r that ns_measure_kernel made of k with p
 * and its measurement m: {kernel, isa, precision, threads, n, working_set_bytes, bytes (per
 * repetition, every pass, by bytes_policy), passes (over the working set per repetition),
 * bytes_policy, gbytes_per_s (bytes / time_s.min: the fastest sample, as STREAM and likwid-bench
 * report), gbytes_per_s_median, rate_from, time_s (seconds per repetition)}; rates null with a
 * status when r's status is not "ok". */
json_t *ns_sweep_point_json(const ns_kernel *k, const ns_params *p, const ns_measurement *m,
                            const json_t *r);

/* Creates k with p, measures it with o, checks its output, destroys it, and returns the entry
 * (never NULL; a kernel that could not be created or measured gets status saying why).
 * with_counters: after the timed samples (never inside them), a counting pass of one sample's
 * repetitions fills the entry's "counters" (harness/counters.h; ns_counters_init first).
 * with_clock: the clock is probed right before and right after the timed samples (about 10 ms
 * each, harness/clockprobe.h) and the entry gets per_cycle figures at their mean, with a
 * clock_status that says so and whether the clock changed. *m_out receives the measurement
 * when non-NULL. */
json_t *ns_measure_kernel(const ns_kernel *k, const ns_params *p, const ns_measure_opts *o,
                          int with_counters, int with_clock, ns_measurement *m_out);

/* The rate of result entry r at its fastest sample, the statistic `nodescale run` reports a
 * ceiling by ("rate_from": "fastest sample"): r's "gbytes_per_s" (bytes non-zero) or "gflops",
 * both per median, times time_s.median / time_s.min; NAN when r's status is not "ok" or a figure
 * is missing. For the bench programs that put a ceiling beside likwid-bench's. */
double ns_result_fastest_rate(const json_t *r, int bytes);

/* The rate of result entry r at its median sample: r's "gbytes_per_s" (bytes non-zero) or
 * "gflops"; NAN when r's status is not "ok" or the figure is missing. The bench programs'
 * verdict against likwid-bench's one run, a mean over its iterations: like with like. */
double ns_result_median_rate(const json_t *r, int bytes);

#endif
