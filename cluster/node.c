/* The node bridge: what a nodescale run measured on this node (results.json), turned into the
 * cluster model's chip: the GEMM efficiency table (fraction of the measured compute roof per
 * shape; as the chip, the GEMM rate over the peak taken), the within-run sample jitter (median
 * time_s.cv of GEMM times, used as the step-time CV unless --step-cv is given), and when the node
 * is the chip, its compute ceilings and DRAM bandwidth. Also measured collective α–β from an
 * all-reduce fit. */
#include "cluster/cluster.h"
#include "cluster/equations.h"
#include "harness/allreduce.h"
#include "harness/json.h"
#include "harness/stats.h"
#include "roofline/roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -1;                                                                                 \
    } while (0)

#define NS_CV_MAX 1024 /* GEMM results whose CV enters the median */

/* "dp"/"sp" (results.json) → model precision; the GEMM name decides when precision is absent. */
static ns_cprec entry_prec(const json_t *r) {
    const char *p = json_string_value(json_object_get(r, "precision"));
    const char *name = json_string_value(json_object_get(r, "name"));
    if (p) return !strcmp(p, "sp") ? NS_CP_FP32 : NS_CP_FP64;
    return name && name[0] == 's' ? NS_CP_FP32 : NS_CP_FP64;
}

/* Adds (or improves) the table point for shape (m, n, k); the best implementation per shape is
 * kept, since a framework would call the fastest library on the node. Returns the point's index
 * when this result is the one kept, else -1. */
static int add_point(ns_chip *c, double m, double n, double k, double eff) {
    for (int i = 0; i < c->n_gemm; i++) {
        ns_gemm_point *g = &c->gemm[i];
        if (g->m == m && g->n == n && g->k == k) {
            if (!(eff > g->eff)) return -1;
            g->eff = eff;
            return i;
        }
    }
    if (c->n_gemm >= NS_GEMM_POINTS_MAX) return -1;
    c->gemm[c->n_gemm] = (ns_gemm_point){m, n, k, eff, 0};
    return c->n_gemm++;
}

/* Takes the GEMM table of precision `want` from results[] into c, counting in *info the
 * results refused (above their roof), and into cvs[] the CVs of the results the table keeps (the
 * best per shape, whose efficiency it holds: not a slower peer's); returns the point count.
 * Each efficiency is fraction_of_roof, or with peak > 0 (FLOP/s) the GEMM's rate re-based on
 * that peak: gflops / peak (fraction_of_roof where a result has no gflops). */
static int gemm_table(ns_chip *c, const json_t *results, ns_cprec want, double *cvs,
                      ns_node_info *info, double peak) {
    size_t i;
    json_t *r;
    double point_cv[NS_GEMM_POINTS_MAX]; /* the CV of the result each point holds, or -1 */
    c->n_gemm = 0;
    memset(info, 0, sizeof *info);
    info->precision = want;
    json_array_foreach(results, i, r) {
        const char *fam = json_string_value(json_object_get(r, "family"));
        if (!fam || strcmp(fam, "gemm") || entry_prec(r) != want) continue;
        json_t *p = json_object_get(r, "params");
        double m = ns_json_get_num(p, "m"), n = ns_json_get_num(p, "n"),
               k = ns_json_get_num(p, "k");
        double eff = ns_json_get_num(r, "fraction_of_roof");
        if (!(m >= 1 && n >= 1 && k >= 1 && eff > 0)) continue; /* unmeasured: null + status */
        if (eff > 1.0) { /* above the roof: the ceiling was mis-measured; refuse */
            if (info->gemm_refused < NS_NODE_REFUSED_IDS) {
                const char *id = json_string_value(json_object_get(r, "id"));
                snprintf(info->refused_ids[info->gemm_refused], sizeof info->refused_ids[0], "%s",
                         id ? id : "(no id)");
            }
            info->gemm_refused++;
            info->refused_max = fmax(info->refused_max, eff);
            continue;
        }
        double rate = ns_json_get_num(r, "gflops");
        if (peak > 0 && rate > 0) eff = rate * 1e9 / peak;
        int at = add_point(c, m, n, k, eff);
        double cv = ns_json_get_num(json_object_get(r, "time_s"), "cv");
        if (at >= 0) point_cv[at] = cv >= 0 ? cv : -1.0;
    }
    for (int p = 0; p < c->n_gemm && info->cv_results < NS_CV_MAX; p++)
        if (point_cv[p] >= 0) cvs[info->cv_results++] = point_cv[p];
    return info->gemm_points = c->n_gemm;
}

