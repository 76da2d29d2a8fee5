/* The timing loop. For one kernel instance: warm-up, repetitions per sample grown until a sample
 * lasts at least min_sample_s (and 1000x the timer resolution), then at least min_samples
 * samples; a timed sample shorter than that (the sizing sample was disturbed) grows the
 * repetitions and starts the samples again. Every sample is bracketed by barriers; with
 * NS_RUN_TEAM kernels each thread reads the clock around its share, the sample spans the
 * earliest start to the latest end, and the repetitions are sized on the longest thread's own
 * share (threads waiting for a CPU do not count as work). Threads are pinned by the OpenMP runtime
 * (OMP_PROC_BIND/OMP_PLACES, defaulted by ns_affinity_defaults) and the CPU each ran on is
 * recorded. Overheads outside the kernel (counters, checks) are kept out of the timed region. */
#ifndef NS_MEASURE_H
#define NS_MEASURE_H

#include <stdint.h>

#include "harness/stats.h"
#include "kernels/registry.h"

#define NS_MAX_SAMPLES 256

typedef struct ns_measure_opts {
    double min_sample_s; /* a sample lasts at least this long (default 0.01 s) */
    int min_samples;     /* at least this many samples (default NS_MIN_SAMPLES) */
    int max_samples;     /* at most (<= NS_MAX_SAMPLES) */
    double budget_s;     /* stop adding samples past min_samples after this long */
    int warmup_reps;     /* untimed repetitions first (default 1) */
} ns_measure_opts;

/* ns_measurement.cpu_held[t]: what keeps thread t on cpu_of_thread[t]. */
typedef enum ns_cpu_held {
    NS_CPU_MAY_MOVE = 0, /* nothing known: it may have run elsewhere */
    NS_CPU_READ,         /* every reading showed it: the start and end of each timed sample (an
                            NS_RUN_SELF kernel's threads: one per sample, at least 2 readings) */
    NS_CPU_BOUND,        /* bound to an OpenMP place of that one CPU (omp_get_place_num_procs 1) */
} ns_cpu_held;

typedef struct ns_measurement {
    int64_t reps;                      /* repetitions per sample */
    int nsamples;
    double samples_s[NS_MAX_SAMPLES];  /* seconds per repetition, one per sample */
    ns_stats stats;                    /* over samples_s */
    int threads;
    int cpu_of_thread[NS_MAX_THREADS]; /* sched_getcpu() of each thread, last sample */
    int cpu_threads;                   /* entries of cpu_of_thread filled: the team's threads,
                                          or an NS_RUN_SELF kernel's own (k->cpus; else 1) */
    /* Whether thread t stayed on cpu_of_thread[t] through the timed samples (ns_cpu_held): one
     * sched_getcpu() reading proves nothing for a thread that may migrate (unbound, or bound to
     * a place of several CPUs), so a shared CPU is only reported with such evidence. */
    unsigned char cpu_held[NS_MAX_THREADS];
    int cpu_readings; /* sched_getcpu() readings per thread over the timed samples */
    int threads_used;                  /* threads the kernel ran on (the fewest of any
                                          sample): threads, or fewer by the kernel's choice */
    char threads_note[160];            /* why threads_used < threads (ns_team.why, or the
                                          runtime's shortfall, as in status); else "" */
    int gemm_ways[3];                  /* the own GEMM's jc, ic, jr ways, last sample (ns_team);
                                          0s for other kernels */
    char gemm_ways_note[320];          /* ns_team.ways_note, last sample */
    double wait_ratio;                 /* NS_RUN_TEAM: median over the timed samples of
                                          ns_team_sample's ratio; NAN for NS_RUN_SELF */
    int resized;                       /* times a short timed sample restarted the samples */
    int interrupted;                   /* SIGINT arrived: samples so far kept */
    char status[160];                  /* "ok" or why not */
} ns_measurement;

/* The timing loop's defaults (ns_measure_defaults). A sample lasts at least 10 ms: long beside
 * the timer's resolution and a scheduler tick, so a disturbance makes one sample slow instead of
 * spreading over all; NS_MIN_SAMPLES (9) to 31 samples: the fewest the gate's rank tests want,
 * more while the budget lasts; past the minimum, samples are added for 0.6 s per kernel
 * instance at most, which keeps a run of hundreds of instances within minutes. --quick takes
 * about a quarter of that time: 4 ms samples, at most 15, 0.15 s. */
#define NS_DEFAULT_SAMPLE_S 0.01
#define NS_QUICK_SAMPLE_S 0.004
#define NS_DEFAULT_MAX_SAMPLES 31
#define NS_QUICK_MAX_SAMPLES 15
#define NS_DEFAULT_BUDGET_S 0.6
#define NS_QUICK_BUDGET_S 0.15

