/* Counters: PAPI hardware events per thread, perf_event_open software events (getrusage where
 * perf_event_open is refused), a start-up probe that counts for real before claiming anything,
 * derived metrics that are validated before they are reported, and the counting pass that runs
 * apart from the timed samples. See counters.h for the contract and the JSON it produces.
 *
 * Why software events are read without PAPI: PAPI 7's perf_event component disables itself when
 * libpfm4 finds no core PMU ("no default PMU found", as in KVM guests without a vPMU), and with
 * it go its perf::TASK-CLOCK-style software events. The kernel still offers them; reading them
 * directly also gives time_enabled/time_running, which PAPI's API does not expose. */
#include "harness/counters.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <omp.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "harness/json.h"
#include "harness/marker.h"
#include "harness/measure.h"
#include "harness/stats.h"
#include "harness/strbuf.h"
#include "harness/timer.h"

#define NAME_LEN 128
#define STATUS_LEN 256
#define OVERHEAD_PAIRS 15

/* Software events, in output order. unit "ns" is converted to seconds in the output name. */
enum { SW_TASK_CLOCK, SW_PAGE_FAULTS, SW_CONTEXT_SWITCHES, SW_CPU_MIGRATIONS, NSW };
static const struct {
    const char *name;
    const char *unit;
    uint64_t config;
} sw_def[NSW] = {
    {"perf::TASK-CLOCK", "ns", PERF_COUNT_SW_TASK_CLOCK},
    {"perf::PAGE-FAULTS", "count", PERF_COUNT_SW_PAGE_FAULTS},
    {"perf::CONTEXT-SWITCHES", "count", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"perf::CPU-MIGRATIONS", "count", PERF_COUNT_SW_CPU_MIGRATIONS},
};

typedef enum { SRC_PERF, SRC_RUSAGE, SRC_NONE } sw_source;

static struct {
    int inited;
    int papi_ok; /* PAPI_library_init and PAPI_thread_init succeeded */
    char papi_version[32];
    /* Every requested hardware event, in order, with its own status; ok = in the counted set. */
    int nreq;
    char req[NS_COUNTERS_MAX_EVENTS][NAME_LEN];
    char req_status[NS_COUNTERS_MAX_EVENTS][STATUS_LEN];
    int req_ok[NS_COUNTERS_MAX_EVENTS];
    double req_bytes[NS_COUNTERS_MAX_EVENTS]; /* > 0: a memory-traffic event, bytes per count */
    int nev; /* counted set = requested events with req_ok, in order */
    int ev_index[NS_COUNTERS_MAX_EVENTS];
    int multiplex;
    int hw_available;
    char status[768]; /* "ok", or why no hardware event can be counted */
    char reason[600]; /* the same without PAPI's component message, for the summary line */
    sw_source sw;
    int sw_ok[NSW];
    char sw_status[NSW][STATUS_LEN];
    double overhead_hw_s, overhead_sw_s;
    int paranoid; /* INT32_MIN: unknown */
    char pmu[160];
    char summary[1024];
} g;

/* snprintf that truncates on purpose: status strings are bounded and may be cut short. It
 * writes from the start of dst (offset 0), replacing what was there. */
#define put(dst, len, ...) ns_appendf(dst, len, &(size_t){0}, __VA_ARGS__)

/* ------------------------------------------------------------------------------------------ */
/* Pure helpers                                                                                */

double ns_counters_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *ratio,
                         const char **status) {
    *ratio = NAN;
    if (enabled == 0) {
        *status = "not counted: the event was never enabled (time_enabled = 0)";
        return NAN;
    }
    if (running == 0) {
        *status = "not counted: never scheduled on a counter (multiplexed out, time_running = 0)";
        return NAN;
    }
    if (running > enabled) {
        *status = "invalid: time_running > time_enabled (kernel accounting error)";
        return NAN;
    }
    *ratio = (double)running / (double)enabled;
    if (running == enabled) {
        *status = "ok";
        return (double)raw;
    }
    /* Scaling assumes the event rate was uniform over the run (perf_event_open(2)). */
    *status = "scaled: multiplexed, value = raw * time_enabled / time_running";
    return (double)raw * ((double)enabled / (double)running);
}

const char *ns_counters_check(double v, double work, double hi) {
    if (isnan(v)) return "not measured";
    if (!isfinite(v)) return "invalid: not finite";
    if (v < 0) return "invalid: negative";
    if (v == 0 && work > 0) return "invalid: zero although work was done";
    if (v > hi) return "invalid: beyond physical bound";
    return NULL;
}

double ns_counters_flops_ratio(double counted, double analytic, int *suspect, const char **status) {
    *suspect = 0;
    if (!(isfinite(analytic) && analytic > 0)) {
        *status = "not measured: no analytic FLOP count for this kernel";
        return NAN;
    }
    const char *bad = ns_counters_check(counted, analytic, INFINITY);
    if (bad) {
        *status = isnan(counted) ? "not measured: no FLOP event counted" : bad;
        return NAN;
    }
    double r = counted / analytic;
    if (r < NS_COUNTERS_FLOPS_LO || r > NS_COUNTERS_FLOPS_HI) {
        *suspect = 1;
        *status = "suspect: counted FLOPs outside 0.95-1.05 of the analytic count; the roofline "
                  "uses the analytic count";
    } else {
        *status = "ok";
    }
    return r;
}

double ns_counters_bytes_ratio(double counted, double analytic, double elapsed_s,
                               const char **status) {
    if (!(isfinite(analytic) && analytic > 0)) {
        *status = "not applicable: the kernel moves no analytic bytes";
        return NAN;
    }
    double bound =
        isfinite(elapsed_s) && elapsed_s > 0 ? NS_COUNTERS_MAX_BYTES_PER_S * elapsed_s : INFINITY;
    const char *bad = ns_counters_check(counted, analytic, bound);
    if (bad) {
        *status = bad;
        return NAN;
    }
    double r = counted / analytic;
    if (r < 0.5) {
        *status = "invalid: counted bytes below half the analytic bytes (uncore access needs "
                  "perf_event_paranoid = 0 or root, or the event misses traffic)";
        return NAN;
    }
    *status = "ok";
    return r;
}

int ns_counters_sum_threads(const long long *vals, const char *const *thread_why, int nthreads,
                            int nev, int cycles, double *total, char *why, size_t len) {
    for (int e = 0; e < nev; e++)
        total[e] = 0;
    int bad = nthreads < 1;
    if (bad) snprintf(why, len, "not counted: no thread was counted");
    for (int t = 0; t < nthreads && !bad; t++) {
        const long long *v = vals + (size_t)t * (size_t)nev;
        if (thread_why[t]) {
            put(why, len, "not counted on thread %d: %s", t, thread_why[t]);
            bad = 1;
        } else if (cycles >= 0 && v[cycles] <= 0) {
            /* A thread that ran the kernel but counted no cycles was not counted at all: a
             * hybrid CPU whose other core type PAPI's PMU does not cover, or a set never
             * scheduled. Its zeros must not be summed in as if they were counts. */
            put(why, len,
                "not counted on thread %d: zero cycles although it ran (a core type PAPI's PMU "
                "does not cover, or never scheduled)",
                t);
            bad = 1;
        } else {
            for (int e = 0; e < nev; e++)
                total[e] = v[e] < 0 || isnan(total[e]) ? NAN : total[e] + (double)v[e];
        }
    }
    if (bad)
        for (int e = 0; e < nev; e++)
            total[e] = NAN;
    else
        snprintf(why, len, "ok");
    return !bad;
}

