/* The cluster scaling model: what a cluster of G chips delivers when it trains a dense
 * transformer with tensor (TP), pipeline (PP), data (DP) and context (CP) parallelism, and where
 * the share of peak that never becomes model went (exposed communication, pipeline bubble,
 * straggler wait, optimizer, failures).
 *
 * The inputs are plain structs, filled from JSON presets (cluster/presets/NAME.json), flags, and
 * the node bridge (a nodescale results.json). ns_cluster_eval() evaluates one configuration
 * without allocating or parsing, so --search can rank hundreds of thousands a second. Each
 * equation it combines lives in equations.c with its source. Placement: ranks are numbered TP
 * innermost, then CP, then PP, then DP (Llama 3 paper, arXiv 2407.21783, section 3.3.2), and a
 * scale-up domain is `domain_chips` consecutive ranks. Bandwidths are per direction per chip. */
#ifndef NS_CLUSTER_H
#define NS_CLUSTER_H

#include <jansson.h>
#include <stddef.h>

/* Numeric precisions a chip can quote a dense peak for. */
typedef enum {
    NS_CP_FP64,
    NS_CP_FP32,
    NS_CP_TF32,
    NS_CP_BF16,
    NS_CP_FP16,
    NS_CP_FP8,
    NS_CP_COUNT
} ns_cprec;

const char *ns_cprec_name(ns_cprec p);
int ns_cprec_parse(const char *s, ns_cprec *out); /* 0, or -1 for an unknown name */
double ns_cprec_bytes(ns_cprec p);                /* bytes per element */

/* One measured (or assumed) GEMM efficiency: the fraction of dense peak C(m×n) += A(m×k)·B(k×n)
 * reaches. The model interpolates between points by arithmetic intensity (ns_gemm_efficiency). */
typedef struct ns_gemm_point {
    double m, n, k, eff;
    double logai; /* log(mnk / (mk + kn + mn)); filled and sorted by ns_chip_finish() */
} ns_gemm_point;

#define NS_GEMM_POINTS_MAX 64

typedef struct ns_chip {
    char name[64];
    double peak_flops[NS_CP_COUNT]; /* dense FLOP/s per precision; 0 = not quoted */
    ns_gemm_point gemm[NS_GEMM_POINTS_MAX];
    int n_gemm;
    double gemm_eff_default; /* used when n_gemm == 0 */
    double attn_eff;         /* fused (flash) attention's share of peak */
    double mem_bw_bytes_per_s;
    double mem_capacity_bytes; /* 0 = unknown: the memory verdict is skipped */
    double mem_usable_frac; /* share of capacity a framework can use (fragmentation, workspace) */
} ns_chip;

typedef struct ns_link {
    double bw_bytes_per_s; /* per direction, per chip */
    double latency_s;      /* α */
} ns_link;

typedef struct ns_system {
    ns_chip chip;
    int domain_chips; /* scale-up domain size (NVLink domain, TPU slice) */
    ns_link scaleup;
    ns_link scaleout;
    double oversubscription; /* scale-out: per-chip bandwidth is bw / oversubscription */
    /* variability */
    double step_cv;       /* per-chip step-time coefficient of variation */
    double slow_prob;     /* probability that a chip is slow in a step */
    double slowdown_frac; /* how much slower a slow chip is (0.1 = 10%) */
    /* reliability */
    double chip_mtbf_h; /* 0 = no failures modelled */
    double checkpoint_write_s, restart_s;
    /* power and price */
    double chip_w, other_w_per_chip, pue;
    double usd_per_chip_h;
} ns_system;

typedef struct ns_model {
    char name[64];
    int layers, hidden, heads, kv_heads, ffn, vocab, seq_tokens;
    int gated_ffn;       /* SwiGLU: three FFN matrices instead of two */
    int causal;          /* flash attention skips the masked half (hardware time only) */
    int dropout;         /* dropout after attention and the FFN: its 1-byte masks are kept */
    int tied_embeddings; /* the input embedding is the output layer's matrix: V·h counted once */
    double params;       /* 0 = derived from the shape (ns_model_params) */
    double train_tokens; /* tokens to train on (time to train, energy, cost) */
} ns_model;

