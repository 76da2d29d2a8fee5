/* `nodescale cluster`: the cluster scaling model from the command line. Inputs come from presets
 * (applied in order), then --node (the chip's GEMM efficiency and variability as measured by a
 * nodescale run), then --allreduce (measured α–β), then flags; the same key table (keys.h)
 * reads presets and flags. Prints the configuration and step-time breakdown per chip count as
 * tables, optionally JSON and plots; `--preset seed002` prints the toy η(G) model's table instead. */
#include "cluster/cluster.h"
#include "cluster/equations.h"
#include "cluster/keys.h"
#include "harness/allreduce.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/gnuplot.h"
#include "harness/json.h"
#include "harness/outdir.h"


#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD "cluster"
#define MAX_PRESETS 16
#define MAX_OVERRIDES 128
#define MAX_CHIPS 32
#define MAX_TOP 64

typedef struct override {
    const ns_cluster_key *key;
    const char *value;
} override;

typedef struct options {
    const char *presets[MAX_PRESETS];
    int n_presets;
    const char *node, *allreduce, *json, *plot_dir;
    int allreduce_scaleup; /* -1: by file kind */
    int accept_poor_fit;   /* --allreduce-accept-poor-fit */
    int chips[MAX_CHIPS], n_chips;
    int search, top, top_given, list_presets, help;
    override ov[MAX_OVERRIDES];
    int n_ov;
    const char *peak, *gemm_eff, *precision, *recompute;
} options;

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: nodescale cluster [--preset NAME]... [--node results.json] [--chips N[,N...]]\n"
        "                         [--search [--top N]] [--json FILE|-] [--plot-dir DIR] [flags]\n\n"
        "The cluster scaling model: step time, MFU, goodput, time to train, power and cost of\n"
        "training a dense transformer on N chips with TP x PP x CP x DP. Bandwidths are per\n"
        "direction per chip; 1 GB = 1e9 B.\n\n"
        "  --preset NAME|FILE.json   apply a preset (repeatable; later ones override). Chips:\n"
        "                            a100-sxm h100-sxm h200 gb200-nvl72 gb300-nvl72 tpu-v4\n"
        "                            cpu-node; models: llama3-405b (the default), megatron-1t;\n"
        "                            seed002 (a toy eta(G) model's table)\n"
        "  --list-presets            list the presets found and where\n"
        "  --node FILE               a nodescale results.json: the chip's GEMM efficiency\n"
        "                            table and step-time CV; with no chip preset the node is\n"
        "                            the chip (its ceilings and DRAM bandwidth, preset cpu-node)\n"
        "  --allreduce FILE          measured all-reduce fit {alpha_s, beta_s_per_byte[, ranks]}\n"
        "                            (results.json or fleet.json allreduce.fit, or a bare fit)\n"
        "  --allreduce-road R        scaleup|scaleout: which road the fit describes (default:\n"
        "                            scaleup for results.json, scaleout for fleet.json)\n"
        "  --allreduce-accept-poor-fit  use a fit that is a poor fit (worst relative\n"
        "                            residual above 50%%, status \"poor fit\"), which is\n"
        "                            otherwise refused\n"
        "  --chips N[,N...]          chip counts, each 1..2^30 (default: the chip preset's\n"
        "                            list). Where a preset's layout (llama3-405b: TP 8 x PP\n"
        "                            16) does not fit a count, the row is the search's best,\n"
        "                            with a note; a layout given by --tp/--pp/--cp/--dp must\n"
        "                            fit every count\n"
        "  --search                  rank every valid (TP, PP, CP, DP, micro-batch, interleave)\n"
        "  --top N                   with --search: how many to print per chip count (1)\n"
        "  --json FILE|-             write the results as JSON (- = stdout); FILE's folder\n"
        "                            must exist\n"
        "  --plot-dir DIR            write cluster_breakdown and cluster_scaling (.svg, .png)\n"
        "                            there (made if missing; needs gnuplot or\n"
        "                            $NODESCALE_GNUPLOT)\n"
        "  --peak-tflop-per-s X      dense peak at the run precision, TFLOP/s\n"
        "  --gemm-efficiency X       one GEMM efficiency (0..1) for every shape\n"
        "  --precision P             fp64 fp32 tf32 bf16 fp16 fp8 (default bf16)\n"
        "  --recompute R             none selective full auto (auto: cheapest that fits)\n");
    const char *section = "";
    for (size_t i = 0; i < ns_cluster_nkeys; i++) {
        const ns_cluster_key *k = &ns_cluster_keys[i];
        char flag[96];
        ns_cluster_key_flag(k, flag, sizeof flag);
        if (strcmp(section, k->section)) fprintf(f, " %s:\n", section = k->section);
        fprintf(f, "  %-35s %s%s\n", flag, k->help, k->kind == NS_KEY_BOOL ? " (0|1)" : "");
    }
    fprintf(f, "\nOutput paths are checked before anything is computed.\n"
               "exit: 0 ok, 1 a write failed, 2 bad input (one line on stderr)\n");
}

/* "8192,16384" → chips[]. Every element must be an integer in 1..NS_CLUSTER_MAX_CHIPS: an
 * empty one ("8,,16", "8,") is an error, not skipped. 0 or -1. */
static int parse_chips(const char *s, options *o) {
    o->n_chips = 0;
    for (const char *p = s;; p++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char tok[32];
        int64_t v;
        if (len == 0 || len >= sizeof tok || o->n_chips == MAX_CHIPS) return -1;
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (ns_parse_int64(tok, 1, NS_CLUSTER_MAX_CHIPS, &v)) return -1;
        for (int k = 0; k < o->n_chips; k++)
            if (o->chips[k] == v) return -1; /* a count twice: cli_errors.sh */
        o->chips[o->n_chips++] = (int)v;
        if (!end) return 0;
        p = end;
    }
}

