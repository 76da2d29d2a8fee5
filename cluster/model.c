/* One training step of a dense transformer on G chips, per chip: compute from the GEMM
 * efficiency table and the roofline, exposed TP/CP/PP/DP communication under the α–β model
 * (hierarchical where a group spans scale-up domains), the pipeline bubble, the straggler wait,
 * the optimizer step, memory per chip, and what follows (MFU, HFU, goodput, time to train,
 * power, cost). Every formula from a paper is a function of equations.c, with its source; this
 * file wires them to the shapes of one layer and counts those shapes itself: the parameters
 * (ns_model_params), a layer's GEMM and attention FLOPs and element-wise bytes (layer_fwd), and
 * the FLOPs a step executes behind HFU (eval_rc). Nothing here allocates: ns_cluster_search()
 * calls ns_cluster_eval() in its inner loop.
 *
 * What the model leaves out, and so where it can miss a published figure:
 *  - Sustained clocks. The GEMM table is per-call efficiency; a chip held at its power limit for
 *    hours runs slower (Meta saw a diurnal 1-2% from DVFS alone). Presets' GPU tables are
 *    assumptions until replaced with measurements.
 *  - Real collectives. α–β with ideal links: no NCCL protocol overhead (busbw is typically
 *    80-90% of the link), no congestion or adaptive-routing effects in a Clos fabric, no
 *    interference between TP, PP and DP traffic sharing a NIC. Overlap shares are inputs.
 *  - The schedule. Megatron's interleaved 1F1B with balanced stages; not Meta's modified
 *    schedule, not zero-bubble or DualPipe schedules, and no stage imbalance beyond whole layers.
 *  - Framework time: kernel launches, host synchronisation, data loading, garbage collection,
 *    the loss and the embedding, none of which is in the step.
 *  - Activation bytes follow Korthikanti et al.'s terms (in the run's precision, BF16 under FP8,
 *    the FFN size, gating and KV heads of the shape); allocator fragmentation is one usable
 *    share. FP8 is only the GEMM operands (storage_prec), a recipe, not a measured run.
 *  - Stragglers are independent normal noise plus rare slow chips; real ones are correlated (a
 *    hot rack, a flapping link) and show up inside collectives.
 *  - Failures are exponential (Daly's higher-order goodput); restarts cost a fixed time. */
#include "cluster/cluster.h"
#include "cluster/equations.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prec_names[NS_CP_COUNT] = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8"};
static const double prec_bytes[NS_CP_COUNT] = {8, 4, 4, 2, 2, 1};

const char *ns_cprec_name(ns_cprec p) {
    return p < NS_CP_COUNT ? prec_names[p] : "?";
}

int ns_cprec_parse(const char *s, ns_cprec *out) {
    for (int i = 0; i < NS_CP_COUNT; i++)
        if (!strcmp(s, prec_names[i])) {
            *out = (ns_cprec)i;
            return 0;
        }
    return -1;
}

double ns_cprec_bytes(ns_cprec p) {
    return prec_bytes[p];
}

/* The precision of all that is not a GEMM operand: weights, attention, softmax, norms,
 * residuals, activations and the TP, PP and CP messages. FP8 training runs only the GEMM
 * operands in FP8 and keeps these in BF16 (DeepSeek-V3, arXiv 2412.19437, sec. 3.3; NVIDIA
 * Transformer Engine's FP8 recipes); any other precision is the run's throughout. */
static ns_cprec storage_prec(const ns_cluster_input *in) {
    return in->run.precision == NS_CP_FP8 ? NS_CP_BF16 : in->run.precision;
}

static const char *const recompute_names[] = {"none", "selective", "full", "auto", "partial"};

const char *ns_recompute_name(ns_recompute r) {
    return recompute_names[r];
}

int ns_recompute_parse(const char *s, ns_recompute *out) {
    for (int i = 0; i <= NS_RECOMP_AUTO; i++) /* "partial" is chosen by auto, not given */
        if (!strcmp(s, recompute_names[i])) {
            *out = (ns_recompute)i;
            return 0;
        }
    return -1;
}

/* ---- the model's shape ---------------------------------------------------------------------- */

static double head_dim(const ns_model *m) {
    return (double)m->hidden / m->heads;
}

double ns_model_params(const ns_model *m) {
    if (m->params > 0) return m->params;
    double h = m->hidden, h_kv = head_dim(m) * m->kv_heads;
    double per_layer = 2.0 * h * h + 2.0 * h * h_kv + (m->gated_ffn ? 3.0 : 2.0) * h * m->ffn;
    /* the input embedding and the output layer: one V·h matrix when tied */
    return m->layers * per_layer + (m->tied_embeddings ? 1.0 : 2.0) * (double)m->vocab * h;
}

/* ---- the chip ------------------------------------------------------------------------------- */

/* A GEMM's arithmetic intensity in elements, mnk / (mk + kn + mn): ns_gemm_ai at 2 bytes per
 * element (the factors 2 cancel exactly). */
