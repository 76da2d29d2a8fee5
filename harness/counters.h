/* Hardware and software event counts for kernels, and an honest account where there are none.
 *
 * Backend: PAPI's low-level API for hardware events (presets such as PAPI_TOT_CYC and native
 * names such as perf::INSTRUCTIONS or FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE), one event set
 * per thread of the kernel's team. At start-up ns_counters_init() opens, starts, reads and stops
 * every requested event for real (a component list is not evidence: PAPI may list perf_event as
 * active while nothing can be counted) and records a reason a user can act on
 * when nothing can be counted.
 *
 * Software events (task clock, page faults, context switches, CPU migrations) are read with
 * perf_event_open(2) software events directly, because they exist on machines without a PMU
 * (virtual machines, this one included) where PAPI's perf_event component disables itself, and
 * because the kernel reports time_enabled/time_running for them. Where the kernel side is
 * refused (an unprivileged user at perf_event_paranoid >= 2; user-side software events would read
 * 0 page faults and 0 context switches), getrusage(RUSAGE_THREAD) gives CPU time, page faults and
 * context switches per thread instead (no CPU migrations); the output names the source.
 * NODESCALE_SW_EVENTS=perf|rusage|none forces a source (tests).
 *
 * Counting runs in a pass of its own (ns_counters_measure), never inside a timed sample, so
 * counter overhead cannot enter a timing. The likwid marker regions (harness/marker.h) are
 * placed in the same pass.
 *
 * Every value that could not be measured is JSON null with a status; never 0, never NaN/Inf,
 * never negative.
 *
 * Thread safety: ns_counters_init, ns_counters_context_json, ns_counters_summary and
 * ns_counters_finish are called from the main thread outside parallel regions. */
#ifndef NS_COUNTERS_H
#define NS_COUNTERS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/registry.h"

/* Hardware events used when neither --events nor NODESCALE_EVENTS names any. */
#define NS_COUNTERS_DEFAULT_EVENTS "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_DP_OPS,PAPI_SP_OPS"

/* Most hardware events in one set. */
#define NS_COUNTERS_MAX_EVENTS 16

/* Bounds for derived metrics; a value outside is marked invalid, never reported as data. */
#define NS_COUNTERS_MAX_IPC 16.0      /* no core retires more than 16 instructions a cycle */
#define NS_COUNTERS_MIN_CLOCK_GHZ 0.1 /* an effective clock outside [0.1, 10] GHz is absurd */
#define NS_COUNTERS_MAX_CLOCK_GHZ 10.0
#define NS_COUNTERS_FLOPS_LO 0.95 /* counted/analytic FLOPs outside [0.95, 1.05]: suspect */
#define NS_COUNTERS_FLOPS_HI 1.05
/* No node moves 10 TB/s; more is a bogus counter. */
#define NS_COUNTERS_MAX_BYTES_PER_S 1e13

/* Opens the counter backends. events: comma-separated PAPI event names (presets or native),
 * each optionally NAME*BYTES to mark a memory-traffic event of BYTES bytes per count (e.g.
 * L2_LINES_IN:ALL*64), whose sum gives the counted bytes;
 * NULL or "" means NODESCALE_EVENTS from the environment, else NS_COUNTERS_DEFAULT_EVENTS.
 * Each event is added, started, read and stopped once on its own; those that fail are dropped
 * with a status, then the rest are tried together (multiplexed by PAPI if they do not fit the
 * counters at once). Then the software events are probed the same way, and the cost of
 * starting plus stopping both sets is measured (median of 15 pairs).
 * Calling it again first undoes the previous call. Never fails: returns 0 when hardware events
 * can be counted, 1 when they cannot (the reason is in the context JSON and the summary),
 * -1 when events names something malformed (empty name, more than NS_COUNTERS_MAX_EVENTS, a
 * BYTES outside 1-4096); then err receives a one-line reason naming its source, e.g.
 * "NODESCALE_EVENTS 'A,,B': empty event name" (print it as is), and the state is as if no
 * hardware event had been asked for. */
int ns_counters_init(const char *events, char *err, size_t errlen);

/* 1 when at least one hardware event can be counted. */
int ns_counters_hw_available(void);

/* context.counters for results.json (a new reference):
 *   {backend: "papi"|"none", available: bool, status: "ok" or why not, papi_version,
 *    events: [{name, status}], software_events: [{name, unit, status}], software_source,
 *    multiplexed: bool, overhead_s (start+stop of hardware and software sets, per thread, or
 *    null + overhead_status), overhead_parts{hardware_start_stop_s, software_start_stop_s},
 *    paranoid (perf_event_paranoid, or null), pmu: what sysfs shows, likwid_marker: bool (built
 *    with LIKWID=1), summary: ns_counters_summary()} */
json_t *ns_counters_context_json(void);

/* One line for report.md (and the head of the `nodescale list` block), e.g.
 * "counters: hardware unavailable: no PMU in this virtual machine (...); software events
 *  perf::TASK-CLOCK, ... via perf_event_open; start+stop 6.5 us/thread". */
const char *ns_counters_summary(void);