/* The bandwidth sweep's options (run.c): a sweep point is one of up to NS_SWEEP_MAX_POINTS
 * working sets per kernel and thread count and keeps its fastest sample (a ceiling is the best
 * the machine did), so 5 samples of 2 ms, 30 ms at most, suffice; the sizing samples warm the
 * caches up. */
#define NS_SWEEP_MAX_POINTS 128
#define NS_SWEEP_SAMPLES 5
#define NS_SWEEP_SAMPLE_S 0.002
#define NS_SWEEP_BUDGET_S 0.03

/* Default options; quick = 1 gives the --quick run's shorter samples. */
ns_measure_opts ns_measure_defaults(int quick);

/* Called on each thread (tid) of the team around its share of a group of repetitions. */
typedef void (*ns_thread_hook)(void *ctx, int tid, int nthreads);

/* Runs reps repetitions of k on p->threads threads, in the same team and pinning the timed loop
 * uses, calling begin/end (may be NULL) on every thread just outside the repetitions. Used by
 * the counters pass (harness/counters.c). For NS_RUN_SELF kernels begin/end run on the calling
 * thread only (tid 0 of 1). Returns 0, or the threads the OpenMP runtime gave when that was
 * fewer than the team asked for (k->team for NS_RUN_SELF kernels). */
int ns_run_reps(const ns_kernel *k, void *state, const ns_params *p, int64_t reps,
                 ns_thread_hook begin, ns_thread_hook end, void *ctx);

/* Measures k (already created with p) into *m. Returns 0, or -1 with m->status set (timer
 * could not resolve the kernel, interrupted before any sample, NODESCALE_INJECT_SLOWDOWN
 * would need samples over 30 s to add its fraction as whole repetitions within 2%, the
 * OpenMP runtime gave some sample fewer threads than the kernel asked for: "invalid: the OpenMP
 * runtime gave 1 of 2 threads ...", the team waited for a CPU far longer than it worked
 * (ns_team_waited: "invalid: ... set OMP_WAIT_POLICY=passive ..."), or samples stayed shorter
 * than min_s after NS_MAX_RESIZES restarts). Every sample's team is checked:
 * omp_get_num_threads() against p->threads, or k->team for NS_RUN_SELF kernels. */
int ns_measure(const ns_kernel *k, void *state, const ns_params *p, const ns_measure_opts *o,
               ns_measurement *m);

/* A team sample whose span is more than this many times its threads' own times added up is one
 * in which the threads waited for a CPU far longer (3x) than they worked (ns_team_waited). */
#define NS_TEAM_WAIT_MAX 4.0

/* At most this many restarts of the timed samples for a sample shorter than min_s; one more
 * makes the measurement invalid. Each restart at least doubles the repetitions. */
#define NS_MAX_RESIZES 4

/* One team sample from its n threads' own clock readings: thread i started its share at t0[i]
 * and ended it at t1[i] (a thread with a NAN reading did not run: skipped). Sets *span (the
 * earliest start to the latest end: the sample) and *work (the longest thread's own time,
 * t1 - t0, on which repetitions are sized) and returns the wait ratio, span over the sum of
 * the threads' own times: at most about 1 when the threads run side by side or take turns on a
 * shared CPU, far above 1 when the team waited for a CPU longer than it worked (threads on one
 * CPU whose OpenMP barrier spins, OMP_WAIT_POLICY=active or libgomp's default spin, hold it
 * while the other waits). NAN when no thread ran or their times add up to 0. */
double ns_team_sample(const double *t0, const double *t1, int n, double *span, double *work);

/* Whether a team's timed samples waited for a CPU far longer than they worked: 1 when the median
 * of their n wait ratios (ns_team_sample; NAN ones skipped) exceeds NS_TEAM_WAIT_MAX, 0 when
 * not or when none is known. *median (may be NULL) gets that median (NAN when none). */
int ns_team_waited(const double *ratio, int n, double *median);

/* Repetitions for the next sample after one of reps repetitions whose work (ns_team_sample's
 * work; a whole sample for NS_RUN_SELF kernels) lasted t seconds, while t < min_s: times
 * 1.2 * min_s / t (aiming 20% past the target) once t is over 100 timer resolutions, else 2,
 * the factor clamped to [2, 1000]. */
int64_t ns_reps_grow(int64_t reps, double t, double min_s, double resolution);

/* Checks NODESCALE_INJECT_SLOWDOWN (unset or empty: nothing injected): KERNEL:FRACTION with a
 * registered kernel name and 0 < FRACTION < 100. Returns 0, or -1 with a one-line reason in err.
 * Commands that measure call it once at startup and refuse a bad value (an ignored typo would
 * inject nothing and let a gate test pass). */
int ns_inject_slowdown_check(char *err, size_t errlen);

/* Set by the SIGINT handler of `nodescale run`; the loop stops at the next sample. */
extern volatile int ns_interrupted;

#endif