/* Parses argv into *o. Returns 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->top = 1;
    o->allreduce_scaleup = -1;
    static const char *const repeatable[] = {"--preset", NULL};
    if (ns_refuse_repeated(CMD, argc, argv, repeatable, 0)) return NS_EXIT_USAGE;
    const char *chips = NULL, *top = NULL, *road = NULL, *preset = NULL;
    const struct {
        const char *name;
        const char **dst;
    } strs[] = {{"--preset", &preset},
                {"--node", &o->node},
                {"--allreduce", &o->allreduce},
                {"--allreduce-road", &road},
                {"--chips", &chips},
                {"--top", &top},
                {"--json", &o->json},
                {"--plot-dir", &o->plot_dir},
                {"--peak-tflop-per-s", &o->peak},
                {"--gemm-efficiency", &o->gemm_eff},
                {"--precision", &o->precision},
                {"--recompute", &o->recompute}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int r = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            o->help = 1;
            return 0;
        }
        if (!strcmp(a, "--allreduce-accept-poor-fit")) {
            o->accept_poor_fit = 1;
            continue;
        }
        if (!strcmp(a, "--search") || !strcmp(a, "--list-presets")) {
            *(a[2] == 's' ? &o->search : &o->list_presets) = 1;
            continue;
        }
        for (size_t k = 0; k < sizeof strs / sizeof strs[0] && !r; k++)
            if ((r = ns_opt_value(argc, argv, &i, strs[k].name, &v)) > 0) *strs[k].dst = v;
        for (size_t k = 0; k < ns_cluster_nkeys && !r; k++) {
            char flag[96];
            ns_cluster_key_flag(&ns_cluster_keys[k], flag, sizeof flag);
            if ((r = ns_opt_value(argc, argv, &i, flag, &v)) > 0) {
                if (o->n_ov == MAX_OVERRIDES) return ns_usage_error(CMD, "too many flags");
                o->ov[o->n_ov++] = (override){&ns_cluster_keys[k], v};
            }
        }
        if (r < 0) return ns_usage_error(CMD, "%s needs a value", a);
        if (r == 0)
            return ns_usage_error(CMD, "unknown option '%s' (try: nodescale cluster --help)", a);
        if (preset) { /* the one option that may repeat */
            if (o->n_presets == MAX_PRESETS) return ns_usage_error(CMD, "too many --preset");
            o->presets[o->n_presets++] = preset;
            preset = NULL;
        }
    }
    if (o->accept_poor_fit && !o->allreduce)
        return ns_usage_error(CMD, "--allreduce-accept-poor-fit needs --allreduce (it accepts "
                                   "that file's poor all-reduce fit)");
    if (road) {
        if (strcmp(road, "scaleup") && strcmp(road, "scaleout"))
            return ns_usage_error(CMD, "--allreduce-road must be scaleup or scaleout");
        o->allreduce_scaleup = !strcmp(road, "scaleup");
    }
    if (chips && parse_chips(chips, o))
        return ns_usage_error(CMD,
                              "--chips wants distinct integers in 1..%d (2^30) separated by "
                              "commas (at most %d of them), got '%s'",
                              NS_CLUSTER_MAX_CHIPS, MAX_CHIPS, chips);
    int64_t t;
    if (top && !o->search)
        return ns_usage_error(CMD, "--top needs --search (it says how many searched layouts to "
                                   "print per chip count)");
    if (top) {
        if (ns_parse_int64(top, 1, MAX_TOP, &t))
            return ns_usage_error(CMD, "--top must be 1..%d, got '%s'", MAX_TOP, top);
        o->top = (int)t;
        o->top_given = 1;
    }
    return 0;
}

/* Applies one flag through the key table, parsing strictly in the key's unit and range. */
static int apply_override(ns_cluster_input *in, const override *ov) {
    const ns_cluster_key *k = ov->key;
    char flag[96], err[256];
    ns_cluster_key_flag(k, flag, sizeof flag);
    double x;
    int64_t iv;
    if (k->kind == NS_KEY_BOOL) {
        const char *s = ov->value;
        if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true"))
            x = 1;
        else if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false"))
            x = 0;
        else
            return ns_usage_error(CMD, "%s wants 0 or 1, got '%s'", flag, s);
    } else if (k->kind == NS_KEY_INT) {
        if (ns_parse_int64(ov->value, (int64_t)k->min, (int64_t)k->max, &iv))
            return ns_usage_error(CMD, "%s wants an integer in %lld..%lld, got '%s'", flag,
                                  (long long)k->min, (long long)k->max, ov->value);
        x = (double)iv;
    } else if (ns_parse_double(ov->value, k->min, k->max, &x)) {
        return ns_usage_error(CMD, "%s wants a number in %g..%g, got '%s'", flag, k->min, k->max,
                              ov->value);
    }
    if (ns_cluster_key_set(in, k, x, flag, err, sizeof err)) return ns_usage_error(CMD, "%s", err);
    return 0;
}

static int has_chip(const ns_cluster_input *in) {
    for (int p = 0; p < NS_CP_COUNT; p++)
        if (in->sys.chip.peak_flops[p] > 0) return 1;
    return 0;
}

/* Warnings about the inputs (a poor all-reduce fit, no memory verdict), said with the output. */
static char warnings[4][512];
static int n_warnings;

static void add_warning(const char *fmt, ...) {
    if (n_warnings >= (int)(sizeof warnings / sizeof warnings[0])) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warnings[n_warnings++], sizeof warnings[0], fmt, ap);
    va_end(ap);
}

/* The host every rank of a fleet.json's collectives ran on, when they all ran on one (the nodes
 * that took part: status ok or idle); NULL for other files or several hosts. */
static const char *fleet_single_host(const json_t *j) {
    const char *kind = json_string_value(json_object_get(j, "kind")), *host = NULL;
    size_t i;
    json_t *n;
    if (!kind || strcmp(kind, "fleet")) return NULL;
    json_array_foreach(json_object_get(j, "nodes"), i, n) {
        const char *st = json_string_value(json_object_get(n, "status"));
        const char *h = json_string_value(json_object_get(n, "host"));
        if (!st || (strcmp(st, "ok") && strcmp(st, "idle")) || !h) continue;
        if (host && strcmp(host, h)) return NULL;
        host = h;
    }
    return host;
}

static json_t *load_json(const char *path, char *err, size_t errlen) {
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j) snprintf(err, errlen, "%s: %s", path, je.text);
    return j;
}

