/* Clock probe: dependent add chain timed against CLOCK_MONOTONIC (see clockprobe.h). */
#include "harness/clockprobe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/json.h"
#include "harness/timer.h"

/* Many short trials: on a shared machine a 0.1 ms trial escapes preemption far more often than a
 * 2 ms one, and the fastest trial is the one that did (9 x 4e6 adds spread 2.33-2.45 GHz here
 * under load 7, 101 x 2.5e5 adds 2.36-2.39 GHz). */
#define PROBE_ADDS 250000u
#define PROBE_TRIALS 101

static uint64_t last_adds = PROBE_ADDS;

/* 64 adds per iteration; the empty asm after each add makes x opaque to the compiler so it can
 * neither fold the chain nor turn it into a multiply, and y is opaque so every add is
 * add %reg, %reg (never add-immediate, see clockprobe.h). The loop counter is a separate,
 * independent chain that runs in parallel. */
#define ADD1                                                                                       \
    x += y;                                                                                        \
    __asm__ volatile("" : "+r"(x));
#define ADD8 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1
#define ADD64 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8

__attribute__((noinline)) static uint64_t chain(uint64_t iters, uint64_t y) {
    uint64_t x = 0;
    __asm__ volatile("" : "+r"(y));
    for (uint64_t i = 0; i < iters; i++) {
        ADD64
    }
    return x;
}

double ns_clockprobe_ghz_n(uint64_t adds, int trials) {
    uint64_t iters = adds / 64;
    if (iters < 1 || trials < 1) return NAN;
    double best = INFINITY, res = ns_timer_resolution_measured();
    volatile uint64_t sink = chain(iters / 4 + 1, 1); /* warm-up: clock ramps up, code is hot */
    for (int t = 0; t < trials; t++) {
        double t0 = ns_now();
        sink += chain(iters, 1);
        double dt = ns_now() - t0;
        if (dt < best) best = dt;
    }
    (void)sink;
    /* A trial shorter than 100 timer ticks is not resolved well enough to report. */
    if (!(best > 0) || !isfinite(best) || (res > 0 && best < 100 * res)) return NAN;
    return (double)(iters * 64) / best * 1e-9;
}

double ns_clockprobe_ghz(void) {
    /* A trial must last 1000 timer ticks even at 5 GHz; coarse clocks get longer trials. */
    double res = ns_timer_resolution_measured();
    uint64_t adds = PROBE_ADDS;
    while (res > 0 && (double)adds / 5e9 < 1000 * res && adds < (1ull << 36))
        adds *= 2;
    last_adds = adds;
    return ns_clockprobe_ghz_n(adds, PROBE_TRIALS);
}

static int valid(double ghz) {
    return isfinite(ghz) && ghz > 0;
}

int ns_clockprobe_changed(double before_ghz, double after_ghz, double threshold, char *why,
                          size_t len) {
    if (!valid(before_ghz) || !valid(after_ghz)) {
        if (why) snprintf(why, len, "clock probe missing before or after the run");
        return -1;
    }
    double rel = (after_ghz - before_ghz) / before_ghz;
    int changed = fabs(rel) > threshold;
    if (why)
        snprintf(why, len, "clock %s from %.2f to %.2f GHz (%+.1f %%) during the run",
                 changed ? "changed" : "steady", before_ghz, after_ghz, 100 * rel);
    return changed;
}

double ns_clockprobe_cycles_per_element(double seconds, double elements, double ghz) {
    if (!(isfinite(seconds) && seconds > 0 && isfinite(elements) && elements > 0 && valid(ghz)))
        return NAN;
    return seconds * ghz * 1e9 / elements;
}

json_t *ns_clockprobe_json(double before_ghz, double after_ghz, double threshold) {
    json_t *o = json_object();
    char why[160];
    ns_json_set_str(o, "method",
                    "dependent register-register integer adds (1 per cycle) against "
                    "CLOCK_MONOTONIC, fastest of 101 trials, calling thread");
    json_object_set_new(o, "adds_per_trial", json_integer((json_int_t)(last_adds / 64 * 64)));
    ns_json_set_num(o, "before_ghz", valid(before_ghz) ? before_ghz : NAN, NULL);
    ns_json_set_num(o, "after_ghz", valid(after_ghz) ? after_ghz : NAN, NULL);
    int c = ns_clockprobe_changed(before_ghz, after_ghz, threshold, why, sizeof why);
    ns_json_set_num(o, "change_rel", c < 0 ? NAN : (after_ghz - before_ghz) / before_ghz, NULL);
    ns_json_set_num(o, "threshold_rel", threshold, NULL);
    json_object_set_new(o, "changed", c < 0 ? json_null() : json_boolean(c));
    ns_json_set_str(o, "status", c < 0 ? why : c ? why : "ok");
    if (c == 0) ns_json_set_str(o, "detail", why);
    return o;
}

