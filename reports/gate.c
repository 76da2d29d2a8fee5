/* `nodescale gate`: the regression gate's core (matching, per-benchmark verdicts, suite
 * geometric mean, context check) and its command line. Statistics live in gate_stats.c, the
 * output writers in gate_out.c, the interleaved A/B runner in gate_ab.c. See gate.h for the
 * decision rule and README.md (section "gate") for a CI example. */
#include "reports/gate.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/context.h"
#include "harness/json.h"
#include "harness/outdir.h"
#include "harness/stats.h"
#include "harness/strbuf.h"
#include "reports/gate_stats.h"
#include "reports/report.h"

ns_gate_opts ns_gate_defaults(void) {
    return (ns_gate_opts){.threshold = 0.05,
                          .suite_threshold = NAN,
                          .alpha = 0.05,
                          .min_samples = 5,
                          .noise_floor_s = 0,
                          .resamples = 2000,
                          .seed = 0x6e6f64657363616cULL /* "nodescal" */};
}

const char *ns_gate_verdict_name(ns_gate_verdict v) {
    switch (v) {
    case NS_GATE_UNCHANGED:
        return "unchanged";
    case NS_GATE_WITHIN:
        return "within threshold";
    case NS_GATE_IMPROVEMENT:
        return "improvement";
    case NS_GATE_REGRESSION:
        return "REGRESSION";
    case NS_GATE_INSUFFICIENT:
        return "insufficient data";
    case NS_GATE_NO_DATA:
        return "no data";
    case NS_GATE_ONLY_BASELINE:
        return "only in baseline";
    case NS_GATE_ONLY_CURRENT:
        return "only in current";
    case NS_GATE_INVALID:
        return "INVALID";
    }
    return "?";
}

/* Parses "0.1" or "10%" into a fraction in [0, 10] (1000% gives exactly 10). A bare number
 * >= 1 is refused as ambiguous (5 could mean 5% or 500%). */
static int parse_fraction(const char *s, double *out) {
    size_t len = strlen(s);
    char buf[64];
    if (len == 0 || len >= sizeof buf) return -1;
    if (s[len - 1] == '%') {
        memcpy(buf, s, len - 1);
        buf[len - 1] = 0;
        double v;
        if (ns_parse_double(buf, 0, 1000, &v) != 0) return -1;
        *out = v / 100;
        return 0;
    }
    return ns_parse_double(s, 0, 0.999999, out);
}

int ns_gate_parse_fraction(const char *s, double *out) {
    return parse_fraction(s, out);
}

int ns_gate_load_thresholds(ns_gate_opts *o, const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: is a folder, want a thresholds file", path);
        fclose(f);
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line too long", path, lineno);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *save = NULL, *pat = strtok_r(line, " \t\r\n", &save);
        if (!pat) continue;
        char *thr = strtok_r(NULL, " \t\r\n", &save);
        char *floor_s = strtok_r(NULL, " \t\r\n", &save);
        char *extra = strtok_r(NULL, " \t\r\n", &save);
        ns_gate_rule r = {.noise_floor_s = NAN};
        if (!thr || extra || parse_fraction(thr, &r.threshold) != 0 ||
            (floor_s && ns_parse_double(floor_s, 0, 1e6, &r.noise_floor_s) != 0)) {
            snprintf(err, errlen,
                     "%s:%d: want 'PATTERN THRESHOLD [NOISE_FLOOR_S]' with THRESHOLD like 0.1 "
                     "or 10%%",
                     path, lineno);
            rc = -1;
            break;
        }
        ns_gate_rule *nr = realloc(o->rules, (o->nrules + 1) * sizeof *nr);
        if (!nr || !(r.pattern = strdup(pat))) {
            if (nr) o->rules = nr;
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        o->rules = nr;
        o->rules[o->nrules++] = r;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        rc = -1;
    }
    fclose(f);
    return rc;
}

void ns_gate_free_rules(ns_gate_opts *o) {
    for (size_t i = 0; i < o->nrules; i++)
        free(o->rules[i].pattern);
    free(o->rules);
    o->rules = NULL;
    o->nrules = 0;
}

/* ---- context check ---------------------------------------------------------------------- */

static const json_t *json_path(const json_t *obj, const char *path) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    const json_t *v = obj;
    for (char *tok = strtok_r(buf, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save))
        v = json_is_object(v) ? json_object_get(v, tok) : NULL;
    return v;
}

static void add_mismatch(json_t *out, const char *key, const json_t *b, const json_t *c) {
    json_t *m = json_object();
    json_object_set_new(m, "key", json_string(key));
    json_object_set_new(m, "baseline", b ? json_deep_copy(b) : json_string("(absent)"));
    json_object_set_new(m, "current", c ? json_deep_copy(c) : json_string("(absent)"));
    json_array_append_new(out, m);
}

size_t ns_gate_context_diff(const json_t *base, const json_t *cur, int machine_only, json_t *out) {
    /* What makes two runs incomparable. The machine: CPU identity and ISA, thread settings,
     * virtualization, memory size. The build: compiler, flags, the BLAS libraries' versions.
     * Host names, dates and measured frequencies are expected to differ and are not compared. */
    static const char *machine[] = {"cpu.vendor",        "cpu.model",      "cpu.isa",
                                    "cpu.isa_selected",  "cpu.sockets",    "cpu.cores",
                                    "cpu.pus",           "threads",        "env.OMP_NUM_THREADS",
                                    "env.OMP_PROC_BIND", "env.OMP_PLACES", "env.NODESCALE_ISA",
                                    "virtualized",       "hypervisor"};
    static const char *build[] = {"compiler", "cflags", "libraries", "nodescale_version"};
    const json_t *cb = json_object_get(base, "context"), *cc = json_object_get(cur, "context");
    size_t n = 0;
    for (int pass = 0; pass < (machine_only ? 1 : 2); pass++) {
        const char **keys = pass ? build : machine;
        size_t nk = pass ? sizeof build / sizeof *build : sizeof machine / sizeof *machine;
        for (size_t i = 0; i < nk; i++) {
            const json_t *b = json_path(cb, keys[i]), *c = json_path(cc, keys[i]);
            if (!b && !c) continue;
            if (b && c && json_equal((json_t *)b, (json_t *)c)) continue;
            /* Files written before the names were introduced hold the cpuid signature
             * ("KVMKVMKVM"): the same VM, not another machine. */
            if (!strcmp(keys[i], "hypervisor") && json_is_string(b) && json_is_string(c) &&
                !strcmp(ns_hypervisor_name(json_string_value(b)),
                        ns_hypervisor_name(json_string_value(c))))
                continue;
            add_mismatch(out, keys[i], b, c);
            n++;
        }
        if (pass == 0) {
            /* The kernel's reservations move MemTotal a little between boots of one machine;
             * another memory size is another machine (a 1 TiB baseline passed: gate_hints.sh). */
            const json_t *b = json_path(cb, "memory.total_bytes"),
                         *c = json_path(cc, "memory.total_bytes");
            double x = json_number_value(b), y = json_number_value(c);
            if ((b || c) && (!json_is_number(b) || !json_is_number(c) ||
                             fabs(x - y) > 0.05 * fmax(fabs(x), fabs(y)))) {
                add_mismatch(out, "memory.total_bytes", b, c);
                n++;
            }
        }
    }
    return n;
}

/* ---- loading and matching ------------------------------------------------------------- */

/* Bounds of a plausible time per repetition: below a picosecond is less than one clock cycle,
 * above a million seconds (11.6 days) no benchmark runs. Outside them a sample is a broken file,
 * and the ratio of two such samples can overflow to infinity (a 1e308 s sample made the ratio
 * "-" and the verdict "unchanged"). Inside them every ratio stays below 1e18, finite. */
#define NS_GATE_MIN_SAMPLE_S 1e-12
#define NS_GATE_MAX_SAMPLE_S 1e6

/* Valid samples of one result into *out (malloc'd; NULL with *n = 0 for no data). Returns 0,
 * 1 for "no data" (with why), -1 for a schema error or an implausible time (with err). */
