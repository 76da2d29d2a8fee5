/* Google Benchmark-compatible JSON from a nodescale results.json, so that google/benchmark's
 * tools/compare.py, github-action-benchmark (tool "googlecpp") and Bencher ("json_google") read
 * nodescale results. `nodescale run --format gbench` calls ns_write_gbench. */
#ifndef NS_GBENCH_H
#define NS_GBENCH_H

#include <jansson.h>
#include <stddef.h>

/* Writes results (a loaded "nodescale/1" document) to path in Google Benchmark's JSON format:
 *   context {date, host_name, executable, num_cpus, mhz_per_cpu, cpu_scaling_enabled, caches
 *            [{type, level, size, num_sharing}], load_avg, library_build_type}
 *            mhz_per_cpu is the clock the run measured (the median of the clocks probed around
 *            the benchmarks, else the run's probes), else the nominal clock of the CPU's brand
 *            string, else null; context.nodescale_mhz_per_cpu says which. load_avg is the run's
 *            1/5/15-minute load averages (context.load_avg), [] when the results lack them.
 *   benchmarks: per result with samples, one "iteration" entry per sample (repetition_index
 *            0..n-1, iterations = repetitions per sample, real_time = cpu_time = seconds per
 *            repetition in ns), then "aggregate" entries NAME_mean, NAME_median, NAME_stddev.
 * The benchmark name is the result's id. A result with null samples or a status other than "ok"
 * has no time to report and is left out (listed in context.nodescale_skipped). CPU time is not
 * measured by nodescale; cpu_time repeats real_time (wall time) so tools that read both still
 * work, and the document says so: every entry's "label" and context.nodescale_cpu_time.
 * Written atomically. Returns 0, or -1 with a one-line reason in err. */
int ns_write_gbench(const json_t *results, const char *path, char *err, size_t errlen);

#endif