static double gemm_ai_elems(double m, double n, double k) {
    return ns_gemm_ai(m, n, k, 2.0);
}

static int cmp_point(const void *a, const void *b) {
    double x = ((const ns_gemm_point *)a)->logai, y = ((const ns_gemm_point *)b)->logai;
    return (x > y) - (x < y);
}

void ns_chip_finish(ns_chip *chip) {
    for (int i = 0; i < chip->n_gemm; i++) {
        ns_gemm_point *g = &chip->gemm[i];
        g->logai = log(gemm_ai_elems(g->m, g->n, g->k));
    }
    qsort(chip->gemm, (size_t)chip->n_gemm, sizeof chip->gemm[0], cmp_point);
}

double ns_gemm_efficiency(const ns_chip *chip, double m, double n, double k) {
    const ns_gemm_point *g = chip->gemm;
    int np = chip->n_gemm;
    if (np == 0) return chip->gemm_eff_default;
    double la = log(gemm_ai_elems(m, n, k));
    if (la <= g[0].logai) return g[0].eff;
    for (int i = 1; i < np; i++)
        if (la <= g[i].logai) {
            double span = g[i].logai - g[i - 1].logai;
            double w = span > 0 ? (la - g[i - 1].logai) / span : 1.0;
            return g[i - 1].eff + w * (g[i].eff - g[i - 1].eff);
        }
    return g[np - 1].eff;
}

/* ---- configuration checks ------------------------------------------------------------------- */

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -1;                                                                                 \
    } while (0)

int ns_cluster_check_input(const ns_cluster_input *in, char *err, size_t errlen) {
    const ns_model *m = &in->model;
    const ns_system *s = &in->sys;
    if (m->layers < 1 || m->hidden < 1 || m->heads < 1 || m->ffn < 1 || m->vocab < 1 ||
        m->seq_tokens < 1)
        FAIL("model shape incomplete: layers, hidden, heads, ffn, vocab and seq-tokens must be > 0 "
             "(use --preset llama3-405b or the model flags)");
    if (m->kv_heads < 1 || m->heads % m->kv_heads)
        FAIL("kv-heads (%d) must be >= 1 and divide heads (%d)", m->kv_heads, m->heads);
    if (m->hidden % m->heads) FAIL("heads (%d) must divide hidden (%d)", m->heads, m->hidden);
    /* The step is timed from the shape; a parameter count beside it would feed MFU, memory and
     * DP traffic with other work than the one timed (MFU above 100%: test_cluster.c model_checks). */
    if (m->params > 0) {
        ns_model shape = *m;
        shape.params = 0;
        FAIL("params (%g) cannot stand beside the model shape (%d layers, hidden %d, ffn %d: %.4g "
             "B parameters), which the step is timed from; give the shape only",
             m->params, m->layers, m->hidden, m->ffn, ns_model_params(&shape) / 1e9);
    }
    if (!(s->chip.peak_flops[in->run.precision] > 0))
        FAIL("chip '%s' has no dense peak for %s (set --peak-tflop-per-s or --precision)",
             s->chip.name[0] ? s->chip.name : "(none)", ns_cprec_name(in->run.precision));
    if (!(s->chip.peak_flops[storage_prec(in)] > 0))
        FAIL("chip '%s' has no dense peak for %s, which %s runs attention in (set its "
             "peak_tflop_per_s in a preset)",
             s->chip.name[0] ? s->chip.name : "(none)", ns_cprec_name(storage_prec(in)),
             ns_cprec_name(in->run.precision));
    if (!(s->chip.mem_bw_bytes_per_s > 0)) FAIL("chip memory bandwidth must be > 0");
    if (s->domain_chips < 1) FAIL("domain-chips must be >= 1");
    if (!(s->scaleup.bw_bytes_per_s > 0) || !(s->scaleout.bw_bytes_per_s > 0))
        FAIL("scale-up and scale-out bandwidths must be > 0");
    if (in->run.global_batch_seqs < 1) FAIL("global batch must be >= 1 sequence");
    return 0;
}