void ns_counters_explain(int pmu_present, int hypervisor, int open_errno, int paranoid, int has_cap,
                         char *buf, size_t len) {
    char par[64];
    if (paranoid == INT32_MIN)
        snprintf(par, sizeof par, "perf_event_paranoid unknown");
    else
        snprintf(par, sizeof par, "perf_event_paranoid = %d", paranoid);
    int no_pmu =
        !pmu_present || open_errno == ENOENT || open_errno == ENODEV || open_errno == EOPNOTSUPP;
    if (open_errno == 0 && pmu_present) {
        snprintf(buf, len,
                 "perf_event_open accepts cycles here, but no requested event counted through "
                 "PAPI (see events[].status: libpfm4 may not know this CPU, or the counter does "
                 "not increment)");
    } else if (no_pmu && hypervisor) {
        snprintf(buf, len,
                 "no PMU in this virtual machine (the hypervisor exposes no virtual PMU: no core "
                 "PMU in /sys/bus/event_source/devices, perf_event_open(cycles): %s; %s is not "
                 "the obstacle); enable a vPMU (KVM: -cpu host,pmu=on) or use bare metal",
                 open_errno ? strerror(open_errno) : "no event", par);
    } else if (no_pmu) {
        snprintf(buf, len,
                 "no hardware PMU exposed by this kernel (no core PMU under "
                 "/sys/bus/event_source/devices, perf_event_open(cycles): %s)",
                 open_errno ? strerror(open_errno) : "not tried");
    } else if (open_errno == EACCES || open_errno == EPERM) {
        if (paranoid > 2 && !has_cap)
            snprintf(buf, len,
                     "%s forbids unprivileged counting; 'sysctl -w kernel.perf_event_paranoid=2' "
                     "(user-space counting of one's own threads) or CAP_PERFMON would allow it",
                     par);
        else if (!has_cap)
            snprintf(buf, len,
                     "perf_event_open refused (%s) although %s allows user-space counting: "
                     "missing CAP_PERFMON or a seccomp profile blocks perf_event_open (docker: "
                     "--cap-add PERFMON, or --security-opt seccomp=unconfined)",
                     strerror(open_errno), par);
        else
            snprintf(buf, len,
                     "perf_event_open refused (%s) despite CAP_PERFMON/CAP_SYS_ADMIN: a seccomp "
                     "or LSM policy blocks it (%s)",
                     strerror(open_errno), par);
    } else if (open_errno == EBUSY) {
        snprintf(buf, len,
                 "the counters are held by another user (NMI watchdog, another perf or likwid "
                 "session): perf_event_open(cycles): %s",
                 strerror(open_errno));
    } else {
        snprintf(buf, len, "perf_event_open(cycles) failed: %s (%s)", strerror(open_errno), par);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* What the system shows                                                                       */

static long perf_open(struct perf_event_attr *a, pid_t pid) {
    return syscall(SYS_perf_event_open, a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_paranoid(void) {
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = INT32_MIN;
    if (f) {
        if (fscanf(f, "%d", &v) != 1) v = INT32_MIN;
        fclose(f);
    }
    return v;
}

/* Core PMUs as sysfs names them; writes what was found into g.pmu. */
static int pmu_present(void) {
    DIR *d = opendir("/sys/bus/event_source/devices");
    int found = 0;
    g.pmu[0] = 0;
    if (!d) {
        snprintf(g.pmu, sizeof g.pmu, "no /sys/bus/event_source/devices");
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, "cpu") || !strcmp(n, "cpu_core") || !strcmp(n, "cpu_atom") ||
            !strncmp(n, "armv", 4) || !strcmp(n, "cpum_cf")) {
            size_t l = strlen(g.pmu);
            snprintf(g.pmu + l, sizeof g.pmu - l, "%s%s", l ? "," : "", n);
            found = 1;
        }
    }
    closedir(d);
    if (!found) snprintf(g.pmu, sizeof g.pmu, "none (only software/tracepoint PMUs)");
    return found;
}

static int hypervisor_bit(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) return (c >> 31) & 1;
#endif
    return 0;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set. */
static int has_perf_cap(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long eff = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &eff) == 1) break;
    fclose(f);
    return (int)(((eff >> 38) & 1) | ((eff >> 21) & 1));
}

/* errno of opening cycles for this thread, user space only (what paranoid = 2 allows); 0 = ok. */
static int probe_cycles_errno(void) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    long fd = perf_open(&a, 0);
    if (fd < 0) return errno;
    close((int)fd);
    return 0;
}

/* Event roles, by name: derived metrics need cycles, instructions and FLOPs. */
static const char *const cyc_names[] = {"PAPI_TOT_CYC",
                                        "perf::CYCLES",
                                        "perf::PERF_COUNT_HW_CPU_CYCLES",
                                        "CPU_CLK_UNHALTED:THREAD_P",
                                        "CYCLES",
                                        NULL};
static const char *const ins_names[] = {
    "PAPI_TOT_INS",       "perf::INSTRUCTIONS", "perf::PERF_COUNT_HW_INSTRUCTIONS",
    "INST_RETIRED:ANY_P", "INSTRUCTIONS",       NULL};
static const char *const dp_names[] = {"PAPI_DP_OPS", "PAPI_FP_OPS", NULL};
static const char *const sp_names[] = {"PAPI_SP_OPS", "PAPI_FP_OPS", NULL};

/* ------------------------------------------------------------------------------------------ */
/* PAPI event sets                                                                             */

static unsigned long thread_id(void) {
    /* The kernel thread id, not omp_get_thread_num(): the latter repeats across nested teams and
     * is 0 on threads OpenMP did not create (BLAS pools), which would alias PAPI's per-thread
     * state. perf_event, under PAPI, attaches to exactly this id. */
    return (unsigned long)syscall(SYS_gettid);
}

static void papi_reason(int rc, const char *what, const char *name, char *buf, size_t len) {
    snprintf(buf, len, "%s(%s): %s", what, name, PAPI_strerror(rc));
}

static void hw_destroy(int *es) {
    if (*es == PAPI_NULL) return;
    long long junk[NS_COUNTERS_MAX_EVENTS];
    PAPI_stop(*es, junk); /* harmless when not running */
    PAPI_cleanup_eventset(*es);
    PAPI_destroy_eventset(es);
    *es = PAPI_NULL;
}

/* Creates an event set with names[idx[0..n)]; multiplexed when asked. PAPI_OK or the error,
 * with the failing step in why. */
static int hw_create(int *es, const int *idx, int n, int multiplex, char *why, size_t len) {
    *es = PAPI_NULL;
    int rc = PAPI_create_eventset(es);
    if (rc != PAPI_OK) {
        papi_reason(rc, "PAPI_create_eventset", "", why, len);
        return rc;
    }
    if (multiplex) {
        int code = 0, cidx = 0;
        if (n > 0 && PAPI_event_name_to_code(g.req[idx[0]], &code) == PAPI_OK)
            cidx = PAPI_get_event_component(code);
        if ((rc = PAPI_assign_eventset_component(*es, cidx < 0 ? 0 : cidx)) != PAPI_OK ||
            (rc = PAPI_set_multiplex(*es)) != PAPI_OK) {
            papi_reason(rc, "PAPI_set_multiplex", "", why, len);
            hw_destroy(es);
            return rc;
        }
    }
    for (int i = 0; i < n; i++) {
        rc = PAPI_add_named_event(*es, g.req[idx[i]]);
        if (rc != PAPI_OK) {
            papi_reason(rc, "PAPI_add_named_event", g.req[idx[i]], why, len);
            hw_destroy(es);
            return rc;
        }
    }
    return PAPI_OK;
}