/* Whether the compute ceiling e (one of ceilings.compute[]) is flagged suspect: by itself
 * ("suspect": true) or, as `nodescale run` and `roofline` write it, by its entry in
 * roofline.ceilings_used.compute[] (ns_roofline_used_compute); the reason into *why (a string of
 * results, or "no reason given"; NULL when not suspect). Returns 1 when suspect. (Not roofline.c's
 * compute_suspect, which decides the suspicion that this reads.) */
static int ceiling_marked_suspect(const json_t *results, const json_t *e, const char **why) {
    const json_t *src = NULL;
    *why = NULL;
    if (json_is_true(json_object_get(e, "suspect"))) src = e;
    if (!src) {
        const json_t *u = ns_roofline_used_compute(results, e);
        if (json_is_true(json_object_get(u, "suspect"))) src = u;
    }
    if (!src) return 0;
    const char *w = json_string_value(json_object_get(src, "suspect_reason"));
    if (!w) w = json_string_value(json_object_get(src, "status"));
    *why = w && w[0] ? w : "no reason given";
    return 1;
}

/* A compute ceiling as "peak_sp_fma (avx512, 2 threads, 238.1 GFLOP/s)" into buf. */
static const char *ceiling_words(const json_t *e, char *buf, size_t len) {
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *isa = json_string_value(json_object_get(e, "isa"));
    double t = ns_json_get_num(e, "threads");
    snprintf(buf, len, "%s (%s, %.0f thread%s, %.4g GFLOP/s)", name ? name : "?", isa ? isa : "?",
             t > 0 ? t : 0, t == 1 ? "" : "s", ns_json_get_num(e, "gflops"));
    return buf;
}

/* Why precision p's peak is doubtful, into buf; the length snprintf gives (peak_warning). */
static int peak_text(char *buf, size_t len, int p, const json_t *taken, const json_t *sus,
                     const char *why) {
    char a[160], b[160];
    if (taken == sus)
        return snprintf(buf, len,
                        "the chip's %s peak is the compute ceiling %s, which the roofline flags "
                        "suspect (%s): the model scales with it; measure again on a quiet node, "
                        "or give --peak-tflop-per-s",
                        ns_cprec_name((ns_cprec)p), ceiling_words(taken, a, sizeof a), why);
    return snprintf(buf, len,
                    "the chip's %s peak is the compute ceiling %s, not the higher %s, which the "
                    "roofline flags suspect (%s); if that one is right the chip is underrated: "
                    "measure again on a quiet node, or give --peak-tflop-per-s",
                    ns_cprec_name((ns_cprec)p), ceiling_words(taken, a, sizeof a),
                    ceiling_words(sus, b, sizeof b), why);
}

#define NS_CUT_MARK " [...]" /* ends a reason cut to fit */

/* Why precision p's peak is doubtful, into buf: `taken` is the ceiling used, `sus` the highest
 * suspect one (the same when no trusted one exists), `why` the roofline's reason. Where the
 * whole text does not fit, only the reason is cut, at a space, and marked NS_CUT_MARK: the
 * ceilings and the advice are always whole. */
static void peak_warning(char *buf, size_t len, int p, const json_t *taken, const json_t *sus,
                         const char *why) {
    int n = peak_text(buf, len, p, taken, sus, why);
    if (n < 0 || (size_t)n < len) return;
    size_t over = (size_t)n - (len - 1) + strlen(NS_CUT_MARK), wl = strlen(why);
    size_t keep = wl > over ? wl - over : 0;
    while (keep > 0 && why[keep] != ' ') /* a whole word (and never half a UTF-8 character) */
        keep--;
    char cut[1024];
    snprintf(cut, sizeof cut, "%.*s%s", (int)(keep < 900 ? keep : 900), why,
             NS_CUT_MARK + (keep == 0)); /* no space before the mark of an empty reason */
    peak_text(buf, len, p, taken, sus, cut);
}

/* The fastest GEMM of precision p the node measured on a roof (0 < fraction_of_roof <= 1), in
 * GFLOP/s (its median-sample rate); 0 when none. */
static double fastest_gemm(const json_t *res, ns_cprec p) {
    size_t i;
    json_t *r;
    double best = 0;
    json_array_foreach(res, i, r) {
        const char *fam = json_string_value(json_object_get(r, "family"));
        double f = ns_json_get_num(r, "fraction_of_roof"), g = ns_json_get_num(r, "gflops");
        if (fam && !strcmp(fam, "gemm") && entry_prec(r) == p && f > 0 && f <= 1 && g > best)
            best = g;
    }
    return best;
}