/* Builds the input from presets, node, all-reduce fit and flags. 0 or an exit status. */
static int build_input(const options *o, ns_cluster_input *in) {
    char err[512];
    /* When no preset names a model, the default model goes first, so that the user's presets
     * (a chip's own parallel layout, say) override its run and layout sections. */
    for (int pass = 0; pass < 2; pass++) {
        ns_cluster_defaults(in);
        if (pass == 1 && ns_cluster_apply_preset(in, NS_CLUSTER_DEFAULT_MODEL, err, sizeof err))
            return ns_usage_error(CMD, "%s", err);
        for (int i = 0; i < o->n_presets; i++)
            if (ns_cluster_apply_preset(in, o->presets[i], err, sizeof err))
                return ns_usage_error(CMD, "%s", err);
        if (in->eta.enabled || in->model.layers > 0 || in->model.params > 0) break;
    }
    /* Before --node, which reads the GEMM table of the run precision (fp32's efficiencies were
     * applied to the fp64 peak: cluster_node_peak.sh). */
    ns_cprec want = NS_CP_COUNT;
    if (o->precision && ns_cprec_parse(o->precision, &want))
        return ns_usage_error(CMD, "--precision must be fp64 fp32 tf32 bf16 fp16 fp8, got '%s'",
                              o->precision);
    if (o->precision) in->run.precision = want;
    /* seed002 takes neither a node nor a fit (check_seed002 refuses them with that reason), so
     * neither file is read: a bad one would be reported instead. */
    if (o->node && !in->eta.enabled) {
        int as_chip = !has_chip(in);
        if (as_chip && ns_cluster_apply_preset(in, "cpu-node", err, sizeof err))
            return ns_usage_error(CMD, "%s", err);
        if (o->precision) in->run.precision = want; /* over cpu-node's */
        json_t *r = ns_json_load_results(o->node, err, sizeof err);
        if (!r) return ns_usage_error(CMD, "--node %s", err);
        int rc = ns_cluster_apply_node(in, r, as_chip, err, sizeof err);
        json_decref(r);
        if (rc) return ns_usage_error(CMD, "--node %s: %s", o->node, err);
        /* The node as the chip trains in its GEMM table's precision: one the node did not
         * measure is refused rather than filled with another precision's efficiencies. */
        if (o->precision && as_chip && (in->node.precision != want || in->run.precision != want))
            return ns_usage_error(CMD,
                                  "--precision %s: --node %s has no %s %s (its GEMM table is "
                                  "%s); give --precision %s, or a chip preset",
                                  o->precision, o->node, ns_cprec_name(want),
                                  in->node.precision == want ? "compute ceiling" : "GEMM on a roof",
                                  ns_cprec_name(in->node.precision),
                                  ns_cprec_name(in->node.precision));
    }
    if (o->allreduce && !in->eta.enabled) {
        json_t *j = load_json(o->allreduce, err, sizeof err);
        if (!j) return ns_usage_error(CMD, "--allreduce %s", err);
        /* A results.json (results[]) measured threads in one node: the scale-up road; a
         * fleet.json ("kind": "fleet") or a bare fit measured MPI ranks: scale-out. */
        int up = o->allreduce_scaleup >= 0 ? o->allreduce_scaleup
                                           : json_is_array(json_object_get(j, "results"));
        const char *one = fleet_single_host(j);
        if (one && !up) {
            int rc1 = ns_usage_error(CMD,
                                     "--allreduce %s: every rank of this fleet ran on one host "
                                     "(%s): its all-reduce measured shared memory, not a network, "
                                     "so it cannot be the scale-out road; run the fleet across "
                                     "nodes, or give --allreduce-road scaleup",
                                     o->allreduce, one);
            json_decref(j);
            return rc1;
        }
        int rc = ns_cluster_apply_allreduce(in, j, up, err, sizeof err);
        const json_t *ar = json_object_get(j, "allreduce");
        const json_t *fit = json_object_get(json_is_object(ar) ? ar : j, "fit");
        if (!fit) fit = j; /* a bare fit */
        /* Two thresholds (harness/allreduce.h): above NS_ALLREDUCE_POOR_FIT, the writers' one
         * poor-fit rule, the file itself says the fit is not a measurement, so it is refused
         * unless accepted; above NS_ALLREDUCE_ROUGH_FIT it is used with a warning. */
        double resid = ns_allreduce_fit_residual(fit);
        int poor = ns_allreduce_fit_is_poor(fit);
        char why[300];
        if (isfinite(resid))
            snprintf(why, sizeof why, "worst relative residual %.0f%%", 100 * resid);
        else
            snprintf(why, sizeof why, "status \"%.200s\"",
                     json_string_value(json_object_get(fit, "status")));
        if (!rc && poor && !o->accept_poor_fit) {
            int rc2 = ns_usage_error(CMD,
                                     "--allreduce %s: a poor alpha-beta fit (%s; above %.0f%% "
                                     "is not a measurement of alpha and beta); give "
                                     "--allreduce-accept-poor-fit to use it anyway",
                                     o->allreduce, why, 100 * NS_ALLREDUCE_POOR_FIT);
            json_decref(j);
            return rc2;
        }
        if (!rc && poor)
            add_warning("--allreduce %s: a poor alpha-beta fit (%s), used as "
                        "--allreduce-accept-poor-fit asks: a straight line does not describe "
                        "this all-reduce, and the %s times built on it are rough",
                        o->allreduce, why, up ? "scale-up" : "scale-out");
        else if (!rc && resid > NS_ALLREDUCE_ROUGH_FIT)
            add_warning("--allreduce %s: the alpha-beta fit's worst relative residual is %.0f%% "
                        "(> %.0f%%): a straight line describes this all-reduce poorly, and the "
                        "%s times built on it are rough",
                        o->allreduce, 100 * resid, 100 * NS_ALLREDUCE_ROUGH_FIT,
                        up ? "scale-up" : "scale-out");
        json_decref(j);
        if (rc) return ns_usage_error(CMD, "--allreduce %s %s", o->allreduce, err);
    }
    for (int i = 0; i < o->n_ov; i++) {
        if (apply_override(in, &o->ov[i])) return NS_EXIT_USAGE;
        if (!strcmp(o->ov[i].key->key, "step_cv")) in->node.cv_overridden = 1;
        if (!strcmp(o->ov[i].key->key, "mem_bw_gbytes_per_s")) in->node.mem_bw_overridden = 1;
    }
    if (o->recompute && ns_recompute_parse(o->recompute, &in->run.recompute))
        return ns_usage_error(CMD, "--recompute must be none, selective, full or auto, got '%s'",
                              o->recompute);
    if (!(in->sys.chip.mem_capacity_bytes > 0))
        add_warning("no memory verdict (fits ?): the chip's memory capacity is unknown (%s); give "
                    "--mem-capacity-gbytes%s",
                    in->node.as_chip ? "no chip preset, and the node's results.json has no "
                                       "context.memory.total_bytes"
                                     : "the chip preset has none",
                    in->run.recompute == NS_RECOMP_AUTO
                        ? "; --recompute auto cannot choose without it and stays none"
                        : "");
    double x;
    if (o->peak) {
        if (ns_parse_double(o->peak, NS_PEAK_TFLOP_MIN, NS_PEAK_TFLOP_MAX, &x))
            return ns_usage_error(CMD, "--peak-tflop-per-s wants a number in %g..%g, got '%s'",
                                  NS_PEAK_TFLOP_MIN, NS_PEAK_TFLOP_MAX, o->peak);
        in->sys.chip.peak_flops[in->run.precision] = x * 1e12;
    }
    if (o->gemm_eff) {
        if (ns_parse_double(o->gemm_eff, NS_GEMM_EFF_MIN, 1, &x))
            return ns_usage_error(CMD, "--gemm-efficiency wants a number in %g..1, got '%s'",
                                  NS_GEMM_EFF_MIN, o->gemm_eff);
        in->sys.chip.gemm_eff_default = x;
        in->sys.chip.n_gemm = 0;
        in->node.eff_overridden = in->node.applied; /* one source only: cluster.sh */
    }
    return 0;
}

/* The seed002 preset's mode takes only what its table uses: the chip counts, the eta_a and
 * eta_b keys, the chip's peak (--peak-tflop-per-s, --precision) and its power (--chip-w,
 * --other-w-per-chip, --pue). Every other option would be ignored, so it is refused (JSON,
 * plots, search, a measured node or fit, the model, layout, network, variability, reliability,
 * cost flags), and so is another preset beside seed002 (its chip would replace the toy chip's
 * peak and power without a word: cluster_input.sh), and an η(G) = a − b·log2(G) outside (0, 1] at
 * any chip count (a negative or above-peak MFU). 0 or the exit status. */