static int name_in(const char *name, const char *const *names) {
    for (; *names; names++)
        if (!strcasecmp(name, *names)) return 1;
    return 0;
}

/* Adds, starts, reads and stops idx[0..n) once around a little work. PAPI_OK or the error with
 * the step in why. A cycles or instructions event that reads 0 after the work is not counting
 * (a PMU that accepts events and never increments them) and fails with PAPI_ECNFLCT. */
static int hw_try(const int *idx, int n, int multiplex, char *why, size_t len) {
    int es;
    int rc = hw_create(&es, idx, n, multiplex, why, len);
    if (rc != PAPI_OK) return rc;
    long long v[NS_COUNTERS_MAX_EVENTS];
    volatile double x = 0;
    if ((rc = PAPI_start(es)) != PAPI_OK) {
        papi_reason(rc, "PAPI_start", n == 1 ? g.req[idx[0]] : "set", why, len);
    } else {
        for (int i = 0; i < 100000; i++)
            x += 1.0;
        if ((rc = PAPI_read(es, v)) != PAPI_OK || (rc = PAPI_stop(es, v)) != PAPI_OK)
            papi_reason(rc, "PAPI_read/PAPI_stop", n == 1 ? g.req[idx[0]] : "set", why, len);
    }
    for (int i = 0; rc == PAPI_OK && i < n; i++)
        if ((name_in(g.req[idx[i]], cyc_names) || name_in(g.req[idx[i]], ins_names)) && v[i] <= 0) {
            put(why, len, "%s reads %lld after 1e5 additions: the counter does not count",
                g.req[idx[i]], v[i]);
            rc = PAPI_ECNFLCT;
        }
    hw_destroy(&es);
    return rc;
}

/* Parses "NAME[*BYTES],..." into g.req (blanks around names ignored). "*BYTES" marks a
 * memory-traffic event: each count moves BYTES bytes (e.g. L2_LINES_IN:ALL*64), and the sum of
 * such events is the counted memory traffic. 0, or -1 with a one-line reason. */
static int parse_events(const char *full, const char *src, char *err, size_t errlen) {
    g.nreq = 0;
    const char *s = full;
    /* The value as the errors quote it: a long one cut to 60 characters (cli_errors.sh). */
    char spec[72];
    snprintf(spec, sizeof spec, "%.60s%s", full, strlen(full) > 60 ? "..." : "");
    for (;;) {
        const char *e = strchr(s, ',');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        while (l && (*s == ' ' || *s == '\t'))
            s++, l--;
        while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
            l--;
        const char *star = memchr(s, '*', l);
        size_t nl = star ? (size_t)(star - s) : l;
        if (nl == 0 || nl >= NAME_LEN) {
            put(err, errlen, "%s '%s': %s event name", src, spec, nl ? "over-long" : "empty");
            goto bad;
        }
        if (g.nreq == NS_COUNTERS_MAX_EVENTS) {
            put(err, errlen, "%s '%s': more than %d events", src, spec, NS_COUNTERS_MAX_EVENTS);
            goto bad;
        }
        memcpy(g.req[g.nreq], s, nl);
        g.req[g.nreq][nl] = 0;
        for (int k = 0; k < g.nreq; k++)
            if (!strcmp(g.req[k], g.req[g.nreq])) { /* was counted twice (cli_errors.sh) */
                put(err, errlen, "%s '%s': event %s is given more than once", src, spec,
                    g.req[k]);
                goto bad;
            }
        g.req_bytes[g.nreq] = 0;
        if (star) {
            char num[32], *end;
            size_t ml = l - nl - 1;
            if (ml == 0 || ml >= sizeof num) goto bad_mult;
            memcpy(num, star + 1, ml);
            num[ml] = 0;
            double b = strtod(num, &end);
            if (*end || !(b >= 1 && b <= 4096)) goto bad_mult;
            g.req_bytes[g.nreq] = b;
        }
        g.nreq++;
        if (!e) return 0;
        s = e + 1;
    }
bad_mult:
    put(err, errlen, "%s '%s': after '*' want the bytes one count moves (1-4096)", src, spec);
bad:
    g.nreq = 0;
    return -1;
}

/* Probes each requested event alone, then the survivors together (multiplexed if needed). */
static void hw_probe(void) {
    char why[STATUS_LEN];
    const PAPI_component_info_t *pe = NULL;
    int pe_idx = PAPI_get_component_index("perf_event");
    if (pe_idx >= 0) pe = PAPI_get_component_info(pe_idx);
    for (int i = 0; i < g.nreq; i++) {
        int rc = hw_try(&i, 1, 0, why, sizeof why);
        g.req_ok[i] = rc == PAPI_OK;
        if (g.req_ok[i])
            snprintf(g.req_status[i], STATUS_LEN, "ok");
        else if (rc == PAPI_ENOEVNT && pe && !pe->disabled)
            put(g.req_status[i], STATUS_LEN, "not supported on this CPU: %s", why);
        else
            put(g.req_status[i], STATUS_LEN, "not counted: %s", why);
    }
    g.nev = 0;
    for (int i = 0; i < g.nreq; i++)
        if (g.req_ok[i]) g.ev_index[g.nev++] = i;
    /* Together; else multiplexed; else drop from the end until the rest fit. */
    g.multiplex = 0;
    while (g.nev > 1) {
        if (hw_try(g.ev_index, g.nev, 0, why, sizeof why) == PAPI_OK) break;
        if (hw_try(g.ev_index, g.nev, 1, why, sizeof why) == PAPI_OK) {
            g.multiplex = 1;
            break;
        }
        int last = g.ev_index[--g.nev];
        g.req_ok[last] = 0;
        put(g.req_status[last], STATUS_LEN,
            "dropped: does not fit with the events before it, even multiplexed (%s)", why);
    }
    g.hw_available = g.nev > 0;
    if (g.hw_available) {
        if (g.nev == g.nreq)
            snprintf(g.status, sizeof g.status, "ok");
        else
            snprintf(g.status, sizeof g.status,
                     "ok: %d of %d requested events count (see "
                     "events[].status)",
                     g.nev, g.nreq);
        return;
    }
    char reason[600];
    ns_counters_explain(pmu_present(), hypervisor_bit(), probe_cycles_errno(), g.paranoid,
                        has_perf_cap(), reason, sizeof reason);
    snprintf(g.reason, sizeof g.reason, "%s", reason);
    if (pe && pe->disabled)
        put(g.status, sizeof g.status, "%s [PAPI perf_event component: %s]", reason,
            pe->disabled_reason);
    else
        snprintf(g.status, sizeof g.status, "%s", reason);
    for (int i = 0; i < g.nreq; i++)
        if (!strncmp(g.req_status[i], "not counted", 11))
            snprintf(g.req_status[i], STATUS_LEN, "not counted: hardware counters unavailable");
}

/* ------------------------------------------------------------------------------------------ */
/* Software events                                                                             */

typedef struct sw_set {
    int fd[NSW];
    uint64_t raw[NSW], enabled[NSW], running[NSW];
    int err[NSW]; /* errno of open or read; 0 = ok */
    struct rusage ru0, ru1;
} sw_set;