/* The counting pass for one kernel instance (already created with p, outside any timed sample).
 * Runs reps repetitions through ns_run_reps() (harness/measure.h) with an event set started on
 * every thread of the same pinned team just before its repetitions and stopped just after.
 * For NS_RUN_SELF kernels with threads > 1 the sets are started on the OpenMP pool threads in a
 * parallel region before the repetitions and stopped in one after (the kernel's own parallel
 * region reuses those threads). CPU time used during the pass by threads outside the counted
 * team (a BLAS peer's own pool) is measured per thread and reported as partial coverage.
 * analytic_flops_per_rep and analytic_bytes_per_rep come from the kernel descriptor (k->flops,
 * k->bytes, all threads); pass NAN where unknown.
 * Returns the result's "counters" object (a new reference, never NULL unless out of memory):
 *   {backend, available, status, reps, threads_counted, scope, elapsed_s,
 *    events: [{name, value|null, running_enabled_ratio|null, status}],
 *    software_source, software_events: [{name, unit, value|null, running_enabled_ratio|null,
 *    status}], coverage{process_cpu_s, counted_task_clock_s, outside_team_cpu_s, status},
 *    derived: {ipc, effective_clock_ghz, flops_ratio (+ suspect, roofline_flops: "analytic"),
 *              bytes_ratio (counted / analytic bytes), measured_ai_flop_per_byte (analytic
 *              FLOPs / counted bytes)}: each {value|null, status},
 *    likwid_region (name of the marker region, or null)}
 * Hardware and software values are totals over the counted threads and over all reps.
 * Calls ns_counters_init(NULL, ...) first if nothing has. */
json_t *ns_counters_measure(const ns_kernel *k, void *state, const ns_params *p, int64_t reps,
                            double analytic_flops_per_rep, double analytic_bytes_per_rep);

/* The counters block that ends `nodescale list`: the summary line (ns_counters_summary(), with
 * its "counters: " label), then one line per requested hardware event and per software event
 * with its status. Runs ns_counters_init(NULL, ...) first when nothing has initialised the module
 * (so NODESCALE_EVENTS is honoured; a malformed value is reported in the block). */
void ns_counters_print_status(FILE *f);

/* Stops everything: closes the likwid marker file (LIKWID=1) and shuts PAPI down. Call once at
 * the end of `run` or `bench`. */
void ns_counters_finish(void);

/* ---- Pure helpers (no system calls), exposed for tests and for other backends ---- */

/* Scales a perf_event count for multiplexing: value = raw * enabled / running (the kernel's
 * time_enabled/time_running, perf_event_open(2) "read_format"). Sets *ratio = running/enabled
 * (NAN when undefined). Returns the scaled value, or NAN with *status set when it cannot be
 * trusted: never enabled (enabled == 0), never scheduled (running == 0: multiplexed out), or
 * running > enabled (kernel bug). *status is "ok" or "scaled: multiplexed ..." otherwise. */
double ns_counters_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *ratio,
                         const char **status);

/* Validates a derived or counted value v for a kernel that did `work` (> 0: work was done).
 * Returns NULL when v is acceptable, else a static reason: "not measured" (NAN input),
 * "invalid: not finite", "invalid: negative", "invalid: zero although work was done",
 * "invalid: beyond physical bound". hi = INFINITY for no upper bound. */
const char *ns_counters_check(double v, double work, double hi);

/* counted / analytic FLOPs. Returns the ratio (NAN with *status when either is missing, zero or
 * invalid); *suspect = 1 when outside [NS_COUNTERS_FLOPS_LO, NS_COUNTERS_FLOPS_HI] (then the
 * roofline must use the analytic count). */
double ns_counters_flops_ratio(double counted, double analytic, int *suspect, const char **status);

/* counted / analytic memory bytes for a pass of elapsed_s seconds. NAN with *status when the
 * analytic count is missing or zero, the counted bytes are missing, negative, zero, above
 * NS_COUNTERS_MAX_BYTES_PER_S * elapsed_s, or below half the analytic count (uncore
 * counters that read 0 when not permitted). Above 1 is expected with write-allocate traffic
 * (about 1.33 for triad, 1.5 for copy against "minimal" bytes). */
double ns_counters_bytes_ratio(double counted, double analytic, double elapsed_s,
                               const char **status);

/* Sums per-thread hardware counts. vals[t * nev + e] is thread t's count of event e;
 * thread_why[t] is NULL when thread t's set started and stopped, else why not; cycles is the
 * index of the cycles event or -1. Returns 1 with total[] filled when every thread counted
 * (an event negative on any thread, as derived presets can be under multiplexing, gets
 * total NAN); returns 0 with total[] all NAN and the first culprit in why when a thread did not
 * count, or counted zero cycles although it ran (the other core type of a hybrid CPU). */
int ns_counters_sum_threads(const long long *vals, const char *const *thread_why, int nthreads,
                            int nev, int cycles, double *total, char *why, size_t len);

/* The reason hardware counting failed, in words a user can act on, from what the system shows:
 * pmu_present (a core PMU in /sys/bus/event_source/devices: cpu, cpu_core, cpu_atom, armv8_*),
 * hypervisor (cpuid hypervisor bit), open_errno (errno of perf_event_open(cycles, user only)),
 * paranoid (/proc/sys/kernel/perf_event_paranoid; INT32_MIN = unknown), has_cap (CAP_PERFMON
 * or CAP_SYS_ADMIN effective). Writes one line into buf. */
void ns_counters_explain(int pmu_present, int hypervisor, int open_errno, int paranoid, int has_cap,
                         char *buf, size_t len);

#endif