static int result_samples(const json_t *r, const char *file, const char *id, double **out,
                          size_t *n, char *why, size_t whylen, char *err, size_t errlen) {
    *out = NULL;
    *n = 0;
    const json_t *st = json_object_get(r, "status");
    const json_t *ss = json_object_get(r, "samples_s");
    if (st && !json_is_null(st) && !(json_is_string(st) && !strcmp(json_string_value(st), "ok"))) {
        snprintf(why, whylen, "status %s", json_is_string(st) ? json_string_value(st) : "not ok");
        return 1;
    }
    if (!ss || json_is_null(ss)) {
        snprintf(why, whylen, "samples_s is null");
        return 1;
    }
    if (!json_is_array(ss)) {
        snprintf(err, errlen, "%s: results[id=%s].samples_s is neither an array nor null", file,
                 id);
        return -1;
    }
    size_t len = json_array_size(ss), k = 0, dropped = 0;
    double *v = malloc((len ? len : 1) * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        const json_t *e = json_array_get(ss, i);
        if (json_is_null(e)) {
            dropped++;
            continue;
        }
        if (!json_is_number(e)) {
            free(v);
            snprintf(err, errlen, "%s: results[id=%s].samples_s[%zu] is not a number", file, id, i);
            return -1;
        }
        double x = json_number_value(e);
        /* A zero or negative time is an unmeasured sample, not a fast one. */
        if (!(isfinite(x) && x > 0)) {
            dropped++;
            continue;
        }
        if (x < NS_GATE_MIN_SAMPLE_S || x > NS_GATE_MAX_SAMPLE_S) {
            free(v);
            snprintf(err, errlen,
                     "%s: results[id=%s].samples_s[%zu] = %g s is not a plausible time per "
                     "repetition (want %g to %g s)",
                     file, id, i, x, NS_GATE_MIN_SAMPLE_S, NS_GATE_MAX_SAMPLE_S);
            return -1;
        }
        v[k++] = x;
    }
    if (dropped) snprintf(why, whylen, "%zu invalid sample(s) dropped", dropped);
    if (k == 0) {
        free(v);
        if (!dropped) snprintf(why, whylen, "samples_s is empty");
        return 1;
    }
    *out = v;
    *n = k;
    return 0;
}

/* The status the harness writes for a result whose output check failed (harness/result.c). */
static const char check_failed_status[] = "invalid: output check failed";

/* Whether the current result r failed: "validated": false or the status check_failed_status (its
 * output check failed), or a status that reports another failure (this kind wins over
 * "validated": false, as its status is the reason printed) ("invalid: zero or non-finite
 * elapsed time", "failed: ...", any status not known to be harmless). Returns the kind
 * (NS_GATE_VALID when r did not fail), the reason into why. The build under test produced a
 * broken result: that fails the gate, unlike a benchmark absent from the file. An interrupted or
 * unmeasured result ("interrupted after 8 of 9 samples", "not measured: cannot allocate inputs")
 * is missing data, not a failure: result_samples makes it "no data" (a file compared with itself
 * failed the gate: test_gate.c). */
static ns_gate_invalid_kind result_invalid(const json_t *r, char *why, size_t whylen) {
    const json_t *stj = json_object_get(r, "status");
    const char *st = json_string_value(stj);
    const char *chk_why = json_string_value(json_object_get(json_object_get(r, "check"), "why"));
    int no_data = st && (!strncmp(st, "interrupted", 11) || !strncmp(st, "not measured", 12));
    int check_failed =
        json_is_false(json_object_get(r, "validated")) || (st && !strcmp(st, check_failed_status));
    if (stj && !json_is_null(stj) && !(st && !strcmp(st, "ok")) && !no_data &&
        !(st && !strcmp(st, check_failed_status))) {
        /* The status is the reason printed, so it is the kind the advice follows, also when
         * validated is false ("failed: timed out" with no check run). */
        snprintf(why, whylen, "current: status %s", st ? st : "not ok");
        return NS_GATE_INVALID_STATUS;
    }
    if (check_failed) {
        snprintf(why, whylen, "current: output check failed%s%s", chk_why ? ": " : "",
                 chk_why ? chk_why : "");
        return NS_GATE_INVALID_CHECK;
    }
    return NS_GATE_VALID;
}

static const json_t *results_array(const json_t *doc, const char *file, char *err, size_t errlen) {
    const json_t *a = json_object_get(doc, "results");
    if (!json_is_array(a)) {
        /* A fleet.json: name what to pass instead, as cluster and roofline do. */
        const char *kind = json_string_value(json_object_get(doc, "kind"));
        if (kind && !strcmp(kind, "fleet"))
            snprintf(err, errlen,
                     "%s: a fleet.json, not one node's results: pass a node's "
                     "nodes/<node>/results.json from its folder",
                     file);
        else
            snprintf(err, errlen, "%s: no \"results\" array", file);
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *r = json_array_get(a, i);
        const char *id = json_string_value(json_object_get(r, "id"));
        if (!json_is_object(r) || !id || !*id) {
            snprintf(err, errlen, "%s: results[%zu] has no string \"id\"", file, i);
            return NULL;
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(id, json_string_value(json_object_get(json_array_get(a, j), "id")))) {
                snprintf(err, errlen, "%s: duplicate result id \"%s\"", file, id);
                return NULL;
            }
    }
    return a;
}

static const json_t *find_id(const json_t *a, const char *id) {
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *r = json_array_get(a, i);
        if (!strcmp(id, json_string_value(json_object_get(r, "id")))) return r;
    }
    return NULL;
}

static ns_gate_row *new_row(ns_gate_report *rep, const char *id) {
    ns_gate_row *nr = realloc(rep->rows, (rep->nrows + 1) * sizeof *nr);
    if (!nr) return NULL;
    rep->rows = nr;
    ns_gate_row *r = &rep->rows[rep->nrows];
    *r = (ns_gate_row){.med_base = NAN,
                       .med_cur = NAN,
                       .ratio = NAN,
                       .ci_lo = NAN,
                       .ci_hi = NAN,
                       .p = NAN,
                       .threshold = NAN,
                       .drift = NAN};
    if (!(r->id = strdup(id))) return NULL;
    rep->nrows++;
    return r;
}

/* The median of result id in the --history document h into *med: 0, or -1 when h holds no
 * such result with status "ok" and at least min_samples valid samples (a result too small to
 * gate on is too small to measure drift with: one sample at x1.5 raised every threshold). */
static int history_median(const json_t *h, const char *id, int min_samples, double *med) {
    const json_t *a = json_object_get(h, "results");
    const json_t *hr = json_is_array(a) ? find_id(a, id) : NULL;
    double *v;
    size_t nv;
    char why[80], err[200];
    if (!hr || result_samples(hr, "history", id, &v, &nv, why, sizeof why, err, sizeof err) != 0)
        return -1;
    int ok = nv >= (size_t)(min_samples > 0 ? min_samples : 1);
    if (ok) *med = ns_median(v, nv);
    free(v);
    return ok ? 0 : -1;
}

/* Relative between-run spread of n log values (n >= 3): exp(1.4826 x their median absolute
 * deviation) - 1, a robust sigma; lm is overwritten. NAN below 3 values. */
static double log_drift(double *lm, size_t n) {
    if (n < 3) return NAN;
    double med = ns_median(lm, n);
    for (size_t i = 0; i < n; i++)
        lm[i] = fabs(lm[i] - med);
    return expm1(1.4826 * ns_median(lm, n));
}

/* Between-run drift of one benchmark: sigma = 1.4826 x the median absolute deviation of the log
 * medians of the baseline and every history file holding it (a robust sigma; needs 3 runs),
 * kept as the relative spread exp(sigma) - 1. */
static void row_drift(ns_gate_row *r, const ns_gate_opts *o) {
    double *lm = malloc((o->nhistory + 1) * sizeof *lm);
    if (!lm) return;
    size_t n = 0;
    lm[n++] = log(ns_median(r->base, r->nbase));
    for (size_t h = 0; h < o->nhistory; h++) {
        double med;
        if (history_median(o->history[h], r->id, o->min_samples, &med) == 0) lm[n++] = log(med);
    }
    if (n >= 3) {
        r->drift = log_drift(lm, n);
        r->nhistory = n;
    }
    free(lm);
}

/* ---- warnings and why ids do not match ------------------------------------------------ */

/* Adds one warning line to rep->warnings. */
static void add_warning(ns_gate_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_warning(ns_gate_report *rep, const char *fmt, ...) {
    if (!rep->warnings) rep->warnings = json_array();
    va_list ap;
    va_start(ap, fmt);
    json_array_append_new(rep->warnings, json_vsprintf(fmt, ap));
    va_end(ap);
}

/* Part k (0-based) of a result id "kernel/isa/precision/tTHREADS/params" into out; "" when the id
 * has fewer parts. The params part (k = 4) keeps any further '/'. */
static void id_part(const char *id, int k, char *out, size_t len) {
    const char *p = id;
    for (int i = 0; i < k && p; i++)
        if ((p = strchr(p, '/'))) p++;
    if (!p) {
        out[0] = 0;
        return;
    }
    const char *e = k < 4 ? strchr(p, '/') : NULL;
    snprintf(out, len, "%.*s", (int)(e ? (size_t)(e - p) : strlen(p)), p);
}

/* Up to three ids of a that have no partner in other, comma-separated, then "(+N more)". */
static void list_unmatched(const json_t *a, const json_t *other, char *out, size_t len) {
    size_t shown = 0, more = 0;
    out[0] = 0;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const char *id = json_string_value(json_object_get(json_array_get(a, i), "id"));
        if (find_id(other, id)) continue;
        if (shown < 3)
            ns_appendf(out, len, NULL, "%s%s", shown++ ? ", " : "", id);
        else
            more++;
    }
    if (more) ns_appendf(out, len, NULL, " (+%zu more)", more);
}

/* The likely reason why ids of ba and ca have no partner: for an unmatched pair of the same kernel
 * and precision, a differing ISA, thread count or size (the first of each), and the machine
 * context fields that differ. "" when nothing explains it. */