static void sw_open(sw_set *s) {
    for (int i = 0; i < NSW; i++) {
        s->fd[i] = -1;
        s->err[i] = 0;
        s->raw[i] = s->enabled[i] = s->running[i] = 0;
        if (g.sw != SRC_PERF || !g.sw_ok[i]) continue;
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = sw_def[i].config;
        a.disabled = 1;
        a.exclude_hv = 1;
        /* Kernel side included: with exclude_kernel, page faults, context switches and
         * migrations read 0 (measured here) since they are raised in kernel context. Where the
         * kernel side is refused (unprivileged at perf_event_paranoid >= 2) the probe falls back
         * to getrusage, which counts them correctly. */
        a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        long fd = perf_open(&a, 0);
        if (fd < 0)
            s->err[i] = errno;
        else
            s->fd[i] = (int)fd;
    }
}

static void sw_start(sw_set *s) {
    if (g.sw == SRC_RUSAGE) getrusage(RUSAGE_THREAD, &s->ru0);
    for (int i = 0; i < NSW; i++)
        if (s->fd[i] >= 0) {
            ioctl(s->fd[i], PERF_EVENT_IOC_RESET, 0);
            ioctl(s->fd[i], PERF_EVENT_IOC_ENABLE, 0);
        }
}

static void sw_stop(sw_set *s) {
    for (int i = 0; i < NSW; i++)
        if (s->fd[i] >= 0) ioctl(s->fd[i], PERF_EVENT_IOC_DISABLE, 0);
    if (g.sw == SRC_RUSAGE) getrusage(RUSAGE_THREAD, &s->ru1);
    for (int i = 0; i < NSW; i++) {
        if (s->fd[i] < 0) continue;
        uint64_t buf[3];
        if (read(s->fd[i], buf, sizeof buf) != (ssize_t)sizeof buf) {
            s->err[i] = errno ? errno : EIO;
        } else {
            s->raw[i] = buf[0];
            s->enabled[i] = buf[1];
            s->running[i] = buf[2];
        }
    }
}

static void sw_close(sw_set *s) {
    for (int i = 0; i < NSW; i++)
        if (s->fd[i] >= 0) close(s->fd[i]);
}

static double tv_s(struct timeval t) {
    return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}

/* The value of software event i from a stopped set (seconds for the task clock), NAN with
 * *status when not measured; *ratio as ns_counters_scale. */
static double sw_value(const sw_set *s, int i, double *ratio, const char **status) {
    *ratio = NAN;
    if (g.sw == SRC_RUSAGE) {
        const struct rusage *a = &s->ru0, *b = &s->ru1;
        *status = "ok";
        switch (i) {
        case SW_TASK_CLOCK:
            return (tv_s(b->ru_utime) + tv_s(b->ru_stime)) -
                   (tv_s(a->ru_utime) + tv_s(a->ru_stime));
        case SW_PAGE_FAULTS:
            return (double)((b->ru_minflt + b->ru_majflt) - (a->ru_minflt + a->ru_majflt));
        case SW_CONTEXT_SWITCHES:
            return (double)((b->ru_nvcsw + b->ru_nivcsw) - (a->ru_nvcsw + a->ru_nivcsw));
        default:
            *status = "not measured: getrusage has no CPU-migration count";
            return NAN;
        }
    }
    if (g.sw == SRC_NONE || !g.sw_ok[i]) {
        *status = g.sw_status[i];
        return NAN;
    }
    if (s->fd[i] < 0 || s->err[i]) {
        *status = "not measured: perf_event_open/read failed on this thread";
        return NAN;
    }
    double v = ns_counters_scale(s->raw[i], s->enabled[i], s->running[i], ratio, status);
    return i == SW_TASK_CLOCK ? v * 1e-9 : v;
}

/* Chooses the software source: NODESCALE_SW_EVENTS=perf|rusage|none forces one (tests). */
static void sw_probe(void) {
    const char *force = getenv("NODESCALE_SW_EVENTS");
    g.sw = SRC_PERF;
    if (force && !strcmp(force, "rusage")) g.sw = SRC_RUSAGE;
    if (force && !strcmp(force, "none")) g.sw = SRC_NONE;
    for (int i = 0; i < NSW; i++) {
        g.sw_ok[i] = g.sw != SRC_NONE;
        snprintf(g.sw_status[i], STATUS_LEN, "%s",
                 g.sw == SRC_NONE ? "not measured: disabled by NODESCALE_SW_EVENTS=none" : "ok");
    }
    if (g.sw != SRC_PERF) {
        if (g.sw == SRC_RUSAGE)
            snprintf(g.sw_status[SW_CPU_MIGRATIONS], STATUS_LEN,
                     "not measured: getrusage has no CPU-migration count");
        g.sw_ok[SW_CPU_MIGRATIONS] = g.sw == SRC_PERF;
        return;
    }
    sw_set s;
    sw_open(&s);
    sw_start(&s);
    volatile double x = 0;
    for (int i = 0; i < 100000; i++)
        x += 1.0;
    sw_stop(&s);
    int any = 0, refused = 0;
    for (int i = 0; i < NSW; i++) {
        double r;
        const char *st;
        if (s.err[i]) {
            g.sw_ok[i] = 0;
            refused |= s.err[i] == EACCES || s.err[i] == EPERM;
            snprintf(g.sw_status[i], STATUS_LEN, "not measured: perf_event_open: %s",
                     strerror(s.err[i]));
            continue;
        }
        (void)sw_value(&s, i, &r, &st);
        any = 1;
    }
    sw_close(&s);
    if (!any && refused) {
        /* perf_event_open refused outright (paranoid > 2, seccomp): per-thread getrusage. */
        g.sw = SRC_RUSAGE;
        for (int i = 0; i < NSW; i++) {
            g.sw_ok[i] = i != SW_CPU_MIGRATIONS;
            snprintf(g.sw_status[i], STATUS_LEN, "%s",
                     g.sw_ok[i] ? "ok (getrusage: perf_event_open refused)"
                                : "not measured: perf_event_open refused and getrusage has no "
                                  "CPU-migration count");
        }
    }
}