/* A fleet.json is not one node's results: the reason names the results.json of the first node
 * that has one. Returns 0 when `results` is no fleet, else -1 with the reason. */
static int node_refuse_fleet(const json_t *results, char *err, size_t errlen) {
    const char *kind = json_string_value(json_object_get(results, "kind"));
    if (!kind || strcmp(kind, "fleet")) return 0;
    size_t i;
    json_t *nd;
    const char *one = NULL;
    json_array_foreach(json_object_get(results, "nodes"), i, nd) {
        if (!one) one = json_string_value(json_object_get(nd, "results"));
    }
    FAIL("is a fleet.json, not one node's results: pass a node's results.json from its "
         "folder (%s)",
         one ? one : "nodes/<node>/results.json");
}

/* Takes the GEMM table into in->sys.chip (gemm_table): of the run's precision if measured, else
 * single, else double precision; *info says what was taken, cvs[] the CVs of its results.
 * Returns 0, or -1 with the reason when no precision has a GEMM on a roof: every GEMM above its
 * roof, GEMMs with no roofline (a `nodescale bench` file), or none at all. */
static int node_gemm_table_or_fail(ns_cluster_input *in, const json_t *res, double *cvs,
                                   ns_node_info *info, char *err, size_t errlen) {
    ns_cprec order[3] = {in->run.precision, NS_CP_FP32, NS_CP_FP64};
    int got = 0, refused = 0;
    double refused_max = 0;
    for (int i = 0; i < 3 && !got; i++) {
        got = gemm_table(&in->sys.chip, res, order[i], cvs, info, 0);
        refused += info->gemm_refused;
        refused_max = fmax(refused_max, info->refused_max);
    }
    if (got) return 0;
    if (refused)
        FAIL("results.json: every measured GEMM is above its roof (fraction_of_roof up to %.3g): "
             "the compute ceiling was mis-measured (a noisy run); measure again",
             refused_max);
    /* GEMMs measured but not placed on a roof (a `nodescale bench` result): say so. */
    size_t i;
    json_t *r;
    int unroofed = 0;
    json_array_foreach(res, i, r) {
        const char *fam = json_string_value(json_object_get(r, "family"));
        unroofed += fam && !strcmp(fam, "gemm") && !(ns_json_get_num(r, "fraction_of_roof") > 0) &&
                    ns_json_get_num(json_object_get(r, "time_s"), "median") > 0;
    }
    if (unroofed)
        FAIL("results.json has %d GEMM result%s but no roofline (no fraction_of_roof: a "
             "`nodescale bench` file has no measured ceilings); `nodescale run` measures "
             "the ceilings and places its GEMMs on them",
             unroofed, unroofed == 1 ? "" : "s");
    FAIL("results.json has no measured GEMM (family \"gemm\" with fraction_of_roof)");
}

/* The node as the chip: per precision the highest FMA ceiling of ceilings.compute[] (a GEMM's
 * roof) not flagged suspect (ceiling_marked_suspect), as for the DRAM bandwidth; other mixes
 * only where a precision has no FMA entry. Only ceilings of the most threads measured compete:
 * the node is the chip with all its cores, as its GEMMs ran (a 1-thread peak under 2-thread
 * GEMMs gave a hardware FLOP utilisation of 122%). A suspect ceiling is taken only where no
 * trusted one exists or the trusted one is below a GEMM the node ran, and either way the
 * suspicion is said: in->node.peak_warning[p]. Sets chip.peak_flops[p] and in->node.peak_taken,
 * peak_threads; a precision without a ceiling keeps its peak. */
