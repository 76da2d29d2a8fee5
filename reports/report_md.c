/* report.md from a results.json document (see report.h). Every number printed comes from the
 * document; a null prints as "—" with its status, never as 0. */
#include "reports/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/allreduce.h"
#include "harness/json.h"
#include "harness/outdir.h"
#include "harness/run.h"
#include "harness/stats.h"
#include "kernels/registry.h"
#include "roofline/roofline.h"

static const char *str(const json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "—";
}

/* A byte count in KiB/MiB/GiB (ns_format_bytes), or an em dash. */
static void bytes_human(FILE *f, double b) {
    char s[32];
    ns_format_bytes(s, sizeof s, b);
    fputs(s, f);
}

/* The working set a bandwidth ceiling was measured at: the range of the sweep points it was
 * taken from ("512 KiB–1 MiB"), or the one size when they are one. working_set_bytes is their
 * geometric middle, a size never measured, so it prints only when a file has no range. */
static void ceiling_working_set(FILE *f, const json_t *c) {
    double lo = ns_json_get_num(c, "working_set_min_bytes");
    double hi = ns_json_get_num(c, "working_set_max_bytes");
    if (!(lo > 0) || !(hi >= lo)) {
        bytes_human(f, ns_json_get_num(c, "working_set_bytes"));
        return;
    }
    bytes_human(f, lo);
    if (hi > lo) {
        fprintf(f, "–");
        bytes_human(f, hi);
    }
}

/* The smallest whole `threads` value above `after` among the entries of arr (ceilings'
 * bandwidth[]), or 0 when none is: stepping through it lists the thread counts the file holds,
 * ascending, whatever their range. */
static json_int_t next_threads(const json_t *arr, json_int_t after) {
    json_int_t best = 0;
    size_t i;
    const json_t *c;
    json_array_foreach(arr, i, c) {
        json_int_t t = json_integer_value(json_object_get(c, "threads"));
        if (t > after && (best == 0 || t < best)) best = t;
    }
    return best;
}

/* Whether a result's samples varied by more than NS_DISTURBED_CV (time_s.cv): the machine was
 * disturbed while it ran. The Kernels and GEMM tables mark such numbers with a warning sign. */
static int noisy(const json_t *r) {
    double cv = ns_json_get_num(json_object_get(r, "time_s"), "cv");
    return isfinite(cv) && cv > NS_DISTURBED_CV;
}

/* A number with printf format fmt, or an em dash when null. */
static void num(FILE *f, const json_t *o, const char *key, const char *fmt) {
    double v = ns_json_get_num(o, key);
    if (isfinite(v)) fprintf(f, fmt, v);
    else fprintf(f, "—");
}

