/* The CI regression gate (`nodescale gate`): compares the timing samples of every benchmark
 * present in a baseline and a current results.json (matched by results[].id), or of pairs of
 * interleaved runs of two builds (--ab), and decides per benchmark and for the whole suite.
 *
 * Two result files: a benchmark is a regression only when both hold: the rank test is
 * significant (two-sided p < alpha) and the whole (1 - alpha) confidence interval of the time
 * ratio current/baseline lies above 1 + threshold. Requiring the interval, not only the point
 * estimate, above the threshold is what keeps a 5% gate quiet on benchmarks whose run-to-run
 * spread is a few percent: two runs measured apart carry drift that their own
 * samples cannot show. Interleaved A/B pairs cancel that drift, so there a significant
 * signed-rank test and a paired estimate above 1 + threshold suffice (early stopping still uses
 * the interval). Samples are seconds per repetition; lower is better; a null sample, a result
 * whose status is not "ok" or whose samples_s is null is "no data", never zero, except a
 * current result that failed validation: that is INVALID and fails the gate. */
#ifndef NS_GATE_H
#define NS_GATE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ns_gate_opts {
    double threshold;       /* relative slowdown that counts as a regression (0.05 = 5%) */
    double suite_threshold; /* same for the suite geometric mean; NAN = threshold */
    double alpha;           /* significance level; the intervals are at 1 - alpha */
    int min_samples;        /* fewer valid samples (or A/B rounds) on a side: insufficient data */
    double noise_floor_s;   /* differences of medians below this many seconds never fail */
    int allow_context_mismatch;
    int allow_build_change; /* files: compiler/flags/library differences allowed, machine checked */
    int fail_on_missing; /* no data / insufficient data / missing benchmark: exit 1 */
    int resamples;       /* bootstrap resamples of the suite geometric mean */
    uint64_t seed;       /* bootstrap seed (fixed: the same inputs give the same verdict) */
    /* Per-benchmark thresholds ("PATTERN THRESHOLD [NOISE_FLOOR_S]" lines), loaded by
     * ns_gate_load_thresholds; first matching pattern (fnmatch glob on the id) wins. */
    struct ns_gate_rule *rules;
    size_t nrules;
    /* Earlier results files of the baseline build (--history): their per-benchmark medians give
     * the between-run drift that within-run samples cannot show; history_files[i] (may be NULL)
     * names history[i] in warnings. Not owned. */
    json_t **history;
    const char *const *history_files;
    size_t nhistory;
} ns_gate_opts;

/* Parses a threshold as the gate's options take it: a fraction ("0.05", below 1) or a percent
 * ("5%", up to 1000%) into *out (0.05). A bare number >= 1 is refused as ambiguous (5 could mean
 * 5% or 500%). Returns 0, or -1 (then *out is unchanged). */
int ns_gate_parse_fraction(const char *s, double *out);

typedef struct ns_gate_rule {
    char *pattern;
    double threshold;
    double noise_floor_s; /* NAN = the global --noise-floor */
} ns_gate_rule;

typedef enum {
    NS_GATE_UNCHANGED = 0, /* not significant */
    NS_GATE_WITHIN,        /* significant, but the interval is not beyond the threshold */
    NS_GATE_IMPROVEMENT,   /* significant, interval entirely below 1/(1 + threshold) */
    NS_GATE_REGRESSION,    /* significant, interval entirely above 1 + threshold */
    NS_GATE_INSUFFICIENT,  /* fewer than min_samples, or too few for the interval */
    NS_GATE_NO_DATA,       /* null samples or a status other than "ok" on a side */
    NS_GATE_ONLY_BASELINE, /* id missing from the current file */
    NS_GATE_ONLY_CURRENT,  /* id missing from the baseline file */
    NS_GATE_INVALID,       /* the current result failed validation ("validated": false or a
                              status "invalid: ..."): fails the gate, whatever the timings */
} ns_gate_verdict;

/* Why an NS_GATE_INVALID row's current result failed: its output check ("validated": false, or
 * the status "invalid: output check failed" that the harness writes then), or another status that
 * reports a failure (a thread team the OpenMP runtime cut, a zero time, "failed: ..."). */
