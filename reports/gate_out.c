/* Output of the regression gate: the text table (stdout), a JSON report (schema
 * "nodescale-gate/1"), JUnit XML for CI test tabs, and a Markdown summary a CI job can post on a
 * merge request. Every file is written whole or not at all (temporary file + rename). Undefined
 * numbers are printed as "-" and written to JSON as null with a status, never NaN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/json.h"
#include "harness/measure.h"
#include "harness/stats.h"
#include "reports/gate.h"
#include "reports/report.h"

static const char *fmt_time(double s, char *buf, size_t len) {
    if (!isfinite(s)) {
        snprintf(buf, len, "-");
        return buf;
    }
    static const struct {
        double scale;
        const char *unit;
    } u[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
    size_t i = 0;
    while (i + 1 < sizeof u / sizeof *u && s < u[i].scale)
        i++;
    snprintf(buf, len, "%.4g %s", s / u[i].scale, u[i].unit);
    return buf;
}

/* Ratio r as a signed percentage change, capped at ">+9999%" so that a huge slowdown keeps the
 * table's columns (the JSON report has the exact ratio). */
static const char *fmt_change(double r, char *buf, size_t len) {
    if (isinf(r) && r > 0)
        snprintf(buf, len, ">+9999%%");
    else if (!isfinite(r))
        snprintf(buf, len, "-");
    else if (100 * (r - 1) >= 9999.95)
        snprintf(buf, len, ">+9999%%");
    else
        snprintf(buf, len, "%+.1f%%", 100 * (r - 1));
    return buf;
}

static const char *fmt_ci(double lo, double hi, char *buf, size_t len) {
    char a[24], b[24];
    if (!isfinite(lo) || !isfinite(hi))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "[%s, %s]", fmt_change(lo, a, sizeof a), fmt_change(hi, b, sizeof b));
    return buf;
}

static const char *fmt_p(double p, char *buf, size_t len) {
    if (!isfinite(p))
        snprintf(buf, len, "-");
    else if (p < 1e-4)
        snprintf(buf, len, "<1e-4");
    else
        snprintf(buf, len, "%.4f", p);
    return buf;
}

static size_t nregress(const ns_gate_report *rep) {
    size_t n = 0;
    for (size_t i = 0; i < rep->nrows; i++)
        n += rep->rows[i].verdict == NS_GATE_REGRESSION;
    return n;
}

/* Benchmarks whose current result failed validation (they fail the gate). */
static size_t ninvalid(const ns_gate_report *rep) {
    size_t n = 0;
    for (size_t i = 0; i < rep->nrows; i++)
        n += rep->rows[i].verdict == NS_GATE_INVALID;
    return n;
}

/* Every note on the current result begins with current_note. */
static const char current_note[] = "current: ";

/* INVALID rows whose output check failed; the others have a current status other than "ok"
 * (a thread team the OpenMP runtime cut, a zero time, ...), which no rerun of the check fixes. */
static size_t ncheck_failed(const ns_gate_report *rep) {
    size_t n = 0;
    for (size_t i = 0; i < rep->nrows; i++)
        n += rep->rows[i].verdict == NS_GATE_INVALID &&
             rep->rows[i].invalid_kind == NS_GATE_INVALID_CHECK;
    return n;
}

/* The first INVALID row, or NULL. */
static const ns_gate_row *first_invalid(const ns_gate_report *rep) {
    for (size_t i = 0; i < rep->nrows; i++)
        if (rep->rows[i].verdict == NS_GATE_INVALID) return &rep->rows[i];
    return NULL;
}

/* The verdict line's INVALID part, ", N INVALID (REASON)", into out (every INVALID read
 * "check failed", a cut thread team too: gate_hints.sh): one row's own reason, else the counts
 * by kind; "" without INVALID rows. */
static void invalid_label(const ns_gate_report *rep, char *out, size_t len) {
    size_t n = ninvalid(rep), c = ncheck_failed(rep);
    out[0] = 0;
    if (!n) return;
    const char *note = first_invalid(rep)->note;
    if (!strncmp(note, current_note, sizeof current_note - 1)) note += sizeof current_note - 1;
    if (n == 1)
        snprintf(out, len, ", 1 INVALID (%.120s)", note);
    else if (c == n)
        snprintf(out, len, ", %zu INVALID (check failed)", n);
    else if (!c)
        snprintf(out, len, ", %zu INVALID (current status not ok, see the rows)", n);
    else
        snprintf(out, len, ", %zu INVALID (%zu check failed, %zu current status not ok)", n, c,
                 n - c);
}