int ns_cluster_check(const ns_cluster_input *in, const ns_par *par, int chips, char *err,
                     size_t errlen) {
    const ns_model *m = &in->model;
    if (chips < 1) FAIL("chip count must be >= 1 (got %d)", chips);
    if (ns_cluster_check_input(in, err, errlen)) return -1;
    if (par->tp < 1 || par->pp < 1 || par->cp < 1 || par->dp < 1 || par->micro_batch < 1 ||
        par->interleave < 1)
        FAIL("tp, pp, dp, cp, micro-batch and interleave must all be >= 1");
    if ((long long)par->tp * par->pp * par->dp * par->cp != chips)
        FAIL("tp*pp*cp*dp = %d*%d*%d*%d = %lld, not the chip count %d", par->tp, par->pp, par->cp,
             par->dp, (long long)par->tp * par->pp * par->cp * par->dp, chips);
    if (m->heads % par->tp) FAIL("tp (%d) must divide the head count (%d)", par->tp, m->heads);
    if ((long long)par->pp * par->interleave > m->layers)
        FAIL("pp*interleave (%lld) exceeds the layer count (%d)",
             (long long)par->pp * par->interleave, m->layers);
    if (m->seq_tokens % par->cp)
        FAIL("cp (%d) must divide the sequence length (%d)", par->cp, m->seq_tokens);
    if (in->run.global_batch_seqs % ((long long)par->dp * par->micro_batch))
        FAIL("dp*micro-batch (%d*%d) must divide the global batch (%d sequences)", par->dp,
             par->micro_batch, in->run.global_batch_seqs);
    int mb = in->run.global_batch_seqs / (par->dp * par->micro_batch);
    if (par->interleave > 1 && (par->pp < 2 || mb % par->pp))
        FAIL("an interleaved schedule needs pp >= 2 and micro-batches (%d) divisible by pp (%d)",
             mb, par->pp);
    return 0;
}

/* ---- placement: how a communicating group sits on scale-up domains ------------------------- */

/* A group of n ranks, n_in of them inside each scale-up domain, across n_out domains. */
typedef struct group {
    int n_in, n_out;
} group;

/* Ranks base + i·stride, i < n, with domains of D consecutive ranks. */
static group place(int stride, int n, int D) {
    group g = {1, n};
    if (stride < D) {
        g.n_in = D / stride < n ? D / stride : n;
        if (g.n_in < 1) g.n_in = 1;
        g.n_out = (n + g.n_in - 1) / g.n_in;
    }
    return g;
}

/* Per-chip scale-out link after oversubscription. */
static ns_link scaleout(const ns_system *s) {
    ns_link l = s->scaleout;
    l.bw_bytes_per_s /= s->oversubscription;
    return l;
}

/* All-reduce of S bytes over a placed group: flat where it stays on one road; where it spans
 * domains the faster of a flat ring over the slow road and the hierarchical schedule
 * (reduce-scatter inside, all-reduce of S/n_in across, all-gather inside; each chip's own NIC
 * carries its shard), NCCL's and Jia et al.'s (arXiv 1807.11205) two-level scheme. */
static double group_allreduce(const ns_system *s, group g, double S, const char **algo) {
    ns_link up = s->scaleup, out = scaleout(s);
    if (g.n_out == 1) return ns_allreduce_best_s(S, g.n_in, up.latency_s, up.bw_bytes_per_s, algo);
    if (g.n_in == 1)
        return ns_allreduce_best_s(S, g.n_out, out.latency_s, out.bw_bytes_per_s, algo);
    long long n = (long long)g.n_in * g.n_out; /* rounded up per domain: may pass INT_MAX */
    double flat =
        ns_allreduce_ring_s(S, n < INT_MAX ? (int)n : INT_MAX, out.latency_s, out.bw_bytes_per_s);
    double hier = 2.0 * ns_reduce_scatter_best_s(S, g.n_in, up.latency_s, up.bw_bytes_per_s) +
                  ns_allreduce_best_s(S / g.n_in, g.n_out, out.latency_s, out.bw_bytes_per_s, NULL);
    if (algo) *algo = hier < flat ? "hierarchical" : "ring";
    return fmin(flat, hier);
}

/* Reduce-scatter (or all-gather) of S bytes in total over a placed group, inside first. */
static double group_reduce_scatter(const ns_system *s, group g, double S) {
    ns_link up = s->scaleup, out = scaleout(s);
    return ns_reduce_scatter_best_s(S, g.n_in, up.latency_s, up.bw_bytes_per_s) +
           ns_reduce_scatter_best_s(S / g.n_in, g.n_out, out.latency_s, out.bw_bytes_per_s);
}

/* ---- one layer on one chip ------------------------------------------------------------------ */

/* A GEMM's time under the roofline at the efficiency measured for its shape: its operands in
 * the run's precision at that precision's rate, its output in the storage precision. */
static double gemm_s(const ns_cluster_input *in, double m, double n, double k) {
    const ns_chip *c = &in->sys.chip;
    double e = ns_cprec_bytes(in->run.precision), e_out = ns_cprec_bytes(storage_prec(in));
    double rate = c->peak_flops[in->run.precision] * ns_gemm_efficiency(c, m, n, k);
    return ns_roofline_time_s(2.0 * m * n * k, e * (m * k + k * n) + e_out * m * n, rate,
                              c->mem_bw_bytes_per_s);
}

/* Times of one layer's forward pass for one micro-batch on one chip, and the FLOPs they time. */
typedef struct layer_times {
    double fwd_s;      /* GEMMs + attention + memory-bound element-wise work */
    double attn_s;     /* the attention core alone (what selective recomputation repeats) */
    double fwd_flops;  /* the FLOPs fwd_s executes: the GEMMs' 2mnk and attn_flops */
    double attn_flops; /* the attention core's, the masked half skipped by flash attention */
} layer_times;