static void unmatched_cause(const json_t *base, const json_t *cur, const json_t *ba,
                            const json_t *ca, char *out, size_t len) {
    static const struct {
        int part;
        const char *what;
    } kinds[] = {{3, "thread count"}, {1, "ISA"}, {4, "size"}};
    char seen[3][2][96] = {{{0}}};
    int same_kernel = 0;
    for (size_t i = 0; i < json_array_size(ba); i++) {
        const char *bid = json_string_value(json_object_get(json_array_get(ba, i), "id"));
        if (find_id(ca, bid)) continue;
        for (size_t j = 0; j < json_array_size(ca); j++) {
            const char *cid = json_string_value(json_object_get(json_array_get(ca, j), "id"));
            char bk[96], ck[96], bp[96], cp[96];
            id_part(bid, 0, bk, sizeof bk);
            id_part(cid, 0, ck, sizeof ck);
            id_part(bid, 2, bp, sizeof bp);
            id_part(cid, 2, cp, sizeof cp);
            if (find_id(ba, cid) || strcmp(bk, ck) || strcmp(bp, cp)) continue;
            same_kernel = 1;
            for (size_t k = 0; k < 3; k++) {
                char x[96], y[96];
                id_part(bid, kinds[k].part, x, sizeof x);
                id_part(cid, kinds[k].part, y, sizeof y);
                if (!seen[k][0][0] && strcmp(x, y)) {
                    snprintf(seen[k][0], sizeof seen[k][0], "%s", x[0] ? x : "(none)");
                    snprintf(seen[k][1], sizeof seen[k][1], "%s", y[0] ? y : "(none)");
                }
            }
        }
    }
    out[0] = 0;
    for (size_t k = 0; k < 3; k++)
        if (seen[k][0][0])
            ns_appendf(out, len, NULL, "%s%s differs (baseline %s, current %s)", out[0] ? ", " : "",
                       kinds[k].what, seen[k][0], seen[k][1]);
    json_t *m = json_array();
    if (ns_gate_context_diff(base, cur, 1, m)) {
        ns_appendf(out, len, NULL, "%scontext differs in", out[0] ? "; " : "");
        for (size_t i = 0; i < json_array_size(m); i++)
            ns_appendf(out, len, NULL, "%s %s", i ? "," : "",
                       json_string_value(json_object_get(json_array_get(m, i), "key")));
    }
    json_decref(m);
    if (!out[0] && !same_kernel) snprintf(out, len, "the two files ran different kernels");
}

void ns_gate_input_warnings(ns_gate_report *rep, const json_t *doc, const char *role,
                            const char *file) {
    if (json_is_true(json_object_get(doc, "interrupted")))
        add_warning(rep,
                    "the %s %s was interrupted (\"interrupted\": true): it holds only the "
                    "benchmarks that finished",
                    role, file);
    const json_t *ctx = json_object_get(doc, "context");
    const char *inj = json_string_value(json_path(ctx, "env.NODESCALE_INJECT_SLOWDOWN"));
    if (inj && *inj)
        add_warning(rep,
                    "the %s %s was recorded with NODESCALE_INJECT_SLOWDOWN=%s: its times include "
                    "deliberately injected extra work",
                    role, file, inj);
    if (json_is_true(json_path(ctx, "clock_probe.changed"))) {
        const char *d = json_string_value(json_path(ctx, "clock_probe.detail"));
        add_warning(rep,
                    "the %s %s: the clock changed during the run (%s): the machine was disturbed",
                    role, file, d ? d : "clock_probe.changed");
        rep->disturbed = 1;
    }
    /* Median sample CV over the results: above NS_DISTURBED_CV (the run report's "disturbed"
     * mark) or the gate's threshold when larger, the machine was busy; two such runs measured
     * apart differ by more than their samples show. */
    double limit = fmax(NS_DISTURBED_CV, rep->opts.threshold);
    const json_t *a = json_object_get(doc, "results");
    size_t n = json_array_size(a), k = 0, noisy = 0;
    double *cv = malloc((n ? n : 1) * sizeof *cv);
    if (!cv) return;
    for (size_t i = 0; i < n; i++) {
        double c = json_number_value(json_path(json_array_get(a, i), "time_s.cv"));
        if (!json_is_number(json_path(json_array_get(a, i), "time_s.cv")) || !isfinite(c)) continue;
        cv[k++] = c;
        noisy += c > limit;
    }
    double med = k ? ns_median(cv, k) : NAN;
    free(cv);
    if (k && med > limit) {
        add_warning(rep,
                    "the %s %s was measured on a disturbed machine: %zu of %zu benchmarks have a "
                    "sample CV above %.0f%% (median %.0f%%)",
                    role, file, noisy, k, 100 * limit, 100 * med);
        rep->disturbed = 1;
    }
}

void ns_gate_rule_warnings(ns_gate_report *rep) {
    for (size_t i = 0; i < rep->opts.nrules; i++) {
        size_t j = 0;
        while (j < rep->nrows && fnmatch(rep->opts.rules[i].pattern, rep->rows[j].id, 0) != 0)
            j++;
        if (j == rep->nrows)
            add_warning(rep, "--thresholds pattern '%s' matches no benchmark%s%s%s",
                        rep->opts.rules[i].pattern, rep->nrows ? " (ids look like '" : "",
                        rep->nrows ? rep->rows[0].id : "", rep->nrows ? "')" : "");
    }
}

int ns_gate_compare_docs(const json_t *base, const json_t *cur, ns_gate_report *rep, char *err,
                         size_t errlen) {
    const char *bf = rep->baseline ? rep->baseline : "baseline";
    const char *cf = rep->current ? rep->current : "current";
    const json_t *ba = results_array(base, bf, err, errlen);
    if (!ba) return -1;
    const json_t *ca = results_array(cur, cf, err, errlen);
    if (!ca) return -1;
    if (!rep->mismatches) rep->mismatches = json_array();
    size_t common = 0, with_data = 0, invalid = 0;
    for (int side = 0; side < 2; side++) {
        const json_t *a = side ? ca : ba, *other = side ? ba : ca;
        for (size_t i = 0; i < json_array_size(a); i++) {
            const json_t *r = json_array_get(a, i);
            const char *id = json_string_value(json_object_get(r, "id"));
            const json_t *o = find_id(other, id);
            if (side == 1 && o) continue; /* matched pairs were handled on the baseline pass */
            ns_gate_row *row = new_row(rep, id);
            if (!row) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            if (!o) {
                row->verdict = side ? NS_GATE_ONLY_CURRENT : NS_GATE_ONLY_BASELINE;
                continue;
            }
            common++;
            /* The id carries threads and ISA; a file edited by hand could still disagree. */
            static const char *fields[] = {"threads", "isa", "precision"};
            for (size_t f = 0; f < 3; f++) {
                const json_t *x = json_object_get(r, fields[f]), *y = json_object_get(o, fields[f]);
                if (x && y && !json_equal((json_t *)x, (json_t *)y)) {
                    char key[300];
                    snprintf(key, sizeof key, "results[%s].%s", id, fields[f]);
                    add_mismatch(rep->mismatches, key, x, y);
                }
            }
            char why_b[80] = "", why_c[80] = "";
            int sb = result_samples(r, bf, id, &row->base, &row->nbase, why_b, sizeof why_b, err,
                                    errlen);
            if (sb < 0) return -1;
            /* A current result that failed its check is a failure of the change, not missing
             * data (it showed "no data" and the gate passed: gate.sh). */
            row->invalid_kind = result_invalid(o, row->note, sizeof row->note);
            if (row->invalid_kind != NS_GATE_VALID) {
                row->verdict = NS_GATE_INVALID;
                row->med_base = ns_median(row->base, row->nbase);
                invalid++;
                continue;
            }
            int sc =
                result_samples(o, cf, id, &row->cur, &row->ncur, why_c, sizeof why_c, err, errlen);
            if (sc < 0) return -1;
            if (sb || sc) {
                row->verdict = NS_GATE_NO_DATA;
                row->med_base = ns_median(row->base, row->nbase);
                row->med_cur = ns_median(row->cur, row->ncur);
                snprintf(row->note, sizeof row->note, "%s%s%s%s%s", why_b[0] ? "baseline: " : "",
                         why_b, why_b[0] && why_c[0] ? "; " : "", why_c[0] ? "current: " : "",
                         why_c);
                continue;
            }
            if (why_b[0] || why_c[0])
                snprintf(row->note, sizeof row->note, "%s%s%s%s%s", why_b[0] ? "baseline: " : "",
                         why_b, why_b[0] && why_c[0] ? "; " : "", why_c[0] ? "current: " : "",
                         why_c);
            row->verdict = NS_GATE_UNCHANGED; /* decided by ns_gate_evaluate_row */
            with_data++;
        }
    }
    if (common < json_array_size(ba) || common < json_array_size(ca)) {
        char cause[400] = "", lb[300], lc[300];
        if (common < json_array_size(ba) && common < json_array_size(ca))
            unmatched_cause(base, cur, ba, ca, cause, sizeof cause);
        list_unmatched(ba, ca, lb, sizeof lb);
        list_unmatched(ca, ba, lc, sizeof lc);
        if (common == 0) {
            snprintf(err, errlen,
                     "%s and %s have no benchmark id in common%s%s; baseline ids: %s; current "
                     "ids: %s",
                     bf, cf, cause[0] ? ": likely cause: " : "", cause, lb, lc);
            return -1;
        }
        add_warning(rep, "%zu baseline and %zu current benchmark(s) have no partner%s%s%s%s%s%s",
                    json_array_size(ba) - common, json_array_size(ca) - common,
                    cause[0] ? ": likely cause: " : "", cause, lb[0] ? "; only in baseline: " : "",
                    lb, lc[0] ? "; only in current: " : "", lc);
    }
    /* Every shared benchmark without samples on a side: nothing can be compared, and a gate
     * that compared nothing must not pass (an empty current run would pass CI). */
    if (with_data == 0 && invalid == 0) {
        snprintf(err, errlen,
                 "%s and %s have no benchmark with data in common (%zu shared id%s, each with "
                 "no valid samples or a status other than \"ok\" on a side)",
                 bf, cf, common, common == 1 ? "" : "s");
        return -1;
    }
    for (size_t i = 0; i < rep->nrows; i++) {
        ns_gate_row *r = &rep->rows[i];
        if (!r->base || !r->cur) continue;
        if (rep->opts.nhistory) row_drift(r, &rep->opts);
        ns_gate_evaluate_row(r, &rep->opts);
    }
    /* A --history file that adds no median to any row's drift was dropped in silence (all its
     * results invalid); it is named. */
    for (size_t h = 0; h < rep->opts.nhistory; h++) {
        size_t used = 0;
        double med;
        for (size_t i = 0; i < rep->nrows && !used; i++)
            used = rep->rows[i].base && rep->rows[i].cur &&
                   history_median(rep->opts.history[h], rep->rows[i].id, rep->opts.min_samples,
                                  &med) == 0;
        if (!used)
            add_warning(rep,
                        "--history %s counts for nothing: none of its results compared here has "
                        "status \"ok\" and at least %d valid samples (--min-samples)",
                        rep->opts.history_files && rep->opts.history_files[h]
                            ? rep->opts.history_files[h]
                            : "file",
                        rep->opts.min_samples);
    }
    return 0;
}