static int check_seed002(const options *o, const ns_cluster_input *in, const int *chips, int n) {
    if (o->n_presets > 1)
        return ns_usage_error(CMD,
                              "the seed002 preset takes no other preset (%d given): its toy "
                              "table uses its own chip and power; give --preset seed002 alone",
                              o->n_presets);
    char flag[96] = "";
    for (int i = 0; i < o->n_ov && !flag[0]; i++)
        if (strcmp(o->ov[i].key->section, "seed002") && strcmp(o->ov[i].key->section, "power"))
            ns_cluster_key_flag(o->ov[i].key, flag, sizeof flag);
    const char *ignored = o->json                     ? "--json"
                          : o->plot_dir               ? "--plot-dir"
                          : o->search                 ? "--search"
                          : o->top_given              ? "--top"
                          : o->node                   ? "--node"
                          : o->allreduce              ? "--allreduce"
                          : o->allreduce_scaleup >= 0 ? "--allreduce-road"
                          : o->gemm_eff               ? "--gemm-efficiency"
                          : o->recompute              ? "--recompute"
                          : flag[0]                   ? flag
                                                      : NULL;
    if (ignored)
        return ns_usage_error(CMD,
                              "%s does not apply to the seed002 preset (it prints the toy "
                              "eta(G) model's table only, from --chips, --eta-a, --eta-b, "
                              "--precision, the peak and the power flags)",
                              ignored);
    for (int i = 0; i < n; i++) {
        double eta = ns_eta_log2(in->eta.a, in->eta.b, chips[i]);
        if (!(eta > 0 && eta <= 1))
            return ns_usage_error(CMD,
                                  "seed002: eta(%d) = %g - %g*log2(%d) = %.4g is not an MFU in "
                                  "(0, 1]; lower --eta-b or raise --eta-a",
                                  chips[i], in->eta.a, in->eta.b, chips[i], eta);
    }
    return 0;
}

/* The seed002 preset's mode: the toy model's table, from η(G) = a − b·log2(G), the
 * chip's peak and power (PUE applied once; the preset has PUE 1). */
static void print_seed002(const ns_cluster_input *in, const int *chips, int n) {
    double f = in->sys.chip.peak_flops[in->run.precision];
    for (int i = 0; i < n; i++) {
        int G = chips[i];
        double eta = ns_eta_log2(in->eta.a, in->eta.b, G);
        double peak = ns_realized_flops(G, f, 1.0) / 1e18; /* EFLOP/s */
        double realized = ns_realized_flops(G, f, eta) / 1e18;
        double power =
            ns_cluster_power_w(G, in->sys.chip_w, in->sys.other_w_per_chip, in->sys.pue) / 1e6;
        printf("%6d GPUs: peak %5.2f EF  MFU %4.1f%%  realized %5.2f EF  power %5.1f MW\n", G, peak,
               eta * 100, realized, power);
    }
}

static const char *yesno(int fits) {
    return fits < 0 ? "?" : fits ? "yes" : "NO";
}

/* "none", "full", or "3/8" layers per stage recomputed. */
static const char *rc_label(const ns_breakdown *b, char *buf, size_t len) {
    if (b->recompute != NS_RECOMP_PARTIAL) return ns_recompute_name(b->recompute);
    snprintf(buf, len, "%d/%d", b->recompute_layers, b->stage_layers);
    return buf;
}

/* What --node took, and its warnings (refused GEMM results, a disturbed CV), to `f`. */
static void print_node(FILE *f, const ns_cluster_input *in, const char *path, int warnings_only) {
    const ns_node_info *ni = &in->node;
    char w[1024];
    if (!ni->applied) return;
    if (!warnings_only) {
        if (ni->eff_overridden)
            fprintf(f, "node %s: GEMM efficiency from --gemm-efficiency (its %d measured GEMM "
                    "shape%s not used); ", path, ni->gemm_points, ni->gemm_points == 1 ? "" : "s");
        else
            fprintf(f, "node %s: %d GEMM shape%s (%s), efficiency = %s; ", path, ni->gemm_points,
                    ni->gemm_points == 1 ? "" : "s", ns_cprec_name(ni->precision),
                    ns_node_eff_statistic(in, w, sizeof w));
        if (ni->cv_overridden)
            fprintf(f, "step CV from --step-cv (measured %.3g not used)\n", ni->step_cv);
        else if (ni->cv_results)
            fprintf(f,
                    "step CV %.3g = median time_s.cv of %d GEMM results: their sample-to-sample "
                    "jitter within one run, used as the training step-time CV (--step-cv "
                    "overrides it)\n",
                    ni->step_cv, ni->cv_results);
        else
            fprintf(f, "step CV from the presets (no GEMM time_s.cv in the file)\n");
    }
    const char *pre = warnings_only ? "nodescale cluster: warning: " : "warning: ";
    if (ns_node_gemm_warning(in, w, sizeof w)[0]) fprintf(f, "%s%s\n", pre, w);
    if (ns_node_cv_warning(in, w, sizeof w)[0]) fprintf(f, "%s%s\n", pre, w);
    if (ns_node_interrupted_warning(in, w, sizeof w)[0]) fprintf(f, "%s%s\n", pre, w);
    if (ns_node_peak_warning(in, w, sizeof w)[0]) fprintf(f, "%s%s\n", pre, w);
    if (!warnings_only && ns_node_mem_bw_source(in, w, sizeof w)[0])
        fprintf(f, "memory bandwidth per chip %.4g GB/s: %s\n",
                in->sys.chip.mem_bw_bytes_per_s / 1e9, w);
    if (!warnings_only && ni->as_chip && ni->mem_bytes > 0 &&
        in->sys.chip.mem_capacity_bytes == ni->mem_bytes)
        fprintf(f,
                "memory capacity per chip %.4g GB: the node's RAM (context.memory.total_bytes; "
                "--mem-capacity-gbytes overrides it)\n",
                ni->mem_bytes / 1e9);
}

static void print_warnings(FILE *f, const char *pre) {
    for (int i = 0; i < n_warnings; i++)
        fprintf(f, "%s%s\n", pre, warnings[i]);
}

static void print_header(const ns_cluster_input *in) {
    const ns_system *s = &in->sys;
    const ns_model *m = &in->model;
    double peak = s->chip.peak_flops[in->run.precision];
    printf("%s (%.4g B parameters) on %s: %s dense peak %.4g %s per chip\n",
           m->name[0] ? m->name : "model", ns_model_params(m) / 1e9,
           s->chip.name[0] ? s->chip.name : "chip", ns_cprec_name(in->run.precision),
           peak < 1e12 ? peak / 1e9 : peak / 1e12, peak < 1e12 ? "GFLOP/s" : "TFLOP/s");
    printf("scale-up: %d chip%s at %.4g GB/s per direction, α %.3g µs; scale-out: %.4g GB/s per "
           "direction, α %.3g µs, oversubscription %.3g\n",
           s->domain_chips, s->domain_chips == 1 ? "" : "s", s->scaleup.bw_bytes_per_s / 1e9,
           s->scaleup.latency_s * 1e6, s->scaleout.bw_bytes_per_s / 1e9,
           s->scaleout.latency_s * 1e6, s->oversubscription);
    char eff[64];
    snprintf(eff, sizeof eff, "%.3g for all shapes", s->chip.gemm_eff_default);
    printf("global batch %d sequences x %d tokens; GEMM efficiency %s; step CV %.3g\n",
           in->run.global_batch_seqs, m->seq_tokens,
           s->chip.n_gemm ? (in->node.applied ? "from the node's GEMM shapes" : "from a shape table")
                          : eff,
           s->step_cv);
}

