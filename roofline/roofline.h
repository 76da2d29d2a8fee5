/* The empirical roofline (Williams, Waterman, Patterson, "Roofline: an insightful visual
 * performance model for multicore architectures", CACM 52(4), 2009) built from what
 * `nodescale run` measured, and its cache-aware variant (Ilic, Pratas, Sousa, "Cache-aware
 * Roofline model", IEEE CAL 13(1), 2014: one bandwidth roof per memory level).
 *
 * Inputs (results.json, schema nodescale/1):
 *   sweep[]            {kernel, isa, precision, threads, working_set_bytes, gbytes_per_s,
 *                       bytes_policy}: bandwidth against working set, one curve per
 *                       (kernel, isa, precision, threads).
 *   ceilings.compute[] {name, precision, isa, mix, threads, gflops, freq_ghz, result_id}.
 *   context.cpu.caches[] {level, type, size_bytes, shared_by_cores, count} (hwloc).
 *   results[]          {id, name, family, precision, threads, working_set_bytes,
 *                       ai_flop_per_byte (or flops and bytes), gflops, gbytes_per_s,
 *                       bytes_policy, mix (optional), counters.derived.
 *                       measured_ai_flop_per_byte.value (optional)}.
 * Outputs: ceilings.bandwidth[] {level, threads, kernel, isa, precision, working_set_bytes,
 * working_set_{min,max}_bytes, gbytes_per_s, bytes_policy, points, source, suspect, status, and
 * with source "kernel phase": result_id, sweep_gbytes_per_s, sweep_source}; the
 * "roofline" section {bytes_policy, method, cache_capacity[], plateaus[], ceilings_used,
 * ridge_points[], points[], notes[], status}; and per results[] entry: level, roof_gflops,
 * fraction_of_roof, fraction_of_roof_fastest, roof_limit ("compute" | "bandwidth:L2" ...),
 * roof_mix, roof_compute_gflops, roof_gbytes_per_s, roof_status, and roof_gflops_at_measured_ai
 * where counters measured the AI. fraction_of_roof is the kernel's median-sample rate (gflops,
 * or gbytes_per_s without FLOPs) over the roof, built from fastest samples (a compute ceiling's
 * fastest sample; a bandwidth ceiling the median of its sweep points' fastest samples, or one
 * kernel-phase measurement's fastest sample); fraction_of_roof_fastest is its fastest-sample
 * rate over the same roof (fraction_of_roof x time_s.median / time_s.min; null without
 * time_s).
 * Anything that cannot be derived is null with a status string, never NaN, Inf or 0.
 *
 * Plateaus are found from the curve alone (flat runs in log-log), then labelled L1/L2/L3/DRAM
 * by comparing their working-set range with the aggregate cache capacity the participating
 * threads can use; the number of plateaus found plays no part in the labels. A curve without a
 * plateau in a cache level contributes the median of its points well inside that level
 * (source "interior"; suspect when those points scatter more than a plateau's may); a DRAM
 * ceiling needs points at >= 4x the aggregate LLC or is suspect.
 * Without a DRAM plateau of >= 3 points at >= 4x the LLC, the last <= 3 points at >= 1.5x the
 * LLC give it (their median) unless they still fall in a row or scatter widely (then suspect). A roof never
 * sits below a measurement of its own ceiling kernel: where results[] (the kernel phase) holds
 * the curve's kernel (same ISA, precision, threads) with its working set in a level (DRAM: at
 * >= 4x the LLC), faster by the sweep's statistic (bytes / time_s.min), that measurement is the
 * curve's ceiling of the level (source "kernel phase", result_id, and the sweep's own value),
 * unless its samples spread (CV > 10%, or fastest > 1.2x median) and its median is below the
 * sweep's ceiling: then the sweep's stays, and its "kernel_phase" string and a note say why. A
 * ceiling kernel (stream_load, stream_copy, stream_triad, stream_triad_nt, or any swept one)
 * that the sweep did not measure at a thread count (`run --quick`: copy, triad_nt) gives a
 * level a ceiling the same way when its measurement there beats the roof of its load/store
 * class (the level's roof where its class has none).
 *
 * Suspect ceilings: ceilings_used.compute[] and .bandwidth[] carry suspect and suspect_reason
 * (null when not suspect), and roofline.status counts them, roofs (the limiting roof of some
 * kernel other than the roof's own measurement) apart from reference ceilings (the rest, with
 * the suspect entries of ceilings.bandwidth): "ok; 1 roof used is suspect; 3 reference
 * ceilings are suspect (...)". A compute ceiling is suspect when its result's CV exceeds 10%
 * or its fastest sample is more than 1.2x its median (gflops_median, else its result's time_s
 * min / median); and, both of the pair then, when an SP vector ceiling is below the DP one or
 * above 2.2x it (same mix and threads), when an ADD-only ceiling is above the FMA-only one
 * (same precision and threads), and when a T-thread ceiling is more than 1.1 x T times the
 * 1-thread one or the 1-thread one is more than 1.1x it. A 1-thread bandwidth roof is suspect
 * when the T-thread one of its level is more than 1.1 x T times it. ridge_points[] say suspect
 * when built from a suspect ceiling; a
 * kernel judged against a suspect compute roof says so in roof_status; points[].above_roof marks
 * a point above its roof (fraction_of_roof > 1), and a note lists them; points[].roof_suspect
 * one whose limiting roof is suspect. The pictures' kernel list says both.
 *
 * Bandwidth roof of a kernel: the ceiling of its level and thread count of its own load/store
 * class (read-only: stream_load, stream_sum, reductions; write-allocating: stream_copy, _scale,
 * _add, _triad; non-temporal: stream_triad_nt), since one byte count hides different real
 * traffic; without one (and for kernels of no class, GEMM), the level's roof (its fastest class:
 * ceilings_used.bandwidth[]; each class's in ceilings_used.bandwidth_by_class[]), and
 * roof_status names the roof's kernel, its class and the real bytes each moves per byte counted.
 * ceilings_used.compute[].roof is true for the FMA-only ceilings and every ceiling that is some
 * kernel's compute roof (a sum's ADD-only one); roof_status is worded by the limit applied.
 *
 * Compute roof of a kernel: its own mix, else FMA-only; reductions and STREAM kernels
 * are memory bound and judged by the bandwidth roof, with ADD-only as compute roof for sums,
 * FMA-only for dot products, norms and triads, and none (roof_mix null) for copy, scale, load
 * and max-abs. Above a compute roof, roof_status names the cause the run's evidence supports:
 * boost only when the kernel's own clock probe (per_cycle.clock_ghz) exceeds the ceiling's
 * freq_ghz by more than 3% (context.clock_probe, taken once per run, is no evidence), a disturbed
 * ceiling when its fastest and median samples or its CV spread, else that the kernel beat the
 * ceiling kernel, with numbers. fraction_of_roof is never clamped. */