/* ---- verdicts ---------------------------------------------------------------------------- */

static void rule_for(const ns_gate_opts *o, const char *id, double *thr, double *floor_s) {
    *thr = o->threshold;
    *floor_s = o->noise_floor_s;
    for (size_t i = 0; i < o->nrules; i++)
        if (fnmatch(o->rules[i].pattern, id, 0) == 0) {
            *thr = o->rules[i].threshold;
            if (isfinite(o->rules[i].noise_floor_s)) *floor_s = o->rules[i].noise_floor_s;
            return;
        }
}

static void append_note(ns_gate_row *r, const char *s) {
    size_t len = strlen(r->note);
    snprintf(r->note + len, sizeof r->note - len, "%s%s", len ? "; " : "", s);
}

void ns_gate_evaluate_row(ns_gate_row *r, const ns_gate_opts *o) {
    double thr, floor_s;
    rule_for(o, r->id, &thr, &floor_s);
    int paired = r->d != NULL;
    size_t nb = paired ? r->nd : r->nbase, nc = paired ? r->nd : r->ncur;
    r->med_base = ns_median(r->base, r->nbase);
    r->med_cur = ns_median(r->cur, r->ncur);
    if (nb < (size_t)o->min_samples || nc < (size_t)o->min_samples) {
        char s[120];
        snprintf(s, sizeof s, "%zu/%zu %s, need %d", nb, nc, paired ? "rounds" : "samples",
                 o->min_samples);
        append_note(r, s);
        r->verdict = NS_GATE_INSUFFICIENT;
        r->ratio = r->med_cur / r->med_base;
        return;
    }
    /* An absolute noise floor becomes a relative one for this benchmark. */
    r->threshold = thr;
    if (floor_s > 0 && r->med_base > 0 && floor_s / r->med_base > thr)
        r->threshold = floor_s / r->med_base;
    /* Between-run drift sigma of the log medians (from --history): two runs' log medians differ
     * by sqrt(2) sigma typically, so a log ratio smaller than z * sqrt(2) * sigma is
     * indistinguishable from drift. The verdict compares the time ratio with 1 + threshold, so
     * the threshold is exp(z * sqrt(2) * sigma) - 1 (test_history_log_threshold: the log bound
     * was compared as a ratio, and +45% failed under a log bound of 0.392 = a ratio bound of
     * +47.9%). */
    if (isfinite(r->drift) && r->drift > 0) {
        double sigma = log1p(r->drift);
        double t = expm1(ns_normal_quantile(1 - o->alpha / 2) * sqrt(2.0) * sigma);
        if (t > r->threshold) {
            char s[120];
            snprintf(s, sizeof s,
                     "threshold raised to %.1f%% by between-run drift %.1f%% over %zu runs",
                     100 * t, 100 * r->drift, r->nhistory);
            append_note(r, s);
            r->threshold = t;
        }
    }

    double conf = 1 - o->alpha, est, lo, hi;
    ns_rank_test t;
    int ci_ok;
    if (paired) {
        ns_signed_rank(r->d, r->nd, &t);
        ci_ok = ns_walsh_ci(r->d, r->nd, conf, &est, &lo, &hi) == 0;
        r->ratio = exp(est);
    } else {
        /* Work on log times: a shift in log time is a ratio of times. */
        double *lb = malloc(r->nbase * sizeof *lb), *lc = malloc(r->ncur * sizeof *lc);
        if (!lb || !lc) {
            free(lb);
            free(lc);
            r->verdict = NS_GATE_INSUFFICIENT;
            append_note(r, "out of memory");
            return;
        }
        for (size_t i = 0; i < r->nbase; i++)
            lb[i] = log(r->base[i]);
        for (size_t i = 0; i < r->ncur; i++)
            lc[i] = log(r->cur[i]);
        ns_mann_whitney(lb, r->nbase, lc, r->ncur, &t);
        ci_ok = ns_shift_ci(lb, r->nbase, lc, r->ncur, conf, &est, &lo, &hi) == 0;
        free(lb);
        free(lc);
        /* The interval's own estimate, not the ratio of medians: with two-humped samples the
         * medians can sit on different humps (+46% shown beside [-6%, +5%]: test_gate.c). */
        r->ratio = exp(est);
    }
    r->p = t.p;
    r->exact = t.exact;
    if (!ci_ok) {
        char s[120];
        snprintf(s, sizeof s, "too few %s for a %.0f%% interval", paired ? "rounds" : "samples",
                 100 * conf);
        append_note(r, s);
        r->verdict = NS_GATE_INSUFFICIENT;
        return;
    }
    r->ci_lo = exp(lo);
    r->ci_hi = exp(hi);
    double med_ratio = r->med_cur / r->med_base;
    if (!paired && (med_ratio < r->ci_lo || med_ratio > r->ci_hi)) {
        char s[120];
        snprintf(s, sizeof s,
                 "ratio of medians %+.1f%% lies outside the interval: samples not one shifted "
                 "distribution (two humps?)",
                 100 * (med_ratio - 1));
        append_note(r, s);
    }
    if (!isfinite(r->ratio) || !isfinite(r->ci_lo) || !isfinite(r->ci_hi) || r->ratio <= 0) {
        /* The sample bounds keep ratios finite; should one still overflow, fail safe: a ratio
         * that cannot be represented is never "unchanged". */
        append_note(r, "time ratio not finite");
        r->verdict = NS_GATE_REGRESSION;
        return;
    }
    int signif = r->p < o->alpha;
    /* Files: the whole interval must clear the threshold, because two runs measured apart carry
     * drift their own samples cannot show. A/B pairs cancel that drift, so significance
     * and an estimate beyond the threshold suffice there. */
    double up = paired ? r->ratio : r->ci_lo, down = paired ? r->ratio : r->ci_hi;
    if (signif && up > 1 + r->threshold)
        r->verdict = NS_GATE_REGRESSION;
    else if (signif && down < 1 / (1 + r->threshold))
        r->verdict = NS_GATE_IMPROVEMENT;
    else if (signif)
        r->verdict = NS_GATE_WITHIN;
    else
        r->verdict = NS_GATE_UNCHANGED;
}

static int compared(const ns_gate_row *r) {
    return r->verdict <= NS_GATE_REGRESSION;
}

/* --history: the between-run drift of the suite geomean, and the suite threshold raised by it
 * as a row's is by its own drift (ns_gate_evaluate_row). Each run's suite value is the mean over
 * the compared benchmarks it holds of log(its median / the baseline's median); the baseline's is
 * 0. The drift each row measured failed the gate through the suite line. */