static void node_pick_peaks(ns_cluster_input *in, const json_t *results, const json_t *res) {
    const json_t *compute = json_object_get(json_object_get(results, "ceilings"), "compute");
    size_t i;
    json_t *e;
    const json_t *pick[NS_CP_COUNT][2][2] = {{{0}}}; /* [precision][fma?][suspect?] */
    const char *why[NS_CP_COUNT][2][2] = {{{0}}};    /* strings of results */
    double most[NS_CP_COUNT][2] = {{0}};             /* the most threads a ceiling ran on */
    json_array_foreach(compute, i, e) {
        const char *mix = json_string_value(json_object_get(e, "mix"));
        int fma = mix && !strcmp(mix, "fma");
        if (ns_json_get_num(e, "gflops") > 0)
            most[entry_prec(e)][fma] =
                fmax(most[entry_prec(e)][fma], ns_json_get_num(e, "threads"));
    }
    json_array_foreach(compute, i, e) {
        const char *mix = json_string_value(json_object_get(e, "mix"));
        int fma = mix && !strcmp(mix, "fma");
        const char *w;
        int sus = ceiling_marked_suspect(results, e, &w);
        const json_t **best = &pick[entry_prec(e)][fma][sus];
        if (!(ns_json_get_num(e, "gflops") > 0)) continue;
        if (ns_json_get_num(e, "threads") < most[entry_prec(e)][fma]) continue;
        if (!*best || ns_json_get_num(e, "gflops") > ns_json_get_num(*best, "gflops")) {
            *best = e;
            why[entry_prec(e)][fma][sus] = w;
        }
    }
    ns_chip *c = &in->sys.chip;
    for (int p = 0; p < NS_CP_COUNT; p++) {
        int fma = pick[p][1][0] || pick[p][1][1];
        const json_t *ok = pick[p][fma][0], *sus = pick[p][fma][1];
        const json_t *e1 = ok ? ok : sus;
        /* A trusted ceiling below a GEMM the node ran is no peak (the model would run that GEMM
         * above 100% of the chip): the suspect one, the roof the GEMMs were judged against. */
        if (ok && sus && ns_json_get_num(ok, "gflops") < fastest_gemm(res, (ns_cprec)p)) e1 = sus;
        if (!e1) continue;
        c->peak_flops[p] = ns_json_get_num(e1, "gflops") * 1e9;
        in->node.peak_taken[p] = c->peak_flops[p];
        in->node.peak_threads[p] = ns_json_get_num(e1, "threads");
        if (sus && (!ok || ns_json_get_num(sus, "gflops") > ns_json_get_num(ok, "gflops")))
            peak_warning(in->node.peak_warning[p], sizeof in->node.peak_warning[p], p, e1, sus,
                         why[p][fma][1]);
    }
}

/* The DRAM ceiling of ceilings.bandwidth[] that the model's memory-bound work (GEMM operands,
 * norms, residuals, activations: normal loads and stores) gets, in GB/s, and into in->node which
 * one (kernel, class, threads, suspect). By the kernel's load/store class first, as the roofline
 * judges it (ns_roofline_kernel_class): write-allocating (stream_triad and the other STREAM
 * kernels that store), else read-only (stream_load, stream_sum), else a kernel of no known class
 * (its stores may or may not write-allocate), and a non-temporal-store ceiling (stream_triad_nt:
 * no write-allocate) only when there is no other, since normal stores do not reach it. Within a
 * class, the highest entry not flagged suspect, else the highest. 0 when there is no DRAM
 * entry. */
#define DRAM_CLASSES 4
static const int dram_class_rank[DRAM_CLASSES] = {NS_CLS_WA, NS_CLS_READ, NS_CLS_NONE, NS_CLS_NT};

/* The rank of a ceiling's kernel in dram_class_rank[] (NULL: a ceiling that names none). */
static int dram_class(const char *kernel) {
    int cls = ns_roofline_kernel_class(kernel, NULL), r = 0;
    while (r < DRAM_CLASSES - 1 && dram_class_rank[r] != cls)
        r++;
    return r;
}

static double node_dram_bw(const json_t *results, ns_node_info *ni) {
    const json_t *bandwidth = json_object_get(json_object_get(results, "ceilings"), "bandwidth");
    const json_t *best[DRAM_CLASSES][2] = {{NULL}}; /* [class][suspect] */
    size_t i;
    json_t *e;
    json_array_foreach(bandwidth, i, e) {
        const char *level = json_string_value(json_object_get(e, "level"));
        double b = ns_json_get_num(e, "gbytes_per_s");
        if (!level || strcmp(level, "DRAM") || !(b > 0)) continue;
        int cls = dram_class(json_string_value(json_object_get(e, "kernel")));
        int sus = json_is_true(json_object_get(e, "suspect"));
        const json_t **slot = &best[cls][sus];
        if (!*slot || b > ns_json_get_num(*slot, "gbytes_per_s")) *slot = e;
    }
    for (int cls = 0; cls < DRAM_CLASSES; cls++)
        for (int sus = 0; sus < 2; sus++) {
            const json_t *t = best[cls][sus];
            if (!t) continue;
            const char *k = json_string_value(json_object_get(t, "kernel"));
            snprintf(ni->mem_bw_kernel, sizeof ni->mem_bw_kernel, "%s", k ? k : "(sweep)");
            const char *cn = ns_roofline_class_name(dram_class_rank[cls]);
            ni->mem_bw_class = cn ? cn : "unknown";
            ni->mem_bw_threads = ns_json_get_num(t, "threads");
            ni->mem_bw_suspect = sus;
            ni->mem_bw_gbytes_per_s = ns_json_get_num(t, "gbytes_per_s");
            return ni->mem_bw_gbytes_per_s;
        }
    return 0;
}