static const char *sw_source_name(void) {
    switch (g.sw) {
    case SRC_PERF:
        return "perf_event_open (software events, per thread, kernel and user side)";
    case SRC_RUSAGE:
        return "getrusage(RUSAGE_THREAD), per thread";
    default:
        return "none";
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Overhead                                                                                    */

static void measure_overhead(void) {
    double t[OVERHEAD_PAIRS];
    g.overhead_hw_s = g.overhead_sw_s = NAN;
    if (g.hw_available) {
        int es;
        char why[STATUS_LEN];
        long long v[NS_COUNTERS_MAX_EVENTS];
        if (hw_create(&es, g.ev_index, g.nev, g.multiplex, why, sizeof why) == PAPI_OK) {
            int n = 0;
            for (int i = 0; i < OVERHEAD_PAIRS; i++) {
                double t0 = ns_now();
                if (PAPI_start(es) != PAPI_OK) break;
                PAPI_stop(es, v);
                t[n++] = ns_now() - t0;
            }
            if (n) g.overhead_hw_s = ns_median(t, (size_t)n);
            hw_destroy(&es);
        }
    }
    if (g.sw != SRC_NONE) {
        sw_set s;
        sw_open(&s);
        for (int i = 0; i < OVERHEAD_PAIRS; i++) {
            double t0 = ns_now();
            sw_start(&s);
            sw_stop(&s);
            t[i] = ns_now() - t0;
        }
        sw_close(&s);
        g.overhead_sw_s = ns_median(t, OVERHEAD_PAIRS);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Init, context, summary                                                                      */

static void reset(void) {
    if (g.inited && g.papi_ok) PAPI_shutdown();
    memset(&g, 0, sizeof g);
    g.paranoid = INT32_MIN;
}

static void make_summary(void) {
    char sw[256] = "";
    size_t l = 0;
    for (int i = 0; i < NSW; i++)
        if (g.sw_ok[i])
            l += (size_t)snprintf(sw + l, sizeof sw - l, "%s%s", l ? ", " : "", sw_def[i].name);
    char ov[64] = "";
    double o = (isfinite(g.overhead_hw_s) ? g.overhead_hw_s : 0) +
               (isfinite(g.overhead_sw_s) ? g.overhead_sw_s : 0);
    if (isfinite(g.overhead_hw_s) || isfinite(g.overhead_sw_s))
        snprintf(ov, sizeof ov, "; start+stop %.1f us/thread", o * 1e6);
    if (g.hw_available) {
        char evs[512] = "";
        size_t m = 0;
        for (int i = 0; i < g.nev && m < sizeof evs; i++)
            m += (size_t)snprintf(evs + m, sizeof evs - m, "%s%s", i ? "," : "",
                                  g.req[g.ev_index[i]]);
        put(g.summary, sizeof g.summary,
            "counters: papi %s, hardware events %s%s; software events %s via %s%s", g.papi_version,
            evs, g.multiplex ? " (multiplexed)" : "", l ? sw : "none",
            g.sw == SRC_PERF     ? "perf_event_open"
            : g.sw == SRC_RUSAGE ? "getrusage"
                                 : "-",
            ov);
    } else {
        put(g.summary, sizeof g.summary,
            "counters: hardware unavailable: %s; software events %s via %s%s",
            g.reason[0] ? g.reason : g.status, l ? sw : "none",
            g.sw == SRC_PERF     ? "perf_event_open"
            : g.sw == SRC_RUSAGE ? "getrusage"
                                 : "-",
            ov);
    }
}

int ns_counters_init(const char *events, char *err, size_t errlen) {
    reset();
    g.inited = 1;
    g.paranoid = read_paranoid();
    pmu_present();
    const char *spec = events, *src = "--events";
    if (!spec || !*spec) spec = getenv("NODESCALE_EVENTS"), src = "NODESCALE_EVENTS";
    if (!spec || !*spec) spec = NS_COUNTERS_DEFAULT_EVENTS, src = "default events";
    /* A value sw_probe does not know was silently taken as "perf" (cli_errors.sh). */
    const char *sw = getenv("NODESCALE_SW_EVENTS");
    int bad = 0;
    if (sw && *sw && strcmp(sw, "perf") && strcmp(sw, "rusage") && strcmp(sw, "none")) {
        put(err, errlen, "NODESCALE_SW_EVENTS '%.40s%s' is not perf, rusage or none", sw,
            strlen(sw) > 40 ? "..." : "");
        bad = -1;
    } else {
        bad = parse_events(spec, src, err, errlen);
    }

    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        snprintf(g.status, sizeof g.status, "PAPI_library_init failed: %s",
                 v > 0 ? "header/library version mismatch" : PAPI_strerror(v));
    } else if ((v = PAPI_thread_init(thread_id)) != PAPI_OK) {
        snprintf(g.status, sizeof g.status, "PAPI_thread_init failed: %s", PAPI_strerror(v));
        PAPI_shutdown();
    } else {
        g.papi_ok = 1;
        PAPI_multiplex_init();
        snprintf(g.papi_version, sizeof g.papi_version, "%d.%d.%d",
                 PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION),
                 PAPI_VERSION_REVISION(PAPI_VERSION));
    }
    if (g.papi_ok) {
        hw_probe();
    } else {
        for (int i = 0; i < g.nreq; i++)
            put(g.req_status[i], STATUS_LEN, "not counted: %s", g.status);
    }
    if (g.papi_ok && g.nreq == 0 && !bad) snprintf(g.status, sizeof g.status, "no events asked");
    if (bad) {
        put(g.status, sizeof g.status, "no hardware events: %s", err);
        g.reason[0] = 0;
    }
    sw_probe();
    measure_overhead();
    NS_MARKER_INIT();
    make_summary();
    if (bad) return -1;
    return g.hw_available ? 0 : 1;
}

int ns_counters_hw_available(void) {
    return g.hw_available;
}

const char *ns_counters_summary(void) {
    if (!g.inited) return "counters: not initialised";
    return g.summary;
}

json_t *ns_counters_context_json(void) {
    json_t *o = json_object();
    ns_json_set_str(o, "backend", g.hw_available ? "papi" : "none");
    json_object_set_new(o, "available", json_boolean(g.hw_available));
    ns_json_set_str(o, "status", g.inited ? g.status : "not initialised");
    ns_json_set_str(o, "papi_version", g.papi_ok ? g.papi_version : NULL);
    json_t *ev = json_array();
    for (int i = 0; i < g.nreq; i++) {
        json_t *e = json_object();
        ns_json_set_str(e, "name", g.req[i]);
        if (g.req_bytes[i] > 0)
            json_object_set_new(e, "bytes_per_count", json_real(g.req_bytes[i]));
        ns_json_set_str(e, "status", g.req_status[i]);
        json_array_append_new(ev, e);
    }
    json_object_set_new(o, "events", ev);
    json_object_set_new(o, "multiplexed", json_boolean(g.multiplex));
    ns_json_set_str(o, "software_source", sw_source_name());
    json_t *sw = json_array();
    for (int i = 0; i < NSW; i++) {
        json_t *e = json_object();
        ns_json_set_str(e, "name", sw_def[i].name);
        ns_json_set_str(e, "unit", i == SW_TASK_CLOCK ? "s" : "count");
        ns_json_set_str(e, "status", g.sw_status[i]);
        json_array_append_new(sw, e);
    }
    json_object_set_new(o, "software_events", sw);
    double ov = NAN;
    if (isfinite(g.overhead_hw_s) || isfinite(g.overhead_sw_s))
        ov = (isfinite(g.overhead_hw_s) ? g.overhead_hw_s : 0) +
             (isfinite(g.overhead_sw_s) ? g.overhead_sw_s : 0);
    if (ns_json_set_num(o, "overhead_s", ov, NULL))
        ns_json_set_str(o, "overhead_status", "no counter set could be started");
    json_t *parts = json_object();
    if (ns_json_set_num(parts, "hardware_start_stop_s", g.overhead_hw_s, NULL))
        json_object_del(parts, "status");
    ns_json_set_num(parts, "software_start_stop_s", g.overhead_sw_s, NULL);
    json_object_set_new(o, "overhead_parts", parts);
    if (g.paranoid == INT32_MIN)
        json_object_set_new(o, "paranoid", json_null());
    else
        ns_json_set_int(o, "paranoid", g.paranoid);
    ns_json_set_str(o, "pmu", g.pmu);
#ifdef LIKWID_PERFMON
    json_object_set_new(o, "likwid_marker", json_true());
#else
    json_object_set_new(o, "likwid_marker", json_false());
#endif
    ns_json_set_str(o, "summary", ns_counters_summary());
    return o;
}

void ns_counters_finish(void) {
    NS_MARKER_CLOSE();
    reset();
}

/* ------------------------------------------------------------------------------------------ */
/* The counting pass                                                                           */

typedef struct slot {
    long tid; /* kernel thread id that started this slot; 0 = unused */
    int stopped;
    int es;
    int hw_rc;
    char hw_why[STATUS_LEN];
    long long hw[NS_COUNTERS_MAX_EVENTS];
    sw_set sw;
} slot;

typedef struct pass {
    slot *slots;
    int nslots;
    char region[NAME_LEN];
} pass;

/* Team thread tid owns slots[tid]: no thread reads another's slot while the team runs. The
 * search by kernel thread id is for the pool case only, where begin and end run in two
 * separate (sequential) parallel regions that might map team ids to threads differently. */
static slot *own_slot(pass *ps, int tid) {
    long me = (long)syscall(SYS_gettid);
    if (tid >= 0 && tid < ps->nslots && (ps->slots[tid].tid == me || ps->slots[tid].tid == 0))
        return &ps->slots[tid];
    for (int i = 0; i < ps->nslots; i++)
        if (ps->slots[i].tid == me) return &ps->slots[i];
    return NULL;
}

static void begin_hook(void *ctx, int tid, int nthreads) {
    pass *ps = ctx;
    slot *s = own_slot(ps, tid);
    if (!s) return;
    s->tid = (long)syscall(SYS_gettid);
    s->es = PAPI_NULL;
    s->hw_rc = PAPI_ENOCNTR;
    snprintf(s->hw_why, STATUS_LEN, "hardware counters unavailable");
    sw_open(&s->sw);
    if (g.hw_available) {
        PAPI_register_thread();
        s->hw_rc = hw_create(&s->es, g.ev_index, g.nev, g.multiplex, s->hw_why, STATUS_LEN);
    }
    NS_MARKER_THREADINIT();
    NS_MARKER_START(ps->region);
    sw_start(&s->sw);
    if (s->hw_rc == PAPI_OK && (s->hw_rc = PAPI_start(s->es)) != PAPI_OK)
        papi_reason(s->hw_rc, "PAPI_start", "set", s->hw_why, STATUS_LEN);
}

static void end_hook(void *ctx, int tid, int nthreads) {
    pass *ps = ctx;
    long me = (long)syscall(SYS_gettid);
    slot *s = own_slot(ps, tid);
    if (!s || s->tid != me) return; /* did not start a set: caught by the stopped check */
    if (s->hw_rc == PAPI_OK && (s->hw_rc = PAPI_stop(s->es, s->hw)) != PAPI_OK)
        papi_reason(s->hw_rc, "PAPI_stop", "set", s->hw_why, STATUS_LEN);
    sw_stop(&s->sw);
    NS_MARKER_STOP(ps->region);
    hw_destroy(&s->es);
    sw_close(&s->sw);
    s->stopped = 1;
}

/* A slot started on a thread that the stop region did not reach: its software events are
 * stopped and read from here (perf_event fds work from any thread of the process); its PAPI set
 * cannot be (PAPI stops a set only on its own thread), so its hardware values are invalid. */
static void stop_stragglers(pass *ps) {
    for (int i = 0; i < ps->nslots; i++) {
        slot *s = &ps->slots[i];
        if (!s->tid || s->stopped) continue;
        if (g.sw == SRC_PERF) sw_stop(&s->sw);
        sw_close(&s->sw);
        if (s->hw_rc == PAPI_OK) {
            s->hw_rc = PAPI_EMISC;
            snprintf(s->hw_why, STATUS_LEN, "not stopped on the thread that started it");
        }
        s->stopped = 1;
    }
}

static double process_cpu_s(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return tv_s(r.ru_utime) + tv_s(r.ru_stime);
}

/* CPU time of every thread of this process, by kernel thread id, to find CPU time spent by
 * threads outside the counted team (a BLAS pool). Another thread's CPU clock is read through
 * the Linux per-thread CPU-clock id (the encoding glibc's pthread_getcpuclockid uses:
 * ~tid << 3 | CPUCLOCK_PERTHREAD 4 | CPUCLOCK_SCHED 2), precise to the nanosecond. */
#define MAX_TASKS 512
typedef struct tasks {
    int n;
    long tid[MAX_TASKS];
    double cpu_s[MAX_TASKS];
} tasks;

static void tasks_snapshot(tasks *t) {
    t->n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        t->n = -1;
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) && t->n < MAX_TASKS) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid <= 0) continue;
        struct timespec ts;
        clockid_t cid = (clockid_t)((~(unsigned long)tid << 3) | 4 | 2);
        if (clock_gettime(cid, &ts) != 0) continue; /* the thread exited */
        t->tid[t->n] = tid;
        t->cpu_s[t->n++] = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    closedir(d);
}