static layer_times layer_fwd(const ns_cluster_input *in, const ns_par *par) {
    const ns_model *m = &in->model;
    const ns_chip *c = &in->sys.chip;
    double t = par->tp, e = ns_cprec_bytes(storage_prec(in)); /* attention and element-wise */
    double T = (double)par->micro_batch * m->seq_tokens / par->cp; /* tokens on this chip */
    double h = m->hidden, hd = head_dim(m), f = m->ffn;
    double kv_local = ns_kv_heads_per_rank(m->kv_heads, t);
    layer_times lt;
    /* Attention core: QKᵀ and AV, 4·T·s·h/t FLOP. Under a causal mask flash attention skips
     * the blocks above the diagonal, half (Dao 2023, arXiv 2307.08691, sec. 3.1.1); unfused
     * attention computes the whole s² scores and then masks them (Dao et al. 2022, Algorithm 0;
     * Narayanan et al. 2021 eq. (3) counts them in full). */
    const int skip_masked = m->causal && in->run.flash_attention;
    lt.attn_flops = 4.0 * T * m->seq_tokens * h / t * (skip_masked ? 0.5 : 1.0);
    lt.attn_s = lt.attn_flops / (c->peak_flops[storage_prec(in)] * c->attn_eff);
    /* Unfused attention moves the b·(a/t)·s² scores through memory (ns_attn_score_bytes each);
     * backward is counted as for the rest, twice the forward. */
    if (!in->run.flash_attention) {
        double per_score = ns_attn_score_bytes(e, m->dropout);
        lt.attn_s += per_score * T * ((double)m->heads / t) * m->seq_tokens / c->mem_bw_bytes_per_s;
    }
    const double qkv_n = h / t + 2.0 * hd * kv_local, up_n = (m->gated_ffn ? 2.0 : 1.0) * f / t;
    double gemms = gemm_s(in, T, qkv_n, h)    /* QKV projection */
                   + gemm_s(in, T, h, h / t)  /* output projection */
                   + gemm_s(in, T, up_n, h)   /* up (+ gate) */
                   + gemm_s(in, T, h, f / t); /* down */
    lt.fwd_flops = 2.0 * T * h * (qkv_n + h / t + up_n + f / t) + lt.attn_flops;
    /* Memory-bound element-wise work per token: two norms and two residual adds over h
     * (read + write: 10·h elements; split over TP under sequence parallelism) and the FFN
     * activation over f/t (read 2 or 1, write 1). bytes / bandwidth (roofline, memory side). */
    double h_el = in->run.sequence_parallel ? h / t : h;
    double elem_bytes = e * T * (10.0 * h_el + (m->gated_ffn ? 3.0 : 2.0) * f / t);
    lt.fwd_s = gemms + lt.attn_s + elem_bytes / c->mem_bw_bytes_per_s;
    return lt;
}

/* Activation bytes one layer keeps for one micro-batch (ns_korthikanti_act_bytes) in the
 * storage precision (storage_prec: the run's, BF16 under FP8), as the weights are: the scores
 * are not stored with flash attention or selective recomputation; with CP, s is s/cp and the
 * scores are (s/cp)·s per head, and the K and V gathered from the other CP ranks are kept too. */
static double act_bytes_per_layer(const ns_cluster_input *in, const ns_par *par, ns_recompute rc) {
    const ns_model *m = &in->model;
    double s = (double)m->seq_tokens / par->cp;
    int keep_scores = !(in->run.flash_attention || rc == NS_RECOMP_SELECTIVE);
    /* this rank's s/cp queries against all seq keys (Llama 3 sec. 3.3.2: K and V gathered) */
    double score_keys = keep_scores ? (double)m->seq_tokens : 0.0;
    double e = ns_cprec_bytes(storage_prec(in));
    const ns_act_shape shape = {.s = s,
                                .b = par->micro_batch,
                                .h = m->hidden,
                                .heads = m->heads,
                                .kv_heads = m->kv_heads,
                                .ffn = m->ffn,
                                .gated = m->gated_ffn,
                                .t = par->tp,
                                .sp = in->run.sequence_parallel,
                                .e = e,
                                .dropout = m->dropout,
                                .score_keys = score_keys,
                                .full = rc == NS_RECOMP_FULL};
    double bytes = ns_korthikanti_act_bytes(&shape);
    /* CP: the backward of this rank's queries needs the K and V of all seq keys. The model
     * stores the ones the forward all-gather brought (ns_cp_gathered_kv_bytes), rather than
     * gathering them again in backward. A fully recomputed layer keeps only its input and
     * gathers again when it reruns. */
    if (par->cp > 1 && rc != NS_RECOMP_FULL)
        bytes += ns_cp_gathered_kv_bytes(e, par->micro_batch, m->seq_tokens, par->cp, head_dim(m),
                                         ns_kv_heads_per_rank(m->kv_heads, par->tp));
    return bytes;
}