static void suite_drift(ns_gate_report *rep) {
    const ns_gate_opts *o = &rep->opts;
    if (!o->nhistory) return;
    double *lm = malloc((o->nhistory + 1) * sizeof *lm);
    if (!lm) return;
    size_t n = 0;
    lm[n++] = 0;
    for (size_t h = 0; h < o->nhistory; h++) {
        double sum = 0, med;
        size_t k = 0;
        for (size_t i = 0; i < rep->nrows; i++) {
            const ns_gate_row *r = &rep->rows[i];
            if (!compared(r) || !r->base || !r->nbase ||
                history_median(o->history[h], r->id, o->min_samples, &med) != 0)
                continue;
            sum += log(med / ns_median(r->base, r->nbase));
            k++;
        }
        if (k) lm[n++] = sum / (double)k;
    }
    double drift = log_drift(lm, n);
    free(lm);
    if (!(isfinite(drift) && drift > 0)) return;
    rep->suite_drift = drift;
    rep->suite_nhistory = n;
    double t = expm1(ns_normal_quantile(1 - o->alpha / 2) * sqrt(2.0) * log1p(drift));
    if (t > rep->suite_threshold) {
        rep->suite_threshold = t;
        snprintf(rep->suite_note, sizeof rep->suite_note,
                 "raised by between-run drift %.1f%% of the suite geomean over %zu runs",
                 100 * drift, n);
    }
}

void ns_gate_finish(ns_gate_report *rep) {
    const ns_gate_opts *o = &rep->opts;
    rep->suite_threshold = isfinite(o->suite_threshold) ? o->suite_threshold : o->threshold;
    rep->suite_geomean = rep->suite_lo = rep->suite_hi = rep->suite_drift = NAN;
    rep->suite_n = 0;
    rep->suite_nhistory = 0;
    rep->suite_note[0] = 0;
    ns_boot_item *items = calloc(rep->nrows ? rep->nrows : 1, sizeof *items);
    for (size_t i = 0; items && i < rep->nrows; i++) {
        const ns_gate_row *r = &rep->rows[i];
        if (!compared(r)) continue;
        items[rep->suite_n++] = (ns_boot_item){.base = r->base,
                                               .cur = r->cur,
                                               .nbase = r->nbase,
                                               .ncur = r->ncur,
                                               .d = r->d,
                                               .nd = r->nd};
    }
    rep->suite_verdict = NS_GATE_INSUFFICIENT;
    if (rep->suite_n == 1) {
        /* One benchmark: the suite is that benchmark; a second interval method would only
         * disagree at the margins and confuse the reader. */
        for (size_t i = 0; i < rep->nrows; i++)
            if (compared(&rep->rows[i])) {
                const ns_gate_row *r = &rep->rows[i];
                rep->suite_geomean = r->ratio;
                rep->suite_lo = r->ci_lo;
                rep->suite_hi = r->ci_hi;
                rep->suite_verdict = r->verdict;
                rep->suite_threshold = r->threshold;
            }
    } else if (rep->suite_n > 0 &&
               ns_bootstrap_geomean(items, rep->suite_n, 1 - o->alpha, o->resamples, o->seed,
                                    &rep->suite_geomean, &rep->suite_lo, &rep->suite_hi) == 0) {
        suite_drift(rep);
        double t = rep->suite_threshold;
        if (!isfinite(rep->suite_geomean) || !isfinite(rep->suite_lo) || !isfinite(rep->suite_hi))
            rep->suite_verdict = NS_GATE_REGRESSION; /* fail safe, as for a row */
        else if (rep->suite_lo > 1 + t)
            rep->suite_verdict = NS_GATE_REGRESSION;
        else if (rep->suite_hi < 1 / (1 + t))
            rep->suite_verdict = NS_GATE_IMPROVEMENT;
        else if (rep->suite_lo > 1 || rep->suite_hi < 1)
            rep->suite_verdict = NS_GATE_WITHIN;
        else
            rep->suite_verdict = NS_GATE_UNCHANGED;
    }
    free(items);
    int fail = rep->suite_verdict == NS_GATE_REGRESSION;
    for (size_t i = 0; i < rep->nrows; i++) {
        ns_gate_verdict v = rep->rows[i].verdict;
        if (v == NS_GATE_REGRESSION || v == NS_GATE_INVALID) fail = 1;
        if (o->fail_on_missing && !compared(&rep->rows[i])) fail = 1;
    }
    /* Nothing compared (every row missing, no data or insufficient) is never a pass. */
    if (rep->suite_n == 0) fail = 1;
    rep->exit_code = fail ? 1 : 0;
}

void ns_gate_report_free(ns_gate_report *rep) {
    for (size_t i = 0; i < rep->nrows; i++) {
        free(rep->rows[i].id);
        free(rep->rows[i].base);
        free(rep->rows[i].cur);
        free(rep->rows[i].d);
    }
    free(rep->rows);
    json_decref(rep->mismatches);
    json_decref(rep->build_diffs);
    json_decref(rep->warnings);
    rep->warnings = NULL;
    rep->rows = NULL;
    rep->nrows = 0;
    rep->mismatches = rep->build_diffs = NULL;
}

/* ---- command line -------------------------------------------------------------------------- */

/* 1 when two output paths name the same file: the same device and inode when both exist,
 * else the same text once links are followed and each folder is resolved ("g.json",
 * "./g.json", "/abs/g.json", a dangling link to g.json). "-" (stdout) is no file. */
static int same_output(const char *a, const char *b) {
    if (!strcmp(a, "-") || !strcmp(b, "-")) return 0;
    int same = ns_same_file(a, b);
    if (same >= 0) return same;
    char ra[2 * PATH_MAX], rb[2 * PATH_MAX];
    ns_output_target(a, ra, sizeof ra);
    ns_output_target(b, rb, sizeof rb);
    return strcmp(ra, rb) == 0;
}

/* Fewest A/B rounds that can ever give a verdict: --min-samples of them, and enough for a
 * (1 - alpha) Walsh-average interval (6 at alpha 0.05). Fewer is always "insufficient data". */
static int ab_rounds_needed(const ns_gate_opts *o) {
    double d[64], est, lo, hi;
    int n = 1;
    for (; n < 64; n++) {
        d[n - 1] = n;
        if (ns_walsh_ci(d, (size_t)n, 1 - o->alpha, &est, &lo, &hi) == 0) break;
    }
    return n > o->min_samples ? n : o->min_samples;
}

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: nodescale gate [options] BASELINE.json CURRENT.json\n"
        "       nodescale gate [options] --ab OLD_BINARY NEW_BINARY [KERNEL...] [-- "
        "BENCH_ARGS...]\n"
        "\n"
        "Compares timing samples per benchmark (matched by results[].id) and exits 0 (pass),\n"
        "1 (regression, a current result that failed validation: INVALID, nothing\n"
        "compared: every shared benchmark has too few samples, or standard output could not\n"
        "be written: never a pass, whatever the verdict) or 2\n"
        "(usage or input error, including no benchmark with data in common and a sample\n"
        "outside 1e-12..1e6 s). A benchmark regresses when the rank test is significant\n"
        "(p < alpha) AND the whole confidence interval of current/baseline time lies above\n"
        "1 + threshold. The suite geometric mean is gated the same way (bootstrap interval).\n"
        "\n"
        "  --threshold F            regression threshold, 0.05 or 5%% (default 5%%)\n"
        "  --suite-threshold F      threshold for the suite geometric mean (default: --threshold)\n"
        "  --thresholds FILE        per-benchmark lines 'PATTERN THRESHOLD [NOISE_FLOOR_S]'\n"
        "                           (glob on the id; first match wins)\n"
        "  --alpha A                significance level; intervals at 1 - A (default 0.05)\n"
        "  --min-samples N          fewer valid samples (A/B: rounds) = insufficient data (default "
        "5)\n"
        "  --noise-floor S          median differences under S seconds never fail (default 0)\n"
        "  --history FILE           an earlier results file of the baseline build (repeatable):\n"
        "                           the between-run drift of the medians over >= 3 runs (sigma\n"
        "                           of their logs) raises a benchmark's threshold to\n"
        "                           exp(z * sqrt(2) * sigma) - 1 when larger\n"
        "                           (a file that is BASELINE, CURRENT or given twice, a copy\n"
        "                           of one or the same run - same context.date and samples -\n"
        "                           is dropped, with a warning naming it)\n"
        "  --allow-context-mismatch compare runs from different CPUs/builds (loud warning)\n"
        "  --allow-build-change     compare builds that differ (compiler, flags, libraries,\n"
        "                           version) but still refuse another machine\n"
        "  --fail-on-missing        no data / insufficient data / missing benchmark also exit 1\n"
        "  --rounds R               A/B: at most R rounds (default %d; at least --min-samples\n"
        "                           and >= 6 for a 95%% interval, or it is refused)\n"
        "  --min-rounds M           A/B: at least M rounds (default 8, or R when smaller; M > R\n"
        "                           is refused); from M on, stop once every verdict is settled\n"
        "  --json FILE  --junit FILE  --markdown FILE   also write these reports (every path\n"
        "                           is checked first: all are written or none; two reports to\n"
        "                           one file, or a report over an input, are refused); FILE -\n"
        "                           is stdout (for one of them; the table then goes to stderr)\n"
        "  --quiet                  no table on stdout\n"
        "\n"
        "--ab runs 'OLD bench KERNEL BENCH_ARGS --json F' and the same with NEW, alternating, and\n"
        "gates on the per-round pairs (Wilcoxon signed-rank). Default kernel: stream_triad.\n"
        "BENCH_ARGS must not hold --json (gate --ab sets it).\n",
        NS_GATE_DEFAULT_ROUNDS);
}

