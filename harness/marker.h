/* likwid marker regions around kernels, so `likwid-perfctr -m -g GROUP bin/nodescale bench ...`
 * reports per kernel as for any instrumented code. Built in only with `make LIKWID=1` (which adds
 * -DLIKWID_PERFMON and -llikwid); otherwise every macro compiles to nothing and likwid is neither
 * included nor linked.
 *
 * The regions sit in the counting pass (harness/counters.c, ns_counters_measure), one region per
 * kernel variant named "<kernel>_<isa>" (e.g. "dgemm_avx512", "stream_triad_avx2"), started and
 * stopped on every thread of the team around its repetitions, so the marker calls never enter a
 * timed sample. Marker API: likwid-marker.h (likwid 5), RRZE-HPC/likwid wiki "Marker API". */
#ifndef NS_MARKER_H
#define NS_MARKER_H

#ifdef LIKWID_PERFMON
#include <likwid-marker.h>
/* Once per process, before any region (reads the likwid-perfctr environment). */
#define NS_MARKER_INIT() LIKWID_MARKER_INIT
/* On each thread before its first region; likwid ignores repeated calls. */
#define NS_MARKER_THREADINIT() LIKWID_MARKER_THREADINIT
#define NS_MARKER_START(region) LIKWID_MARKER_START(region)
#define NS_MARKER_STOP(region) LIKWID_MARKER_STOP(region)
/* Once at the end: writes the results file likwid-perfctr reads. */
#define NS_MARKER_CLOSE() LIKWID_MARKER_CLOSE
#else
#define NS_MARKER_INIT() ((void)0)
#define NS_MARKER_THREADINIT() ((void)0)
#define NS_MARKER_START(region) ((void)(region))
#define NS_MARKER_STOP(region) ((void)(region))
#define NS_MARKER_CLOSE() ((void)0)
#endif

#endif