static void node_facts(FILE *f, const json_t *ctx) {
    const json_t *cpu = json_object_get(ctx, "cpu");
    fprintf(f, "## Node\n\n| | |\n|---|---|\n");
    fprintf(f, "| host | ");
    ns_md_cell(f, str(ctx, "host"));
    fprintf(f, " |\n| date | ");
    ns_md_cell(f, str(ctx, "date"));
    fprintf(f, " |\n");
    fprintf(f, "| CPU | "); /* names from the machine: escaped, so report.html shows them */
    ns_md_cell(f, str(cpu, "model"));
    fprintf(f, " (");
    ns_md_cell(f, str(cpu, "vendor"));
    fprintf(f, ") |\n");
    fprintf(f, "| cores / PUs / sockets / NUMA nodes | %lld / %lld / %lld / %lld |\n",
            json_integer_value(json_object_get(cpu, "cores")),
            json_integer_value(json_object_get(cpu, "pus")),
            json_integer_value(json_object_get(cpu, "sockets")),
            json_integer_value(json_object_get(cpu, "numa_nodes")));
    fprintf(f, "| ISA used | ");
    ns_md_cell(f, str(cpu, "isa_selected"));
    fprintf(f, " |\n");
    fprintf(f, "| caches |");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(cpu, "caches"), i, c) {
        char size[32];
        ns_format_bytes(size, sizeof size,
                        (double)json_integer_value(json_object_get(c, "size_bytes")));
        fprintf(f, "%s L%lld%s %s x%lld (shared by %lld)", i ? ";" : "",
                json_integer_value(json_object_get(c, "level")),
                !strcmp(str(c, "type"), "instruction") ? "i" : "", size,
                json_integer_value(json_object_get(c, "count")),
                json_integer_value(json_object_get(c, "shared_by_cores")));
    }
    fprintf(f, " |\n");
    /* Every text from the file through ns_md_cell: a '|' in it split the row. */
    fprintf(f, "| threads | %lld (", json_integer_value(json_object_get(ctx, "threads")));
    ns_md_cell(f, str(json_object_get(ctx, "affinity"), "placement"));
    fprintf(f, ") |\n| virtualized | %s ",
            json_is_true(json_object_get(ctx, "virtualized")) ? "yes" : "no");
    ns_md_cell(f, json_is_string(json_object_get(ctx, "hypervisor")) ? str(ctx, "hypervisor") : "");
    fprintf(f, " |\n| OS | ");
    ns_md_cell(f, str(ctx, "os"));
    fprintf(f, " |\n| compiler | ");
    ns_md_cell(f, str(ctx, "compiler"));
    fprintf(f, ", ");
    ns_md_cell(f, str(ctx, "cflags"));
    fprintf(f, " |\n");
    const json_t *timer = json_object_get(ctx, "timer");
    fprintf(f, "| timer | ");
    ns_md_cell(f, str(timer, "source"));
    fprintf(f, ", resolution ");
    num(f, timer, "resolution_s", "%.2g s");
    fprintf(f, " |\n");
    const json_t *ctr = json_object_get(ctx, "counters");
    fprintf(f, "| counters | ");
    ns_md_cell(f, ctr ? str(ctr, "summary") : "not measured");
    fprintf(f, " |\n");
    const json_t *probe = json_object_get(ctx, "clock_probe");
    fprintf(f, "| clock (probe, no counters needed) | ");
    num(f, probe, "before_ghz", "%.2f GHz before");
    fprintf(f, ", ");
    num(f, probe, "after_ghz", "%.2f GHz after");
    fprintf(f, "%s |\n\n", json_is_true(json_object_get(probe, "changed"))
                                ? " — **the clock changed during the run: it was disturbed**"
                                : "");
}

/* The entry of results[] whose id is id, or NULL. */
static const json_t *result_by_id(const json_t *root, const char *id) {
    size_t i;
    json_t *r;
    if (!id) return NULL;
    json_array_foreach(json_object_get(root, "results"), i, r) {
        const char *rid = json_string_value(json_object_get(r, "id"));
        if (rid && !strcmp(rid, id)) return r;
    }
    return NULL;
}