/* Activation recomputation (Korthikanti et al. 2022, arXiv 2205.05198): none; selective (the
 * attention core only); full (every layer keeps only its input and reruns its forward pass);
 * auto (the cheapest that fits in memory); partial (chosen by auto: the fewest whole layers per
 * stage recomputed in full, Megatron's --recompute-num-layers). */
typedef enum {
    NS_RECOMP_NONE,
    NS_RECOMP_SELECTIVE,
    NS_RECOMP_FULL,
    NS_RECOMP_AUTO,
    NS_RECOMP_PARTIAL
} ns_recompute;

const char *ns_recompute_name(ns_recompute r);
int ns_recompute_parse(const char *s, ns_recompute *out); /* none|selective|full|auto: 0, else -1 */

typedef struct ns_run {
    ns_cprec precision;
    int global_batch_seqs;
    ns_recompute recompute;
    int flash_attention;   /* attention scores never stored (Dao et al. 2022) */
    int sequence_parallel; /* Korthikanti et al. 2022: TP all-reduce = reduce-scatter + all-gather
                            */
    int distributed_optimizer; /* optimizer state sharded over DP×CP (ZeRO-1) */
    double grad_bytes_per_param;
    double optimizer_bytes_per_param;         /* resident: fp32 master weights + Adam m, v = 12 */
    double optimizer_traffic_bytes_per_param; /* read + written by one Adam step */
    double overlap_tp, overlap_cp, overlap_pp, overlap_dp; /* hidden share, 0..1 */
} ns_run;

/* One way to split G chips. dp is derived when 0. */
typedef struct ns_par {
    int tp, pp, dp, cp, micro_batch, interleave;
} ns_par;

/* The seed002 preset's toy mode: η(G) = a − b·log2(G) replaces the mechanistic model. */
typedef struct ns_eta_law {
    int enabled;
    double a, b;
} ns_eta_law;

/* What the node bridge took from a results.json, so that the outputs can say it: the GEMM
 * table's precision and size, the results it refused, and where the step CV came from. */
#define NS_NODE_REFUSED_IDS 4
#define NS_NODE_CV_DISTURBED 0.2 /* a GEMM time CV above this says the node was disturbed */
/* Which statistic the node's GEMM efficiency is (said in the text and JSON outputs). */
#define NS_NODE_GEMM_STATISTIC                                                                     \
    "fraction_of_roof: the GEMM's median sample against the compute ceiling's fastest sample "    \
    "(conservative on a noisy node; fraction_of_roof_fastest is its fastest sample)"
typedef struct ns_node_info {
    int applied;                               /* 1 after ns_cluster_apply_node */
    ns_cprec precision;                        /* of the GEMM table taken */
    int gemm_points;                           /* shapes in the table */
    int gemm_refused;                          /* GEMM results refused: fraction_of_roof > 1 */
    double refused_max;                        /* the largest refused fraction_of_roof */
    char refused_ids[NS_NODE_REFUSED_IDS][96]; /* the first refused results' ids */
    int cv_results;    /* GEMM results whose time_s.cv entered the median (0: none) */
    double step_cv;    /* that median */
    int cv_overridden; /* a later --step-cv replaced it */
    int as_chip;       /* the node is the chip (no chip preset) */
    int interrupted;   /* its results.json says "interrupted": true */
    int eff_overridden; /* --gemm-efficiency replaced its GEMM table */
    double mem_bytes;  /* as the chip: the node's RAM (context.memory.total_bytes) taken as the
                          memory capacity, 0 when results.json does not say */
    /* As the chip, per precision: the peak taken from the compute ceilings (FLOP/s), and why it
     * is doubtful when a suspect ceiling was taken or passed over ("" otherwise). */
    double peak_taken[NS_CP_COUNT];
    double peak_threads[NS_CP_COUNT];     /* the thread count of the ceiling taken */
    char peak_warning[NS_CP_COUNT][1024]; /* the text without its reason always fits */
    /* As the chip: the peak (FLOP/s) the GEMM efficiencies were re-based on (GEMM rate / peak,
     * ns_node_eff_statistic); 0 when they are fraction_of_roof (a chip preset). */
    double eff_peak;
    /* As the chip: the DRAM ceiling taken as the memory bandwidth (write-allocating class, else
     * read-only, else "unknown", never non-temporal while another exists): its kernel, class,
     * threads, whether it was flagged suspect, and its GB/s (the chip's until a flag replaces
     * it). */
    char mem_bw_kernel[48];
    const char *mem_bw_class;
    double mem_bw_threads;
    int mem_bw_suspect;
    double mem_bw_gbytes_per_s;
    int mem_bw_overridden; /* --mem-bw-gbytes-per-s replaced it */
} ns_node_info;