/* The most --history files gate takes. */
#define NS_GATE_MAX_HISTORY 64

/* What gate's command line asks for (gate_parse_args). */
typedef struct {
    ns_gate_opts o;
    const char *json_out, *junit_out, *md_out, *thr_file;
    int quiet, ab, rounds, min_rounds, rounds_set, min_rounds_set;
    char *pos[256]; /* BASELINE CURRENT, or OLD_BINARY NEW_BINARY KERNEL... */
    int npos;
    const char *hist[NS_GATE_MAX_HISTORY]; /* --history files */
    int nhist;
    char **bench_args; /* after "--" (--ab) */
    int nbench;
} gate_cli;

/* Parses gate's options into cli, one option at a time. Returns -1 to go on, else the exit
 * status: NS_EXIT_OK after --help, NS_EXIT_USAGE after a one-line error. */
static int gate_parse_args(int argc, char **argv, gate_cli *cli) {
    const char *cmd = "gate";
    *cli = (gate_cli){.o = ns_gate_defaults(), .rounds = NS_GATE_DEFAULT_ROUNDS, .min_rounds = 8};
    ns_gate_opts *o = &cli->o;
    static const char *const repeatable[] = {"--history", NULL};
    if (ns_refuse_repeated(cmd, argc, argv, repeatable, 0)) return NS_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return NS_EXIT_OK;
        } else if (!strcmp(argv[i], "--")) {
            cli->bench_args = argv + i + 1;
            cli->nbench = argc - i - 1;
            break;
        } else if ((m = ns_opt_value(argc, argv, &i, "--threshold", &v))) {
            if (m < 0 || parse_fraction(v, &o->threshold) != 0)
                return ns_usage_error(cmd, "--threshold wants a fraction (0.05) or percent (5%%)");
        } else if ((m = ns_opt_value(argc, argv, &i, "--suite-threshold", &v))) {
            if (m < 0 || parse_fraction(v, &o->suite_threshold) != 0)
                return ns_usage_error(cmd, "--suite-threshold wants 0.05 or 5%%");
        } else if ((m = ns_opt_value(argc, argv, &i, "--thresholds", &v))) {
            if (m < 0) return ns_usage_error(cmd, "--thresholds wants a file");
            cli->thr_file = v;
        } else if ((m = ns_opt_value(argc, argv, &i, "--history", &v))) {
            if (m < 0) return ns_usage_error(cmd, "--history wants a results file");
            if (cli->nhist >= (int)(sizeof cli->hist / sizeof *cli->hist))
                return ns_usage_error(cmd, "at most %d --history files",
                                      (int)(sizeof cli->hist / sizeof *cli->hist));
            cli->hist[cli->nhist++] = v;
        } else if ((m = ns_opt_value(argc, argv, &i, "--alpha", &v))) {
            if (m < 0 || ns_parse_double(v, 1e-6, 0.5, &o->alpha) != 0)
                return ns_usage_error(cmd, "--alpha wants a number in [1e-6, 0.5]");
        } else if ((m = ns_opt_value(argc, argv, &i, "--min-samples", &v))) {
            int64_t x;
            if (m < 0 || ns_parse_int64(v, 2, 100000, &x) != 0)
                return ns_usage_error(cmd, "--min-samples wants an integer >= 2");
            o->min_samples = (int)x;
        } else if ((m = ns_opt_value(argc, argv, &i, "--noise-floor", &v))) {
            if (m < 0 || ns_parse_double(v, 0, 1e6, &o->noise_floor_s) != 0)
                return ns_usage_error(cmd, "--noise-floor wants seconds >= 0");
        } else if ((m = ns_opt_value(argc, argv, &i, "--rounds", &v))) {
            int64_t x;
            if (m < 0 || ns_parse_int64(v, 1, 10000, &x) != 0)
                return ns_usage_error(cmd, "--rounds wants an integer in [1, 10000]");
            cli->rounds = (int)x;
            cli->rounds_set = 1;
        } else if ((m = ns_opt_value(argc, argv, &i, "--min-rounds", &v))) {
            int64_t x;
            if (m < 0 || ns_parse_int64(v, 1, 10000, &x) != 0)
                return ns_usage_error(cmd, "--min-rounds wants an integer in [1, 10000]");
            cli->min_rounds = (int)x;
            cli->min_rounds_set = 1;
        } else if ((m = ns_opt_value(argc, argv, &i, "--json", &v))) {
            if (m < 0) return ns_usage_error(cmd, "--json wants a file");
            cli->json_out = v;
        } else if ((m = ns_opt_value(argc, argv, &i, "--junit", &v))) {
            if (m < 0) return ns_usage_error(cmd, "--junit wants a file");
            cli->junit_out = v;
        } else if ((m = ns_opt_value(argc, argv, &i, "--markdown", &v))) {
            if (m < 0) return ns_usage_error(cmd, "--markdown wants a file");
            cli->md_out = v;
        } else if (!strcmp(argv[i], "--allow-context-mismatch")) {
            o->allow_context_mismatch = 1;
        } else if (!strcmp(argv[i], "--allow-build-change")) {
            o->allow_build_change = 1;
        } else if (!strcmp(argv[i], "--fail-on-missing")) {
            o->fail_on_missing = 1;
        } else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
            cli->quiet = 1;
        } else if (!strcmp(argv[i], "--ab")) {
            cli->ab = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return ns_usage_error(cmd, "unknown option '%s' (try: nodescale gate --help)", argv[i]);
        } else {
            if (cli->npos >= (int)(sizeof cli->pos / sizeof *cli->pos))
                return ns_usage_error(cmd, "too many arguments");
            cli->pos[cli->npos++] = argv[i];
        }
    }
    return -1;
}

/* Refuses options that do not go together, and --ab round settings that can give no verdict
 * (lowering the default --min-rounds to --rounds). Returns 0, or NS_EXIT_USAGE after the error. */
static int gate_check_args(gate_cli *cli) {
    const char *cmd = "gate";
    int ab = cli->ab, npos = cli->npos;
    if (!ab && npos != 2)
        return ns_usage_error(cmd, "want BASELINE.json CURRENT.json (got %d file%s)", npos,
                              npos == 1 ? "" : "s");
    if (ab && npos < 2) return ns_usage_error(cmd, "--ab wants OLD_BINARY NEW_BINARY [KERNEL...]");
    if (!ab && cli->bench_args) return ns_usage_error(cmd, "'--' bench arguments need --ab");
    if (ab && cli->nhist) return ns_usage_error(cmd, "--history applies to files, not --ab");
    if (ab && cli->o.allow_build_change)
        return ns_usage_error(cmd, "--allow-build-change applies to files (--ab always allows "
                                   "build differences)");
    if (!ab && (cli->rounds_set || cli->min_rounds_set))
        return ns_usage_error(cmd, "%s applies to --ab only",
                              cli->rounds_set ? "--rounds" : "--min-rounds");
    if (ab) {
        /* Round settings that cannot be honoured are refused, not adjusted: an explicit
         * --min-rounds above --rounds, or so few rounds that no verdict is possible. Without
         * --min-rounds, a --rounds below its default lowers it. */
        if (cli->min_rounds_set && cli->min_rounds > cli->rounds)
            return ns_usage_error(cmd, "--min-rounds %d exceeds --rounds %d%s", cli->min_rounds,
                                  cli->rounds, cli->rounds_set ? "" : " (the default)");
        if (cli->min_rounds > cli->rounds) cli->min_rounds = cli->rounds;
        int need = ab_rounds_needed(&cli->o);
        if (cli->rounds < need)
            return ns_usage_error(cmd,
                                  "--rounds %d can never give a verdict: want at least %d (the "
                                  "--min-samples and a %g%% interval need that many)",
                                  cli->rounds, need, 100 * (1 - cli->o.alpha));
        /* gate --ab passes --json FILE to every run itself; a second one would be ignored or
         * would take the results away from the gate. */
        for (int i = 0; i < cli->nbench; i++)
            if (!strcmp(cli->bench_args[i], "--json") || !strncmp(cli->bench_args[i], "--json=", 7))
                return ns_usage_error(cmd,
                                      "bench argument '%s' is set by gate --ab itself (it passes "
                                      "--json FILE to every run); drop it",
                                      cli->bench_args[i]);
    }
    return 0;
}

/* Checks every report path before any work: not two to one file, none over an input, none over
 * another command's file, each writable. Returns 0, or NS_EXIT_USAGE after the error. */