#ifndef NS_ROOFLINE_H
#define NS_ROOFLINE_H

#include <jansson.h>
#include <stddef.h>

/* Builds ceilings.bandwidth[], the "roofline" section and the per-result roof fields in
 * results (modified in place; earlier roofline output is replaced, so the call is idempotent).
 * Missing or unusable inputs are reported as nulls with status strings and in
 * roofline.notes[]; they are not errors. Returns 0, or -1 with a one-line reason in err when
 * results is not a results object or memory runs out. */
int ns_roofline_build(json_t *results, char *err, size_t errlen);

/* Draws, from a results object that ns_roofline_build has processed, into the existing folder
 * dir: roofline_<prec>.{svg,png} and roofline_cache_aware_<prec>.{svg,png} for every precision
 * with a compute ceiling or a point, roofline.svg (a copy of roofline_dp.svg, not a link, so a
 * redraw replaces both) with the DP picture, and bandwidth_vs_working_set.{svg,png} when there
 * is a sweep. Runs gnuplot (found on PATH, or NODESCALE_GNUPLOT) on a generated script; data and
 * script live in a temporary folder that is removed (NODESCALE_KEEP_PLOT_TMP=1 keeps it); each
 * picture is written under a temporary name and renamed, so a failure leaves earlier pictures
 * intact; a picture without valid data is skipped, not an error. Returns 0, or -1 with a
 * one-line reason in err (gnuplot missing or failing, dir not writable, no roofline section). */
int ns_roofline_plot(const json_t *results, const char *dir, char *err, size_t errlen);