/* The node trains in the precision its GEMM table (of precision `table`) was measured in, the
 * run's own when it has one (a CPU has no bf16 ceiling), so that the table's efficiencies apply
 * to that precision's peak; failing a peak of that precision, in the run's, else fp32, else fp64.
 * With the table's precision, the efficiencies are re-based on the peak taken: fraction_of_roof
 * is against the ceiling the roofline used, which may be a suspect one passed over here, and the
 * model runs a GEMM at peak x efficiency; so efficiency = the GEMM's rate / this peak, and the
 * chip runs each GEMM at its measured rate (in->node.eff_peak says which peak). */
static void node_rebase_on_peak(ns_cluster_input *in, const json_t *res, ns_cprec table,
                                double *cvs) {
    ns_chip *c = &in->sys.chip;
    if (c->peak_flops[table] > 0) {
        in->run.precision = table;
        ns_node_info again;
        gemm_table(c, res, table, cvs, &again, c->peak_flops[table]);
        ns_chip_finish(c);
        in->node.eff_peak = c->peak_flops[table];
        /* the CV follows the results the re-based table keeps */
        if (again.cv_results > 0) {
            in->sys.step_cv = ns_median(cvs, (size_t)again.cv_results);
            in->node.cv_results = again.cv_results;
            in->node.step_cv = in->sys.step_cv;
        }
    } else if (!(c->peak_flops[in->run.precision] > 0))
        in->run.precision = c->peak_flops[NS_CP_FP32] > 0 ? NS_CP_FP32 : NS_CP_FP64;
}

int ns_cluster_apply_node(ns_cluster_input *in, const json_t *results, int as_chip, char *err,
                          size_t errlen) {
    ns_chip *c = &in->sys.chip;
    const json_t *res = json_object_get(results, "results");
    if (node_refuse_fleet(results, err, errlen)) return -1;
    if (!json_is_array(res)) FAIL("results.json has no results[] array");
    double cvs[NS_CV_MAX];
    ns_node_info info;
    if (node_gemm_table_or_fail(in, res, cvs, &info, err, errlen)) return -1;
    ns_chip_finish(c);
    if (info.cv_results > 0) in->sys.step_cv = ns_median(cvs, (size_t)info.cv_results);
    info.step_cv = in->sys.step_cv;
    info.applied = 1;
    info.interrupted = json_is_true(json_object_get(results, "interrupted"));
    in->node = info;
    if (!as_chip) return 0;

    /* The node as the chip: compute ceilings per precision and the DRAM bandwidth. */
    node_pick_peaks(in, results, res);
    double bw = node_dram_bw(results, &in->node);
    if (!(c->peak_flops[NS_CP_FP64] > 0 || c->peak_flops[NS_CP_FP32] > 0))
        FAIL("results.json has no compute ceiling (ceilings.compute[].gflops)");
    if (!(bw > 0)) FAIL("results.json has no DRAM bandwidth ceiling (ceilings.bandwidth[])");
    c->mem_bw_bytes_per_s = bw * 1e9;
    in->node.as_chip = 1;
    /* Memory capacity: the node's RAM, unless a preset or flag already set one. */
    double ram = ns_json_get_num(json_object_get(json_object_get(results, "context"), "memory"),
                                 "total_bytes");
    if (!(c->mem_capacity_bytes > 0) && ram > 0) {
        c->mem_capacity_bytes = ram;
        in->node.mem_bytes = ram;
    }
    const json_t *cpu = json_object_get(json_object_get(results, "context"), "cpu");
    const char *model = json_string_value(json_object_get(cpu, "model"));
    snprintf(c->name, sizeof c->name, "%s", model ? model : "this node");
    node_rebase_on_peak(in, res, info.precision, cvs);
    return 0;
}