/* Compared benchmarks with fewer than NS_MIN_SAMPLES samples on a side (unpaired): rank tests of
 * that size can only show large effects (compare.py warns below 9 repetitions). */
static size_t nfew(const ns_gate_report *rep) {
    size_t n = 0;
    for (size_t i = 0; i < rep->nrows; i++) {
        const ns_gate_row *r = &rep->rows[i];
        n += !r->d && r->verdict <= NS_GATE_REGRESSION &&
             (r->nbase < NS_MIN_SAMPLES || r->ncur < NS_MIN_SAMPLES);
    }
    return n;
}

/* The regression rule with this report's alpha and threshold, into buf (returned), as the text
 * table, the JSON report's settings.rule and the Markdown state it. */
static const char *gate_rule_text(const ns_gate_report *rep, char *buf, size_t len) {
    const ns_gate_opts *o = &rep->opts;
    if (!strcmp(rep->mode, "ab"))
        snprintf(buf, len,
                 "p < %g (signed-rank over rounds) and the paired estimate of the time ratio lies "
                 "above +%.1f%%",
                 o->alpha, 100 * o->threshold);
    else
        snprintf(buf, len,
                 "p < %g and the whole %.0f%% interval of the time ratio lies above +%.1f%%",
                 o->alpha, 100 * (1 - o->alpha), 100 * o->threshold);
    return buf;
}

/* A row's n cell, into buf (returned): the pairs (A/B), baseline/current samples, or "-" when
 * the benchmark has no baseline. */
static const char *row_n_text(const ns_gate_row *r, char *buf, size_t len) {
    if (r->d)
        snprintf(buf, len, "%zu", r->nd);
    else if (r->base)
        snprintf(buf, len, "%zu/%zu", r->nbase, r->ncur);
    else
        snprintf(buf, len, "-");
    return buf;
}

static const char *test_name(const ns_gate_row *r) {
    if (!isfinite(r->p)) return "-";
    if (r->d) return r->exact ? "signed-rank, exact" : "signed-rank, normal";
    return r->exact ? "Mann-Whitney, exact" : "Mann-Whitney, normal";
}

/* What the change column and the suite line estimate (one estimator for rows, interval and
 * suite: a ratio of medians was shown beside a Hodges-Lehmann interval). */
static const char *ratio_estimator(const ns_gate_report *rep) {
    return strcmp(rep->mode, "ab")
               ? "Hodges-Lehmann estimate of the time ratio (median of all current/baseline "
                 "sample ratios)"
               : "Hodges-Lehmann estimate of the rounds' new/old ratios (median of the Walsh "
                 "averages of their logs)";
}

/* The bench arguments a result id "kernel/isa/precision/tTHREADS/k=v,k=v" stands for, into out:
 * "KERNEL --isa ISA --threads T --k v ..." (whatever parts the id has). */
static void id_bench_args(const char *id, char *out, size_t len) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", id);
    char *save = NULL, *part = strtok_r(buf, "/", &save);
    size_t used = (size_t)snprintf(out, len, "%s", part ? part : id);
    for (int k = 1; (part = strtok_r(NULL, "/", &save)) && used < len; k++) {
        if (k == 1)
            used += (size_t)snprintf(out + used, len - used, " --isa %s", part);
        else if (k == 3 && part[0] == 't')
            used += (size_t)snprintf(out + used, len - used, " --threads %s", part + 1);
        else if (k >= 4) {
            char *s2 = NULL;
            for (char *kv = strtok_r(part, ",", &s2); kv && used < len;
                 kv = strtok_r(NULL, ",", &s2)) {
                char *eq = strchr(kv, '=');
                if (eq)
                    used += (size_t)snprintf(out + used, len - used, " --%.*s %s", (int)(eq - kv),
                                             kv, eq + 1);
            }
        }
    }
}

/* What to do after a FAIL, one or two lines (each ending in '\n') into out; "" on a pass. A
 * regression: confirm it interleaved (files) or reproduce it with each build (A/B), the first
 * regressed benchmark's bench command spelled out; nothing compared: rerun with more samples. */