void ns_clockprobe_annotate(json_t *result, double before_ghz, double after_ghz) {
    json_t *o = json_object();
    /* The clock of the figures: the mean of the probes around the measurement, or the one
     * probe there is; clock_status says which, and whether the clock moved in between. */
    int vb = valid(before_ghz), va = valid(after_ghz);
    double ghz = vb && va ? 0.5 * (before_ghz + after_ghz) : vb ? before_ghz : after_ghz;
    char st[360];
    if (vb && va) {
        char why[160];
        int changed =
            ns_clockprobe_changed(before_ghz, after_ghz, NS_CLOCKPROBE_THRESHOLD, why, sizeof why);
        double unc = fabs(after_ghz - before_ghz) / (before_ghz + after_ghz);
        if (changed)
            snprintf(st, sizeof st,
                     "%s: per-cycle figures use the mean of the probes right before and after "
                     "it, %.2f GHz, and may be off by up to %.1f %%",
                     why, ghz, 100 * unc);
        else
            snprintf(st, sizeof st,
                     "ok: the mean of the probes right before and after the measurement (%.2f "
                     "and %.2f GHz, steady)",
                     before_ghz, after_ghz);
    } else if (vb || va) {
        snprintf(st, sizeof st,
                 "only the probe %s the measurement (%.2f GHz): a clock change during it is not "
                 "seen",
                 vb ? "before" : "after", ghz);
    } else {
        snprintf(st, sizeof st, "not measured: no clock probe");
    }
    ns_json_set_num(o, "clock_before_ghz", vb ? before_ghz : NAN, NULL);
    ns_json_set_num(o, "clock_after_ghz", va ? after_ghz : NAN, NULL);
    const json_t *ts = json_object_get(result, "time_s");
    double t = ts ? ns_json_get_num(ts, "median") : NAN;
    double threads = ns_json_get_num(result, "threads");
    double used = ns_json_get_num(result, "threads_used"); /* GEMM: small calls on fewer */
    if (used >= 1 && used < threads) threads = used;
    double flops = ns_json_get_num(result, "flops"), bytes = ns_json_get_num(result, "bytes");
    const char *fam = json_string_value(json_object_get(result, "family"));
    const json_t *par = json_object_get(result, "params");
    double n = par ? ns_json_get_num(par, "n") : NAN;
    /* A repetition streams a small working set several times (its passes): every pass's
     * elements count, as likwid-bench's cycles per update do (test_counters.c). */
    double passes = ns_json_get_num(result, "passes");
    if (!(passes >= 1)) passes = 1;
    if (!(threads >= 1)) threads = 1;
    ns_json_set_num(o, "clock_ghz", valid(ghz) ? ghz : NAN, NULL);
    ns_json_set_str(o, "clock_status", st);
    ns_json_set_str(o, "source", "clock probe (dependent adds), not counters");
    double cyc = valid(ghz) && isfinite(t) && t > 0 ? t * ghz * 1e9 : NAN;
    ns_json_set_num(o, "cycles_per_rep", cyc, "not measured: no time or no clock probe");
    int per_elem = fam && (!strcmp(fam, "stream") || !strcmp(fam, "reduce"));
    double cpe = per_elem ? ns_clockprobe_cycles_per_element(t, n * passes / threads, ghz) : NAN;
    if (ns_json_set_num(o, "cycles_per_element", cpe, NULL))
        ns_json_set_str(o, "cycles_per_element_status",
                        per_elem ? "not measured: no time, size or clock probe"
                                 : "not applicable: not an element-wise kernel");
    if (ns_json_set_num(o, "flops_per_cycle_per_core",
                        flops > 0 && cyc > 0 ? flops / cyc / threads : NAN, NULL))
        ns_json_set_str(o, "flops_per_cycle_status",
                        isfinite(cyc) ? "not applicable: no FLOPs" : "not measured");
    if (ns_json_set_num(o, "bytes_per_cycle_per_core",
                        bytes > 0 && cyc > 0 ? bytes / cyc / threads : NAN, NULL))
        ns_json_set_str(o, "bytes_per_cycle_status",
                        isfinite(cyc) ? "not applicable: no memory traffic" : "not measured");
    json_object_set_new(result, "per_cycle", o);
}