const char *ns_node_mem_bw_source(const ns_cluster_input *in, char *buf, size_t len) {
    const ns_node_info *ni = &in->node;
    buf[0] = '\0';
    if (!ni->as_chip || !ni->mem_bw_class) return buf;
    char what[256];
    snprintf(what, sizeof what, "the DRAM ceiling of %s (%s class, %.0f thread%s%s)",
             ni->mem_bw_kernel, ni->mem_bw_class, ni->mem_bw_threads,
             ni->mem_bw_threads == 1 ? "" : "s", ni->mem_bw_suspect ? ", flagged suspect" : "");
    if (ni->mem_bw_overridden)
        snprintf(buf, len, "--mem-bw-gbytes-per-s (the node's %.4g GB/s, %s, not used)",
                 ni->mem_bw_gbytes_per_s, what);
    else
        snprintf(buf, len,
                 "%s: the model's memory-bound work uses normal stores, so a non-temporal-store "
                 "ceiling is taken only when there is no other (--mem-bw-gbytes-per-s overrides "
                 "it)",
                 what);
    return buf;
}

/* The plausible range of an all-reduce fit (ns_cluster_apply_allreduce). */
#define NS_FIT_ALPHA_MIN 1e-12  /* s: a latency of 1 ps (0 is allowed too) */
#define NS_FIT_ALPHA_MAX 1.0    /* s */
#define NS_FIT_BETA_MIN 1e-15   /* s/B: 1 PB/s */
#define NS_FIT_BETA_MAX 1e-3    /* s/B: 1 kB/s */
#define NS_FIT_RESIDUAL_MAX 1e3 /* max_rel_residual, a share (100000%) */

int ns_cluster_apply_allreduce(ns_cluster_input *in, const json_t *root, int scaleup, char *err,
                               size_t errlen) {
    const json_t *ar = json_object_get(root, "allreduce");
    if (!json_is_object(ar)) ar = NULL;
    const json_t *fit = json_object_get(ar, "fit");
    if (!ar) fit = json_object_get(root, "fit");
    if (!ar && !fit && json_object_get(root, "alpha_s")) fit = root; /* a bare fit */
    if (!ar && !fit)
        FAIL("has no all-reduce fit (no allreduce.fit or fit object, nor a bare "
             "{alpha_s, beta_s_per_byte})");
    double a = ns_json_get_num(fit, "alpha_s"), b = ns_json_get_num(fit, "beta_s_per_byte");
    double n = ns_json_get_num(fit, "ranks");
    if (!(a >= 0) || !(b > 0)) {
        /* Not measured (fleet --no-collectives, one rank, too few sizes) or not usable: say why
         * in the file's own words; the outer status first, since it names the cause. */
        const char *st = json_string_value(json_object_get(ar, "status"));
        const char *fst = json_string_value(json_object_get(fit, "status"));
        if (!st || !strcmp(st, "ok") || !strncmp(st, "sizes above", 11)) st = fst;
        if (json_is_number(json_object_get(fit, "alpha_s")) &&
            json_is_number(json_object_get(fit, "beta_s_per_byte")))
            FAIL("has an unusable all-reduce fit (alpha_s %g, beta_s_per_byte %g; the model "
                 "needs alpha_s >= 0 and beta_s_per_byte > 0)%s%s%s",
                 a, b, st ? " (" : "", st ? st : "", st ? ")" : "");
        FAIL("has no measured all-reduce fit (%s)", st ? st : "no alpha_s and beta_s_per_byte");
    }
    /* A measurement, not any positive number (alpha 1e308 gave inf step times):
     * latency 0 or 1 ps to 1 s, 1 kB/s to 1 PB/s, a residual that is a share. */
    if (!(a == 0 || (a >= NS_FIT_ALPHA_MIN && a <= NS_FIT_ALPHA_MAX)))
        FAIL("has an implausible all-reduce fit: alpha_s %g is not 0 nor in %g..%g s", a,
             NS_FIT_ALPHA_MIN, NS_FIT_ALPHA_MAX);
    if (!(b >= NS_FIT_BETA_MIN && b <= NS_FIT_BETA_MAX))
        FAIL("has an implausible all-reduce fit: beta_s_per_byte %g is not in %g..%g s/B (1 PB/s "
             "to 1 kB/s)",
             b, NS_FIT_BETA_MIN, NS_FIT_BETA_MAX);
    const json_t *mr = ns_allreduce_fit_residual_json(fit);
    if (mr && !json_is_null(mr) &&
        !(json_is_number(mr) && json_number_value(mr) >= 0 &&
          json_number_value(mr) <= NS_FIT_RESIDUAL_MAX))
        FAIL("has an implausible all-reduce fit: max_rel_residual must be a number in 0..%g "
             "(a share of the time, not a percentage)",
             NS_FIT_RESIDUAL_MAX);
    const json_t *rk = json_object_get(fit, "ranks");
    if (rk && !json_is_null(rk) &&
        !(json_is_number(rk) && n >= 2 && n == floor(n) && n <= NS_CLUSTER_MAX_CHIPS))
        FAIL("has an unusable all-reduce fit: ranks must be an integer in 2..%d when given",
             NS_CLUSTER_MAX_CHIPS);
    /* The whole all-reduce's α, β → per-link values under the ring model. A node's fit
     * (nodescale run, results.json allreduce.fit) carries them as per_step_alpha_s and
     * link_beta_s_per_byte; a fit without them is converted with its ranks, else with the
     * section's threads (allreduce.fit has no "ranks" key where its schedule is not the ring,
     * nor in a results.json of an older nodescale). A bare fit is per-link. */
    double ps_a = ns_json_get_num(fit, "per_step_alpha_s");
    double lk_b = ns_json_get_num(fit, "link_beta_s_per_byte");
    const char *sched = json_string_value(json_object_get(fit, "schedule"));
    double thr = ns_json_get_num(ar, "threads");
    if (!(n >= 2) && thr >= 2 && thr == floor(thr) && thr <= NS_CLUSTER_MAX_CHIPS) n = thr;
    if ((!sched || !strcmp(sched, "ring")) && ps_a >= 0 && ps_a <= a &&
        lk_b >= NS_FIT_BETA_MIN && lk_b <= b) { /* a part of the whole, never more */
        a = ps_a;
        b = lk_b;
    } else if (n >= 2) {
        ns_ring_link_alpha_beta((int)n, &a, &b);
    }
    ns_link *l = scaleup ? &in->sys.scaleup : &in->sys.scaleout;
    l->latency_s = a;
    l->bw_bytes_per_s = 1.0 / b;
    return 0;
}