/* The most chips the command line and presets accept (--chips, a preset's "chips"): 2^30, the
 * largest DP degree and global batch a key takes. Every equation and the model are free of int
 * overflow for any int chip count; this limit keeps chip products in range with margin. */
#define NS_CLUSTER_MAX_CHIPS (1 << 30)

/* Everything the model reads. */
typedef struct ns_cluster_input {
    ns_system sys;
    ns_model model;
    ns_run run;
    ns_par par;
    ns_eta_law eta;
    int chip_counts[32]; /* chip counts to evaluate when none are given (preset "chips") */
    int n_chip_counts;
    ns_node_info node; /* filled by the node bridge; zero otherwise */
} ns_cluster_input;

/* Precomputed per (input, chip count): what is too costly for the inner loop. */
typedef struct ns_cluster_prep {
    int chips;
    double emax;       /* E[max of `chips` standard normals] */
    double p_any_slow; /* 1 − (1 − q)^chips */
    double params;     /* model parameters */
    double model_flops_per_token;
} ns_cluster_prep;

/* Where one training step's time went, per chip, and what follows from it. */
typedef struct ns_breakdown {
    ns_par par;
    ns_recompute recompute; /* the one used (AUTO resolved) */
    int recompute_layers;   /* layers per stage recomputed in full */
    int stage_layers;       /* layers on the busiest stage */
    int micro_batches;      /* per pipeline, m = B / (dp · micro_batch) */
    /* step time, seconds */
    double compute_s, tp_s, cp_s, pp_s, dp_s, bubble_s, straggler_s, optimizer_s, step_s;
    const char *dp_algo; /* collective chosen for the gradient all-reduce */
    /* memory per chip, bytes */
    double mem_weights, mem_grads, mem_optimizer, mem_activations, mem_total;
    int fits; /* 1 fits, 0 does not, -1 capacity unknown */
    /* throughput and utilisation: MFU from PaLM's model FLOPs (6N + 12·l·h·s per token), HFU
     * and hw_flops_per_s_per_chip from the FLOPs the model times (executed_flops_per_chip per
     * step on the average chip, recomputation included: HFU <= 1); model_over_executed is
     * PaLM's count over the executed FLOPs without recomputation (>= 1: > 1 by what
     * ns_mfu_not_executed names) */
    double tokens_per_step, tokens_per_s, model_flops_per_s_per_chip, mfu, hfu;
    double executed_flops_per_chip, executed_flops_no_recompute, hw_flops_per_s_per_chip;
    double model_over_executed;
    /* failures */
    double job_mtbf_s, ckpt_interval_s, goodput;
    /* totals for the run */
    double time_to_train_s, power_w, energy_j, cost_usd;
} ns_breakdown;

/* Parameter count of the model's shape: per layer Q and O (2h²), K and V (2·h·h_kv with
 * h_kv = h·kv_heads/heads), FFN ((2 or 3)·h·ffn); plus untied input and output embeddings
 * (2·V·h). Norms and biases are left out (< 0.01%). Returns model->params when it is set. */
double ns_model_params(const ns_model *model);

/* Fills the derived fields of the chip: each GEMM point's log arithmetic intensity, and sorts
 * the table by it. Call after changing the table. */
void ns_chip_finish(ns_chip *chip);

/* Fraction of peak for a GEMM of shape m×n×k: linear in log(arithmetic intensity) between the
 * table's points, held flat beyond the ends; gemm_eff_default when the table is empty. A small
 * dimension (few tokens per micro-batch, a thin TP shard) lowers the intensity and with it the
 * efficiency, as it lowers data reuse per tile in any blocked GEMM (Goto & van de Geijn 2008,
 * ACM TOMS 34(3), section 4). */