/* The two halves of ns_roofline_plot, so a caller can write all of its outputs or none.
 * ns_roofline_plot_stage draws every picture that has data into dir under the name
 * FINAL.tmp and appends each FINAL path (".svg", ".png") to staged; a picture without valid
 * data (no sweep point with a positive bandwidth; no ceiling and no point of a precision) is
 * not drawn, and "NAME: reason" is appended to skipped (either array may be NULL). Zero
 * pictures is not an error. On failure nothing is left in dir. Returns 0 or -1 (err).
 * ns_roofline_plot_commit renames each staged FINAL.tmp to FINAL (keep = 1) or removes it
 * (keep = 0); returns 0, or -1 with the first failure in err. */
int ns_roofline_plot_stage(const json_t *results, const char *dir, json_t *staged,
                           json_t *skipped, char *err, size_t errlen);
int ns_roofline_plot_commit(const json_t *staged, int keep, char *err, size_t errlen);

/* 100 x frac as a percentage ("57%") into buf; with up to 3 decimals where a whole number
 * would read 100% for a fraction that is not exactly 1 ("100.4%" above a roof, "99.96%" below
 * it). */
void ns_roofline_percent(double frac, char *buf, size_t len);

/* ---- The pieces, exposed for tests and for the cluster model ---- */

/* One flat run of a bandwidth curve. Working sets in bytes, bandwidth in GB/s (1e9 B/s). */
typedef struct ns_plateau {
    double ws_lo_bytes, ws_hi_bytes; /* working-set range of the points in the run */
    double gbytes_per_s;             /* median bandwidth of the points in the run */
    double slope;                    /* fitted d ln(bw) / d log2(ws) over the run */
    int npoints;
} ns_plateau;

/* The slope is d ln(bw) / d log2(ws): 0.15 = ln 1.16, a 16% bandwidth change per doubling of the
 * working set. ln 1.10 (10%) loses real plateaus of --quick sweeps (2x steps, so the 3-point
 * window spans two doublings and takes in the edge of the next level). */
#define NS_PLATEAU_MAX_SLOPE 0.15
#define NS_PLATEAU_MIN_POINTS 3

/* Finds the plateaus of one curve. ws[i] and bw[i] need not be sorted; points with a
 * non-finite or non-positive value are ignored. A point is flat when the least-squares slope of
 * ln(bw) against log2(ws) over it and its neighbours within 0.7 doublings of the working set
 * (at least one on each side; two at 1.25x steps), after a running median
 * of 3, which removes single-point spikes) is within NS_PLATEAU_MAX_SLOPE; a plateau is a run of
 * at least NS_PLATEAU_MIN_POINTS flat points (with the neighbours of a run of flat points whose
 * own rate is within 10% of the run's median: the ends of a level, whose windows hold too few
 * points or the cliff to the next level; towards smaller working sets only the first point of
 * the curve, or while the run is shorter than NS_PLATEAU_MIN_POINTS), split in two where the
 * level inside it still changes by more than 25%, and dropped when its points scatter by more
 * than 8% (robust sigma around their trend): on a disturbed machine no plateau is better than a
 * wrong one. Writes at most
 * max_out plateaus in increasing working-set order and returns how many were found (which may
 * exceed max_out), or -1 on allocation failure. */
int ns_roofline_find_plateaus(const double *ws, const double *bw, size_t n, ns_plateau *out,
                              size_t max_out);

/* Thread counts: `run` measures at 1 and all threads, but a file merged from several runs or
 * bench --json files may hold more. The builder keeps the highest NS_ROOFLINE_MAX_THREAD_COUNTS
 * distinct ones (roofline.cache_capacity; only they get bandwidth roofs). The roofline pictures draw the roofs of the highest
 * NS_ROOFLINE_DRAWN_THREAD_COUNTS (solid and dashed line styles the title names one by one);
 * bandwidth_vs_working_set draws the highest NS_ROOFLINE_SWEEP_PANELS (one panel each, side by
 * side in 1300 px: about 215 px of plot each at 4). A note in roofline.notes names what is left
 * out. */
#define NS_ROOFLINE_MAX_THREAD_COUNTS 32
#define NS_ROOFLINE_DRAWN_THREAD_COUNTS 8
#define NS_ROOFLINE_SWEEP_PANELS 4

/* The ceiling kernels `nodescale run` sweeps over working sets (harness/run.c; --quick sweeps
 * only stream_load and stream_triad): their curves give the bandwidth ceilings, and a measurement
 * of one of them in results[] can give or raise a level's ceiling even where the sweep has no
 * curve of it. */
#define NS_SWEEP_KERNEL_COUNT 4
extern const char *const ns_sweep_kernels[NS_SWEEP_KERNEL_COUNT];