/* ---- prepare and evaluate ------------------------------------------------------------------- */

void ns_cluster_prepare(const ns_cluster_input *in, int chips, ns_cluster_prep *prep) {
    const ns_model *m = &in->model;
    prep->chips = chips;
    prep->emax = ns_expected_max_normal(chips);
    prep->p_any_slow = ns_prob_any_slow(in->sys.slow_prob, chips);
    prep->params = ns_model_params(m);
    prep->model_flops_per_token =
        ns_palm_flops_per_token(prep->params, m->layers, m->heads, head_dim(m), m->seq_tokens);
}

/* Layers on the busiest stage: whole layers per model chunk, v chunks per stage. */
static int stage_layers_of(const ns_model *m, const ns_par *par) {
    int pv = par->pp * par->interleave;
    return (m->layers + pv - 1) / pv * par->interleave;
}

/* The exposed communication of one step into o: TP, CP, PP and DP (o->dp_algo), each less its
 * overlapped share. T is the tokens of one micro-batch on one CP rank, params_local the
 * parameters a chip holds. Reads o->micro_batches, stage_layers and recompute_layers, which the
 * caller has set. */
static inline void eval_comm(const ns_cluster_input *in, const ns_par *par, double T,
                             double params_local, ns_breakdown *o) {
    const ns_model *m = &in->model;
    const ns_system *s = &in->sys;
    const ns_run *r = &in->run;
    const int D = s->domain_chips, t = par->tp, p = par->pp, c = par->cp, d = par->dp,
              v = par->interleave;
    const double e = ns_cprec_bytes(storage_prec(in)); /* BF16 under FP8 */
    const int mb = o->micro_batches, L = o->stage_layers, rl = o->recompute_layers;
    /* TP: two all-reduces of the layer's activations (T·h elements) forward, two backward, two
     * more when the forward pass is recomputed (Shoeybi et al. 2019, arXiv 1909.08053, sec. 3);
     * sequence parallelism swaps each for a reduce-scatter + all-gather of equal ring cost. */
    if (t > 1) {
        double n_ar = 4.0 * L + 2.0 * rl;
        double ar = group_allreduce(s, place(1, t, D), T * m->hidden * e, NULL);
        o->tp_s = (1.0 - r->overlap_tp) * mb * n_ar * ar;
    }
    /* CP: all-gather of K and V forward (reduce-scatter of their gradients backward) over the
     * CP group, Llama 3 paper section 3.3.2. */
    if (c > 1) {
        double kv_local = ns_kv_heads_per_rank(m->kv_heads, t);
        double kv_bytes =
            (double)par->micro_batch * m->seq_tokens * 2.0 * kv_local * head_dim(m) * e;
        double n_coll = 2.0 * L + rl;
        o->cp_s =
            (1.0 - r->overlap_cp) * mb * n_coll * group_reduce_scatter(s, place(t, c, D), kv_bytes);
    }
    /* PP: one activation send forward and one gradient send backward per micro-batch per model
     * chunk, T·h/t elements with scatter/gather (Narayanan et al. 2021 section 4.1); over the
     * slow road as soon as any stage boundary leaves the domain. */
    if (p > 1) {
        ns_link l = (long long)t * c * p <= D ? s->scaleup : scaleout(s);
        double msg = ns_p2p_s(T * m->hidden * e / t, l.latency_s, l.bw_bytes_per_s);
        o->pp_s = (1.0 - r->overlap_pp) * 2.0 * v * mb * msg;
    }
    /* DP (and CP, whose ranks hold the same weights): gradient all-reduce once per step, or with
     * a distributed optimizer a reduce-scatter of gradients + all-gather of weights. */
    o->dp_algo = "none";
    if (d * c > 1) {
        /* CP members at stride t, DP members at stride t·c·p: count those in one domain. */
        group gc = place(t, c, D), gd = {1, d};
        if (gc.n_out == 1) gd = place(t * c * p, d, D);
        group g = {gc.n_in * gd.n_in, gc.n_out * gd.n_out};
        double grads = params_local * r->grad_bytes_per_param;
        double dp;
        if (r->distributed_optimizer) {
            dp = group_reduce_scatter(s, g, grads) + group_reduce_scatter(s, g, params_local * e);
            o->dp_algo = "reduce-scatter+all-gather";
        } else {
            dp = group_allreduce(s, g, grads, &o->dp_algo);
        }
        o->dp_s = (1.0 - r->overlap_dp) * dp;
    }
}

/* Memory per chip into o (mem_*, fits): weights, gradients, optimizer state and the
 * activations of the first stage's in-flight micro-batches, a recomputed layer keeping only its
 * input, plus one layer's full set while it is recomputed. */
