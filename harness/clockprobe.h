/* Clock probe: the effective core clock without hardware counters. A chain of dependent
 * register-register integer adds retires one add per cycle on every x86-64 and AArch64 core
 * (latency 1), so adds / seconds is the clock the calling thread actually ran at, turbo and
 * throttling included. Run before and after a measurement, it gives cycles per element and per
 * cycle throughput on machines without a PMU, and shows a frequency change during the run.
 *
 * Why register-register: Golden Cove class cores (Alder Lake, Sapphire Rapids) fold chains of
 * add-immediate in the renamer and run them several per cycle; on this machine an add $1 chain
 * reads about 10 "GHz", an add %reg chain 2.5 GHz. */
#ifndef NS_CLOCKPROBE_H
#define NS_CLOCKPROBE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Default relative change of the clock probe that counts as a frequency change (5 %). */
#define NS_CLOCKPROBE_THRESHOLD 0.05

/* Effective clock of the calling thread in GHz: trials runs of a chain of `adds` dependent adds,
 * timed with ns_now(); the fastest trial wins (interference only ever slows a trial down).
 * NAN when the timer cannot resolve a trial (adds too small) or adds/trials are < 1. */
double ns_clockprobe_ghz_n(uint64_t adds, int trials);

/* ns_clockprobe_ghz_n with 101 trials of 2.5e5 adds (more where the timer is coarse, so a
 * trial lasts 1000 ticks): about 10 ms at 2.5 GHz. */
double ns_clockprobe_ghz(void);

/* Compares two probes. Returns 1 when |after - before| / before > threshold (and writes e.g.
 * "clock changed from 2.51 to 2.10 GHz (-16.3 %) during the run" into why), 0 when not, -1 when
 * either probe is missing (NAN, <= 0). why may be NULL. */
int ns_clockprobe_changed(double before_ghz, double after_ghz, double threshold, char *why,
                          size_t len);

/* Cycles per element from a time and the probed clock: seconds * ghz * 1e9 / elements. NAN when
 * any input is missing or not positive. */
double ns_clockprobe_cycles_per_element(double seconds, double elements, double ghz);

/* context.clock_probe for results.json (new reference):
 *   {method, adds_per_trial, before_ghz, after_ghz (null + status when missing), change_rel,
 *    threshold_rel, changed: bool|null, status} */
json_t *ns_clockprobe_json(double before_ghz, double after_ghz, double threshold);

/* Adds result["per_cycle"] to one results[] entry from the probed clock, without counters:
 *   {clock_before_ghz, clock_after_ghz (the probes right before and after the measurement),
 *    clock_ghz (their mean; the one that is valid when only one is), clock_status ("ok: ..."
 *    when steady; "clock changed from X to Y GHz ...: ... may be off by up to N %" when they
 *    differ by more than NS_CLOCKPROBE_THRESHOLD; which probe when only one), source,
 *    cycles_per_rep (core cycles of one repetition on each thread),
 *    cycles_per_element (stream/reduce: core cycles per array element a thread processes,
 *    every pass of a repetition counted, = median_s * ghz * 1e9 * threads / (params.n *
 *    passes), likwid-bench's "cycles per update"),
 *    flops_per_cycle_per_core, bytes_per_cycle_per_core}
 * each null + status when missing. Reads time_s.median, flops, bytes, family, threads, params.n
 * and passes (1 when absent) from the entry. A probe that is NAN or <= 0 counts as missing. */
void ns_clockprobe_annotate(json_t *result, double before_ghz, double after_ghz);

#endif
