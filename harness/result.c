/* results[] entries (see result.h). Rates are computed from the median time per repetition;
 * a time that is zero, negative or not finite leaves every rate null with a status, never inf. */
#include "harness/result.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/clockprobe.h"
#include "harness/context.h"
#include "harness/counters.h"
#include "harness/json.h"

void ns_result_id(const ns_kernel *k, const ns_params *p, char *buf, size_t len) {
    if (!strcmp(k->family, "gemm"))
        snprintf(buf, len, "%s/%s/%s/t%d/m=%lld,n=%lld,k=%lld", k->name, k->isa,
                 ns_prec_name(k->precision), p->threads, (long long)p->m, (long long)p->n,
                 (long long)p->k);
    else
        snprintf(buf, len, "%s/%s/%s/t%d/n=%lld", k->name, k->isa, ns_prec_name(k->precision),
                 p->threads, (long long)p->n);
}

static json_t *stats_json(const ns_stats *s) {
    json_t *o = json_object();
    ns_json_set_num(o, "min", s->min, NULL);
    ns_json_set_num(o, "median", s->median, NULL);
    ns_json_set_num(o, "mean", s->mean, NULL);
    ns_json_set_num(o, "stddev", s->stddev, NULL);
    ns_json_set_num(o, "cv", s->cv, NULL);
    ns_json_set_num(o, "max", s->max, NULL);
    return o;
}

/* Into why (empty when none): two of the nt threads that shared one CPU through the timed
 * samples (m->cpu_held: bound to a place of that CPU alone, or seen on it at every reading; a
 * thread that may migrate, unbound or in a place of several CPUs, met on one CPU in a single
 * reading proves nothing), and a CPU of the starting mask left idle when there are at least as
 * many threads as CPUs in it. */
static void placement_check(const ns_measurement *m, int nt, char *why, size_t len) {
    const int *cpu = m->cpu_of_thread;
    why[0] = 0;
    cpu_set_t mask, used;
    int ncpus = ns_start_cpus(&mask);
    CPU_ZERO(&used);
    size_t n = 0;
    for (int i = 0; i < nt; i++) {
        if (cpu[i] < 0 || cpu[i] >= CPU_SETSIZE) continue;
        for (int j = 0; j < i && !n && m->cpu_held[i]; j++) {
            if (cpu[j] != cpu[i] || !m->cpu_held[j]) continue;
            int bound = m->cpu_held[i] == NS_CPU_BOUND && m->cpu_held[j] == NS_CPU_BOUND;
            char how[64];
            if (bound)
                snprintf(how, sizeof how, "bound to places of that CPU alone");
            else
                snprintf(how, sizeof how, "at every one of %d readings", m->cpu_readings);
            n = (size_t)snprintf(why, len, "threads %d and %d both ran on CPU %d (%s)", j, i,
                                 cpu[i], how);
        }
        CPU_SET(cpu[i], &used);
    }
    if (n >= len) n = strlen(why);
    if (!n || nt < ncpus) return; /* fewer threads than CPUs: some CPUs idle by design */
    for (int c = 0; c < CPU_SETSIZE && n < len; c++)
        if (CPU_ISSET(c, &mask) && !CPU_ISSET(c, &used)) {
            snprintf(why + n, len - n, ", CPU %d of the %d in the mask idle", c, ncpus);
            return;
        }
}

/* The team a measurement ran on, into r: threads_used (the threads it ran on), its note,
 * cpu_of_thread and, when threads shared a CPU, placement_warning. */
static void team_json(json_t *r, const ns_kernel *k, const ns_params *p, const ns_measurement *m) {
    /* The threads it ran on: GEMM runs small calls on fewer than "threads" (the id's). */
    ns_json_set_int(r, "threads_used", m->threads_used > 0 ? m->threads_used : p->threads);
    if (m->threads_note[0]) ns_json_set_str(r, "threads_note", m->threads_note);
    if (m->gemm_ways[0] > 0) { /* the own GEMM's thread split, and the variables' fate */
        json_t *w = json_object();
        ns_json_set_int(w, "jc", m->gemm_ways[0]);
        ns_json_set_int(w, "ic", m->gemm_ways[1]);
        ns_json_set_int(w, "jr", m->gemm_ways[2]);
        ns_json_set_str(w, "env", m->gemm_ways_note[0] ? m->gemm_ways_note : "none set");
        json_object_set_new(r, "gemm_ways", w);
    }
    json_t *cpus = json_array();
    int nt = m->cpu_threads > 0 ? m->cpu_threads : k->run_model == NS_RUN_SELF ? 1 : m->threads;
    for (int i = 0; i < nt && i < NS_MAX_THREADS; i++)
        json_array_append_new(cpus, json_integer(m->cpu_of_thread[i]));
    json_object_set_new(r, "cpu_of_thread", cpus);
    char placement[256];
    placement_check(m, nt < NS_MAX_THREADS ? nt : NS_MAX_THREADS, placement, sizeof placement);
    if (placement[0]) ns_json_set_str(r, "placement_warning", placement);
}