static void next_steps(const ns_gate_report *rep, char *out, size_t len) {
    out[0] = 0;
    if (!rep->exit_code) return;
    const ns_gate_row *first = NULL, *inv = first_invalid(rep);
    for (size_t i = 0; i < rep->nrows && !first; i++)
        if (rep->rows[i].verdict == NS_GATE_REGRESSION) first = &rep->rows[i];
    char args[400];
    int ab = !strcmp(rep->mode, "ab");
    /* NS_GATE_DEFAULT_ROUNDS samples, never fewer than --min-samples asks for (gate_hints.sh),
     * nor more than bench takes. */
    int samples = rep->opts.min_samples > NS_GATE_DEFAULT_ROUNDS ? rep->opts.min_samples
                                                                 : NS_GATE_DEFAULT_ROUNDS;
    if (samples > NS_MAX_SAMPLES) samples = NS_MAX_SAMPLES;
    if (first) {
        id_bench_args(first->id, args, sizeof args);
        /* gate --ab takes the kernel, then "--" and the bench options. */
        char kernel[128];
        const char *opts = strchr(args, ' ');
        snprintf(kernel, sizeof kernel, "%.*s", (int)(opts ? (size_t)(opts - args) : strlen(args)),
                 args);
        if (ab)
            snprintf(out, len,
                     "next: reproduce %s with each build: %s bench %s --samples %d, and the "
                     "same with %s\n",
                     first->id, rep->baseline, args, samples, rep->current);
        else
            snprintf(out, len,
                     "next: confirm %s interleaved on one machine: nodescale gate --ab "
                     "OLD_BINARY NEW_BINARY %s%s%s (README.md, \"Interleaved A/B\");\n"
                     "      or look at it alone with each build: nodescale bench %s --samples %d\n",
                     first->id, kernel, opts ? " --" : "", opts ? opts : "", args, samples);
    } else if (rep->suite_verdict == NS_GATE_REGRESSION) {
        snprintf(out, len,
                 "next: no single benchmark regressed, the suite did: confirm with nodescale gate "
                 "--ab OLD_BINARY NEW_BINARY KERNEL... on the slowest kernels\n");
    } else if (inv && inv->invalid_kind == NS_GATE_INVALID_CHECK) {
        id_bench_args(inv->id, args, sizeof args);
        snprintf(out, len,
                 "next: the current build computes %s wrongly (its output check failed): fix "
                 "that, then check it with nodescale bench %s\n",
                 inv->id, args);
    } else if (inv) {
        /* A status such as a thread team the OpenMP runtime cut: more samples cannot help. */
        id_bench_args(inv->id, args, sizeof args);
        snprintf(out, len,
                 "next: remove the cause the INVALID row's status names (for a thread shortfall: "
                 "OMP_THREAD_LIMIT, the CPU mask or --threads), then measure %s again: "
                 "nodescale bench %s\n",
                 inv->id, args);
    } else {
        snprintf(out, len,
                 "next: see each row's note: rerun the benchmarks without data or with too few "
                 "samples (bench KERNEL --samples %d), or run both builds with the same kernels "
                 "and sizes\n",
                 samples);
    }
}

/* The files-mode caution when an input was disturbed (see ns_gate_input_warnings), or "". */
static const char *drift_note(const ns_gate_report *rep) {
    if (!rep->disturbed || !strcmp(rep->mode, "ab")) return "";
    return "note: an input was measured on a disturbed machine. Two result files measured apart "
           "drift on shared machines, so these verdicts may reflect the machine, not the code: use "
           "gate --ab OLD_BINARY NEW_BINARY, or --history (README.md, \"Interleaved A/B\")\n";
}

