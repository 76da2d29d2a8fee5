/* The timing loop (see measure.h).
 *
 * Shape of one sample, as likwid-bench and STREAM do it: all threads meet at a barrier, each
 * reads the clock, runs its share of `reps` repetitions, reads the clock again, and meets the
 * others at a second barrier; the sample is the team's span (earliest start to latest end:
 * threads that share a CPU run one after the other) divided by reps. The repetition count
 * starts at 1 and grows until a sample's work (its longest thread's own share: a thread
 * waiting for a CPU does no work) lasts at least min_s = max(min_sample_s,
 * 1000 x the measured timer resolution): after a sample of t seconds it is multiplied by
 * 1.2 * min_s / t (aiming 20% past the target in one step), clamped to [2, 1000], or by 2 while
 * t is still under 100 x the resolution (ns_reps_grow). So a coarse clock can never yield a
 * zero or sub-resolution time. A timed sample still shorter than min_s (the sizing sample was
 * slowed by a disturbance) grows the count the same way and starts the samples again. */
#include "harness/measure.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/timer.h"

volatile int ns_interrupted = 0;

ns_measure_opts ns_measure_defaults(int quick) {
    return (ns_measure_opts){
        .min_sample_s = quick ? NS_QUICK_SAMPLE_S : NS_DEFAULT_SAMPLE_S,
        .min_samples = NS_MIN_SAMPLES,
        .max_samples = quick ? NS_QUICK_MAX_SAMPLES : NS_DEFAULT_MAX_SAMPLES,
        .budget_s = quick ? NS_QUICK_BUDGET_S : NS_DEFAULT_BUDGET_S,
        .warmup_reps = 1,
    };
}

/* NODESCALE_INJECT_SLOWDOWN="<kernel name>:<fraction>" makes that kernel do `fraction` more
 * real repetitions inside every timed sample while the time is still divided by the nominal
 * repetition count: a known, genuine slowdown for testing the regression gate (the repetitions
 * per sample are raised until the extra ones are a whole number within 2%: inject_reps).
 * Parses s into the kernel name (*name, *namelen: not terminated) and the fraction; 0, or -1
 * with a reason. */
static int parse_inject(const char *s, const char **name, size_t *namelen, double *frac, char *err,
                        size_t errlen) {
    const char *colon = strchr(s, ':');
    if (!colon || colon == s) {
        snprintf(err, errlen, "want KERNEL:FRACTION, e.g. stream_triad:0.1");
        return -1;
    }
    double f;
    if (ns_parse_double(colon + 1, 0, 100, &f) != 0 || !(f > 0 && f < 100)) {
        snprintf(err, errlen, "FRACTION '%s' is not a number with 0 < FRACTION < 100", colon + 1);
        return -1;
    }
    *name = s;
    *namelen = (size_t)(colon - s);
    *frac = f;
    return 0;
}

int ns_inject_slowdown_check(char *err, size_t errlen) {
    const char *s = getenv("NODESCALE_INJECT_SLOWDOWN");
    if (!s || !*s) return 0;
    const char *name;
    size_t len;
    double f;
    char why[160];
    if (parse_inject(s, &name, &len, &f, why, sizeof why) != 0) {
        snprintf(err, errlen, "NODESCALE_INJECT_SLOWDOWN=%s: %s", s, why);
        return -1;
    }
    size_t n;
    const ns_kernel *const *t = ns_registry(&n);
    for (size_t i = 0; i < n; i++)
        if (strlen(t[i]->name) == len && !strncmp(t[i]->name, name, len)) return 0;
    snprintf(err, errlen,
             "NODESCALE_INJECT_SLOWDOWN=%s: no kernel named '%.*s' (see nodescale list)", s,
             (int)len, name);
    return -1;
}

/* The extra fraction of work for k (0 when unset, invalid or naming another kernel; commands
 * that measure refuse an invalid value at startup through ns_inject_slowdown_check). */
static double injected_extra_work(const ns_kernel *k) {
    const char *s = getenv("NODESCALE_INJECT_SLOWDOWN");
    const char *name;
    size_t len;
    double f;
    char why[160];
    if (!s || !*s || parse_inject(s, &name, &len, &f, why, sizeof why) != 0) return 0;
    return strlen(k->name) == len && !strncmp(k->name, name, len) ? f : 0;
}