json_t *ns_result_json(const ns_kernel *k, const ns_params *p, const ns_measurement *m,
                       const ns_check *c) {
    json_t *r = json_object();
    char id[256];
    ns_result_id(k, p, id, sizeof id);
    ns_json_set_str(r, "id", id);
    ns_json_set_str(r, "name", k->name);
    ns_json_set_str(r, "family", k->family);
    ns_json_set_str(r, "isa", k->isa);
    ns_json_set_str(r, "precision", ns_prec_name(k->precision));
    if (k->mix) ns_json_set_str(r, "mix", k->mix);
    if (k->executes) ns_json_set_str(r, "executes", k->executes);
    ns_json_set_int(r, "threads", p->threads);
    json_t *params = json_object();
    if (!strcmp(k->family, "gemm")) {
        ns_json_set_int(params, "m", p->m);
        ns_json_set_int(params, "k", p->k);
    }
    ns_json_set_int(params, "n", p->n);
    json_object_set_new(r, "params", params);

    double flops = k->flops(p), bytes = k->bytes(p);
    ns_json_set_num(r, "working_set_bytes", k->working_set ? k->working_set(p) : NAN, NULL);
    ns_json_set_num(r, "flops", flops, NULL);
    ns_json_set_num(r, "bytes", bytes, NULL);
    /* flops and bytes count every pass over the working set in one repetition (STREAM kernels
     * stream a small one several times), as sweep[] points do. */
    int64_t passes = k->passes ? k->passes(p) : 1;
    ns_json_set_int(r, "passes", passes);
    ns_json_set_num(r, "bytes_per_pass", passes > 0 ? bytes / (double)passes : NAN, NULL);
    ns_json_set_str(r, "bytes_policy", k->bytes_policy);
    ns_json_set_num(r, "ai_flop_per_byte", bytes > 0 ? flops / bytes : NAN, NULL);

    const char *status = "ok";
    double t = NAN;
    if (!m) {
        status = "not measured";
        json_object_set_new(r, "reps", json_null());
        json_object_set_new(r, "resized", json_null());
        json_object_set_new(r, "samples_s", json_null());
        json_object_set_new(r, "time_s", json_null());
    } else {
        ns_json_set_int(r, "reps", m->reps);
        /* Restarts of the samples after a short one (test_json.c): a result measured after
         * them followed a disturbed sizing sample. */
        ns_json_set_int(r, "resized", m->resized);
        team_json(r, k, p, m);
        json_t *samples = json_array();
        for (int i = 0; i < m->nsamples; i++) json_array_append_new(samples, json_real(m->samples_s[i]));
        json_object_set_new(r, "samples_s", samples);
        json_object_set_new(r, "time_s", stats_json(&m->stats));
        t = m->stats.median;
        if (strcmp(m->status, "ok") != 0) status = m->status;
        else if (!(t > 0) || !isfinite(t)) status = "invalid: zero or non-finite elapsed time";
    }
    /* No rate from a call whose output check failed (it may have returned early). */
    int rates_ok = m && isfinite(t) && t > 0 && (!c || c->ok);
    ns_json_set_num(r, "gflops", rates_ok && flops > 0 ? flops / t / 1e9 : NAN, NULL);
    ns_json_set_num(r, "gbytes_per_s", rates_ok && bytes > 0 ? bytes / t / 1e9 : NAN, NULL);
    /* Filled by the roofline builder. */
    json_object_set_new(r, "roof_gflops", json_null());
    json_object_set_new(r, "fraction_of_roof", json_null());

    if (c) {
        json_object_set_new(r, "validated", json_boolean(c->ok));
        json_t *chk = json_object();
        ns_json_set_num(chk, "error", c->error, NULL);
        ns_json_set_num(chk, "bound", c->bound, NULL);
        ns_json_set_str(chk, "why", c->why);
        json_object_set_new(r, "check", chk);
        if (!c->ok && !strcmp(status, "ok")) status = "invalid: output check failed";
    } else {
        json_object_set_new(r, "validated", json_null());
    }
    /* A shared CPU is a warning (placement_warning), not a failed status: the measurement is
     * valid for the placement the user asked for. */
    json_object_set_new(r, "counters", json_object());
    ns_json_set_str(r, "status", status);
    return r;
}