void ns_gate_write_text(const ns_gate_report *rep, FILE *f) {
    int w = 9;
    char safe[256];
    for (size_t i = 0; i < rep->nrows; i++) {
        int l = (int)strlen(ns_text_safe(rep->rows[i].id, safe, sizeof safe));
        if (l > w) w = l;
    }
    if (w > 64) w = 64;
    if (!strcmp(rep->mode, "ab"))
        fprintf(f, "nodescale gate: interleaved A/B, %d rounds: OLD %s, NEW %s\n", rep->rounds,
                rep->baseline, rep->current);
    else
        fprintf(f, "nodescale gate: baseline %s, current %s\n", rep->baseline, rep->current);
    char rule[160];
    fprintf(f, "regression = %s\n", gate_rule_text(rep, rule, sizeof rule));
    fprintf(f, "change = %s; suite = their geometric mean\n", ratio_estimator(rep));
    if (json_array_size(rep->mismatches))
        fprintf(f,
                "WARNING: CONTEXT MISMATCH (--allow-context-mismatch): %zu field(s) differ, "
                "see stderr\n",
                json_array_size(rep->mismatches));
    if (json_array_size(rep->build_diffs)) {
        fprintf(f, "the two builds differ in (%s, shown for the record):\n",
                strcmp(rep->mode, "ab") ? "allowed by --allow-build-change" : "expected in A/B");
        ns_gate_print_mismatches(f, rep->build_diffs, "  %s: old %s, new %s\n");
    }
    char wbuf[1200];
    for (size_t i = 0; i < json_array_size(rep->warnings); i++)
        fprintf(
            f, "WARNING: %s\n",
            ns_text_safe(json_string_value(json_array_get(rep->warnings, i)), wbuf, sizeof wbuf));
    fprintf(f, "\n%-*s %11s %11s %8s %18s %7s %7s  %s\n", w, "benchmark",
            strcmp(rep->mode, "ab") ? "baseline" : "old",
            strcmp(rep->mode, "ab") ? "current" : "new", "change", "interval", "p", "n", "verdict");
    for (size_t i = 0; i < rep->nrows; i++) {
        const ns_gate_row *r = &rep->rows[i];
        char a[32], b[32], c[32], d[64], p[32], n[32];
        fprintf(f, "%-*.*s %11s %11s %8s %18s %7s %7s  %s%s%s%s\n", w, w,
                ns_text_safe(r->id, safe, sizeof safe),
                fmt_time(r->med_base, a, sizeof a), fmt_time(r->med_cur, b, sizeof b),
                fmt_change(r->ratio, c, sizeof c), fmt_ci(r->ci_lo, r->ci_hi, d, sizeof d),
                fmt_p(r->p, p, sizeof p), row_n_text(r, n, sizeof n),
                ns_gate_verdict_name(r->verdict), r->note[0] ? " (" : "", r->note,
                r->note[0] ? ")" : "");
    }
    char c[32], d[64];
    char label[64];
    snprintf(label, sizeof label, "suite geomean (%zu)", rep->suite_n);
    fprintf(f, "%-*s %11s %11s %8s %18s %7s %7s  %s (threshold %+.1f%%%s%s)\n", w, label, "", "",
            fmt_change(rep->suite_geomean, c, sizeof c),
            fmt_ci(rep->suite_lo, rep->suite_hi, d, sizeof d), "", "",
            ns_gate_verdict_name(rep->suite_verdict), 100 * rep->suite_threshold,
            rep->suite_note[0] ? ", " : "", rep->suite_note);
    size_t nr = nregress(rep), few = nfew(rep);
    if (few)
        fprintf(f,
                "note: %zu benchmark(s) have fewer than %d samples; at that size only large "
                "effects can be significant\n",
                few, NS_MIN_SAMPLES);
    char inv[256], isafe[256];
    invalid_label(rep, inv, sizeof inv);
    fprintf(f, "\nverdict: %s (%zu regression%s%s%s%s; %.2f s)\n", rep->exit_code ? "FAIL" : "PASS",
            nr, nr == 1 ? "" : "s", ns_text_safe(inv, isafe, sizeof isafe),
            rep->suite_verdict == NS_GATE_REGRESSION ? ", suite geomean regressed" : "",
            rep->suite_n == 0 ? ", nothing compared" : "", rep->elapsed_s);
    char next[1024];
    next_steps(rep, next, sizeof next);
    fprintf(f, "%s", drift_note(rep));
    /* Line by line: the id in it comes from the input file. */
    for (char *line = next, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        fprintf(f, "%s\n", ns_text_safe(line, wbuf, sizeof wbuf));
    }
}

static void set_num(json_t *o, const char *key, double v) {
    /* A per-field status keeps sibling numbers meaningful (ns_json_set_num uses "status"). */
    if (isfinite(v)) {
        json_object_set_new(o, key, json_real(v));
    } else {
        char k[64];
        json_object_set_new(o, key, json_null());
        snprintf(k, sizeof k, "%s_status", key);
        json_object_set_new(o, k, json_string("not computed"));
    }
}

static json_t *array_of(const double *x, size_t n) {
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_real(x[i]));
    return a;
}