const char *ns_node_gemm_warning(const ns_cluster_input *in, char *buf, size_t len) {
    const ns_node_info *ni = &in->node;
    buf[0] = '\0';
    if (ni->applied && ni->gemm_refused > 0)
        snprintf(buf, len,
                 "%d GEMM result%s above the roof refused (fraction_of_roof up to %.3g, first %s): "
                 "the compute ceiling was mis-measured (a noisy run); the table holds the other "
                 "%d shape%s",
                 ni->gemm_refused, ni->gemm_refused > 1 ? "s" : "", ni->refused_max,
                 ni->refused_ids[0], ni->gemm_points, ni->gemm_points == 1 ? "" : "s");
    return buf;
}

const char *ns_node_eff_statistic(const ns_cluster_input *in, char *buf, size_t len) {
    const ns_node_info *ni = &in->node;
    double t = ni->peak_threads[ni->precision];
    if (!(ni->eff_peak > 0))
        snprintf(buf, len, "%s", NS_NODE_GEMM_STATISTIC);
    else
        snprintf(buf, len,
                 "the GEMM's median-sample rate (gflops, on the threads it ran) / the %s peak "
                 "the chip takes (%.4g GFLOP/s, a ceiling on %.0f thread%s), not fraction_of_roof "
                 "(against the ceiling the roofline used), so that each GEMM runs at its measured "
                 "rate",
                 ns_cprec_name(ni->precision), ni->eff_peak / 1e9, t, t == 1 ? "" : "s");
    return buf;
}

const char *ns_node_cv_warning(const ns_cluster_input *in, char *buf, size_t len) {
    const ns_node_info *ni = &in->node;
    buf[0] = '\0';
    if (ni->applied && !ni->cv_overridden && ni->cv_results > 0 &&
        ni->step_cv > NS_NODE_CV_DISTURBED)
        snprintf(buf, len,
                 "step CV %.3g (median time_s.cv of %d GEMM results: sample jitter within one "
                 "run) is above %.2g: the node was "
                 "disturbed while it measured (a shared or noisy machine), and the straggler "
                 "wait it drives is inflated; measure on a quiet node or give --step-cv",
                 ni->step_cv, ni->cv_results, NS_NODE_CV_DISTURBED);
    return buf;
}