static json_t *metric(double v, const char *status) {
    json_t *o = json_object();
    if (isfinite(v) && v >= 0) {
        json_object_set_new(o, "value", json_real(v));
        ns_json_set_str(o, "status", status ? status : "ok");
    } else {
        json_object_set_new(o, "value", json_null());
        ns_json_set_str(o, "status", status ? status : "not measured");
    }
    return o;
}

/* Index in the counted set of the first event whose name is one of names, else -1. */
static int find_event(const char *const *names) {
    for (int i = 0; i < g.nev; i++)
        if (name_in(g.req[g.ev_index[i]], names)) return i;
    return -1;
}

static json_t *count_json(double v) {
    return json_integer((json_int_t)llround(v));
}

/* CPU seconds threads not in ps used between a and b; NAN when /proc is not readable. */
static double outside_cpu_s(const tasks *a, const tasks *b, const pass *ps) {
    if (a->n < 0 || b->n < 0) return NAN;
    double sum = 0;
    for (int i = 0; i < b->n; i++) {
        int counted = 0;
        for (int j = 0; j < ps->nslots; j++)
            counted |= ps->slots[j].tid == b->tid[i];
        if (counted) continue;
        double before = 0; /* a thread born during the pass used all its time in it */
        for (int j = 0; j < a->n; j++)
            if (a->tid[j] == b->tid[i]) before = a->cpu_s[j];
        sum += b->cpu_s[i] - before;
    }
    return sum;
}

/* What the counted pass measured, totals over its counted threads. */
typedef struct pass_totals {
    double elapsed_s, cpu_s; /* wall time; this process's CPU time */
    double outside_s; /* CPU time of threads outside the counted team; NAN: /proc not readable */
    int counted;      /* threads counted */
    int hw_ok;        /* hw[] holds valid totals */
    int ic;           /* the cycles event's index in the counted set, or -1 */
    double hw[NS_COUNTERS_MAX_EVENTS]; /* per counted event; NAN where not counted */
    double sw[NSW];                    /* per software event; NAN where not measured */
    double busy_s; /* the counted threads' time: the task clock, else wall time x threads */
} pass_totals;

/* The counted pass: reps repetitions of k with the counters started and stopped on each thread
 * of ps. Fills tot's elapsed_s, cpu_s, outside_s and counted; returns ns_run_reps' value (the
 * short team's size when the runtime gave the pass fewer threads than asked, else 0). */
static int counted_pass(const ns_kernel *k, void *state, const ns_params *p, int64_t reps,
                        int threads, int pool, pass *ps, pass_totals *tot) {
    tasks *snap = malloc(2 * sizeof(tasks));
    if (snap) tasks_snapshot(&snap[0]);
    double cpu0 = process_cpu_s(), t0 = ns_now();
    int short_team; /* the runtime gave the pass fewer threads than asked: that many */
    if (pool) {
        /* The kernel opens its own parallel region: start the sets on the OpenMP pool threads
         * it will reuse, run it from this thread, stop them on the same threads. */
#pragma omp parallel num_threads(threads)
        begin_hook(ps, omp_get_thread_num(), omp_get_num_threads());
        short_team = ns_run_reps(k, state, p, reps, NULL, NULL, NULL);
#pragma omp parallel num_threads(threads)
        end_hook(ps, omp_get_thread_num(), omp_get_num_threads());
    } else {
        short_team = ns_run_reps(k, state, p, reps, begin_hook, end_hook, ps);
    }
    stop_stragglers(ps);
    tot->elapsed_s = ns_now() - t0, tot->cpu_s = process_cpu_s() - cpu0;
    tot->outside_s = NAN;
    if (snap) {
        tasks_snapshot(&snap[1]);
        tot->outside_s = outside_cpu_s(&snap[0], &snap[1], ps);
        free(snap);
    }
    tot->counted = 0;
    for (int i = 0; i < ps->nslots; i++)
        tot->counted += ps->slots[i].tid != 0;
    return short_team;
}