/* Largest relative error of an injected slowdown: the extra repetitions are a whole number, so
 * the repetitions per sample are raised until round(extra * reps) is this close to it. */
#define NS_INJECT_TOLERANCE 0.02
/* A sample that an injected slowdown would stretch beyond this many seconds is refused. */
#define NS_INJECT_MAX_SAMPLE_S 30.0

/* Repetitions per sample for an injected extra fraction of work: the fewest r >= *reps whose
 * round(extra * r) extra repetitions add extra within NS_INJECT_TOLERANCE (relative), so that
 * FRACTION 0.1 on a kernel sized at one repetition runs 10 + 1, not 1 + 1 (+100%). t is the time
 * of one sample of *reps repetitions. Sets *reps and *extra_reps and returns 0, or returns -1
 * with why when that needs samples longer than NS_INJECT_MAX_SAMPLE_S. */
static int inject_reps(double extra, double t, int64_t *reps, int64_t *extra_reps, char *why,
                       size_t whylen) {
    double rep_s = t / (double)*reps * (1 + extra); /* one repetition with its share of extra */
    /* Rounding errs by at most 0.5 / (extra * r): r >= 0.5 / (tolerance * extra) always fits. */
    double enough = ceil(0.5 / (NS_INJECT_TOLERANCE * extra));
    int64_t r = *reps;
    for (;; r++) {
        double want = extra * (double)r;
        if ((double)r >= enough || fabs(nearbyint(want) - want) <= NS_INJECT_TOLERANCE * want)
            break;
        if ((double)(r + 1) * rep_s > NS_INJECT_MAX_SAMPLE_S) {
            snprintf(why, whylen,
                     "invalid: NODESCALE_INJECT_SLOWDOWN fraction %g needs over %.0f s "
                     "samples to add it as whole repetitions within %.0f%% (one takes %.2g s)",
                     extra, NS_INJECT_MAX_SAMPLE_S, 100 * NS_INJECT_TOLERANCE, rep_s);
            return -1;
        }
    }
    *reps = r;
    *extra_reps = (int64_t)nearbyint(extra * (double)r);
    return 0;
}

/* The team of k's last run() when k opens its own (k->team; else p->threads as asked). */
static ns_team self_team(const ns_kernel *k, void *state, const ns_params *p) {
    ns_team t = {.asked = p->threads, .got = p->threads};
    if (k->team) k->team(state, &t);
    return t;
}

int ns_run_reps(const ns_kernel *k, void *state, const ns_params *p, int64_t reps,
                ns_thread_hook begin, ns_thread_hook end, void *ctx) {
    if (k->run_model == NS_RUN_SELF) {
        if (begin) begin(ctx, 0, 1);
        for (int64_t r = 0; r < reps; r++) k->run(state, 0, p->threads);
        if (end) end(ctx, 0, 1);
        ns_team t = self_team(k, state, p);
        return t.got < t.asked ? t.got : 0;
    }
    int got = p->threads;
#pragma omp parallel num_threads(p->threads) reduction(min : got)
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
        got = nth;
        if (begin) begin(ctx, tid, nth);
        for (int64_t r = 0; r < reps; r++) k->run(state, tid, nth);
        if (end) end(ctx, tid, nth);
    }
    return got < p->threads ? got : 0;
}

/* The status of a measurement some sample of which ran on fewer threads than asked begins so. */
static const char short_team[] = "invalid: the OpenMP runtime gave";

/* 1 when a sample so far ran on fewer threads than asked (m->status says so). */
static int team_short(const ns_measurement *m) {
    return !strncmp(m->status, short_team, sizeof short_team - 1);
}

/* Records the team of one sample in m: threads_used (the fewest so far) with its note, and, when
 * the runtime gave fewer threads than asked, the invalid status (the first such sample's). */