static void ceilings(FILE *f, const json_t *root) {
    const json_t *ceil = json_object_get(root, "ceilings");
    size_t i;
    json_t *c;
    /* The roofline's own verdict ("ok; N of the ceilings used are suspect ..."), above the
     * tables it is about. */
    const char *rst =
        json_string_value(json_object_get(json_object_get(root, "roofline"), "status"));
    fprintf(f, "## Compute ceilings\n\n");
    if (rst && strcmp(rst, "ok")) fprintf(f, "Roofline: **%s**.\n\n", rst);
    fprintf(f, "| kernel | precision | ISA | mix | threads | GFLOP/s (fastest sample) | note |\n"
               "|---|---|---|---|---:|---:|---|\n");
    json_array_foreach(json_object_get(ceil, "compute"), i, c) {
        static const char *const text[] = {"name", "precision", "isa", "mix"};
        for (size_t k = 0; k < sizeof text / sizeof *text; k++) {
            fprintf(f, "| ");
            ns_md_cell(f, str(c, text[k]));
            fprintf(f, " ");
        }
        fprintf(f, "| %lld | ", json_integer_value(json_object_get(c, "threads")));
        num(f, c, "gflops", "%.1f");
        /* A suspect ceiling says so, and why, as the pictures' "(suspect)" labels do. */
        const json_t *u = ns_roofline_used_compute(root, c);
        int sus = u && json_is_true(json_object_get(u, "suspect"));
        fprintf(f, "%s |", sus ? " (suspect)" : "");
        if (sus) {
            fprintf(f, " suspect: ");
            ns_md_cell(f, str(u, "suspect_reason"));
        }
        /* What the kernel executes (its result's `executes`): the scalar ISA's fma ceiling is
         * a multiply then an add. A code span, since the text holds '*'. */
        const char *ex = json_string_value(json_object_get(
            result_by_id(root, json_string_value(json_object_get(c, "result_id"))), "executes"));
        if (ex && !strchr(ex, '`') && !strchr(ex, '|'))
            fprintf(f, "%sexecutes `%s`", sus ? "; " : " ", ex);
        fprintf(f, " |\n");
    }
    fprintf(f, "\nGEMM is judged against the FMA-only ceiling of its precision and thread count; "
               "mixed-instruction ceilings are shown for reference.\n\n");
    /* A sweep point's rate is its fastest sample, as STREAM and likwid-bench report; a level's
     * ceiling is the median of its points' (one point for source "kernel phase"). */
    fprintf(f, "## Bandwidth ceilings\n\n| threads | level | kernel | working sets measured | GB/s "
               "(median of the points' fastest samples) | note |\n"
               "|---:|---|---|---:|---:|---|\n");
    static const char *const levels[] = {"L1", "L2", "L3", "L4", "DRAM"};
    for (json_int_t t = 0; (t = next_threads(json_object_get(ceil, "bandwidth"), t)) > 0;) {
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
            json_array_foreach(json_object_get(ceil, "bandwidth"), i, c) {
                if (json_integer_value(json_object_get(c, "threads")) != t ||
                    strcmp(str(c, "level"), levels[l]) != 0)
                    continue;
                fprintf(f, "| %lld | %s | ", (long long)t, levels[l]);
                ns_md_cell(f, str(c, "kernel"));
                fprintf(f, " | ");
                ceiling_working_set(f, c);
                fprintf(f, " | ");
                num(f, c, "gbytes_per_s", "%.1f");
                fprintf(f, "%s | ",
                        json_is_true(json_object_get(c, "suspect")) ? " (suspect)" : "");
                ns_md_cell(f, json_is_string(json_object_get(c, "status")) &&
                                      strcmp(str(c, "status"), "ok")
                                  ? str(c, "status")
                                  : "");
                fprintf(f, " |\n");
            }
    }
    if (json_array_size(json_object_get(ceil, "bandwidth")) == 0) {
        fprintf(f, "| — | | | | ");
        ns_md_cell(f, str(json_object_get(root, "roofline"), "status"));
        fprintf(f, " |\n");
    }
    fprintf(f, "\nA ceiling is the median, over the sweep points of its level, of each point's "
               "fastest sample (a kernel-phase ceiling: its one fastest sample). Bytes are counted "
               "without write-allocate (\"minimal\", as STREAM and likwid-bench count them), for "
               "ceilings and kernels alike; the same count hides different real traffic (a "
               "triad's normal stores write-allocate: 32 B move per 24 counted), so each kernel "
               "is judged against the ceiling of its own load/store class (read-only, "
               "write-allocating or non-temporal stores), or its `roof_status` says which "
               "kernel's roof it got and by how much that one's real bytes differ.\n\n");
}

/* Whether result r's limiting roof is suspect: its roofline.points[] entry's roof_suspect. */
static int roof_suspect(const json_t *root, const json_t *r) {
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(json_object_get(root, "roofline"), "points"), i, p) {
        if (!strcmp(str(p, "id"), str(r, "id")))
            return json_is_true(json_object_get(p, "roof_suspect"));
    }
    return 0;
}