/* Hardware events: totals over threads into tot->hw (NAN where not counted) and tot->hw_ok, and
 * the "events" array (one entry per requested event) as the result. PAPI scales multiplexed
 * counts itself and does not expose time_enabled/time_running, so the ratio is null with that
 * reason. */
static json_t *hw_events_json(const pass *ps, pass_totals *tot) {
    int nslots = ps->nslots;
    double *hw = tot->hw;
    char hw_status[STATUS_LEN] = "ok";
    int hw_ok = 0;
    if (g.hw_available && g.nev > 0) {
        long long *vals = calloc((size_t)nslots * (size_t)g.nev, sizeof(long long));
        const char **tw = calloc((size_t)nslots, sizeof(char *));
        if (vals && tw) {
            int used = 0;
            for (int i = 0; i < nslots; i++) {
                const slot *s = &ps->slots[i];
                if (!s->tid) continue;
                tw[used] = s->hw_rc == PAPI_OK ? NULL : s->hw_why;
                memcpy(vals + (size_t)used * (size_t)g.nev, s->hw,
                       (size_t)g.nev * sizeof(long long));
                used++;
            }
            hw_ok = ns_counters_sum_threads(vals, tw, used, g.nev, tot->ic, hw, hw_status,
                                            sizeof hw_status);
        } else {
            snprintf(hw_status, sizeof hw_status, "not counted: out of memory");
        }
        free(vals);
        free(tw);
    } else {
        snprintf(hw_status, sizeof hw_status, "not counted: hardware counters unavailable");
    }
    json_t *evs = json_array();
    for (int r = 0; r < g.nreq; r++) {
        json_t *e = json_object();
        ns_json_set_str(e, "name", g.req[r]);
        if (g.req_bytes[r] > 0)
            json_object_set_new(e, "bytes_per_count", json_real(g.req_bytes[r]));
        int idx = -1;
        for (int j = 0; j < g.nev; j++)
            if (g.ev_index[j] == r) idx = j;
        const char *bad = NULL;
        if (idx >= 0 && hw_ok && (bad = ns_counters_check(hw[idx], 0, INFINITY)) && isnan(hw[idx]))
            bad = "invalid: negative on a thread (a derived preset under multiplexing)";
        if (idx >= 0 && hw_ok && !bad) {
            json_object_set_new(e, "value", count_json(hw[idx]));
            json_object_set_new(e, "running_enabled_ratio", json_null());
            ns_json_set_str(e, "status",
                            g.multiplex ? "ok: multiplexed, scaled by PAPI (running/enabled "
                                          "not exposed by PAPI)"
                                        : "ok (running/enabled not exposed by PAPI)");
        } else {
            json_object_set_new(e, "value", json_null());
            json_object_set_new(e, "running_enabled_ratio", json_null());
            ns_json_set_str(e, "status", idx < 0 ? g.req_status[r] : bad ? bad : hw_status);
            if (idx >= 0) hw[idx] = NAN;
        }
        json_array_append_new(evs, e);
    }
    if (!hw_ok)
        for (int e = 0; e < g.nev; e++)
            hw[e] = NAN;
    tot->hw_ok = hw_ok;
    return evs;
}

/* Software events: totals over threads into swv[0..NSW) (NAN where not measured), and the
 * "software_events" array as the result; the ratio is the smallest over threads. */
static json_t *sw_events_json(const pass *ps, double *swv) {
    json_t *sws = json_array();
    for (int i = 0; i < NSW; i++) {
        double sum = 0, minr = INFINITY;
        const char *st = "ok";
        int n = 0;
        for (int t = 0; t < ps->nslots; t++) {
            if (!ps->slots[t].tid) continue;
            double r;
            const char *s1;
            double v = sw_value(&ps->slots[t].sw, i, &r, &s1);
            if (isnan(v)) {
                st = s1;
                sum = NAN;
                break;
            }
            if (strcmp(s1, "ok")) st = s1;
            sum += v;
            if (isfinite(r) && r < minr) minr = r;
            n++;
        }
        if (n == 0 && !isnan(sum)) {
            sum = NAN;
            st = "not measured: no thread was counted";
        }
        /* Counts may be 0 with work done (no page faults); only negatives and non-finite are
         * invalid here, and the task clock must be > 0. */
        const char *bad = isnan(sum) ? NULL : ns_counters_check(sum, i == SW_TASK_CLOCK, INFINITY);
        if (bad) {
            st = bad;
            sum = NAN;
        }
        swv[i] = sum;
        json_t *e = json_object();
        ns_json_set_str(e, "name", sw_def[i].name);
        ns_json_set_str(e, "unit", i == SW_TASK_CLOCK ? "s" : "count");
        if (isnan(sum))
            json_object_set_new(e, "value", json_null());
        else if (i == SW_TASK_CLOCK)
            json_object_set_new(e, "value", json_real(sum));
        else
            json_object_set_new(e, "value", count_json(sum));
        if (isfinite(minr))
            json_object_set_new(e, "running_enabled_ratio", json_real(minr));
        else
            json_object_set_new(e, "running_enabled_ratio", json_null());
        ns_json_set_str(e, "status", st);
        json_array_append_new(sws, e);
    }
    return sws;
}

/* Coverage: CPU time spent by threads outside the counted team (a BLAS pool, a helper
 * thread) means the totals miss work. Slack: 10 % of the counted time + 20 ms, because idle
 * threads of an earlier, larger OpenMP team spin-wait after their region (libgomp's default
 * GOMP_SPINCOUNT of 300000 pause instructions is ~15 ms); a short pass therefore cannot see
 * a small outside pool. */
static json_t *coverage_json(const pass_totals *tot) {
    json_t *cov = json_object();
    ns_json_set_num(cov, "process_cpu_s", tot->cpu_s, NULL);
    ns_json_set_num(cov, "counted_task_clock_s", tot->sw[SW_TASK_CLOCK], NULL);
    ns_json_set_num(cov, "outside_team_cpu_s", tot->outside_s, NULL);
    if (isnan(tot->outside_s))
        ns_json_set_str(cov, "status", "not checked: /proc/self/task not readable");
    else if (tot->outside_s > 0.10 * tot->busy_s + 0.020)
        ns_json_set_str(cov, "status",
                        "partial: threads outside the counted team used CPU time during the pass "
                        "(a thread pool not managed by OpenMP, or idle OpenMP threads spinning "
                        "under OMP_WAIT_POLICY=active); totals cover the counted threads only");
    else
        ns_json_set_str(cov, "status", "ok");
    return cov;
}

/* Derived metrics, each validated: IPC, effective clock, counted/analytic FLOPs and bytes, and
 * the measured arithmetic intensity. af, ab: the analytic FLOPs and bytes of the whole pass. */