static inline void eval_memory(const ns_cluster_input *in, const ns_par *par, ns_recompute rc,
                               double params_local, ns_breakdown *o) {
    const ns_system *s = &in->sys;
    const ns_run *r = &in->run;
    const double e = ns_cprec_bytes(storage_prec(in)); /* BF16 under FP8 */
    const int L = o->stage_layers, rl = o->recompute_layers;
    o->mem_weights = params_local * e;
    o->mem_grads = params_local * r->grad_bytes_per_param;
    o->mem_optimizer = params_local * r->optimizer_bytes_per_param /
                       (r->distributed_optimizer ? (double)par->cp * par->dp : 1.0);
    double keep = act_bytes_per_layer(in, par, rc == NS_RECOMP_SELECTIVE ? rc : NS_RECOMP_NONE);
    double input_only = act_bytes_per_layer(in, par, NS_RECOMP_FULL);
    o->mem_activations = ns_pipeline_in_flight(par->pp, o->micro_batches, par->interleave) *
                             ((L - rl) * keep + rl * input_only) +
                         (rl > 0 ? keep : 0.0);
    o->mem_total = o->mem_weights + o->mem_grads + o->mem_optimizer + o->mem_activations;
    double cap = s->chip.mem_capacity_bytes * s->chip.mem_usable_frac;
    o->fits = cap > 0 ? o->mem_total <= cap : -1;
}

/* Throughput and utilisation into o (tokens, MFU, HFU, model and executed FLOP/s per chip);
 * reads o->step_s and o->executed_flops_*, which the caller has set. MFU is PaLM's (appendix
 * B): its 6N + 12·l·h·s can count an untied input embedding (a lookup, no FLOPs) and the
 * causally masked half of attention that flash attention skips (ns_mfu_not_executed names
 * which), so it can exceed what the chips execute (o->model_over_executed says by how much).
 * HFU and the FLOP/s per chip are the FLOPs the model times (recomputation included): at most
 * the peak. */
static inline void eval_rates(const ns_cluster_input *in, const ns_cluster_prep *prep,
                              ns_breakdown *o) {
    const ns_model *m = &in->model;
    const ns_run *r = &in->run;
    int G = prep->chips;
    double peak = in->sys.chip.peak_flops[r->precision];
    o->tokens_per_step = (double)r->global_batch_seqs * m->seq_tokens;
    o->tokens_per_s = o->tokens_per_step / o->step_s;
    o->mfu = ns_mfu(o->tokens_per_s, prep->model_flops_per_token, G, peak);
    o->hw_flops_per_s_per_chip = o->executed_flops_per_chip / o->step_s;
    o->hfu = ns_share_of_peak(o->hw_flops_per_s_per_chip, peak);
    o->model_flops_per_s_per_chip = o->tokens_per_s * prep->model_flops_per_token / G;
    o->model_over_executed =
        o->tokens_per_step * prep->model_flops_per_token / (G * o->executed_flops_no_recompute);
}

/* Failures into o: job MTBF = chip MTBF / G, Daly's checkpoint interval, goodput. */
static inline void eval_reliability(const ns_system *s, int G, ns_breakdown *o) {
    o->job_mtbf_s = s->chip_mtbf_h > 0 ? ns_job_mtbf_s(s->chip_mtbf_h * 3600.0, G) : INFINITY;
    o->ckpt_interval_s =
        s->checkpoint_write_s > 0 ? ns_daly_interval_s(s->checkpoint_write_s, o->job_mtbf_s) : 0.0;
    o->goodput = s->checkpoint_write_s > 0
                     ? ns_goodput_fraction(o->ckpt_interval_s, s->checkpoint_write_s, s->restart_s,
                                           o->job_mtbf_s)
                     : ns_goodput_no_checkpoint(s->restart_s, o->job_mtbf_s);
}

/* Evaluates with a fixed recomputation choice; `rlayers` is how many of the stage's layers are
 * recomputed in full when rc is NS_RECOMP_PARTIAL (Megatron's --recompute-num-layers). */