static void kernels(FILE *f, const json_t *root) {
    size_t i;
    json_t *r;
    fprintf(f, "## Kernels\n\nRates are each kernel's median sample; the roofs are built from "
               "fastest samples (the ceilings above), so a ceiling kernel's own row reads below "
               "100%% of its roof by its spread (`fraction_of_roof_fastest` in results.json: by "
               "the fastest sample).\n\n| id | GFLOP/s (median) | GB/s (median) | AI (FLOP/B) | roof GFLOP/s "
               "| fraction of roof | limit | cv | check | status |\n|---|---:|---:|---:|---:|---:|---|---:|---|---|\n");
    int disturbed = 0, above = 0, suspect_roofs = 0;
    json_array_foreach(json_object_get(root, "results"), i, r) {
        if (!strcmp(str(r, "family"), "peak")) continue;
        fprintf(f, "| ");
        ns_md_cell(f, str(r, "id"));
        fprintf(f, " | ");
        num(f, r, "gflops", "%.2f");
        fprintf(f, " | ");
        num(f, r, "gbytes_per_s", "%.2f");
        fprintf(f, " | ");
        num(f, r, "ai_flop_per_byte", "%.3g");
        fprintf(f, " | ");
        num(f, r, "roof_gflops", "%.1f");
        int rsus = roof_suspect(root, r);
        suspect_roofs += rsus;
        fprintf(f, "%s | ", rsus ? " (suspect)" : "");
        double fr = ns_json_get_num(r, "fraction_of_roof");
        if (isfinite(fr)) fprintf(f, "%.1f%%", 100 * fr);
        else fprintf(f, "—");
        fprintf(f, " | ");
        ns_md_cell(f,
                   json_is_string(json_object_get(r, "roof_limit")) ? str(r, "roof_limit") : "—");
        fprintf(f, " | ");
        double cv = ns_json_get_num(json_object_get(r, "time_s"), "cv");
        if (isfinite(cv)) fprintf(f, "%.1f%%%s", 100 * cv, noisy(r) ? " ⚠" : "");
        else fprintf(f, "—");
        disturbed += noisy(r);
        /* Above its roof by the median, or by the fastest sample (the statistic of the roofs):
         * the status cell adds the cause roof_status gives. */
        const char *rs = json_string_value(json_object_get(r, "roof_status"));
        const char *why = rs ? strstr(rs, "above the roof by") : NULL;
        above += why != NULL;
        fprintf(f, " | %s | ",
                json_is_true(json_object_get(r, "validated"))    ? "ok"
                : json_is_false(json_object_get(r, "validated")) ? "FAILED"
                                                                 : "—");
        ns_md_cell(f, str(r, "status"));
        if (why) {
            fprintf(f, "; ");
            ns_md_cell(f, why);
        }
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
    if (disturbed)
        fprintf(f, "⚠ %d %s varied by more than %g%% (cv) between samples: the machine was "
                   "disturbed while they ran; rerun on a quiet machine before trusting them.\n\n",
                disturbed, disturbed == 1 ? "kernel" : "kernels", 100 * NS_DISTURBED_CV);
    if (suspect_roofs)
        fprintf(f,
                "%d %s judged against a roof marked (suspect): a ceiling the roofline doubts "
                "(its reason is in the ceiling tables above, and in the entry's `roof_status` "
                "in results.json), so %s fraction of roof is doubtful too.\n\n",
                suspect_roofs, suspect_roofs == 1 ? "kernel is" : "kernels are",
                suspect_roofs == 1 ? "its" : "their");
    if (above)
        fprintf(f, "%d %s above %s roof (by the median, or by the fastest sample). A bandwidth "
                   "roof is the median of a ceiling kernel's fastest samples over the sweep "
                   "points at the level of the kernel's working set, a compute roof the fastest "
                   "sample of a peak kernel; a kernel can beat it when its rate lies within the "
                   "points that median is taken over, when part of its working set lives in a "
                   "faster level, when it streams faster than the ceiling kernel, or when the "
                   "ceiling run was disturbed. Each entry's `roof_status` in results.json gives "
                   "its own reason.\n\n",
                above, above == 1 ? "kernel ran" : "kernels ran", above == 1 ? "its" : "their");
}

/* A GFLOP/s cell of the GEMM table: the value, marked when its result was noisy. */
static void gflops_cell(FILE *f, const json_t *r) {
    double g = r ? ns_json_get_num(r, "gflops") : NAN;
    if (isfinite(g)) fprintf(f, "%.1f%s | ", g, noisy(r) ? " ⚠" : "");
    else fprintf(f, "— | ");
}

/* GEMM: own kernel beside each peer, size by size (GFLOP/s and own/peer ratio). A number whose
 * result varied by more than NS_DISTURBED_CV (cv) is marked as in the Kernels table, and so is a ratio
 * either side of which is marked. */
static void gemm_peers(FILE *f, const json_t *root) {
    const char *prec[] = {"dgemm", "sgemm"};
    size_t i, j;
    json_t *r, *q;
    int any = 0, marked = 0;
    /* The ISA each peer's kernels use (context.gemm.peers[].isa), "" when not recorded. */
    const char *pisa[2] = {"", ""};
    json_array_foreach(
        json_object_get(json_object_get(json_object_get(root, "context"), "gemm"), "peers"), i, q) {
        const char *is = json_is_string(json_object_get(q, "isa")) ? str(q, "isa") : "";
        if (!strcmp(str(q, "name"), "blis")) pisa[0] = is;
        if (!strcmp(str(q, "name"), "openblas")) pisa[1] = is;
    }
    const char *other = NULL; /* an own ISA that differs from a peer's */
    for (int pi = 0; pi < 2; pi++) {
        json_array_foreach(json_object_get(root, "results"), i, r) {
            if (strcmp(str(r, "family"), "gemm") || strcmp(str(r, "name"), prec[pi])) continue;
            const char *isa = str(r, "isa");
            if (ns_isa_is_peer(isa)) continue;
            if (!any++) {
                fprintf(f, "## GEMM beside its peers\n\n| GEMM | m=n=k | threads | own GFLOP/s ");
                static const char *const peer[] = {"BLIS", "OpenBLAS"};
                for (int w = 0; w < 2; w++) {
                    fprintf(f, "| %s%s", peer[w], *pisa[w] ? " (" : "");
                    ns_md_cell(f, pisa[w]);
                    fprintf(f, "%s ", *pisa[w] ? ")" : "");
                }
                fprintf(f, "| own / best peer |\n|---|---:|---:|---:|---:|---:|---:|\n");
            }
            for (int w = 0; w < 2; w++)
                if (*pisa[w] && strcmp(pisa[w], isa)) other = isa;
            json_int_t n = json_integer_value(json_object_get(json_object_get(r, "params"), "n"));
            json_int_t t = json_integer_value(json_object_get(r, "threads"));
            const json_t *blis = NULL, *oblas = NULL;
            json_array_foreach(json_object_get(root, "results"), j, q) {
                if (strcmp(str(q, "name"), prec[pi]) ||
                    json_integer_value(json_object_get(json_object_get(q, "params"), "n")) != n ||
                    json_integer_value(json_object_get(q, "threads")) != t)
                    continue;
                if (!strcmp(str(q, "isa"), "blis")) blis = q;
                if (!strcmp(str(q, "isa"), "openblas")) oblas = q;
            }
            double own = ns_json_get_num(r, "gflops");
            double gb = blis ? ns_json_get_num(blis, "gflops") : NAN;
            double go = oblas ? ns_json_get_num(oblas, "gflops") : NAN;
            const json_t *best = isfinite(go) && !(gb > go) ? oblas : isfinite(gb) ? blis : NULL;
            double bg = best ? ns_json_get_num(best, "gflops") : NAN;
            fprintf(f, "| %s (", prec[pi]);
            ns_md_cell(f, isa);
            fprintf(f, ") | %lld | %lld | ", (long long)n, (long long)t);
            gflops_cell(f, r);
            gflops_cell(f, blis);
            gflops_cell(f, oblas);
            int mark = noisy(r) || (best && noisy(best));
            if (isfinite(own) && bg > 0) {
                fprintf(f, "%.2f%s |\n", own / bg, mark ? " ⚠" : "");
                marked += mark;
            } else {
                fprintf(f, "— |\n");
            }
        }
    }
    if (marked)
        fprintf(f,
                "\n⚠ a number marked varied by more than %g%% (cv) between samples (the machine "
                "was disturbed while it ran), and so a marked ratio is not a fair comparison: "
                "rerun on a quiet machine before trusting it.\n",
                100 * NS_DISTURBED_CV);
    if (other)
        fprintf(f,
                "\nThe peers' kernels use the instruction sets in their column heads "
                "(`context.gemm.peers`), not always the own kernel's (%s): where they differ, "
                "own / best peer compares different instruction sets.\n",
                other);
    if (any) fprintf(f, "\n");
}

/* One schedule's alpha-beta fit of the thread all-reduce: a list item naming the schedule
 * (its "schedule", else name), the fit, its worst relative residual and its warnings; for_cluster:
 * the fit `cluster --allreduce` reads (the ring's), whose warnings say what that does with it. */
static void allreduce_fit(FILE *f, const json_t *fit, const char *name, int for_cluster) {
    const char *sched = json_string_value(json_object_get(fit, "schedule"));
    fprintf(f, "- %s: α = ", sched ? sched : name);
    num(f, fit, "alpha_s", "%.3g s");
    fprintf(f, ", β = ");
    num(f, fit, "beta_s_per_byte", "%.3g s/B");
    fprintf(f, " (%s",
            json_is_string(json_object_get(fit, "status")) ? str(fit, "status") : "fitted");
    /* The fit's quality, by the rule `cluster --allreduce` applies: above
     * NS_ALLREDUCE_ROUGH_FIT a warning, above NS_ALLREDUCE_POOR_FIT the status says "poor fit". */
    double resid = ns_allreduce_fit_residual(fit);
    const char *fst = json_string_value(json_object_get(fit, "status"));
    if (isfinite(resid) && !(fst && strstr(fst, "max_rel_residual"))) /* else the status says it */
        fprintf(f, "; worst relative residual %.0f%%", 100 * resid);
    fprintf(f, ").\n");
    if (resid > NS_ALLREDUCE_ROUGH_FIT && !ns_allreduce_fit_is_poor(fit))
        fprintf(f,
                "\n  **Warning: the %s fit's worst relative residual is %.0f%% (> %.0f%%): a "
                "straight line describes this all-reduce poorly%s.**\n",
                sched ? sched : name, 100 * resid, 100 * NS_ALLREDUCE_ROUGH_FIT,
                for_cluster ? ", and the times `cluster --allreduce` builds on it are rough" : "");
    else if (ns_allreduce_fit_is_poor(fit))
        fprintf(f,
                "\n  **Warning: the %s fit is a poor fit (above %.0f%% it is not a measurement of "
                "α and β)%s.**\n",
                sched ? sched : name, 100 * NS_ALLREDUCE_POOR_FIT,
                for_cluster ? ": `cluster --allreduce` refuses it unless "
                              "`--allreduce-accept-poor-fit`"
                            : "");
}

/* The thread all-reduce: the alpha-beta fit of each schedule (ring: the figures the cluster
 * model reads; tree), each named, with its residual and warnings (test_report.c). */
static void allreduce(FILE *f, const json_t *root) {
    const json_t *ar = json_object_get(root, "allreduce");
    if (!ar) return;
    json_int_t nt = json_integer_value(json_object_get(ar, "threads"));
    fprintf(f, "## Thread all-reduce (shared memory)\n\n%lld thread%s; %s. α–β fit "
               "t(S) = α + β·S of each schedule (`cluster --allreduce` reads the ring's):\n\n",
            (long long)nt, nt == 1 ? "" : "s", str(ar, "convention"));
    allreduce_fit(f, json_object_get(ar, "fit"), "ring", 1);
    const json_t *tree = json_object_get(ar, "fit_tree");
    if (tree) allreduce_fit(f, tree, "tree", 0);
    fprintf(f, "\nEvery point is in `results.json` → `allreduce`.\n\n");
}

/* The measured node carried to a cluster (cluster/): one line per chip count. */
static void cluster(FILE *f, const json_t *root) {
    const json_t *cl = json_object_get(root, "cluster");
    if (!cl) return;
    fprintf(f, "## This node at cluster scale\n\n");
    if (!json_object_get(cl, "points")) {
        fprintf(f, "Not modelled: %s\n\n", str(cl, "status"));
        return;
    }
    fprintf(f, "Model %s on %s chips (preset `%s`): %s.\n\n", str(cl, "model"), str(cl, "chip"),
            str(cl, "preset"), str(cl, "note"));
    /* What `cluster --node` warns about (a refused GEMM result, a disturbed step CV) is said
     * here too, above the table it changes. */
    static const char *const statuses[][2] = {{"gemm_status", "GEMM efficiency"},
                                              {"variability_status", "Variability"}};
    int warned = 0;
    for (size_t k = 0; k < sizeof statuses / sizeof statuses[0]; k++) {
        const char *st = json_string_value(json_object_get(cl, statuses[k][0]));
        if (!st || !strcmp(st, "ok")) continue;
        fprintf(f, "%s**%s: %s**", warned++ ? " " : "", statuses[k][1], st);
        if (!strcmp(statuses[k][0], "variability_status") &&
            json_is_string(json_object_get(cl, "step_cv_source")))
            fprintf(f, " (step CV: %s)", str(cl, "step_cv_source"));
        fprintf(f, "%s", strncmp(st, "disturbed", 9) ? "." : "; measure on a quiet node.");
    }
    if (warned) fprintf(f, "\n\n");
    fprintf(f, "| chips | TP | PP | CP | DP | v | micro-batch | recompute | fits in memory | "
               "step (s) | MFU | goodput | tokens/s |\n"
               "|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|\n");
    size_t i;
    json_t *p;
    /* The chip counts, for the command that gives these rows again. */
    char chips[160] = "";
    size_t used = 0;
    json_array_foreach(json_object_get(cl, "points"), i, p) {
        if (used < sizeof chips)
            used += (size_t)snprintf(chips + used, sizeof chips - used, "%s%lld", i ? "," : "",
                                     json_integer_value(json_object_get(p, "chips")));
        fprintf(f, "| %lld | %lld | %lld | %lld | %lld | %lld | %lld | ",
                json_integer_value(json_object_get(p, "chips")),
                json_integer_value(json_object_get(p, "tp")),
                json_integer_value(json_object_get(p, "pp")),
                json_integer_value(json_object_get(p, "cp")),
                json_integer_value(json_object_get(p, "dp")),
                json_integer_value(json_object_get(p, "interleave")),
                json_integer_value(json_object_get(p, "micro_batch_seqs")));
        /* recompute: the mode, and for a partial full recomputation its layers per stage */
        json_int_t rl = json_integer_value(json_object_get(p, "recompute_layers_per_stage"));
        json_int_t sl = json_integer_value(json_object_get(p, "layers_per_stage"));
        ns_md_cell(f, str(p, "recompute"));
        if (rl > 0) fprintf(f, " (%lld of %lld layers per stage)", (long long)rl, (long long)sl);
        fprintf(f, " | ");
        const json_t *fits = json_object_get(p, "fits");
        fprintf(f, "%s | ", json_is_true(fits) ? "yes" : json_is_false(fits) ? "**no**" : "unknown");
        num(f, p, "step_s", "%.3g");
        fprintf(f, " | ");
        double mfu = ns_json_get_num(p, "mfu");
        if (isfinite(mfu)) fprintf(f, "%.1f%%", 100 * mfu);
        else fprintf(f, "—");
        fprintf(f, " | ");
        double gp = ns_json_get_num(json_object_get(p, "reliability"), "goodput");
        if (isfinite(gp)) fprintf(f, "%.1f%%", 100 * gp);
        else fprintf(f, "—");
        fprintf(f, " | ");
        num(f, p, "tokens_per_s", "%.4g");
        fprintf(f, " |\n");
    }
    /* The rows are the search's best at each count with the section's chip preset; the
     * command below gives them again (test_report.c test_cluster_reproduce). */
    fprintf(f, "\nStep-time breakdown: `cluster_breakdown.svg`; MFU against chip count: "
               "`cluster_scaling.svg`. These rows again (and more with a larger `--top`): "
               "`nodescale cluster --preset %s --node results.json --chips %s --search --top 1`."
               "\n\n",
            str(cl, "preset"), chips);
}

/* 1 when dir is NULL (no folder: every file named) or the file name exists in dir. */
static int in_dir(const char *dir, const char *name) {
    char p[NS_PATH_MAX + 64];
    return !dir ||
           ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) < sizeof p && access(p, F_OK) == 0);
}