static void note_team(const ns_params *p, const ns_team *t, ns_measurement *m) {
    int short_now = t->got < t->asked;
    memcpy(m->gemm_ways, t->ways, sizeof m->gemm_ways);
    snprintf(m->gemm_ways_note, sizeof m->gemm_ways_note, "%s", t->ways_note);
    if (short_now && !team_short(m))
        snprintf(m->status, sizeof m->status,
                 "%s %d of %d threads (OMP_THREAD_LIMIT, OMP_DYNAMIC or a nested region?)",
                 short_team, t->got, t->asked);
    /* The short team too: its size is the finding (thread_team.sh). */
    if (m->threads_used == 0 || t->got < m->threads_used) {
        m->threads_used = t->got;
        if (short_now)
            snprintf(m->threads_note, sizeof m->threads_note, "%s",
                     m->status + strlen("invalid: "));
        else
            snprintf(m->threads_note, sizeof m->threads_note, "%s",
                     t->asked < p->threads ? t->why : "");
    }
}

/* Thread t's evidence after a timed sample in which it was read on CPU `now` (ns_cpu_held):
 * NS_CPU_READ while every reading so far (prev and held are the last sample's, none when first)
 * showed that CPU. */
static unsigned char held_after(int first, unsigned char held, int prev, int now) {
    return first || (held == NS_CPU_READ && prev == now) ? NS_CPU_READ : NS_CPU_MAY_MOVE;
}

/* 1 when the calling thread is bound to an OpenMP place of one CPU (it cannot run elsewhere). */
static int bound_to_one_cpu(void) {
    int place = omp_get_place_num();
    return place >= 0 && omp_get_place_num_procs(place) == 1;
}

double ns_team_sample(const double *t0, const double *t1, int n, double *span, double *work) {
    double start = INFINITY, end = -INFINITY, busy = 0, longest = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(t0[i]) && isfinite(t1[i]))) continue; /* not in this team */
        double own = t1[i] - t0[i];
        start = fmin(start, t0[i]), end = fmax(end, t1[i]);
        busy += own, longest = fmax(longest, own);
    }
    int any = end >= start;
    *span = any ? end - start : NAN;
    *work = any ? longest : NAN;
    return any && busy > 0 ? (end - start) / busy : NAN;
}

int ns_team_waited(const double *ratio, int n, double *median) {
    double known[NS_MAX_SAMPLES] = {0};
    size_t k = 0;
    for (int i = 0; i < n && k < NS_MAX_SAMPLES; i++)
        if (isfinite(ratio[i])) known[k++] = ratio[i];
    double med = ns_median(known, k);
    if (median) *median = med;
    return k > 0 && med > NS_TEAM_WAIT_MAX;
}

int64_t ns_reps_grow(int64_t reps, double t, double min_s, double resolution) {
    double grow = t > 100 * resolution ? 1.2 * min_s / t : 2.0;
    return (int64_t)ceil((double)reps * fmin(fmax(grow, 2.0), 1000.0));
}

/* The status of a team that waited for a CPU far longer than it worked (ratio: the median wait
 * ratio of its samples), naming the CPU two threads were seen sharing at every reading. */
static void waited_status(ns_measurement *m, double ratio) {
    int shared = -1;
    for (int i = 0; i < m->cpu_threads && i < NS_MAX_THREADS && shared < 0; i++)
        for (int j = 0; j < i && shared < 0; j++)
            if (m->cpu_held[i] && m->cpu_held[j] && m->cpu_of_thread[i] >= 0 &&
                m->cpu_of_thread[i] == m->cpu_of_thread[j])
                shared = m->cpu_of_thread[i];
    if (shared >= 0)
        snprintf(m->status, sizeof m->status,
                 "invalid: samples lasted %.0fx the threads' work: threads on CPU %d waited for "
                 "it while a spinning OpenMP wait held it; set OMP_WAIT_POLICY=passive",
                 ratio, shared);
    else
        snprintf(m->status, sizeof m->status,
                 "invalid: samples lasted %.0fx the threads' work: they waited for a CPU "
                 "(shared, held by a spinning OpenMP wait?); set OMP_WAIT_POLICY=passive",
                 ratio);
}

/* One sample of reps repetitions; returns its elapsed seconds (whole sample): a team's from its
 * earliest thread's start to its last thread's end, an NS_RUN_SELF kernel's around its calls,
 * and records each thread's CPU in m (an NS_RUN_SELF kernel's own threads through k->cpus, after
 * the clock has stopped) and the team it ran on (note_team). With track (a timed sample), also
 * what kept each thread on its CPU (m->cpu_held): a team thread's CPU is read at the start and
 * end of its timed part, outside the clock. Sets *work and *ratio as ns_team_sample does from
 * the threads' own readings (into tt: 2 x p->threads entries); an NS_RUN_SELF kernel's work is
 * its whole sample, its ratio NAN. */