static void print_tables(const ns_cluster_input *in, const ns_breakdown *b, int n) {
    const char *why = NULL; /* the first row's reason for no time to train */
    /* TFLOP/s per chip, or GFLOP/s when every row is below 1 TFLOP/s (a CPU node), so that the
     * column never shows 0.0. */
    double top = 0;
    for (int i = 0; i < n; i++)
        top = fmax(top, b[i].hw_flops_per_s_per_chip);
    const int giga = top < 1e12;
    printf("  chips  TP  PP  CP    DP mbs  v    m recompute  step_s   MFU   HFU %s/s/chip"
           "  tokens/s  mem_GB fits goodput train_days     MW  cost_M$\n",
           giga ? "GFLOP" : "TFLOP");
    char rcb[32];
    for (int i = 0; i < n; i++) {
        const ns_par *p = &b[i].par;
        char days[32] = "-", cost[32] = "-";
        const char *ts = ns_breakdown_train_status(in, &b[i]);
        if (!ts) {
            snprintf(days, sizeof days, "%.1f", b[i].time_to_train_s / 86400);
            snprintf(cost, sizeof cost, "%.2f", b[i].cost_usd / 1e6);
        } else if (!strncmp(ts, "never", 5)) {
            snprintf(days, sizeof days, "never");
        }
        printf(
            "%7lld %3d %3d %3d %5d %3d %2d %4d %-9s %7.3f %4.1f%% %4.1f%% %12.1f %9.3g %7.1f %4s "
            "%7.3f %10s %6.2f %8s\n",
            (long long)p->tp * p->pp * p->cp * p->dp, p->tp, p->pp, p->cp, p->dp, p->micro_batch,
            p->interleave, b[i].micro_batches, rc_label(&b[i], rcb, sizeof rcb), b[i].step_s,
            b[i].mfu * 100, b[i].hfu * 100, b[i].hw_flops_per_s_per_chip / (giga ? 1e9 : 1e12),
            b[i].tokens_per_s, b[i].mem_total / 1e9, yesno(b[i].fits), b[i].goodput, days,
            b[i].power_w / 1e6, cost);
        if (!why) why = ns_breakdown_train_status(in, &b[i]);
    }
    if (why) printf("train_days, cost_M$: %s\n", why);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, b[i].model_over_executed);
        hi = fmax(hi, b[i].model_over_executed);
    }
    /* One figure when the rows' shares print the same at %.1f, else the range. */
    char lo_s[32], hi_s[32], conv[512];
    snprintf(lo_s, sizeof lo_s, "%.1f%%", 100 * (lo - 1));
    snprintf(hi_s, sizeof hi_s, "%.1f%%", 100 * (hi - 1));
    ns_mfu_convention_text(in, conv, sizeof conv);
    printf("MFU: %s.\nHere the model FLOPs are %s%s%s more than those executed without "
           "recomputation.\n",
           conv, strcmp(lo_s, hi_s) ? lo_s : "", strcmp(lo_s, hi_s) ? " to " : "", hi_s);
    printf("\nstep-time breakdown, seconds per step (share of the step)\n"
           "  chips        compute     TP exposed     CP exposed     PP exposed     DP exposed"
           "         bubble      straggler      optimizer  GPipe bubble share\n");
    for (int i = 0; i < n; i++) {
        const ns_breakdown *x = &b[i];
        const double v[] = {x->compute_s, x->tp_s,     x->cp_s,        x->pp_s,
                            x->dp_s,      x->bubble_s, x->straggler_s, x->optimizer_s};
        printf("%7lld", (long long)x->par.tp * x->par.pp * x->par.cp * x->par.dp);
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            printf(" %7.3f(%4.1f%%)", v[k], 100 * v[k] / x->step_s);
        printf(" %19.2f%%\n", 100 * ns_bubble_gpipe_share(x->par.pp, x->micro_batches));
    }
    printf("GPipe bubble share: (K-1)/(M+K-1) of the total time for K = PP stages and M "
           "micro-batches (Huang et al.\n2019), the idealized share without interleaving; the "
           "bubble column is the model's (Megatron's ratio)\n");
}

/* The configuration given by flags/presets for `chips` (dp derived when not given). 0, or -1
 * with the reason it does not fit in err (-2: tp*pp*cp does not divide the chip count). */
static int fixed_config(const ns_cluster_input *in, int chips, ns_par *par, char *err,
                        size_t errlen) {
    *par = in->par;
    if (par->dp == 0) {
        long long inner = (long long)par->tp * par->pp * par->cp;
        if (inner < 1 || chips % inner) {
            snprintf(err, errlen, "tp*pp*cp = %lld does not divide the chip count %d", inner,
                     chips);
            return -2;
        }
        par->dp = (int)(chips / inner);
    }
    return ns_cluster_check(in, par, chips, err, errlen);
}

/* Whether flags set the parallel layout: 2 when they set a degree (--tp, --pp, --cp, --dp):
 * the layout is kept exactly, and a chip count it does not fit is an error; 1 when they set
 * only --micro-batch-seqs or --interleave: those must be valid, but preset degrees that do not
 * divide a chip count give way to the search there, as with no flag (0). */
static int layout_given(const options *o) {
    int given = 0;
    for (int i = 0; i < o->n_ov; i++) {
        const ns_cluster_key *k = o->ov[i].key;
        if (strcmp(k->section, "parallel")) continue;
        if (!strcmp(k->key, "tp") || !strcmp(k->key, "pp") || !strcmp(k->key, "cp") ||
            !strcmp(k->key, "dp"))
            return 2;
        given = 1;
    }
    return given;
}

/* Why no chip: no preset named one, or a preset (cpu-node) that takes it from --node. */
static int no_chip_error(const ns_cluster_input *in) {
    if (!in->sys.chip.name[0])
        return ns_usage_error(CMD, "no chip: give --preset CHIP (a100-sxm h100-sxm h200 "
                                   "gb200-nvl72 gb300-nvl72 tpu-v4) or --node results.json");
    return ns_usage_error(CMD,
                          "chip '%s' has no peak: its preset takes the chip from a measured "
                          "node; give --node results.json (or --peak-tflop-per-s and "
                          "--mem-bw-gbytes-per-s)",
                          in->sys.chip.name);
}

/* Whether `path` is a folder we may write in, or one mkdir -p can make: its nearest existing
 * ancestor is a writable folder. 0, or -1 with the reason in err. */