typedef enum {
    NS_GATE_VALID = 0,      /* the row is not INVALID */
    NS_GATE_INVALID_CHECK,  /* the output check failed: the build computes wrongly */
    NS_GATE_INVALID_STATUS, /* another failed status: no rerun of the check fixes it */
} ns_gate_invalid_kind;

/* One compared benchmark. Arrays are owned by the row. */
typedef struct ns_gate_row {
    char *id;
    ns_gate_verdict verdict;
    double *base, *cur; /* valid samples (seconds per repetition) */
    size_t nbase, ncur;
    double *d; /* paired mode: log(new/old) of each round's medians */
    size_t nd;
    double med_base, med_cur; /* medians (paired: medians of the rounds' medians), seconds */
    double ratio;             /* exp(Hodges-Lehmann estimate): of the log-time shift unpaired,
                                 of d paired; median(cur)/median(base) when insufficient data */
    double ci_lo, ci_hi;      /* (1 - alpha) interval of the ratio; NAN when undefined */
    double p;                 /* two-sided p-value; NAN when not computed */
    int exact;                /* p from the exact permutation distribution */
    double threshold;         /* effective threshold used (rule, noise floor, drift) */
    double drift;             /* between-run relative spread of the medians, exp(sigma) - 1 with
                                 sigma that of their logs (--history); NAN */
    size_t nhistory;          /* runs that drift was estimated from (history + baseline) */
    ns_gate_invalid_kind invalid_kind; /* NS_GATE_INVALID: why; else NS_GATE_VALID */
    char note[200];
} ns_gate_row;

typedef struct ns_gate_report {
    const char *mode; /* "files" or "ab" */
    const char *baseline, *current;
    ns_gate_opts opts;
    ns_gate_row *rows;
    size_t nrows;
    json_t *mismatches;  /* [{key, baseline, current}] context differences (owned) */
    json_t *build_diffs; /* A/B, --allow-build-change: build differences shown (owned) */
    json_t *warnings;    /* one-line warnings (strings) shown in every report (owned) */
    int disturbed;       /* files: an input's samples or clock say its machine was disturbed */
    size_t suite_n;
    double suite_geomean, suite_lo, suite_hi, suite_threshold;
    double suite_drift;    /* --history: between-run relative spread of the suite geomean (the
                              threshold is raised by it as a row's is); NAN without */
    size_t suite_nhistory; /* runs suite_drift was estimated from (history + baseline) */
    char suite_note[120];  /* why the suite threshold differs from the option's, or "" */
    ns_gate_verdict suite_verdict;
    int exit_code; /* 0 pass, 1 regression */
    int rounds;    /* A/B rounds run */
    double elapsed_s;
} ns_gate_report;

/* gate --ab's default --rounds, and the samples a side the advice after a FAIL asks a rerun of one
 * benchmark for (at least --min-samples): a benchmark looked at alone gets as many samples as an
 * interleaved run gives it by default. */
#define NS_GATE_DEFAULT_ROUNDS 30

/* Defaults: threshold 5%, alpha 0.05, min_samples 5, noise floor 0, 2000 resamples, seed fixed. */
ns_gate_opts ns_gate_defaults(void);

/* Short name of a verdict ("regression", "insufficient data", ...). */
const char *ns_gate_verdict_name(ns_gate_verdict v);

/* Loads per-benchmark thresholds into o->rules. Lines: PATTERN THRESHOLD [NOISE_FLOOR_S];
 * THRESHOLD as a fraction (0.1) or percent (10%); '#' starts a comment. 0, or -1 with
 * "FILE:LINE: reason" in err. */
int ns_gate_load_thresholds(ns_gate_opts *o, const char *path, char *err, size_t errlen);
void ns_gate_free_rules(ns_gate_opts *o);