json_t *ns_gate_report_json(const ns_gate_report *rep) {
    const ns_gate_opts *o = &rep->opts;
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("nodescale-gate/1"));
    json_object_set_new(root, "mode", json_string(rep->mode));
    json_object_set_new(root, "baseline", json_string(rep->baseline ? rep->baseline : ""));
    json_object_set_new(root, "current", json_string(rep->current ? rep->current : ""));
    json_object_set_new(root, "verdict", json_string(rep->exit_code ? "fail" : "pass"));
    json_object_set_new(root, "exit_code", json_integer(rep->exit_code));
    json_t *s = json_object();
    set_num(s, "threshold", o->threshold);
    set_num(s, "suite_threshold", rep->suite_threshold);
    set_num(s, "alpha", o->alpha);
    set_num(s, "confidence", 1 - o->alpha);
    json_object_set_new(s, "min_samples", json_integer(o->min_samples));
    set_num(s, "noise_floor_s", o->noise_floor_s);
    json_object_set_new(s, "bootstrap_resamples", json_integer(o->resamples));
    char seed[24];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)o->seed);
    json_object_set_new(s, "bootstrap_seed", json_string(seed));
    char rule[160];
    json_object_set_new(s, "rule", json_string(gate_rule_text(rep, rule, sizeof rule)));
    if (!strcmp(rep->mode, "ab")) json_object_set_new(s, "rounds", json_integer(rep->rounds));
    json_object_set_new(s, "ratio_estimator", json_string(ratio_estimator(rep)));
    json_object_set_new(root, "settings", s);
    json_object_set_new(root, "context_mismatch",
                        rep->mismatches ? json_deep_copy(rep->mismatches) : json_array());
    if (rep->build_diffs)
        json_object_set_new(root, "build_differences", json_deep_copy(rep->build_diffs));
    json_object_set_new(root, "warnings",
                        rep->warnings ? json_deep_copy(rep->warnings) : json_array());
    char next[1024];
    next_steps(rep, next, sizeof next);
    if (next[0]) json_object_set_new(root, "next_steps", json_string(next));
    json_t *rows = json_array();
    for (size_t i = 0; i < rep->nrows; i++) {
        const ns_gate_row *r = &rep->rows[i];
        json_t *j = json_object();
        json_object_set_new(j, "id", json_string(r->id));
        json_object_set_new(j, "verdict", json_string(ns_gate_verdict_name(r->verdict)));
        json_object_set_new(j, "regression", json_boolean(r->verdict == NS_GATE_REGRESSION));
        json_object_set_new(j, "n_baseline", json_integer((json_int_t)(r->d ? r->nd : r->nbase)));
        json_object_set_new(j, "n_current", json_integer((json_int_t)(r->d ? r->nd : r->ncur)));
        set_num(j, "median_baseline_s", r->med_base);
        set_num(j, "median_current_s", r->med_cur);
        set_num(j, "ratio", r->ratio);
        set_num(j, "ratio_ci_low", r->ci_lo);
        set_num(j, "ratio_ci_high", r->ci_hi);
        set_num(j, "p_value", r->p);
        json_object_set_new(j, "test", json_string(test_name(r)));
        set_num(j, "threshold", r->threshold);
        if (isfinite(r->drift)) {
            json_object_set_new(j, "between_run_drift", json_real(r->drift));
            json_object_set_new(j, "drift_runs", json_integer((json_int_t)r->nhistory));
        }
        if (r->note[0]) json_object_set_new(j, "note", json_string(r->note));
        if (r->d) {
            json_object_set_new(j, "old_round_medians_s", array_of(r->base, r->nbase));
            json_object_set_new(j, "new_round_medians_s", array_of(r->cur, r->ncur));
        }
        json_array_append_new(rows, j);
    }
    json_object_set_new(root, "benchmarks", rows);
    json_t *su = json_object();
    json_object_set_new(su, "n_benchmarks", json_integer((json_int_t)rep->suite_n));
    set_num(su, "geomean_ratio", rep->suite_geomean);
    set_num(su, "ci_low", rep->suite_lo);
    set_num(su, "ci_high", rep->suite_hi);
    set_num(su, "threshold", rep->suite_threshold);
    if (rep->suite_nhistory) {
        set_num(su, "between_run_drift", rep->suite_drift);
        json_object_set_new(su, "drift_runs", json_integer((json_int_t)rep->suite_nhistory));
    }
    json_object_set_new(su, "verdict", json_string(ns_gate_verdict_name(rep->suite_verdict)));
    json_object_set_new(root, "suite", su);
    set_num(root, "elapsed_s", rep->elapsed_s);
    return root;
}