static int dir_writable(const char *path, char *err, size_t errlen) {
    char p[NS_PATH_MAX];
    struct stat st;
    snprintf(p, sizeof p, "%s", *path ? path : ".");
    while (stat(p, &st) != 0) {
        char *slash = strrchr(p, '/');
        if (errno != ENOENT) break;
        if (!slash) {
            snprintf(p, sizeof p, ".");
        } else if (slash == p) {
            p[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode) || access(p, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "%s: %s is not a writable folder", path, p);
        return -1;
    }
    return 0;
}

/* Whether --json names one of the eight plot files that --plot-dir dir will hold: the same file
 * (a link to it too), or the same file once links are followed and folders resolved, a
 * dangling link's target included (a link to a plot not yet written: cluster_outputs.sh). */
static int is_plot_file(const char *json, const char *dir) {
    char jt[2 * PATH_MAX], pt[2 * PATH_MAX], path[4400];
    ns_output_target(json, jt, sizeof jt);
    for (int i = 0; ns_outdir_cluster[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, ns_outdir_cluster[i]);
        if (ns_same_file(json, path) == 1) return 1;
        ns_output_target(path, pt, sizeof pt);
        if (!strcmp(jt, pt)) return 1;
    }
    return 0;
}

/* Checks every output before anything is computed, so that a bad path costs nothing and leaves
 * nothing: --json FILE needs an existing writable folder, must not be a folder itself nor one
 * of the plot files, and must be a name the system takes (not too long); --plot-dir must be a
 * writable folder or one that can be made (it is made; made_dir gets the topmost folder made,
 * "" if none), and gnuplot must be there. */
static int check_outputs(const options *o, char made_dir[NS_PATH_MAX]) {
    char err[4400];
    struct stat st;
    if (o->json && strcmp(o->json, "-")) {
        char dir[NS_PATH_MAX];
        if (strlen(o->json) >= sizeof dir) { /* else passed, cut, then failed late */
            ns_path_error(err, 1024, "--json", o->json, strerror(ENAMETOOLONG));
            return ns_usage_error(CMD, "%s", err);
        }
        snprintf(dir, sizeof dir, "%s", o->json);
        char *slash = strrchr(dir, '/');
        if (!slash)
            snprintf(dir, sizeof dir, ".");
        else
            slash[slash == dir] = '\0';
        if (!*o->json || (stat(o->json, &st) == 0 && S_ISDIR(st.st_mode)))
            return ns_usage_error(CMD, "--json '%s' is a folder, not a file", o->json);
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0)
            return ns_usage_error(CMD,
                                  "--json %s: cannot write there (%s is not a writable "
                                  "folder)",
                                  o->json, dir);
        /* Never over a run's results.json (its --node input), a fleet or another command's
         * file: only a new file or an earlier cluster report (cluster_errors.sh). */
        if (ns_report_may_write("--json", o->json, NS_REPORT_CLUSTER, err, sizeof err))
            return ns_usage_error(CMD, "%s", err);
        /* A file can be made there: catches a name too long for the system (cluster_outputs.sh). */
        if (ns_json_check_writable(o->json, err, 1024))
            return ns_usage_error(CMD, "--json: %s", err);
        if (o->plot_dir && is_plot_file(o->json, o->plot_dir)) /* cluster_outputs.sh */
            return ns_usage_error(CMD,
                                  "--json %s is one of the plot files --plot-dir %s writes: two "
                                  "outputs to one file; give another name",
                                  o->json, o->plot_dir);
    }
    if (o->plot_dir) {
        if (ns_path_check_name("--plot-dir", o->plot_dir, err, 1024))
            return ns_usage_error(CMD, "%s", err);
        if (strlen(o->plot_dir) + 32 >= NS_PATH_MAX) { /* its files' paths would be cut */
            ns_path_error(err, 1024, "--plot-dir", o->plot_dir, strerror(ENAMETOOLONG));
            return ns_usage_error(CMD, "%s", err);
        }
        if (dir_writable(o->plot_dir, err, sizeof err))
            return ns_usage_error(CMD, "--plot-dir %s", err);
        /* Like run, roofline, fleet and compare: never beside another writer's files (the plots
         * went beside compare.* and fleet.json: cluster_errors.sh). */
        const char *old = ns_outdir_foreign(o->plot_dir, ns_outdir_cluster);
        if (old)
            return ns_usage_error(CMD,
                                  "--plot-dir %s already holds %s of a run, roofline, fleet or "
                                  "compare; choose a new folder or remove that one",
                                  o->plot_dir, old);
        if (ns_gnuplot_found(err, sizeof err)) return ns_usage_error(CMD, "--plot-dir: %s", err);
        /* Made now (access() cannot tell that /proc refuses a folder), removed again when
         * nothing comes to be written there. */
        made_dir[0] = '\0';
        if (stat(o->plot_dir, &st) != 0) { /* the topmost folder that mkdir -p will make */
            char p[NS_PATH_MAX];
            snprintf(p, sizeof p, "%s", o->plot_dir);
            for (;;) {
                snprintf(made_dir, NS_PATH_MAX, "%s", p);
                char *slash = strrchr(p, '/');
                while (slash && slash > p && slash[1] == '\0') { /* "a/b/" */
                    *slash = '\0';
                    slash = strrchr(p, '/');
                }
                if (!slash || slash == p) break;
                *slash = '\0';
                if (stat(p, &st) == 0) break;
            }
        }
        if (ns_outdir_mkdir_p(o->plot_dir))
            return ns_usage_error(CMD, "--plot-dir %s: cannot create it: %s", o->plot_dir,
                                  strerror(errno));
    }
    return 0;
}

/* Removes the empty folders from `path` up to and with `top`, the topmost one this run made. */
static void remove_made(const char *path, const char *top) {
    char p[NS_PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    while (strlen(p) >= strlen(top)) {
        if (rmdir(p) != 0 && errno != ENOENT) return; /* not empty: not ours to remove */
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) return;
        *slash = '\0';
    }
}

static int list_presets(void) {
    char dir[4096];
    if (ns_cluster_presets_dir(dir, sizeof dir))
        return ns_usage_error(CMD, "no presets folder found (set NODESCALE_PRESETS)");
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    if (n < 0) return ns_usage_error(CMD, "cannot open %s", dir);
    printf("presets in %s:\n", dir);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(ents[i]->d_name);
        if (len > 5 && !strcmp(ents[i]->d_name + len - 5, ".json")) {
            /* Only files that read as presets (any *.json was listed). */
            static ns_cluster_input probe;
            char name[300], err[512];
            snprintf(name, sizeof name, "%.*s", (int)(len - 5), ents[i]->d_name);
            ns_cluster_defaults(&probe);
            if (ns_cluster_apply_preset(&probe, name, err, sizeof err) == 0)
                printf("  %s\n", name);
            else
                fprintf(stderr, "nodescale cluster: warning: %s/%s is not a preset, not listed: "
                        "%.200s\n", dir, ents[i]->d_name, err);
        }
        free(ents[i]);
    }
    free(ents);
    return 0;
}

/* Scaling of b against the first chip count: speed-up, scaling efficiency, and the Amdahl and
 * Gustafson bounds from the first step's parallel share (ns_amdahl_parallel_share: the parts
 * more DP divides under a fixed global batch). They bound b only when b is the first row's
 * configuration with more DP (ns_same_but_dp); for another layout they are NAN (n/a, JSON null). */
typedef struct scaling {
    double chips, speedup, efficiency, amdahl, gustafson;
} scaling;