double ns_gemm_efficiency(const ns_chip *chip, double m, double n, double k);

/* Checks the input and the configuration (degrees > 0, product = chips, TP divides heads, CP
 * divides the sequence, DP·micro-batch divides the global batch, interleaving needs m % pp == 0,
 * the chip quotes a peak for the precision, ...). Returns 0, or -1 with a one-line reason. */
int ns_cluster_check(const ns_cluster_input *in, const ns_par *par, int chips, char *err,
                     size_t errlen);

/* The checks of ns_cluster_check that do not depend on the configuration (model shape, a peak
 * for the precision, bandwidths, domain, batch): what ns_cluster_search needs. 0 or -1. */
int ns_cluster_check_input(const ns_cluster_input *in, char *err, size_t errlen);

/* Fills *prep for `chips` chips (costly parts: the order statistic). */
void ns_cluster_prepare(const ns_cluster_input *in, int chips, ns_cluster_prep *prep);

/* Evaluates one configuration that passed ns_cluster_check. No allocation, no I/O. */
void ns_cluster_eval(const ns_cluster_input *in, const ns_cluster_prep *prep, const ns_par *par,
                     ns_breakdown *out);

/* Amdahl's parallel share p of step b when DP grows at a fixed global batch: the parts of the
 * step the model divides by the DP degree n (compute, exposed TP, CP and PP: the micro-batches per
 * pipeline; the straggler wait, compute × a factor that grows with the chip count; the optimizer
 * with a distributed optimizer), over the step. The rest does not shrink (the bubble, (p−1)/v
 * micro-batch times; the DP exchange; the optimizer without sharding). So for a configuration
 * that differs from b only in a DP degree n times larger (ns_same_but_dp), the step is at least
 * (1 − p + p/n) × b's and the speed-up at most Amdahl's 1 / ((1 − p) + p/n) (Amdahl 1967, AFIPS
 * SJCC 30; ns_amdahl_speedup). */
double ns_amdahl_parallel_share(const ns_cluster_input *in, const ns_breakdown *b);

/* 1 when b is a's configuration with only the DP degree multiplied (TP, PP, CP, micro-batch,
 * interleave and recomputation the same): where a's Amdahl bound applies to b. */
int ns_same_but_dp(const ns_breakdown *a, const ns_breakdown *b);

/* Enumerates every valid (TP, PP, CP, DP, micro-batch, interleave) for `chips` and keeps the
 * `top` fastest to train (fitting in memory first). Fills best[0..n) best first, returns n (0:
 * no valid configuration), and the number of configurations evaluated in *evaluated. The
 * input must pass ns_cluster_check_input. */
int ns_cluster_search(const ns_cluster_input *in, int chips, ns_breakdown *best, int top,
                      long *evaluated);

/* ---- presets and the node bridge (preset.c, node.c) --------------------------------------- */

/* The model preset trained when no preset names a model (`nodescale cluster`, a run's cluster
 * section). */
#define NS_CLUSTER_DEFAULT_MODEL "llama3-405b"

/* Sets every field to its documented default (no chip, no model). */
void ns_cluster_defaults(ns_cluster_input *in);

/* The folder presets are read from: $NODESCALE_PRESETS, else <exe>/../share/nodescale/presets
 * (after make install), else the nearest cluster/presets up to three folders above the binary
 * (the source tree: bin/nodescale, bin/tests/x, bin/asan/tests/x). Writes it into buf; 0 or -1. */
int ns_cluster_presets_dir(char *buf, size_t len);

/* Applies preset `name` (a file name without .json in the presets folder, or a path ending in
 * .json) on top of *in. Sections: chip, system, variability, reliability, power, model, run,
 * parallel, seed002; unknown keys are ignored. Returns 0, or -1 with a one-line reason. */
int ns_cluster_apply_preset(ns_cluster_input *in, const char *name, char *err, size_t errlen);

/* Applies a JSON object of preset sections (as in a preset file) on top of *in. */
int ns_cluster_apply_json(ns_cluster_input *in, const json_t *root, const char *what, char *err,
                          size_t errlen);