static void eval_rc(const ns_cluster_input *in, const ns_cluster_prep *prep, const ns_par *par,
                    ns_recompute rc, int rlayers, ns_breakdown *o) {
    const ns_model *m = &in->model;
    const ns_system *s = &in->sys;
    const ns_run *r = &in->run;
    const int t = par->tp, p = par->pp, c = par->cp, d = par->dp, v = par->interleave;
    const int mb = r->global_batch_seqs / (d * par->micro_batch);
    const double T = (double)par->micro_batch * m->seq_tokens / c;
    const int L = stage_layers_of(m, par);
    const int rl = rc == NS_RECOMP_FULL ? L : rc == NS_RECOMP_PARTIAL ? rlayers : 0;

    memset(o, 0, sizeof *o);
    o->par = *par;
    o->recompute = rc;
    o->recompute_layers = rl;
    o->stage_layers = L;
    o->micro_batches = mb;

    /* Compute per micro-batch on the busiest stage; the output layer's work is spread over the
     * stages as if balanced (Llama 3 gives the first and last stage one layer fewer for the
     * same reason). Backward costs twice the forward pass; a recomputed layer runs its forward
     * pass again, selective recomputation only the attention core. */
    layer_times lt = layer_fwd(in, par);
    double layer_s = 3.0 * lt.fwd_s + (rc == NS_RECOMP_SELECTIVE ? lt.attn_s : 0.0);
    double logits_s = 3.0 * gemm_s(in, T, (double)m->vocab / t, m->hidden);
    double mb_s = L * layer_s + rl * lt.fwd_s + logits_s / p;
    o->compute_s = mb * mb_s;
    /* The FLOPs those times execute, on the average chip: the model's layers over p stages (the
     * busiest stage's L may be more), rl/L of them recomputed, the output layer spread. No chip
     * executes more than compute_s × peak, so HFU <= 1 by construction. */
    double layers_per_chip = (double)m->layers / p;
    double logits_flops = 3.0 * 2.0 * T * ((double)m->vocab / t) * m->hidden / p;
    double layer_flops = 3.0 * lt.fwd_flops + (rc == NS_RECOMP_SELECTIVE ? lt.attn_flops : 0.0);
    double recomputed_flops = (double)rl / L * lt.fwd_flops;
    o->executed_flops_per_chip =
        mb * (layers_per_chip * (layer_flops + recomputed_flops) + logits_flops);
    o->executed_flops_no_recompute = mb * (layers_per_chip * 3.0 * lt.fwd_flops + logits_flops);

    double params_local = prep->params / ((double)t * p);
    eval_comm(in, par, T, params_local, o);
    /* The bubble: (p−1)/(v·m) of the time the stage spends on its micro-batches, the exposed
     * TP and CP collectives included, since an idle slot lasts one micro-batch's forward and
     * backward, t_f + t_b, and those collectives are on its critical path (Narayanan et al. 2021
     * sec. 2.2.1: bubble (p−1)·(t_f + t_b); sec. 2.2.2 for v). */
    o->bubble_s = ns_bubble_megatron_ratio(p, mb, v) * (o->compute_s + o->tp_s + o->cp_s);
    /* Optimizer: Adam is memory-bound (~0.5 FLOP/byte): bytes / bandwidth over the local shard. */
    double opt_params = params_local / (r->distributed_optimizer ? (double)c * d : 1.0);
    o->optimizer_s = opt_params * r->optimizer_traffic_bytes_per_param / s->chip.mem_bw_bytes_per_s;

    /* Stragglers: the step waits for the slowest of G chips, E[max] = μ + σ·E[Z_(G)] for
     * normal step-time noise, plus a rare slow chip with probability 1 − (1 − q)^G. */
    o->straggler_s = o->compute_s * (s->step_cv * prep->emax + prep->p_any_slow * s->slowdown_frac);

    o->step_s = o->compute_s + o->tp_s + o->cp_s + o->pp_s + o->dp_s + o->bubble_s +
                o->straggler_s + o->optimizer_s;

    eval_memory(in, par, rc, params_local, o);
    eval_rates(in, prep, o);
    eval_reliability(s, prep->chips, o);

    /* Totals for the run. */
    int G = prep->chips;
    o->time_to_train_s = m->train_tokens > 0 && o->goodput > 0
                             ? m->train_tokens / (o->tokens_per_s * o->goodput)
                             : NAN;
    o->power_w = ns_cluster_power_w(G, s->chip_w, s->other_w_per_chip, s->pue);
    o->energy_j = o->power_w * o->time_to_train_s;
    o->cost_usd = ns_cost(G * o->time_to_train_s / 3600.0, s->usd_per_chip_h);
}

void ns_cluster_eval(const ns_cluster_input *in, const ns_cluster_prep *prep, const ns_par *par,
                     ns_breakdown *out) {
    if (in->run.recompute != NS_RECOMP_AUTO) {
        eval_rc(in, prep, par, in->run.recompute, 0, out);
        return;
    }
    /* AUTO: the cheapest recomputation that fits: none; selective (only useful when attention
     * scores are stored); else the fewest whole layers per stage recomputed in full. Each
     * recomputed layer frees (keep − input) bytes per micro-batch in flight and the one being
     * recomputed needs its full set once, so the count follows in closed form. */
    eval_rc(in, prep, par, NS_RECOMP_NONE, 0, out);
    if (out->fits != 0) return;
    /* The partial count starts from no recomputation: its other layers keep their full set,
     * scores included, so the excess is over that total, not over selective's. */
    double none_total = out->mem_total;
    if (!in->run.flash_attention) {
        eval_rc(in, prep, par, NS_RECOMP_SELECTIVE, 0, out);
        if (out->fits != 0) return;
    }
    double keep = act_bytes_per_layer(in, par, NS_RECOMP_NONE);
    double saved = ns_pipeline_in_flight(par->pp, out->micro_batches, par->interleave) *
                   (keep - act_bytes_per_layer(in, par, NS_RECOMP_FULL));
    double excess =
        none_total - in->sys.chip.mem_capacity_bytes * in->sys.chip.mem_usable_frac + keep;
    int L = out->stage_layers;
    double need = saved > 0 ? ceil(excess / saved) : L;
    int rl = need < 1 ? 1 : need > L ? L : (int)need;
    eval_rc(in, prep, par, rl == L ? NS_RECOMP_FULL : NS_RECOMP_PARTIAL, rl, out);
    /* rounding in the closed form: one more layer until it fits or all are recomputed */
    while (out->fits == 0 && rl < L) {
        rl++;
        eval_rc(in, prep, par, rl == L ? NS_RECOMP_FULL : NS_RECOMP_PARTIAL, rl, out);
    }
}