/* Appends to `out` (a JSON array) one {key, baseline, current} per context field that differs:
 * cpu vendor/model/isa list, the selected ISA, sockets/cores/PUs, thread settings,
 * virtualization (virtualized, hypervisor), memory size (memory.total_bytes, differing by more
 * than 5%), and, unless machine_only, the compiler, cflags and library versions. A field absent
 * from both is not compared. Returns the number of differences appended. */
size_t ns_gate_context_diff(const json_t *base, const json_t *cur, int machine_only, json_t *out);

/* Appends to rep->warnings what makes the input document doc (role "baseline", "current" or
 * "history", file path) untrustworthy: "interrupted": true, NODESCALE_INJECT_SLOWDOWN recorded
 * in its context.env, a changed clock (context.clock_probe.changed) or a median sample CV above 5%
 * or the threshold, whichever is larger (these two set rep->disturbed). */
void ns_gate_input_warnings(ns_gate_report *rep, const json_t *doc, const char *role,
                            const char *file);

/* Appends to rep->warnings one line per --thresholds pattern that matches no row's id. */
void ns_gate_rule_warnings(ns_gate_report *rep);

/* Compares two loaded results documents into *rep (rep->opts, mode, paths set by the caller or
 * defaulted). Returns 0, or -1 with a one-line reason in err for a wrong schema (no results
 * array, a result without a string id, a duplicate id, samples_s neither an array nor null, a
 * sample neither a number nor null) or when the files share no benchmark id (the reason then
 * names the likely cause, differing threads, ISA or sizes read from the ids and the context, and
 * a few ids of each side). Ids without a partner on the other side add such a line to
 * rep->warnings. Does not apply the context check (see ns_gate_context_diff). */
int ns_gate_compare_docs(const json_t *base, const json_t *cur, ns_gate_report *rep, char *err,
                         size_t errlen);

/* Statistics and verdict of one row whose samples (or d) are filled; threshold taken from the
 * rules. Exposed for the unit tests. */
void ns_gate_evaluate_row(ns_gate_row *r, const ns_gate_opts *o);

/* Suite geometric mean and its verdict, and rep->exit_code. Call after every row is evaluated.
 * With --history the suite threshold is raised by the between-run drift of the suite geomean
 * (the geometric mean over the compared benchmarks of each history run's median over the
 * baseline's), by the rule of a row (see ns_gate_evaluate_row). */
void ns_gate_finish(ns_gate_report *rep);

void ns_gate_report_free(ns_gate_report *rep);

/* Writers. The text table goes to f; the others write files atomically (tmp + rename), or to
 * standard output when path is "-" (flushed and checked), and return 0, or -1 with a one-line
 * reason in err. */
void ns_gate_write_text(const ns_gate_report *rep, FILE *f);
json_t *ns_gate_report_json(const ns_gate_report *rep);
int ns_gate_write_json(const ns_gate_report *rep, const char *path, char *err, size_t errlen);
int ns_gate_write_junit(const ns_gate_report *rep, const char *path, char *err, size_t errlen);
int ns_gate_write_markdown(const ns_gate_report *rep, const char *path, char *err, size_t errlen);

/* Prints one line per context difference with fmt, which takes key, baseline, current (%s). */
void ns_gate_print_mismatches(FILE *f, const json_t *mismatches, const char *fmt);

/* Interleaved A/B: round after round, runs `OLD bench KERNEL ARGS... --json F` and the same with
 * NEW for every kernel, alternating which build goes first (ABBA order cancels a linear drift),
 * and fills rep with one paired row per kernel (rep->rounds = rounds run). From min_rounds on it
 * stops as soon as every kernel is settled (a regression, or an interval entirely below
 * 1 + threshold); at most `rounds` rounds. These repeated looks raise the false-alarm rate only
 * for true slowdowns near the threshold, because a regression needs the whole interval above it.
 * Returns 0, or -1 with a one-line reason (a build could not be run, exited non-zero, or wrote
 * an unreadable file). */
int ns_gate_run_ab(const char *old_bin, const char *new_bin, char **kernels, int nkernels,
                   char **bench_args, int nargs, int min_rounds, int rounds, ns_gate_report *rep,
                   char *err, size_t errlen);

#endif