/* The node bridge: takes the GEMM efficiency table (results[] with family "gemm": params m,n,k
 * and fraction_of_roof, the best implementation per shape kept; of the run's precision if
 * measured, else fp32, else fp64) and the within-run sample jitter (median time_s.cv of the GEMM
 * results taken) from a nodescale results.json. A result above its roof (fraction_of_roof > 1)
 * is refused, never capped: its ceiling was mis-measured (a noisy run); in->node counts them and
 * says where the CV came from (ns_node_info_json). With as_chip set it also takes the chip
 * itself:
 *  - the peak per precision from ceilings.compute[] (dp -> fp64, sp -> fp32): the highest "fma"
 *    mix entry (a GEMM's roof; another mix only where a precision has no FMA entry) among those
 *    of the most threads measured, since the node is the chip with all its cores; an entry
 *    flagged suspect (by itself or by its roofline.ceilings_used.compute[] entry,
 *    ns_roofline_used_compute) only where no trusted one exists or the trusted one is below a
 *    GEMM the node ran;
 *  - the memory bandwidth from the DRAM entries of ceilings.bandwidth[] of the write-allocating
 *    class (stream_triad), else read-only (stream_load), the non-temporal ones only when there is
 *    no other (the model's memory-bound work uses normal stores): the highest of the class not
 *    flagged suspect, else its highest (in->node.mem_bw_*); the memory capacity from
 *    context.memory.total_bytes unless one is set; the chip's name from context.cpu.model.
 * A suspect peak taken or passed over is not printed: its text goes into
 * in->node.peak_warning[precision], which callers print or write through ns_node_peak_warning.
 * The node trains in its GEMM table's precision when that precision has a peak, so
 * in->run.precision may change (else, without a peak of the run precision, to fp32 or fp64), and
 * the table is then re-based on the peak taken: efficiency = the GEMM's rate / that peak
 * (in->node.eff_peak), so that each GEMM runs at its measured rate. Returns 0, or -1 with a
 * one-line reason. */
int ns_cluster_apply_node(ns_cluster_input *in, const json_t *results, int as_chip, char *err,
                          size_t errlen);

/* Measured collective α–β: `allreduce.fit {alpha_s, beta_s_per_byte[, ranks]}` (results.json,
 * fleet.json), a `fit {...}` at the top level, or a bare fit (the top level itself). alpha_s
 * must be >= 0, beta_s_per_byte > 0 and ranks, when given, an integer >= 2. With ranks n the
 * all-reduce fit is turned into per-link figures (α/(2(n−1)), β/(2(n−1)/n)); without, the fit is
 * taken as link α and β. Applied to the scale-up road when `scaleup` is set, else to scale-out.
 * Returns 0, or -1 with a reason that reads after the file name ("has no measured all-reduce fit
 * (--no-collectives)": allreduce.status, else fit.status). */
int ns_cluster_apply_allreduce(ns_cluster_input *in, const json_t *root, int scaleup, char *err,
                               size_t errlen);

/* ---- outputs (report.c, plot.c) ----------------------------------------------------------- */

/* What the node bridge took, as keys set on obj: gemm_precision, gemm_points,
 * gemm_points_refused [ids], gemm_status ("ok" or why results were refused),
 * gemm_efficiency_statistic (NS_NODE_GEMM_STATISTIC), step_cv,
 * step_cv_source (which CV from which results in `source`), variability_status ("ok",
 * "disturbed: ..." above NS_NODE_CV_DISTURBED, or "overridden by --step-cv"), and where they
 * apply interrupted_warning and peak_warning (ns_node_peak_warning). */
void ns_node_info_json(json_t *obj, const ns_cluster_input *in, const char *source);

/* The one-line warnings the node bridge raises (refused GEMM results, a disturbed CV, an
 * interrupted run), "" when none; each fills buf. */
const char *ns_node_gemm_warning(const ns_cluster_input *in, char *buf, size_t len);
const char *ns_node_cv_warning(const ns_cluster_input *in, char *buf, size_t len);
const char *ns_node_interrupted_warning(const ns_cluster_input *in, char *buf, size_t len);
/* The doubt about the chip's peak at the run precision (a suspect compute ceiling taken or passed
 * over) when the node is the chip and no --peak-tflop-per-s replaced that peak; "" otherwise. */