int ns_gate_write_json(const ns_gate_report *rep, const char *path, char *err, size_t errlen) {
    json_t *root = ns_gate_report_json(rep);
    int rc = -1;
    if (strcmp(path, "-")) {
        rc = ns_json_write_atomic(root, path, err, errlen);
    } else {
        char *text = json_dumps(root, NS_JSON_DUMP_FLAGS);
        if (!text)
            snprintf(err, errlen, "out of memory");
        else if ((rc = ns_write_output(path, text, strlen(text), err, errlen)) == 0)
            rc = ns_write_output(path, "\n", 1, err, errlen);
        free(text);
    }
    json_decref(root);
    return rc;
}

void ns_gate_print_mismatches(FILE *f, const json_t *mismatches, const char *fmt) {
    size_t i;
    const json_t *m;
    json_array_foreach(mismatches, i, m) {
        /* A --history file's difference has its value under "history": fmt's "current" then
         * reads "history" (it named the current run, which does not differ). */
        const json_t *hv = json_object_get(m, "history");
        char hfmt[256], *at;
        const char *use = fmt;
        if (hv && strlen(fmt) < sizeof hfmt && (at = strstr(strcpy(hfmt, fmt), "current"))) {
            memcpy(at, "history", 7);
            use = hfmt;
        }
        char *bv = json_dumps(json_object_get(m, "baseline"), JSON_ENCODE_ANY | JSON_COMPACT);
        char *cv =
            json_dumps(hv ? hv : json_object_get(m, "current"), JSON_ENCODE_ANY | JSON_COMPACT);
        fprintf(f, use, json_string_value(json_object_get(m, "key")), bv ? bv : "?", cv ? cv : "?");
        free(bv);
        free(cv);
    }
}

static void row_summary(const ns_gate_row *r, char *buf, size_t len) {
    char a[32], b[32], c[32], d[64], p[32];
    snprintf(buf, len, "%s: baseline %s, current %s, change %s, interval %s, p %s%s%s",
             ns_gate_verdict_name(r->verdict), fmt_time(r->med_base, a, sizeof a),
             fmt_time(r->med_cur, b, sizeof b), fmt_change(r->ratio, c, sizeof c),
             fmt_ci(r->ci_lo, r->ci_hi, d, sizeof d), fmt_p(r->p, p, sizeof p),
             r->note[0] ? "; " : "", r->note);
}

/* A test case's time="": the benchmark's measured time, the current median in seconds per
 * repetition (A/B: the median of the new binary's round medians), as a plain decimal (JUnit's
 * xs:decimal, no exponent); "0" when there is none (no data), never nan. */
static const char *junit_time(double seconds, char *buf, size_t len) {
    if (isfinite(seconds) && seconds > 0 && seconds < 1e9)
        snprintf(buf, len, "%.9f", seconds);
    else
        snprintf(buf, len, "0");
    return buf;
}