static json_t *derived_json(const ns_kernel *k, double af, double ab, const pass_totals *tot) {
    const double *hw = tot->hw;
    int hw_ok = tot->hw_ok, ic = tot->ic;
    int ii = find_event(ins_names);
    int ifl = find_event(k->precision == NS_PREC_DP ? dp_names : sp_names);
    double cyc = ic >= 0 ? hw[ic] : NAN, ins = ii >= 0 ? hw[ii] : NAN;
    double fl = ifl >= 0 ? hw[ifl] : NAN;
    json_t *d = json_object();
    const char *why;
#define HW_MISSING                                                                                 \
    (g.hw_available ? "not measured: hardware events not counted on every thread (see events)"     \
                    : "not measured: hardware counters unavailable (see status)")

    double ipc = NAN;
    if (!hw_ok)
        why = HW_MISSING;
    else if (ic < 0 || ii < 0)
        why = "not measured: needs cycles and instructions events";
    else if (!(why = ns_counters_check(cyc, 1, INFINITY)) &&
             !(why = ns_counters_check(ins, 1, INFINITY)))
        why = ns_counters_check(ipc = ins / cyc, 1, NS_COUNTERS_MAX_IPC);
    json_object_set_new(d, "ipc", metric(why ? NAN : ipc, why));

    double ghz = NAN;
    if (!hw_ok)
        why = HW_MISSING;
    else if (ic < 0)
        why = "not measured: needs a cycles event";
    else if (!(why = ns_counters_check(cyc, 1, INFINITY))) {
        ghz = cyc / tot->busy_s * 1e-9;
        why = ns_counters_check(ghz, 1, NS_COUNTERS_MAX_CLOCK_GHZ);
        if (!why && ghz < NS_COUNTERS_MIN_CLOCK_GHZ) why = "invalid: below physical bound";
    }
    json_t *clk = metric(why ? NAN : ghz, why);
    ns_json_set_str(clk, "method",
                    isfinite(tot->sw[SW_TASK_CLOCK]) ? "cycles / task clock"
                                                     : "cycles / (wall time x threads)");
    json_object_set_new(d, "effective_clock_ghz", clk);

    int suspect = 0;
    double ratio = NAN;
    if (!hw_ok)
        why = HW_MISSING;
    else if (ifl < 0)
        why = "not measured: needs a FLOP event (PAPI_DP_OPS/PAPI_SP_OPS)";
    else
        ratio = ns_counters_flops_ratio(fl, af, &suspect, &why);
    json_t *fr = metric(ratio, why);
    json_object_set_new(fr, "suspect", json_boolean(suspect));
    ns_json_set_str(fr, "roofline_flops", "analytic");
    json_object_set_new(d, "flops_ratio", fr);

    /* Memory traffic: the sum of events marked NAME*BYTES. Against the analytic bytes it must
     * be at least half (uncore counters that read 0 or a fraction when not permitted) and
     * below 10 TB/s (phantom channels reading 1e19). The measured arithmetic intensity
     * divides the analytic FLOPs (counted FLOPs may be suspect) by the counted bytes. */
    double cb = 0;
    int nb = 0;
    for (int e = 0; e < g.nev; e++)
        if (g.req_bytes[g.ev_index[e]] > 0) {
            cb += hw[e] * g.req_bytes[g.ev_index[e]];
            nb++;
        }
    double bratio = NAN, ai = NAN;
    if (!hw_ok)
        why = HW_MISSING;
    else if (nb == 0)
        why = "not measured: no memory-traffic event in the set (name one as NAME*BYTES, e.g. "
              "L2_LINES_IN:ALL*64; DRAM traffic needs uncore events)";
    else
        bratio = ns_counters_bytes_ratio(cb, ab, tot->elapsed_s, &why);
    if (isnan(bratio) && !why) why = "not measured";
    json_t *br = metric(bratio, why);
    ns_json_set_str(br, "bytes_policy", k->bytes_policy);
    json_object_set_new(d, "bytes_ratio", br);
    if (isfinite(bratio) && isfinite(af) && af > 0) ai = af / cb;
    json_t *mai = metric(ai, isnan(bratio) ? why
                             : isnan(ai)   ? "not applicable: no analytic FLOPs"
                                           : "ok");
    ns_json_set_str(mai, "flops", "analytic");
    json_object_set_new(d, "measured_ai_flop_per_byte", mai);
#undef HW_MISSING
    return d;
}

json_t *ns_counters_measure(const ns_kernel *k, void *state, const ns_params *p, int64_t reps,
                            double analytic_flops_per_rep, double analytic_bytes_per_rep) {
    if (!g.inited) { /* the caller skipped ns_counters_init: defaults, so nothing is blank */
        char err[256];
        ns_counters_init(NULL, err, sizeof err);
    }
    json_t *o = json_object();
    int threads = p->threads < 1 ? 1 : p->threads;
    int pool = k->run_model == NS_RUN_SELF && threads > 1;
    int nslots = k->run_model == NS_RUN_SELF && !pool ? 1 : threads;
    ns_json_set_str(o, "backend", g.hw_available ? "papi" : "none");
    json_object_set_new(o, "available", json_boolean(g.hw_available));
    ns_json_set_str(o, "status", g.inited ? g.status : "not initialised");
    json_object_set_new(o, "reps", json_integer(reps));

    pass ps = {0};
    snprintf(ps.region, sizeof ps.region, "%s_%s", k->name, k->isa);
    ps.nslots = nslots;
    ps.slots = calloc((size_t)nslots, sizeof(slot));
    if (!ps.slots || reps < 1) {
        ns_json_set_str(o, "status",
                        !ps.slots ? "not measured: out of memory" : "not measured: reps < 1");
        free(ps.slots);
        return o;
    }
    pass_totals tot;
    int short_team = counted_pass(k, state, p, reps, threads, pool, &ps, &tot);
    json_object_set_new(o, "threads_counted", json_integer(tot.counted));
    ns_json_set_str(o, "scope",
                    pool ? "OpenMP pool threads (the kernel opens its own parallel region)"
                    : k->run_model == NS_RUN_SELF ? "calling thread"
                                                  : "every team thread");
    ns_json_set_num(o, "elapsed_s", tot.elapsed_s, NULL);

    tot.ic = find_event(cyc_names);
    json_object_set_new(o, "events", hw_events_json(&ps, &tot));
    ns_json_set_str(o, "software_source", sw_source_name());
    json_object_set_new(o, "software_events", sw_events_json(&ps, tot.sw));
    tot.busy_s =
        isfinite(tot.sw[SW_TASK_CLOCK]) ? tot.sw[SW_TASK_CLOCK] : tot.elapsed_s * tot.counted;
    json_object_set_new(o, "coverage", coverage_json(&tot));
    json_object_set_new(o, "derived",
                        derived_json(k, analytic_flops_per_rep * (double)reps,
                                     analytic_bytes_per_rep * (double)reps, &tot));
#ifdef LIKWID_PERFMON
    ns_json_set_str(o, "likwid_region", ps.region);
#else
    json_object_set_new(o, "likwid_region", json_null());
#endif
    if (short_team) {
        char st[STATUS_LEN];
        snprintf(st, sizeof st,
                 "invalid: the OpenMP runtime gave the counting pass %d of %d threads",
                 short_team, threads);
        ns_json_set_str(o, "status", st);
    }
    free(ps.slots);
    return o;
}

void ns_counters_print_status(FILE *f) {
    char err[256] = "";
    int rc = 0;
    if (!g.inited) rc = ns_counters_init(NULL, err, sizeof err);
    fprintf(f, "%s\n", ns_counters_summary()); /* begins with its "counters: " label */
    if (rc < 0) fprintf(f, "  NODESCALE_EVENTS ignored: %s\n", err);
    for (int i = 0; i < g.nreq; i++)
        fprintf(f, "  %-28s %s\n", g.req[i], g.req_status[i]);
    for (int i = 0; i < NSW; i++)
        fprintf(f, "  %-28s %s\n", sw_def[i].name, g.sw_status[i]);
}