static scaling scaling_of(const ns_cluster_input *in, const ns_breakdown *first,
                          const ns_breakdown *b) {
    double g0 = (double)first->par.tp * first->par.pp * first->par.cp * first->par.dp;
    double g = (double)b->par.tp * b->par.pp * b->par.cp * b->par.dp;
    double p = ns_amdahl_parallel_share(in, first);
    int same = ns_same_but_dp(first, b);
    /* Speed-up of the time per token (the global batch may differ between rows). */
    return (scaling){g, ns_speedup(1 / first->tokens_per_s, 1 / b->tokens_per_s),
                     ns_scaling_efficiency(first->tokens_per_s, g0, b->tokens_per_s, g),
                     same ? ns_amdahl_speedup(p, g / g0) : NAN,
                     same ? ns_gustafson_speedup(p, g / g0) : NAN};
}

static void add_scaling(json_t *pt, const ns_cluster_input *in, const ns_breakdown *first,
                        const ns_breakdown *b) {
    scaling sc = scaling_of(in, first, b);
    ns_json_set_num(pt, "speedup_vs_first", sc.speedup, NULL);
    ns_json_set_num(pt, "scaling_efficiency_vs_first", sc.efficiency, NULL);
    static const char na[] = "n/a: not the first row's layout with more DP";
    if (ns_json_set_num(pt, "amdahl_bound_vs_first", sc.amdahl, NULL))
        ns_json_set_str(pt, "amdahl_bound_vs_first_status", na);
    if (ns_json_set_num(pt, "gustafson_bound_vs_first", sc.gustafson, NULL))
        ns_json_set_str(pt, "gustafson_bound_vs_first_status", na);
}

static void print_scaling(const ns_cluster_input *in, const ns_breakdown *b, int n) {
    if (n < 2) return;
    long long g0 = (long long)b[0].par.tp * b[0].par.pp * b[0].par.cp * b[0].par.dp;
    printf("\nscaling against %lld chip%s (Amdahl/Gustafson parallel share: compute + TP + CP + PP "
           "+ straggler%s\nof the first step; bounds only for its layout with more DP, else n/a)\n"
           "  chips  speed-up  efficiency  Amdahl bound  Gustafson bound\n",
           g0, g0 == 1 ? "" : "s", in->run.distributed_optimizer ? " + optimizer" : "");
    for (int i = 0; i < n; i++) {
        scaling sc = scaling_of(in, &b[0], &b[i]);
        printf("%7.0f %9.3f %10.1f%% ", sc.chips, sc.speedup, 100 * sc.efficiency);
        if (isnan(sc.amdahl))
            printf("%13s %16s\n", "n/a", "n/a");
        else
            printf("%13.3f %16.3f\n", sc.amdahl, sc.gustafson);
    }
}

/* Removes the plot files staged in `stage` and the folder itself. */
static void discard_plots(const char *stage) {
    ns_cluster_remove_plots(stage);
    rmdir(stage);
}

/* Moves the plots staged in `stage` into dir over the earlier run's (one made without gnuplot
 * has no .svg or .png: an earlier one is removed, never left beside new data), then removes
 * `stage`. 0, or -1 with the reason in err. */
static int commit_plots(const char *stage, const char *dir, char *err, size_t errlen) {
    char from[NS_PATH_MAX], to[NS_PATH_MAX];
    for (int i = 0; ns_outdir_cluster[i]; i++) {
        if (ns_path_join(from, sizeof from, stage, ns_outdir_cluster[i], err, errlen) != 0 ||
            ns_path_join(to, sizeof to, dir, ns_outdir_cluster[i], err, errlen) != 0) {
            discard_plots(stage);
            return -1;
        }
        if (rename(from, to) == 0) continue;
        if (errno == ENOENT && (unlink(to) == 0 || errno == ENOENT)) continue;
        int e = errno;
        snprintf(err, errlen, "cannot move %s into %.300s: %s", ns_outdir_cluster[i], dir,
                 strerror(e));
        discard_plots(stage);
        return -1;
    }
    rmdir(stage);
    return 0;
}

static int stdout_reported; /* compute_and_write said that the standard output failed */

static int run_cluster(int argc, char **argv);
static int compute_and_write(const options *o, const ns_cluster_input *in, const int *chips,
                             int n_chips);

/* `nodescale cluster`: runs, then checks that everything printed reached the standard output
 * (a full disk, a closed pipe): a write that failed is exit 1 with a reason, never exit 0. */
int ns_cmd_cluster(int argc, char **argv) {
    stdout_reported = 0;
    int rc = run_cluster(argc, argv);
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc != NS_EXIT_USAGE && !stdout_reported) {
        fprintf(stderr, "nodescale cluster: error: cannot write the standard output: %s\n",
                strerror(errno ? errno : EIO));
        return NS_EXIT_FAIL;
    }
    return rc;
}

static int run_cluster(int argc, char **argv) {
    options o;
    ns_cluster_input in;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        usage(stdout);
        return NS_EXIT_OK;
    }
    if (o.list_presets) return list_presets();
    /* --search enumerates every layout: a layout flag would be dropped silently
     * (cluster_errors.sh). */
    for (int i = 0; o.search && i < o.n_ov; i++)
        if (!strcmp(o.ov[i].key->section, "parallel")) {
            char flag[96];
            ns_cluster_key_flag(o.ov[i].key, flag, sizeof flag);
            return ns_usage_error(CMD,
                                  "--search chooses the parallel layout itself, so %s would be "
                                  "ignored: give one or the other",
                                  flag);
        }
    if ((rc = build_input(&o, &in))) return rc;
    if (!in.eta.enabled && !has_chip(&in)) return no_chip_error(&in);
    const int *chips = o.n_chips ? o.chips : in.chip_counts;
    int n_chips = o.n_chips ? o.n_chips : in.n_chip_counts;
    if (n_chips == 0) return ns_usage_error(CMD, "give --chips N (no chip count in the presets)");
    if (in.eta.enabled) {
        if ((rc = check_seed002(&o, &in, chips, n_chips))) return rc;
        if (!(in.sys.chip.peak_flops[in.run.precision] > 0)) {
            char have[128] = "";
            for (int p = 0; p < NS_CP_COUNT; p++)
                if (in.sys.chip.peak_flops[p] > 0)
                    snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s",
                             have[0] ? ", " : "", ns_cprec_name((ns_cprec)p));
            return ns_usage_error(CMD,
                                  "seed002 mode needs a chip peak for %s: the toy chip has %s "
                                  "only; give --precision %s, or --peak-tflop-per-s for %s",
                                  ns_cprec_name(in.run.precision), have[0] ? have : "none",
                                  have[0] ? have : "bf16", ns_cprec_name(in.run.precision));
        }
        print_seed002(&in, chips, n_chips);
        return NS_EXIT_OK;
    }
    ns_chip_finish(&in.sys.chip);
    char err[512];
    if (ns_cluster_check_input(&in, err, sizeof err)) return ns_usage_error(CMD, "%s", err);
    static char made_dir[NS_PATH_MAX];
    if ((rc = check_outputs(&o, made_dir))) return rc;
    rc = compute_and_write(&o, &in, chips, n_chips);
    if (rc && made_dir[0]) remove_made(o.plot_dir, made_dir);
    return rc;
}

/* Computes the rows for every chip count and writes the plots, the JSON and the tables. 0 or
 * the exit status. */