/* The "Files:" line: the files a run writes (ns_run_outputs, the list `run --help` prints) or,
 * with dir, only those in dir, and self (the report being written): a run whose disk filled
 * named files it did not have. A group names the stems and extensions it has there. */
static void files_line(FILE *f, const char *dir, const char *self) {
    int n = 0;
    fprintf(f, "Files:");
    for (const ns_run_output *o = ns_run_outputs; o->names[0]; o++) {
        const char *ext[8];
        size_t exl[8], next = 0;
        for (const char *e = o->exts; *e && next < 8;) {
            size_t l = strcspn(e, ",");
            ext[next] = e, exl[next++] = l;
            e += l;
            e += strspn(e, ", ");
        }
        int k = 0, have[8] = {0};
        for (int i = 0; o->names[i]; i++) {
            int there = !next && (in_dir(dir, o->names[i]) || (self && !strcmp(self, o->names[i])));
            for (size_t e = 0; e < next; e++) {
                char name[128];
                snprintf(name, sizeof name, "%s%.*s", o->names[i], (int)exl[e], ext[e]);
                if (in_dir(dir, name)) there = have[e] = 1;
            }
            if (there) fprintf(f, "%s `%s`", k++ ? "," : n ? ";" : "", o->names[i]);
        }
        if (!k) continue;
        for (size_t e = 0, m = 0; e < next; e++)
            if (have[e]) fprintf(f, "%s%.*s", m++ ? ", " : " (", (int)exl[e], ext[e]);
        fprintf(f, "%s: %s", next ? ")" : "", o->what);
        n++;
    }
    fprintf(f, "%s\n\n", n ? "." : " none");
}