const char *ns_node_peak_warning(const ns_cluster_input *in, char *buf, size_t len) {
    const ns_node_info *ni = &in->node;
    int p = in->run.precision;
    buf[0] = '\0';
    if (ni->applied && ni->as_chip && ni->peak_warning[p][0] &&
        in->sys.chip.peak_flops[p] == ni->peak_taken[p])
        snprintf(buf, len, "%s", ni->peak_warning[p]);
    return buf;
}

const char *ns_node_interrupted_warning(const ns_cluster_input *in, char *buf, size_t len) {
    buf[0] = '\0';
    if (in->node.applied && in->node.interrupted)
        snprintf(buf, len,
                 "the node's run was interrupted (\"interrupted\": true): it holds only the "
                 "benchmarks that finished, so its GEMM table may lack shapes");
    return buf;
}

void ns_node_info_json(json_t *obj, const ns_cluster_input *in, const char *source) {
    const ns_node_info *ni = &in->node;
    char buf[1024];
    ns_json_set_str(obj, "source", source);
    ns_json_set_str(obj, "gemm_precision", ns_cprec_name(ni->precision));
    if (ni->precision != in->run.precision) { /* why the table is another precision's */
        snprintf(buf, sizeof buf,
                 "%s: the node has no %s GEMM on a roof%s, so its %s GEMM efficiencies stand in "
                 "for %s",
                 ni->as_chip ? "the node's run precision has no compute ceiling"
                             : "a transfer to the chip preset",
                 ns_cprec_name(in->run.precision), ni->as_chip ? " that the chip can use" : "",
                 ns_cprec_name(ni->precision), ns_cprec_name(in->run.precision));
        ns_json_set_str(obj, "gemm_precision_status", buf);
    }
    ns_json_set_int(obj, "gemm_points", ni->gemm_points);
    json_t *ids = json_array();
    for (int i = 0; i < ni->gemm_refused && i < NS_NODE_REFUSED_IDS; i++)
        json_array_append_new(ids, json_string(ni->refused_ids[i]));
    json_object_set_new(obj, "gemm_points_refused", ids);
    ns_json_set_int(obj, "gemm_points_refused_count", ni->gemm_refused);
    ns_node_gemm_warning(in, buf, sizeof buf);
    ns_json_set_str(obj, "gemm_status", buf[0] ? buf : "ok");
    ns_json_set_str(obj, "gemm_efficiency_statistic",
                    ni->eff_overridden ? "--gemm-efficiency (the node's GEMM shapes not used)"
                                       : ns_node_eff_statistic(in, buf, sizeof buf));
    json_object_set_new(obj, "interrupted", json_boolean(ni->interrupted));
    if (ns_node_interrupted_warning(in, buf, sizeof buf)[0])
        ns_json_set_str(obj, "interrupted_warning", buf);
    if (ns_node_peak_warning(in, buf, sizeof buf)[0]) ns_json_set_str(obj, "peak_warning", buf);
    if (ns_node_mem_bw_source(in, buf, sizeof buf)[0]) {
        ns_json_set_num(obj, "memory_bandwidth_gbytes_per_s", in->sys.chip.mem_bw_bytes_per_s / 1e9,
                        NULL);
        ns_json_set_str(obj, "memory_bandwidth_source", buf);
    }
    ns_json_set_num(obj, "step_cv", in->sys.step_cv, NULL);
    if (ni->cv_overridden)
        snprintf(buf, sizeof buf, "--step-cv (the measured %.3g replaced)", ni->step_cv);
    else if (ni->cv_results > 0)
        snprintf(buf, sizeof buf,
                 "median time_s.cv of %d %s GEMM results in %s (sample-to-sample jitter within "
                 "one run; --step-cv overrides it)",
                 ni->cv_results, ns_cprec_name(ni->precision), source);
    else
        snprintf(buf, sizeof buf, "the presets (no GEMM result in %s has time_s.cv)", source);
    ns_json_set_str(obj, "step_cv_source", buf);
    if (ns_node_cv_warning(in, buf, sizeof buf)[0])
        snprintf(buf, sizeof buf,
                 "disturbed: step CV %.3g above %.2g, straggler wait inflated (used as measured)",
                 ni->step_cv, NS_NODE_CV_DISTURBED);
    else
        snprintf(buf, sizeof buf, "%s", ni->cv_overridden ? "overridden by --step-cv" : "ok");
    ns_json_set_str(obj, "variability_status", buf);
}