static double time_sample(const ns_kernel *k, void *state, const ns_params *p, int64_t reps,
                          ns_measurement *m, int track, double *tt, double *work, double *ratio) {
    int *cpu_of_thread = m->cpu_of_thread;
    int first = m->cpu_readings == 0;
    if (k->run_model == NS_RUN_SELF) {
        double t0 = ns_now();
        for (int64_t r = 0; r < reps; r++) k->run(state, 0, p->threads);
        double t = ns_now() - t0;
        *work = t, *ratio = NAN;
        int now[NS_MAX_THREADS];
        int n = k->cpus ? k->cpus(state, now, NS_MAX_THREADS) : 0;
        if (n < 1) now[0] = sched_getcpu(), n = 1;
        for (int i = 0; track && i < n; i++)
            m->cpu_held[i] = held_after(first, i < m->cpu_threads ? m->cpu_held[i] : 0,
                                        cpu_of_thread[i], now[i]);
        memcpy(cpu_of_thread, now, (size_t)n * sizeof *now);
        m->cpu_threads = n;
        m->cpu_readings += track;
        ns_team team = self_team(k, state, p);
        note_team(p, &team, m);
        return t;
    }
    m->cpu_threads = p->threads < NS_MAX_THREADS ? p->threads : NS_MAX_THREADS;
    /* The team's span: from the first thread's start to the last one's end. Each thread's own
     * t1 - t0 would miss the time a thread waits for its CPU before it starts (threads sharing a
     * CPU would be timed one after the other yet counted as parallel). */
    double *t0s = tt, *t1s = tt + p->threads;
    for (int i = 0; i < 2 * p->threads; i++) tt[i] = NAN;
    int got = p->threads;
#pragma omp parallel num_threads(p->threads) reduction(min : got)
    {
        int tid = omp_get_thread_num(), nth = omp_get_num_threads();
#pragma omp barrier
        int cpu0 = sched_getcpu();
        double t0 = ns_now();
        for (int64_t r = 0; r < reps; r++) k->run(state, tid, nth);
        double t1 = ns_now();
        int cpu1 = sched_getcpu();
#pragma omp barrier
        t0s[tid] = t0, t1s[tid] = t1;
        got = nth;
        if (tid < NS_MAX_THREADS) {
            if (track)
                m->cpu_held[tid] =
                    bound_to_one_cpu() ? NS_CPU_BOUND
                    : cpu0 == cpu1 ? held_after(first, m->cpu_held[tid], cpu_of_thread[tid], cpu0)
                                   : NS_CPU_MAY_MOVE;
            cpu_of_thread[tid] = cpu1;
        }
    }
    m->cpu_readings += 2 * track;
    if (got < m->cpu_threads) m->cpu_threads = got;
    ns_team team = {.asked = p->threads, .got = got};
    note_team(p, &team, m);
    double span;
    *ratio = ns_team_sample(t0s, t1s, p->threads, &span, work);
    return span;
}

/* The samples of ns_measure from reps repetitions on: warm-up done, reps sized. Fills m's
 * samples (restarting them, up to NS_MAX_RESIZES times, with more repetitions after a sample
 * whose work was shorter than min_s) and m->wait_ratio. 0; 1 when the team waited for a CPU
 * far longer than it worked (ns_team_waited); or -1 with m->status set. */