const char *ns_node_peak_warning(const ns_cluster_input *in, char *buf, size_t len);
/* Where the chip's memory bandwidth came from when the node is the chip: the DRAM ceiling
 * taken (kernel, load/store class, threads, suspect) or --mem-bw-gbytes-per-s; "" when the node
 * is not the chip. Fills buf, returns it. */
const char *ns_node_mem_bw_source(const ns_cluster_input *in, char *buf, size_t len);
/* Which statistic the node's GEMM efficiencies are, into buf: NS_NODE_GEMM_STATISTIC
 * (fraction_of_roof, with a chip preset), or as the chip the GEMM's rate / the peak taken
 * (eff_peak). Returns buf. */
const char *ns_node_eff_statistic(const ns_cluster_input *in, char *buf, size_t len);

/* Why b has no time to train (and so no energy or cost): NULL when it has one; "never: ..."
 * when failures leave no goodput; "no token budget (train_tokens)" when the model has none. */
const char *ns_breakdown_train_status(const ns_cluster_input *in, const ns_breakdown *b);

/* One breakdown as a JSON object (units in key names; non-finite numbers become null, each
 * with a *_status or "status" that says why). */
json_t *ns_breakdown_json(const ns_cluster_input *in, const ns_breakdown *b);

/* What PaLM's model FLOPs (MFU's numerator) count that the model does not execute, as a phrase
 * for the MFU notes: an untied input embedding (N from the shape holds it, ns_model_params; a
 * tied one is the output layer's matrix, no extra parameter), and the
 * causally masked half of attention only where the model skips it (a causal mask with flash
 * attention). A static string. */
const char *ns_mfu_not_executed(const ns_cluster_input *in);

/* The MFU convention as one sentence into buf (len bytes; 512 hold it): PaLM's count, what it
 * holds that the model does not execute (ns_mfu_not_executed), and that HFU counts the FLOPs
 * the model times. The JSON's mfu_convention and the table's MFU note. */
void ns_mfu_convention_text(const ns_cluster_input *in, char *buf, size_t len);

/* Whether `preset` loads and names a chip (sets a chip peak on its own), as `run
 * --cluster-preset` and ns_cluster_from_results need; a model preset (llama3-405b) or cpu-node
 * does not, nor does seed002's toy law; and whether NS_CLUSTER_DEFAULT_MODEL with the preset
 * over it passes ns_cluster_check_input, as ns_cluster_from_results checks it (the node aside),
 * so that a run refuses it before measuring. 0, or -1 with a one-line reason in err. */
int ns_cluster_check_chip_preset(const char *preset, char *err, size_t errlen);

/* The `cluster` section of results.json for `nodescale run`: the measured node's GEMM
 * efficiency and variability (from `results`) applied to the chip of `preset` (NULL:
 * "h100-sxm"), training NS_CLUSTER_DEFAULT_MODEL; for each chip count in {domain, 1024, 8192,
 * 16384} the fastest configuration found by the search, with its breakdown. With plot_dir
 * (an existing folder) it also writes the two plots there (ns_cluster_write_plots) and says in
 * "plots_status" whether that worked; a plot failure does not fail the call. Returns a new
 * reference, or NULL with a one-line reason in err (no GEMM in results, unknown preset, a preset
 * that names no chip). */
json_t *ns_cluster_from_results(const json_t *results, const char *preset, const char *plot_dir,
                                char *err, size_t errlen);

/* Writes into folder `dir` (which must exist): cluster_breakdown.{dat,gp,svg,png} (stacked bars
 * of the step-time breakdown per chip count) and cluster_scaling.{dat,gp,svg,png} (MFU and realized
 * FLOP/s against chip count), running gnuplot as a program. pts[0..n). Returns 0, or -1 with a
 * one-line reason (gnuplot missing or failing: the .dat and .gp files are still written; a
 * write that failed: none of the files is left). */
int ns_cluster_write_plots(const ns_cluster_input *in, const ns_breakdown *pts, int n,
                           const char *dir, char *err, size_t errlen);

/* Removes the eight files ns_cluster_write_plots writes in dir (those there). */
void ns_cluster_remove_plots(const char *dir);

#endif