static int gate_check_outputs(const gate_cli *cli) {
    const char *cmd = "gate";
    char err[1024];
    /* All or nothing: every output path is checked before any work, so a bad third path cannot
     * leave the first two written (ns_json_check_writable suits the text writers too: they
     * write the same way, temporary file beside the target + rename). */
    const char *outs[] = {cli->json_out, cli->junit_out, cli->md_out};
    static const char *const out_opts[] = {"--json", "--junit", "--markdown"};
    /* "-" is standard output, as for bench and cluster --json (it wrote a file named "-":
     * gate_outputs.sh); two reports there would run together. */
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        for (size_t j = i + 1; j < sizeof outs / sizeof *outs; j++)
            if (outs[i] && outs[j] && !strcmp(outs[i], "-") && !strcmp(outs[j], "-"))
                return ns_usage_error(cmd,
                                      "%s - and %s - both name standard output: at most one "
                                      "report goes there",
                                      out_opts[i], out_opts[j]);
    /* Two reports to one file would leave only the last one written. */
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        for (size_t j = i + 1; j < sizeof outs / sizeof *outs; j++)
            if (outs[i] && outs[j] && same_output(outs[i], outs[j]))
                return ns_usage_error(
                    cmd, "%s %s and %s %s name the same file: give each report its own",
                    out_opts[i], outs[i], out_opts[j], outs[j]);
    /* A report over one of gate's own inputs would destroy the record it gated (gate_hints.sh):
     * the same device and inode, or the same resolved path for a report not written yet. */
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        for (int p = 0; outs[i] && p < cli->npos && p < 2; p++)
            if (same_output(outs[i], cli->pos[p]))
                return ns_usage_error(
                    cmd, "%s %s is an input (%s %s): give the report its own file", out_opts[i],
                    outs[i],
                    cli->ab ? (p ? "NEW_BINARY" : "OLD_BINARY") : (p ? "CURRENT" : "BASELINE"),
                    cli->pos[p]);
        for (int h = 0; outs[i] && h < cli->nhist; h++)
            if (same_output(outs[i], cli->hist[h]))
                return ns_usage_error(cmd,
                                      "%s %s is an input (--history %s): give the report its "
                                      "own file",
                                      out_opts[i], outs[i], cli->hist[h]);
    }
    /* Nor over any other file that is not an earlier report of its own kind: a run's
     * results.json or report.md, a fleet's, compare's or another command's (gate_hints.sh). */
    static const ns_report_kind out_kinds[] = {NS_REPORT_GATE_JSON, NS_REPORT_GATE_JUNIT,
                                               NS_REPORT_GATE_MARKDOWN};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        if (outs[i] && strcmp(outs[i], "-") &&
            ns_report_may_write(out_opts[i], outs[i], out_kinds[i], err, sizeof err))
            return ns_usage_error(cmd, "%s", err);
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        if (outs[i] && strcmp(outs[i], "-") &&
            ns_json_check_writable(outs[i], err, sizeof err) != 0)
            return ns_usage_error(cmd, "%s", err);
    return 0;
}

/* 1 when a and b are regular files holding the same bytes; 0 when not, or when either is no
 * regular file (a pipe is read once, by its load) or cannot be read. */