json_t *ns_sweep_point_json(const ns_kernel *k, const ns_params *p, const ns_measurement *m,
                            const json_t *r) {
    json_t *pt = json_object();
    ns_json_set_str(pt, "kernel", k->name);
    ns_json_set_str(pt, "isa", k->isa);
    ns_json_set_str(pt, "precision", ns_prec_name(k->precision));
    ns_json_set_int(pt, "threads", p->threads);
    ns_json_set_int(pt, "n", p->n);
    ns_json_set_num(pt, "working_set_bytes", k->working_set(p), NULL);
    ns_json_set_num(pt, "bytes", k->bytes(p), NULL);
    ns_json_set_int(pt, "passes", k->passes ? k->passes(p) : 1);
    ns_json_set_str(pt, "bytes_policy", k->bytes_policy);
    const char *st = json_string_value(json_object_get(r, "status"));
    int ok = st && !strcmp(st, "ok") && m->stats.min > 0;
    ns_json_set_num(pt, "gbytes_per_s", ok ? k->bytes(p) / m->stats.min / 1e9 : NAN, st);
    ns_json_set_num(pt, "gbytes_per_s_median", ok ? ns_json_get_num(r, "gbytes_per_s") : NAN, NULL);
    ns_json_set_str(pt, "rate_from", "fastest sample");
    json_object_set(pt, "time_s", json_object_get(r, "time_s"));
    return pt;
}

json_t *ns_measure_kernel(const ns_kernel *k, const ns_params *p, const ns_measure_opts *o,
                          int with_counters, int with_clock, ns_measurement *m_out) {
    void *st = k->create(p);
    if (!st) {
        json_t *r = ns_result_json(k, p, NULL, NULL);
        char why[160];
        /* Only ENOMEM is a lack of memory (the roofline reads that status as a sweep's memory
         * limit); another errno is a kernel that cannot be set up here. */
        int e = errno;
        snprintf(why, sizeof why, "not measured: %s (%s)",
                 e == ENOMEM ? "cannot allocate inputs" : "cannot set up the kernel", strerror(e));
        ns_json_set_str(r, "status", why);
        return r;
    }
    ns_measurement *m = malloc(sizeof *m);
    ns_check c = {0};
    json_t *r;
    if (!m) {
        k->destroy(st);
        r = ns_result_json(k, p, NULL, NULL);
        ns_json_set_str(r, "status", "not measured: out of memory");
        return r;
    }
    /* The clock right before and right after the timed samples (per_cycle's clock). */
    double ghz_before = with_clock ? ns_clockprobe_ghz() : NAN;
    int rc = ns_measure(k, st, p, o, m);
    double ghz_after = with_clock && rc == 0 ? ns_clockprobe_ghz() : NAN;
    k->check(st, &c);
    r = ns_result_json(k, p, rc == 0 ? m : NULL, &c);
    if (rc != 0) {
        ns_json_set_str(r, "status", m->status);
        ns_json_set_int(r, "resized", m->resized); /* NS_MAX_RESIZES: why it is invalid */
    }
    /* Not measured, yet samples ran (a thread shortfall, an interruption): their team. */
    if (rc != 0 && m->threads_used > 0) team_json(r, k, p, m);
    if (rc == 0 && with_counters && !ns_interrupted)
        json_object_set_new(r, "counters",
                            ns_counters_measure(k, st, p, m->reps, k->flops(p), k->bytes(p)));
    if (rc == 0 && with_clock) ns_clockprobe_annotate(r, ghz_before, ghz_after);
    if (m_out) *m_out = *m;
    free(m);
    k->destroy(st);
    return r;
}

double ns_result_fastest_rate(const json_t *r, int bytes) {
    const char *st = json_string_value(json_object_get(r, "status"));
    const json_t *t = json_object_get(r, "time_s");
    double med = ns_json_get_num(t, "median"), tmin = ns_json_get_num(t, "min");
    double v = ns_json_get_num(r, bytes ? "gbytes_per_s" : "gflops");
    if (!st || strcmp(st, "ok") || !(tmin > 0) || !(med > 0) || !(v > 0)) return NAN;
    return v * med / tmin;
}

double ns_result_median_rate(const json_t *r, int bytes) {
    const char *st = json_string_value(json_object_get(r, "status"));
    double v = ns_json_get_num(r, bytes ? "gbytes_per_s" : "gflops");
    return st && !strcmp(st, "ok") && v > 0 ? v : NAN;
}