int ns_gate_write_junit(const ns_gate_report *rep, const char *path, char *err, size_t errlen) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t fails = rep->suite_verdict == NS_GATE_REGRESSION || rep->suite_n == 0, skips = 0;
    for (size_t i = 0; i < rep->nrows; i++) {
        ns_gate_verdict v = rep->rows[i].verdict;
        if (v == NS_GATE_REGRESSION || v == NS_GATE_INVALID)
            fails++;
        else if (v >= NS_GATE_INSUFFICIENT) {
            if (rep->opts.fail_on_missing)
                fails++;
            else
                skips++;
        }
    }
    size_t tests = rep->nrows + 1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f,
            "<testsuites name=\"nodescale gate\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" "
            "time=\"%.3f\">\n",
            tests, fails, skips, rep->elapsed_s);
    fprintf(f,
            "  <testsuite name=\"nodescale gate\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
            "skipped=\"%zu\" time=\"%.3f\">\n",
            tests, fails, skips, rep->elapsed_s);
    fprintf(f, "    <properties>\n");
    fprintf(f, "      <property name=\"mode\" value=\"%s\"/>\n", rep->mode);
    fprintf(f, "      <property name=\"baseline\" value=\"");
    ns_xml_text(f, rep->baseline ? rep->baseline : "");
    fprintf(f, "\"/>\n      <property name=\"current\" value=\"");
    ns_xml_text(f, rep->current ? rep->current : "");
    fprintf(f, "\"/>\n      <property name=\"threshold\" value=\"%g\"/>\n", rep->opts.threshold);
    fprintf(f, "      <property name=\"alpha\" value=\"%g\"/>\n", rep->opts.alpha);
    fprintf(f, "      <property name=\"context_mismatch\" value=\"%zu\"/>\n",
            json_array_size(rep->mismatches));
    fprintf(f, "    </properties>\n");
    char line[600], tbuf[48];
    for (size_t i = 0; i < rep->nrows; i++) {
        const ns_gate_row *r = &rep->rows[i];
        row_summary(r, line, sizeof line);
        fprintf(f, "    <testcase classname=\"nodescale.gate\" name=\"");
        ns_xml_text(f, r->id);
        fprintf(f, "\" time=\"%s\">\n", junit_time(r->med_cur, tbuf, sizeof tbuf));
        int invalid = r->verdict == NS_GATE_INVALID;
        int missing = r->verdict >= NS_GATE_INSUFFICIENT && !invalid;
        if (r->verdict == NS_GATE_REGRESSION || invalid || (missing && rep->opts.fail_on_missing)) {
            fprintf(f, "      <failure message=\"");
            ns_xml_text(f, line);
            fprintf(f, "\" type=\"%s\"/>\n",
                    r->verdict == NS_GATE_REGRESSION ? "regression"
                    : invalid                        ? "invalid"
                                                     : "missing");
        } else if (missing) {
            fprintf(f, "      <skipped message=\"");
            ns_xml_text(f, line);
            fprintf(f, "\"/>\n");
        }
        fprintf(f, "      <system-out>");
        ns_xml_text(f, line);
        fprintf(f, "</system-out>\n    </testcase>\n");
    }
    char c[32], d[64];
    snprintf(line, sizeof line, "suite geometric mean over %zu benchmarks: %s, interval %s: %s",
             rep->suite_n, fmt_change(rep->suite_geomean, c, sizeof c),
             fmt_ci(rep->suite_lo, rep->suite_hi, d, sizeof d),
             ns_gate_verdict_name(rep->suite_verdict));
    fprintf(f, "    <testcase classname=\"nodescale.gate\" name=\"suite geometric mean\" "
               "time=\"0\">\n");
    if (rep->suite_verdict == NS_GATE_REGRESSION || rep->suite_n == 0) {
        fprintf(f, "      <failure message=\"");
        ns_xml_text(f, line);
        fprintf(f, "\" type=\"%s\"/>\n", rep->suite_n == 0 ? "nothing compared" : "regression");
    }
    fprintf(f, "      <system-out>");
    ns_xml_text(f, line);
    fprintf(f, "</system-out>\n    </testcase>\n");
    /* Warnings and what to do after a failure, in the suite's error stream. */
    char next[1024];
    next_steps(rep, next, sizeof next);
    if (json_array_size(rep->warnings) || next[0] || drift_note(rep)[0]) {
        fprintf(f, "    <system-err>");
        for (size_t i = 0; i < json_array_size(rep->warnings); i++) {
            fprintf(f, "WARNING: ");
            ns_xml_text(f, json_string_value(json_array_get(rep->warnings, i)));
            fprintf(f, "\n");
        }
        ns_xml_text(f, drift_note(rep));
        ns_xml_text(f, next);
        fprintf(f, "</system-err>\n");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return ns_write_memstream(f, &buf, &len, path, err, errlen);
}