/* 1 when a kernel's stores are non-temporal (its name ends in "_nt", as stream_triad_nt): they
 * go to memory whatever the working set, so no cache level's ceiling describes it. Its sweep
 * curve gives a DRAM ceiling only; at a cache working set it gets no roof (a status says why),
 * and `nodescale run` measures it at DRAM working sets only. */
int ns_roofline_nt_stores(const char *name);

/* Load/store classes: how a kernel's stores reach memory. The same byte count ("minimal": no
 * write-allocate) hides different real traffic: a triad's normal stores write-allocate (the line
 * is read before it is written: 32 B move per 24 counted), non-temporal ones do not, and a
 * read-only kernel uses no store port. The roofline judges each kernel against the bandwidth
 * roof of its own class (kernels of none, GEMM, against the level's fastest roof), and `cluster
 * --node` takes the DRAM ceiling of the class the model's work belongs to. */
enum { NS_CLS_NONE = -1, NS_CLS_READ, NS_CLS_WA, NS_CLS_NT, NS_NCLS };

/* The load/store class of a kernel (name; family: its registry family, NULL when not known, as
 * for a sweep curve or a ceiling): NS_CLS_NT for non-temporal stores (ns_roofline_nt_stores),
 * NS_CLS_READ for stream_load, stream_sum and the reductions (family "reduce"), NS_CLS_WA for
 * the other STREAM kernels; NS_CLS_NONE for the rest and for a NULL name. */
int ns_roofline_kernel_class(const char *name, const char *family);

/* The name of a class ("read-only", "write-allocating", "non-temporal"); NULL for NS_CLS_NONE
 * or a value out of range. */
const char *ns_roofline_class_name(int cls);

/* The caches hwloc reported, data and unified only, sorted by level. */
#define NS_MAX_CACHE_LEVELS 6
typedef struct ns_cache_set {
    int n;
    int level[NS_MAX_CACHE_LEVELS];         /* 1, 2, 3, ... */
    double size_bytes[NS_MAX_CACHE_LEVELS]; /* one instance */
    int shared_by_cores[NS_MAX_CACHE_LEVELS];
    int count[NS_MAX_CACHE_LEVELS]; /* instances in the machine */
} ns_cache_set;

/* Reads context.cpu.caches[] (the array itself). Entries of type "instruction", or without a
 * positive size or level, are skipped; a missing shared_by_cores counts as 1 and a missing count
 * as unlimited. Returns the number of levels kept (0 when none). */
int ns_roofline_caches(const json_t *caches, ns_cache_set *out);

/* Aggregate capacity of cache level index li (into cs) usable by `threads` threads pinned to
 * consecutive cores (OMP_PROC_BIND=close, OMP_PLACES=cores): ceil(threads / shared_by_cores)
 * instances, at most count, times the instance size. Per-core caches therefore scale with the
 * thread count, a shared LLC counts once, and an LLC per CCX counts once per CCX touched. */
double ns_roofline_capacity(const ns_cache_set *cs, int li, int threads);

/* The level a working set of ws bytes lives in for `threads` threads: "L1", "L2", ... for the
 * first level whose aggregate capacity holds it, "DRAM" beyond the last; NULL when cs is empty
 * or ws is not a positive finite number. */
const char *ns_roofline_level_of(const ns_cache_set *cs, double ws, int threads);

/* The level of a plateau: the level of the geometric middle of its working-set range. */
const char *ns_roofline_plateau_level(const ns_cache_set *cs, const ns_plateau *p, int threads);

/* The attainable bound of the roofline model: min(compute_gflops, ai * gbytes_per_s), in
 * GFLOP/s. *bandwidth_bound (may be NULL) is set to 1 when the bandwidth term is the smaller.
 * NAN when an input is not finite and positive (callers write null + status). */
double ns_roofline_attainable(double ai_flop_per_byte, double compute_gflops, double gbytes_per_s,
                              int *bandwidth_bound);

/* The entry of root's roofline.ceilings_used.compute[] that is compute ceiling `ceiling` (one of
 * ceilings.compute[]): the same name, ISA, precision and mix (each a string, or absent from
 * both) and the same number of threads; NULL when none is (a ceiling of a slower ISA is not
 * used). The one reading of that section: the run report's suspect marks and the cluster
 * model's node peak both look a ceiling up here. */
const json_t *ns_roofline_used_compute(const json_t *root, const json_t *ceiling);

#endif