static int compute_and_write(const options *o_, const ns_cluster_input *in_, const int *chips,
                             int n_chips) {
    const options o = *o_;
    ns_cluster_input in = *in_;
    int rc = 0;
    char err[512];

    /* One breakdown per chip count (fixed configuration), or the top N of each search. A
     * preset's layout that does not fit a count gives way to the search for that count; a
     * count with no valid configuration at all is dropped; each with a note. */
    static ns_breakdown rows[MAX_CHIPS * MAX_TOP], firsts[MAX_CHIPS];
    static char notes[MAX_CHIPS][640];
    static int searched[MAX_CHIPS * MAX_TOP];
    int n_rows = 0, n_firsts = 0, n_notes = 0, strict = layout_given(&o);
    long evaluated = 0;
    for (int i = 0; i < n_chips; i++) {
        ns_par par;
        int search = o.search;
        int bad = search ? 0 : fixed_config(&in, chips[i], &par, err, sizeof err);
        if (bad) {
            if (strict == 2 || (strict == 1 && bad != -2)) return ns_usage_error(CMD, "%s", err);
            search = 1;
        }
        if (search) {
            long ev = 0;
            int got = ns_cluster_search(&in, chips[i], rows + n_rows, o.search ? o.top : 1, &ev);
            evaluated += ev;
            if (got == 0) {
                snprintf(notes[n_notes++], sizeof notes[0],
                         "%d chip%s dropped: no valid configuration (TP must divide the %d "
                         "heads, DP the batch of %d, CP the sequence, and PP (<= %d layers) take "
                         "what is left)",
                         chips[i], chips[i] == 1 ? "" : "s", in.model.heads,
                         in.run.global_batch_seqs, in.model.layers);
                continue;
            }
            if (!o.search)
                snprintf(notes[n_notes++], sizeof notes[0],
                         "%d chip%s: the preset layout TP %d x PP %d x CP %d does not fit (%s); "
                         "the row is the best configuration the search found",
                         chips[i], chips[i] == 1 ? "" : "s", in.par.tp, in.par.pp, in.par.cp, err);
            for (int k = 0; k < got; k++)
                searched[n_rows + k] = 1;
            firsts[n_firsts++] = rows[n_rows];
            n_rows += got;
        } else {
            ns_cluster_prep prep;
            ns_cluster_prepare(&in, chips[i], &prep);
            ns_cluster_eval(&in, &prep, &par, &rows[n_rows]);
            searched[n_rows] = 0;
            firsts[n_firsts++] = rows[n_rows++];
        }
    }
    if (n_rows == 0)
        return ns_usage_error(CMD, "no chip count has a valid configuration (%s)", notes[0]);

    /* Files first, plots before the JSON (written atomically), the table last: a failure
     * leaves one error line, not a table followed by an error. The plots are made in a new
     * folder inside --plot-dir and moved over the earlier ones only once the JSON and the
     * standard output are written (a failure removed or kept them: cluster_outputs.sh): a run
     * that fails leaves --plot-dir as it found it ("nothing written", as roofline). */
    char stage[NS_PATH_MAX] = ""; /* fits: check_outputs keeps --plot-dir 32 short of it */
    if (o.plot_dir) {
        int bad = ns_outdir_mkdir_p(o.plot_dir);
        snprintf(stage, sizeof stage, "%s/.cluster-new-XXXXXX", o.plot_dir);
        if (bad || !mkdtemp(stage)) {
            snprintf(err, sizeof err, "cannot create %s: %s", bad ? o.plot_dir : stage,
                     strerror(errno));
            fprintf(stderr, "nodescale cluster: error: %s\n", err);
            return NS_EXIT_FAIL;
        }
        if (ns_cluster_write_plots(&in, firsts, n_firsts, stage, err, sizeof err)) {
            discard_plots(stage);
            fprintf(stderr, "nodescale cluster: error: %s\n", err);
            return NS_EXIT_FAIL;
        }
    }
    json_t *root = NULL;
    if (o.json) {
        json_t *pts = json_array();
        root = json_object();
        ns_json_set_str(root, "schema", "nodescale-cluster/1");
        ns_json_set_str(root, "chip", in.sys.chip.name);
        ns_json_set_str(root, "model", in.model.name);
        ns_json_set_num(root, "params", ns_model_params(&in.model), NULL);
        ns_json_set_num(root, "peak_flops_per_s_per_chip", in.sys.chip.peak_flops[in.run.precision],
                        NULL);
        ns_json_set_str(root, "precision", ns_cprec_name(in.run.precision));
        if (in.node.applied) {
            json_t *node = json_object();
            ns_node_info_json(node, &in, o.node);
            json_object_set_new(root, "node", node);
        }
        for (int i = 0; i < n_rows; i++) {
            json_t *pt = ns_breakdown_json(&in, &rows[i]);
            ns_json_set_str(pt, "layout", searched[i] ? "searched" : "fixed");
            add_scaling(pt, &in, &firsts[0], &rows[i]);
            json_array_append_new(pts, pt);
        }
        json_object_set_new(root, "points", pts);
        json_t *jn = json_array();
        for (int i = 0; i < n_notes; i++)
            json_array_append_new(jn, json_string(notes[i]));
        json_object_set_new(root, "notes", jn);
        json_t *jw = json_array();
        for (int i = 0; i < n_warnings; i++)
            json_array_append_new(jw, json_string(warnings[i]));
        json_object_set_new(root, "warnings", jw);
        if (strcmp(o.json, "-") && ns_json_write_atomic(root, o.json, err, sizeof err)) {
            fprintf(stderr, "nodescale cluster: error: %s\n", err);
            json_decref(root);
            if (o.plot_dir) discard_plots(stage); /* cluster_outputs.sh */
            return NS_EXIT_FAIL;
        }
    }
    errno = 0; /* the first error writing the standard output, kept for its message */
    int out_errno = 0;
    if (o.json && !strcmp(o.json, "-")) {
        print_node(stderr, &in, o.node, 1);
        print_warnings(stderr, "nodescale cluster: warning: ");
        rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || puts("") < 0;
        if (rc) out_errno = errno;
    } else {
        print_header(&in);
        print_node(stdout, &in, o.node, 0);
        print_warnings(stdout, "warning: ");
        for (int i = 0; i < n_notes; i++)
            printf("note: %s\n", notes[i]);
        printf("\n");
        print_tables(&in, rows, n_rows);
        print_scaling(&in, firsts, n_firsts);
        if (o.search) printf("\n%ld configurations evaluated\n", evaluated);
    }
    json_decref(root);
    if (ferror(stdout) && !out_errno) out_errno = errno;
    if (fflush(stdout) != 0 || ferror(stdout) || rc) {
        if (!out_errno) out_errno = errno ? errno : EIO;
        fprintf(stderr, "nodescale cluster: error: cannot write the standard output: %s\n",
                strerror(out_errno));
        stdout_reported = 1;
        if (o.plot_dir) discard_plots(stage);
        return NS_EXIT_FAIL;
    }
    if (o.plot_dir && commit_plots(stage, o.plot_dir, err, sizeof err)) {
        fprintf(stderr, "nodescale cluster: error: %s\n", err);
        return NS_EXIT_FAIL;
    }
    return NS_EXIT_OK;
}