int ns_gate_write_markdown(const ns_gate_report *rep, const char *path, char *err, size_t errlen) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const ns_gate_opts *o = &rep->opts;
    size_t nr = nregress(rep);
    fprintf(f, "### nodescale gate: %s\n\n", rep->exit_code ? "**FAIL**" : "**PASS**");
    if (!strcmp(rep->mode, "ab"))
        fprintf(f, "Interleaved A/B, %d rounds: old ", rep->rounds);
    else
        fprintf(f, "Baseline ");
    ns_md_code(f, rep->baseline ? rep->baseline : "", 0);
    fprintf(f, strcmp(rep->mode, "ab") ? ", current " : ", new ");
    ns_md_code(f, rep->current ? rep->current : "", 0);
    fprintf(f, ".\n");
    if (rep->suite_n == 0)
        fprintf(f, "**Nothing was compared** (every benchmark missing, without data or with too "
                   "few samples): the gate fails.\n");
    char rule[160];
    fprintf(f, "%zu regression%s. A benchmark regresses when %s.\n\n", nr, nr == 1 ? "" : "s",
            gate_rule_text(rep, rule, sizeof rule));
    if (ninvalid(rep))
        fprintf(f, "**%zu INVALID**: the current result %s; the gate fails.\n\n", ninvalid(rep),
                ncheck_failed(rep) == ninvalid(rep) ? "failed its output check"
                : ncheck_failed(rep)                ? "failed its output check or has a status "
                                                      "other than ok (see each row)"
                                                    : "has a status other than ok (see each row)");
    fprintf(f, "Change: the %s; the suite line is their geometric mean.\n\n", ratio_estimator(rep));
    size_t nmis = json_array_size(rep->mismatches);
    if (nmis) {
        fprintf(f, "> **Warning: context mismatch.** Compared anyway (`--allow-context-mismatch`); "
                   "differences may come from the machine or build:\n");
        ns_gate_print_mismatches(f, rep->mismatches, "> - `%s`: baseline `%s`, current `%s`\n");
        fprintf(f, "\n");
    }
    for (size_t i = 0; i < json_array_size(rep->warnings); i++) {
        fprintf(f, "> **Warning:** ");
        ns_md_cell(f, json_string_value(json_array_get(rep->warnings, i)));
        fprintf(f, "\n");
    }
    if (json_array_size(rep->warnings)) fprintf(f, "\n");
    if (json_array_size(rep->build_diffs)) {
        fprintf(f, "The two builds differ in:\n");
        ns_gate_print_mismatches(f, rep->build_diffs, "- `%s`: old `%s`, new `%s`\n");
        fprintf(f, "\n");
    }
    fprintf(f, "| benchmark | %s | %s | change | %.0f%% interval | p | n | verdict |\n",
            strcmp(rep->mode, "ab") ? "baseline" : "old",
            strcmp(rep->mode, "ab") ? "current" : "new", 100 * (1 - o->alpha));
    fprintf(f, "|---|---:|---:|---:|---|---:|---:|---|\n");
    for (size_t i = 0; i < rep->nrows; i++) {
        const ns_gate_row *r = &rep->rows[i];
        char a[32], b[32], c[32], d[64], p[32], n[32];
        fprintf(f, "| ");
        ns_md_code(f, r->id, 1);
        fprintf(f, " | %s | %s | %s | %s | %s | %s | %s", fmt_time(r->med_base, a, sizeof a),
                fmt_time(r->med_cur, b, sizeof b), fmt_change(r->ratio, c, sizeof c),
                fmt_ci(r->ci_lo, r->ci_hi, d, sizeof d), fmt_p(r->p, p, sizeof p),
                row_n_text(r, n, sizeof n),
                r->verdict == NS_GATE_REGRESSION ? "**REGRESSION**"
                : r->verdict == NS_GATE_INVALID  ? "**INVALID**"
                                                 : ns_gate_verdict_name(r->verdict));
        if (r->note[0]) {
            fprintf(f, " (");
            ns_md_cell(f, r->note);
            fprintf(f, ")");
        }
        fprintf(f, " |\n");
    }
    char c[32], d[64];
    if (nfew(rep))
        fprintf(f,
                "\n%zu benchmark(s) have fewer than %d samples: only large effects can be "
                "significant.\n",
                nfew(rep), NS_MIN_SAMPLES);
    fprintf(f,
            "\nSuite geometric mean over %zu benchmarks: %s, interval %s (bootstrap, fixed "
            "seed): %s (threshold +%.1f%%%s%s).\n",
            rep->suite_n, fmt_change(rep->suite_geomean, c, sizeof c),
            fmt_ci(rep->suite_lo, rep->suite_hi, d, sizeof d),
            rep->suite_verdict == NS_GATE_REGRESSION ? "**REGRESSION**"
                                                     : ns_gate_verdict_name(rep->suite_verdict),
            100 * rep->suite_threshold, rep->suite_note[0] ? ", " : "", rep->suite_note);
    char next[1024];
    next_steps(rep, next, sizeof next);
    const char *note = drift_note(rep);
    if (note[0]) fprintf(f, "\n%.*s\n", (int)strlen(note) - 1, note);
    if (next[0]) fprintf(f, "\n**What next:**\n\n");
    /* Line by line, as escaped text (an id comes from the input file). */
    for (char *line = next, *nl; *line; line = nl + 1) {
        if (!(nl = strchr(line, '\n'))) break;
        *nl = 0;
        ns_md_cell(f, line);
        fprintf(f, "  \n");
    }
    return ns_write_memstream(f, &buf, &len, path, err, errlen);
}