/* The whole of report.md, written to f; its "Files:" line names only the files in dir and self
 * (files_line; every file when dir is NULL). */
static void markdown(FILE *f, const json_t *root, const char *dir, const char *self) {
    const json_t *ctx = json_object_get(root, "context");
    fprintf(f, "# nodescale report: ");
    ns_md_cell(f, str(ctx, "host"));
    fprintf(f, "\n\n");
    if (json_is_true(json_object_get(root, "interrupted")))
        fprintf(f, "**This run was interrupted: the tables hold what finished.**\n\n");
    files_line(f, dir, self);
    node_facts(f, ctx);
    ceilings(f, root);
    gemm_peers(f, root);
    kernels(f, root);
    allreduce(f, root);
    if (json_object_get(root, "roofline"))
        /* The cache-aware pictures too: in the plain ones a point in a cache level may sit
         * above the only bandwidth roof drawn (DRAM); its own roof is in these. */
        fprintf(f,
                "## Roofline\n\n![DP roofline](roofline.svg)\n\n![SP roofline](roofline_sp.svg)"
                "\n\nA kernel whose working set lives in a cache level is judged by that level's "
                "roof, drawn in the cache-aware pictures:\n\n"
                "![DP cache-aware roofline](roofline_cache_aware_dp.svg)\n\n"
                "![SP cache-aware roofline](roofline_cache_aware_sp.svg)\n\n"
                "![bandwidth against working set](bandwidth_vs_working_set.svg)\n\n");
    cluster(f, root);
}

/* report.md to f, written to path: its "Files:" line names the files in path's folder (every
 * file for "-", standard output). */
char *ns_report_markdown_text(const json_t *root, const char *dir, const char *self) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    markdown(f, root, dir, self);
    return ns_close_memstream(f, &text) ? NULL : text;
}

int ns_report_markdown(const json_t *root, const char *path, char *err, size_t errlen) {
    /* The "Files:" line names the files in the report's own folder. */
    char dir[NS_PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1,
             slash ? path : ".");
    char *text = ns_report_markdown_text(root, strcmp(path, "-") ? dir : NULL, "report.md");
    if (!text) {
        snprintf(err, errlen, "cannot write %s: out of memory", path);
        return -1;
    }
    int rc = ns_write_text_atomic(path, text, err, errlen);
    free(text);
    return rc;
}