static int timed_samples(const ns_kernel *k, void *state, const ns_params *p,
                         const ns_measure_opts *o, ns_measurement *m, int64_t reps, double last_t,
                         double min_s, double resolution, double *tt) {
    double extra = injected_extra_work(k);
    int max_samples = o->max_samples < NS_MAX_SAMPLES ? o->max_samples : NS_MAX_SAMPLES;
    double ratio[NS_MAX_SAMPLES];
    for (;;) {
        int64_t extra_reps = 0;
        if (extra > 0 && !ns_interrupted &&
            inject_reps(extra, last_t, &reps, &extra_reps, m->status, sizeof m->status) != 0)
            return -1;
        m->reps = reps;
        m->nsamples = 0;
        int64_t run_reps = reps + extra_reps;
        double start = ns_now(), short_work = NAN;
        while (m->nsamples < max_samples && !ns_interrupted) {
            double work;
            double t = time_sample(k, state, p, run_reps, m, 1, tt, &work, &ratio[m->nsamples]);
            m->samples_s[m->nsamples++] = t / (double)reps;
            if (team_short(m)) return -1;
            if (work < min_s && !ns_interrupted) { /* sized on a disturbed (slow) sample */
                short_work = work;
                break;
            }
            if (m->nsamples >= o->min_samples && ns_now() - start > o->budget_s) break;
        }
        if (!(short_work < min_s)) break;
        if (m->resized == NS_MAX_RESIZES) {
            snprintf(m->status, sizeof m->status,
                     "invalid: samples still shorter than %.3g s after %d re-sizings (the "
                     "kernel keeps getting faster)",
                     min_s, m->resized);
            return -1;
        }
        m->resized++;
        m->cpu_readings = 0; /* the evidence of the kept samples only (2 readings each) */
        int64_t more = ns_reps_grow(run_reps, short_work, min_s, resolution);
        last_t = short_work * (double)more / (double)run_reps; /* for inject_reps */
        reps = more;
    }
    return ns_team_waited(ratio, m->nsamples, &m->wait_ratio);
}

int ns_measure(const ns_kernel *k, void *state, const ns_params *p, const ns_measure_opts *o,
               ns_measurement *m) {
    memset(m, 0, sizeof *m);
    m->threads = p->threads;
    m->wait_ratio = NAN;
    for (int t = 0; t < NS_MAX_THREADS; t++) m->cpu_of_thread[t] = -1;
    snprintf(m->status, sizeof m->status, "ok");

    static double resolution = 0;
    if (resolution == 0) resolution = ns_timer_resolution_measured();
    double min_s = fmax(o->min_sample_s, 1000 * resolution);
    /* Each team thread's own start and end of a sample (time_sample). */
    double *tt = malloc(2 * (size_t)(p->threads > 0 ? p->threads : 1) * sizeof *tt);
    if (!tt) {
        snprintf(m->status, sizeof m->status, "not measured: out of memory");
        return -1;
    }
    int rc = -1;
    double work, ratio;

    for (int w = 0; w < o->warmup_reps; w++)
        time_sample(k, state, p, 1, m, 0, tt, &work, &ratio);
    if (team_short(m)) goto out;

    /* Grow reps until one sample's work is long enough; the sizing samples double as warm-up.
     * On the work, not the span: threads taking turns on a shared CPU with a spinning wait
     * would otherwise stop at one repetition whose sample is mostly waiting (team_wait.sh). */
    int64_t reps = 1;
    double last_t = 0;
    for (;;) {
        double t = time_sample(k, state, p, reps, m, 0, tt, &work, &ratio);
        if (team_short(m)) goto out;
        last_t = t;
        if (ns_interrupted) break;
        if (work >= min_s) break;
        if (reps > (INT64_C(1) << 40)) {
            snprintf(m->status, sizeof m->status,
                     "invalid: %lld repetitions still shorter than the timer can resolve",
                     (long long)reps);
            goto out;
        }
        /* Jump close to the target in one step once the time is measurable, else double. */
        reps = ns_reps_grow(reps, work, min_s, resolution);
    }
    int waited = timed_samples(k, state, p, o, m, reps, last_t, min_s, resolution, tt);
    if (waited < 0) goto out;
    if (ns_interrupted) m->interrupted = 1;
    if (m->nsamples == 0) {
        snprintf(m->status, sizeof m->status, "interrupted before the first sample");
        goto out;
    }
    /* One reading proves nothing: an NS_RUN_SELF kernel measured in one sample has no evidence. */
    for (int t = 0; t < m->cpu_threads && m->cpu_readings < 2; t++)
        if (m->cpu_held[t] == NS_CPU_READ) m->cpu_held[t] = NS_CPU_MAY_MOVE;
    ns_stats_compute(m->samples_s, (size_t)m->nsamples, &m->stats);
    if (waited) { /* no rate, and so no ceiling, from such samples */
        waited_status(m, m->wait_ratio);
        goto out;
    }
    if (m->nsamples < o->min_samples)
        snprintf(m->status, sizeof m->status, "interrupted after %d of %d samples", m->nsamples,
                 o->min_samples);
    rc = 0;
out:
    free(tt);
    return rc;
}