/* ---- Amdahl's bound under DP scaling -------------------------------------------------------- */

double ns_amdahl_parallel_share(const ns_cluster_input *in, const ns_breakdown *b) {
    double divided = b->compute_s + b->tp_s + b->cp_s + b->pp_s + b->straggler_s;
    if (in->run.distributed_optimizer) divided += b->optimizer_s;
    return divided / b->step_s;
}

int ns_same_but_dp(const ns_breakdown *a, const ns_breakdown *b) {
    return a->par.tp == b->par.tp && a->par.pp == b->par.pp && a->par.cp == b->par.cp &&
           a->par.micro_batch == b->par.micro_batch && a->par.interleave == b->par.interleave &&
           a->recompute == b->recompute && a->recompute_layers == b->recompute_layers &&
           b->par.dp % a->par.dp == 0;
}

/* ---- search --------------------------------------------------------------------------------- */

#define NS_DIVISORS_MAX 4096

/* Divisors of n in ascending order into d[]; returns how many. */
static int divisors(int n, int *d) {
    int lo = 0, hi = 0, tail[NS_DIVISORS_MAX / 2];
    for (int i = 1; (long long)i * i <= n && lo < NS_DIVISORS_MAX / 2; i++)
        if (n % i == 0) {
            d[lo++] = i;
            if (i != n / i) tail[hi++] = n / i;
        }
    while (hi > 0)
        d[lo++] = tail[--hi];
    return lo;
}

/* Ranking key: fitting configurations first, then time to train (or step time per token when
 * no token budget is given). */
static double rank_key(const ns_breakdown *b) {
    double t = isfinite(b->time_to_train_s) ? b->time_to_train_s : 1.0 / b->tokens_per_s;
    return b->fits == 0 ? t + 1e300 / 2 : t;
}

static void keep_top(ns_breakdown *best, int top, int *n, const ns_breakdown *b) {
    double key = rank_key(b);
    int i = *n < top ? (*n)++ : top;
    while (i > 0 && rank_key(&best[i - 1]) > key) {
        if (i < top) best[i] = best[i - 1];
        i--;
    }
    if (i < top) best[i] = *b;
}

int ns_cluster_search(const ns_cluster_input *in, int chips, ns_breakdown *best, int top,
                      long *evaluated) {
    const ns_model *m = &in->model;
    const int B = in->run.global_batch_seqs;
    int dg[NS_DIVISORS_MAX], db[NS_DIVISORS_MAX];
    int ng = divisors(chips, dg), nb = divisors(B, db);
    ns_cluster_prep prep;
    ns_cluster_prepare(in, chips, &prep);
    int n = 0;
    long count = 0;
    ns_breakdown cur;
    for (int it = 0; it < ng; it++) {
        int tp = dg[it];
        if (m->heads % tp) continue;
        for (int ip = 0; ip < ng; ip++) {
            int pp = dg[ip];
            if ((chips / tp) % pp || pp > m->layers) continue;
            for (int ic = 0; ic < ng; ic++) {
                int cp = dg[ic];
                if ((chips / tp / pp) % cp || m->seq_tokens % cp) continue;
                int dp = chips / tp / pp / cp;
                if (B % dp) continue;
                for (int ib = 0; ib < nb && db[ib] <= B / dp; ib++) {
                    int mbs = db[ib];
                    if ((B / dp) % mbs) continue;
                    int mb = B / dp / mbs;
                    for (int v = 1; pp * v <= m->layers; v++) {
                        if (v > 1 && (pp < 2 || mb % pp)) break;
                        ns_par par = {tp, pp, dp, cp, mbs, v};
                        ns_cluster_eval(in, &prep, &par, &cur);
                        count++;
                        keep_top(best, top, &n, &cur);
                        if (v >= 8) break; /* beyond 8 chunks the bubble gain is < 1/16 */
                    }
                }
            }
        }
    }
    if (evaluated) *evaluated = count;
    return n;
}