static int same_bytes(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || !S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode) ||
        sa.st_size != sb.st_size)
        return 0;
    FILE *fa = fopen(a, "rb"), *fb = fa ? fopen(b, "rb") : NULL;
    int same = fa && fb;
    char ba[8192], bb[8192];
    while (same) {
        size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
        if (na != nb || memcmp(ba, bb, na) != 0 || ferror(fa) || ferror(fb))
            same = 0;
        else if (na < sizeof ba)
            break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* 1 when a and b are one run: the same context.date (a string), no context difference that the
 * gate checks (a file edited to another machine is refused by that check, not dropped here) and
 * as many results, each id of a with the same samples_s in b. */
static int same_run(const json_t *a, const json_t *b) {
    if (!a || !b) return 0;
    json_t *diff = json_array();
    size_t ndiff = ns_gate_context_diff(a, b, 0, diff);
    json_decref(diff);
    if (ndiff) return 0;
    const json_t *da = json_object_get(json_object_get(a, "context"), "date");
    const json_t *db = json_object_get(json_object_get(b, "context"), "date");
    const json_t *ra = json_object_get(a, "results"), *rb = json_object_get(b, "results");
    if (!json_is_string(da) || !json_equal(da, db) || json_array_size(ra) != json_array_size(rb))
        return 0;
    size_t i, j;
    const json_t *x, *y;
    json_array_foreach(ra, i, x) {
        const json_t *id = json_object_get(x, "id"), *sx = json_object_get(x, "samples_s");
        int found = 0;
        json_array_foreach(rb, j, y) {
            const json_t *sy = json_object_get(y, "samples_s");
            if (json_is_string(id) && json_equal(id, json_object_get(y, "id")) &&
                (sx ? sy && json_equal(sx, sy) : !sy)) {
                found = 1;
                break;
            }
        }
        if (!found) return 0;
    }
    return 1;
}

/* The path of gate's input i: 0 BASELINE, 1 CURRENT, 2 + h the --history file h. */
static const char *input_path(const gate_cli *cli, int i) {
    return i < 2 ? cli->pos[i] : cli->hist[i - 2];
}

/* The input that --history file h repeats: the index (as input_path) of the first of BASELINE,
 * CURRENT and the --history files before h that is the same file (*how 0), holds the same bytes
 * (1) or the same run (same_run of their documents docs[], indexed alike: 2); -1 when none. */
static int dup_of(const gate_cli *cli, json_t *const *docs, int h, int *how) {
    const char *path = cli->hist[h];
    for (*how = 0; *how < 3; ++*how)
        for (int i = 0; i < 2 + h; i++)
            if (*how == 0   ? ns_same_file(path, input_path(cli, i)) == 1
                : *how == 1 ? same_bytes(path, input_path(cli, i))
                            : same_run(docs[2 + h], docs[i]))
                return i;
    return -1;
}

/* Drops from cli->hist, and its document from docs[] (BASELINE, CURRENT, then the --history
 * files), each --history file that is BASELINE, CURRENT or an earlier --history file, or a copy
 * of one (the same bytes), or the same run (same_run), with a warning in rep. */
static void gate_dedup_history(gate_cli *cli, json_t **docs, ns_gate_report *rep) {
    /* A run counts once in the drift (the baseline given again as --history, or one --history
     * file twice, made 3 files read as 4 runs): such a --history file is dropped, with a
     * warning. So is CURRENT given as --history: the current build's run is no baseline run, and
     * its distance would widen the threshold that is to catch it (gate_hints.sh). The same
     * device and inode is the same file, whatever its path; a copy (a CI artifact) or a file
     * holding the same run is that run again (gate_hints.sh). */
    static const char *const how_text[] = {"the same file as", "a copy (the same bytes) of",
                                           "the same run (the same context.date and samples) as"};
    const char **hist = cli->hist;
    for (int h = 0; h < cli->nhist;) {
        int how, i = dup_of(cli, docs, h, &how);
        if (i < 0) {
            h++;
            continue;
        }
        if (i == 1)
            add_warning(rep,
                        "--history %s is %s the CURRENT: not counted (a run of the current build "
                        "is no baseline history)",
                        hist[h], how_text[how]);
        else if (i == 0)
            add_warning(rep, "--history %s is %s the BASELINE: counted once", hist[h],
                        how_text[how]);
        else
            add_warning(rep, "--history %s is %s --history %s: counted once", hist[h],
                        how_text[how], hist[i - 2]);
        json_decref(docs[2 + h]);
        memmove(hist + h, hist + h + 1, (size_t)(cli->nhist - h - 1) * sizeof *hist);
        memmove(docs + 2 + h, docs + 2 + h + 1, (size_t)(cli->nhist - h - 1) * sizeof *docs);
        docs[2 + --cli->nhist] = NULL;
    }
}

/* Files mode: loads BASELINE, CURRENT and the --history files (these into hist_docs), drops the
 * --history files that repeat an input (gate_dedup_history) and compares them into rep, listing
 * the context differences in rep->mismatches (*build_only: only the build differs). Returns 0,
 * or NS_EXIT_USAGE after the warnings and the error. */
static int gate_compare_files(gate_cli *cli, ns_gate_report *rep, json_t **hist_docs,
                              int *build_only) {
    const char *cmd = "gate";
    char err[1024];
    json_t *docs[2 + NS_GATE_MAX_HISTORY] = {0}; /* BASELINE, CURRENT, then the --history files */
    for (int i = 0; i < 2 + cli->nhist; i++) {
        const char *path = input_path(cli, i);
        if (!(docs[i] = ns_json_load_results(path, err, sizeof err)) ||
            (i >= 2 && !results_array(docs[i], path, err, sizeof err))) {
            for (int j = 0; j <= i; j++)
                json_decref(docs[j]);
            return ns_usage_error(cmd, "%s", err);
        }
    }
    gate_dedup_history(cli, docs, rep);
    json_t *b = docs[0], *c = docs[1];
    for (int h = 0; h < cli->nhist; h++)
        hist_docs[h] = docs[2 + h];
    /* --allow-build-change: the machine must match, build differences are only listed (the
     * machine's differences come first in a full diff). */
    rep->mismatches = json_array();
    size_t nmachine = ns_gate_context_diff(b, c, 1, rep->mismatches);
    json_t *all = json_array();
    ns_gate_context_diff(b, c, 0, all);
    if (cli->o.allow_build_change) {
        rep->build_diffs = all;
    } else {
        json_decref(rep->mismatches);
        rep->mismatches = all;
    }
    for (size_t j = 0; j < nmachine && cli->o.allow_build_change; j++)
        json_array_remove(rep->build_diffs, 0);
    *build_only = nmachine == 0 && json_array_size(rep->mismatches) > 0;
    ns_gate_input_warnings(rep, b, "baseline", cli->pos[0]);
    ns_gate_input_warnings(rep, c, "current", cli->pos[1]);
    for (int h = 0; h < cli->nhist; h++) {
        const char *hist = cli->hist[h];
        /* A history run is a measure of the baseline build's drift: one cut short or slowed on
         * purpose widened every threshold in silence, so it is refused. */
        const json_t *hctx = json_object_get(hist_docs[h], "context");
        const char *inj = json_string_value(json_path(hctx, "env.NODESCALE_INJECT_SLOWDOWN"));
        int intr = json_is_true(json_object_get(hist_docs[h], "interrupted"));
        if (intr || (inj && *inj)) {
            json_decref(b);
            json_decref(c);
            return ns_usage_error(cmd,
                                  "--history %s %s%s%s: its times are no measure of the "
                                  "baseline's between-run drift",
                                  hist,
                                  intr ? "was interrupted (\"interrupted\": true)"
                                       : "was recorded with NODESCALE_INJECT_SLOWDOWN=",
                                  intr ? "" : inj, intr ? "" : " (injected extra work)");
        }
        ns_gate_input_warnings(rep, hist_docs[h], "history", hist);
        /* History must be of the baseline's machine and build, or its drift means nothing. The
         * other side of such a difference is the history file, not the current one. */
        json_t *hm = json_array();
        ns_gate_context_diff(b, hist_docs[h], 0, hm);
        size_t j;
        json_t *m;
        json_array_foreach(hm, j, m) {
            char key[300];
            snprintf(key, sizeof key, "history %s: %s", hist,
                     json_string_value(json_object_get(m, "key")));
            json_object_set_new(m, "key", json_string(key));
            json_object_set(m, "history", json_object_get(m, "current"));
            json_object_del(m, "current");
            json_array_append(rep->mismatches, m);
        }
        json_decref(hm);
    }
    rep->opts.history = hist_docs;
    rep->opts.history_files = cli->hist;
    rep->opts.nhistory = (size_t)cli->nhist;
    int cmp = ns_gate_compare_docs(b, c, rep, err, sizeof err);
    json_decref(b);
    json_decref(c);
    if (cmp != 0) {
        /* The warnings first: an interrupted input is often why nothing is in common
         * (the warning was collected, then lost with the error). */
        char wb[1200];
        for (size_t i = 0; i < json_array_size(rep->warnings); i++)
            fprintf(
                stderr, "nodescale gate: warning: %s\n",
                ns_text_safe(json_string_value(json_array_get(rep->warnings, i)), wb, sizeof wb));
        return ns_usage_error(cmd, "%s", err);
    }
    return 0;
}

/* The runs' contexts differ (rep->mismatches): refuses with one line naming every differing
 * key, or under --allow-context-mismatch prints the warning banner. Returns 0 to go on, or
 * NS_EXIT_USAGE after the refusal. */
static int gate_context_verdict(const ns_gate_report *rep, int build_only) {
    size_t nmis = json_array_size(rep->mismatches);
    if (nmis && !rep->opts.allow_context_mismatch) {
        /* One line: every differing key, values shortened. */
        char line[1024] = "";
        size_t len = 0;
        for (size_t i = 0; i < nmis && len < sizeof line - 1; i++) {
            json_t *m = json_array_get(rep->mismatches, i);
            char *bv = json_dumps(json_object_get(m, "baseline"), JSON_ENCODE_ANY | JSON_COMPACT);
            const json_t *hv = json_object_get(m, "history");
            char *cv =
                json_dumps(hv ? hv : json_object_get(m, "current"), JSON_ENCODE_ANY | JSON_COMPACT);
            len += (size_t)snprintf(line + len, sizeof line - len,
                                    "%s%s differs (baseline %.40s, %s %.40s)", i ? "; " : "",
                                    json_string_value(json_object_get(m, "key")), bv ? bv : "?",
                                    hv ? "history" : "current", cv ? cv : "?");
            free(bv);
            free(cv);
        }
        return ns_usage_error("gate",
                              "context mismatch, refusing to compare: %s (rerun both on the same "
                              "machine and build, or pass %s)",
                              line,
                              build_only ? "--allow-build-change: only the build differs"
                                         : "--allow-context-mismatch");
    }
    if (nmis) {
        fprintf(stderr,
                "nodescale gate: WARNING: ==================================================\n");
        fprintf(stderr,
                "nodescale gate: WARNING: CONTEXT MISMATCH: comparing anyway as asked; the\n");
        fprintf(stderr,
                "nodescale gate: WARNING: verdicts below may reflect the machine or build,\n");
        fprintf(stderr, "nodescale gate: WARNING: not the change under test:\n");
        ns_gate_print_mismatches(stderr, rep->mismatches,
                                 "nodescale gate: WARNING:   %s: baseline %s, current %s\n");
        fprintf(stderr,
                "nodescale gate: WARNING: ==================================================\n");
    }
    return 0;
}

int ns_cmd_gate(int argc, char **argv) {
    const char *cmd = "gate";
    gate_cli cli;
    json_t *hist_docs[NS_GATE_MAX_HISTORY] = {0};
    char err[1024];
    int rc = gate_parse_args(argc, argv, &cli);
    if (rc >= 0) return rc;
    if ((rc = gate_check_args(&cli)) || (rc = gate_check_outputs(&cli))) return rc;
    ns_gate_opts *o = &cli.o;
    if (cli.thr_file && ns_gate_load_thresholds(o, cli.thr_file, err, sizeof err) != 0) {
        ns_gate_free_rules(o);
        return ns_usage_error(cmd, "%s", err);
    }
    ns_gate_report rep = {
        .mode = cli.ab ? "ab" : "files", .baseline = cli.pos[0], .current = cli.pos[1], .opts = *o};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int build_only = 0;
    rc = NS_EXIT_USAGE;
    if (cli.ab) {
        static char *default_kernels[] = {"stream_triad"};
        char **k = cli.npos > 2 ? cli.pos + 2 : default_kernels;
        int nk = cli.npos > 2 ? cli.npos - 2 : 1;
        if (ns_gate_run_ab(cli.pos[0], cli.pos[1], k, nk, cli.bench_args, cli.nbench,
                           cli.min_rounds, cli.rounds, &rep, err, sizeof err) != 0) {
            rc = ns_usage_error(cmd, "%s", err);
            goto out;
        }
    } else if (gate_compare_files(&cli, &rep, hist_docs, &build_only) != 0) {
        goto out;
    }
    if (gate_context_verdict(&rep, build_only) != 0) goto out;
    ns_gate_rule_warnings(&rep);
    ns_gate_finish(&rep);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rep.elapsed_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    /* With a report on stdout ("-"), stdout carries only that report; the table goes to stderr,
     * as bench --json - does with its summary. */
    int report_stdout = (cli.json_out && !strcmp(cli.json_out, "-")) ||
                        (cli.junit_out && !strcmp(cli.junit_out, "-")) ||
                        (cli.md_out && !strcmp(cli.md_out, "-"));
    if (!cli.quiet) ns_gate_write_text(&rep, report_stdout ? stderr : stdout);
    char wbuf[1200];
    for (size_t i = 0; cli.quiet && i < json_array_size(rep.warnings); i++)
        fprintf(
            stderr, "nodescale gate: warning: %s\n",
            ns_text_safe(json_string_value(json_array_get(rep.warnings, i)), wbuf, sizeof wbuf));
    /* A table lost on a full disk or closed pipe must not pass as a green run: exit 1, as every
     * command whose stdout cannot be written (2 hid a regression's 1: report_writes.sh). */
    if (!report_stdout && ns_report_check_stdout(err, sizeof err) != 0) {
        fprintf(stderr, "nodescale %s: error: %s\n", cmd, err);
        rc = NS_EXIT_FAIL;
        goto out;
    }
    const char *failed = NULL;
    if (cli.json_out && ns_gate_write_json(&rep, cli.json_out, err, sizeof err) != 0)
        failed = cli.json_out;
    else if (cli.junit_out && ns_gate_write_junit(&rep, cli.junit_out, err, sizeof err) != 0)
        failed = cli.junit_out;
    else if (cli.md_out && ns_gate_write_markdown(&rep, cli.md_out, err, sizeof err) != 0)
        failed = cli.md_out;
    if (failed) {
        if (strcmp(failed, "-")) {
            rc = ns_usage_error(cmd, "%s", err);
        } else {
            fprintf(stderr, "nodescale %s: error: %s\n", cmd, err);
            rc = NS_EXIT_FAIL;
        }
        goto out;
    }
    rc = rep.exit_code;
out:
    ns_gate_report_free(&rep);
    ns_gate_free_rules(o);
    for (int h = 0; h < cli.nhist; h++)
        json_decref(hist_docs[h]);
    return rc;
}
