/* Cluster model outputs as JSON: one configuration's breakdown, and the `cluster` section that
 * `nodescale run` puts into results.json (the measured node scaled to a preset cluster). */
#include "cluster/cluster.h"
#include "cluster/equations.h"
#include "harness/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ns_breakdown_train_status(const ns_cluster_input *in, const ns_breakdown *b) {
    if (isfinite(b->time_to_train_s)) return NULL;
    if (!(in->model.train_tokens > 0)) return "no token budget (train_tokens)";
    if (!(b->goodput > 0))
        return "never: goodput 0 (the job fails faster than it can checkpoint and restart; "
               "raise chip_mtbf_h)";
    return "not finite: no tokens per second";
}

json_t *ns_breakdown_json(const ns_cluster_input *in, const ns_breakdown *b) {
    const ns_par *p = &b->par;
    json_t *o = json_object();
    ns_json_set_int(o, "chips", (long long)p->tp * p->pp * p->cp * p->dp);
    ns_json_set_int(o, "tp", p->tp);
    ns_json_set_int(o, "pp", p->pp);
    ns_json_set_int(o, "cp", p->cp);
    ns_json_set_int(o, "dp", p->dp);
    ns_json_set_int(o, "micro_batch_seqs", p->micro_batch);
    ns_json_set_int(o, "interleave", p->interleave);
    ns_json_set_int(o, "micro_batches", b->micro_batches);
    ns_json_set_str(o, "recompute", ns_recompute_name(b->recompute));
    ns_json_set_int(o, "recompute_layers_per_stage", b->recompute_layers);
    ns_json_set_int(o, "layers_per_stage", b->stage_layers);
    ns_json_set_num(o, "step_s", b->step_s, "invalid: step time not finite");
    json_t *bd = json_object();
    ns_json_set_num(bd, "compute_s", b->compute_s, NULL);
    ns_json_set_num(bd, "tp_exposed_s", b->tp_s, NULL);
    ns_json_set_num(bd, "cp_exposed_s", b->cp_s, NULL);
    ns_json_set_num(bd, "pp_exposed_s", b->pp_s, NULL);
    ns_json_set_num(bd, "dp_exposed_s", b->dp_s, NULL);
    ns_json_set_num(bd, "bubble_s", b->bubble_s, NULL);
    /* GPipe's share of total time, (K−1)/(M+K−1) (Huang et al. 2019 sec. 2.3), beside the
     * Megatron ratio the step uses: the idealized bubble of this K = pp, M = micro-batches. */
    ns_json_set_num(o, "bubble_share_gpipe", ns_bubble_gpipe_share(p->pp, b->micro_batches), NULL);
    ns_json_set_num(bd, "straggler_wait_s", b->straggler_s, NULL);
    ns_json_set_num(bd, "optimizer_s", b->optimizer_s, NULL);
    json_object_set_new(o, "breakdown", bd);
    ns_json_set_str(o, "dp_collective", b->dp_algo);
    json_t *mem = json_object();
    ns_json_set_num(mem, "weights_bytes", b->mem_weights, NULL);
    ns_json_set_num(mem, "grads_bytes", b->mem_grads, NULL);
    ns_json_set_num(mem, "optimizer_bytes", b->mem_optimizer, NULL);
    ns_json_set_num(mem, "activations_bytes", b->mem_activations, NULL);
    ns_json_set_num(mem, "total_bytes", b->mem_total, NULL);
    const ns_chip *c = &in->sys.chip;
    if (c->mem_capacity_bytes > 0)
        ns_json_set_num(mem, "usable_bytes", c->mem_capacity_bytes * c->mem_usable_frac, NULL);
    else
        ns_json_set_num(mem, "usable_bytes", NAN, "capacity unknown: no memory verdict");
    json_object_set_new(o, "memory_per_chip", mem);
    json_object_set_new(o, "fits", b->fits < 0 ? json_null() : json_boolean(b->fits));
    if (b->fits < 0) ns_json_set_str(o, "fits_status", "capacity unknown: no memory verdict");
    ns_json_set_num(o, "tokens_per_s", b->tokens_per_s, NULL);
    ns_json_set_num(o, "model_flops_per_s_per_chip", b->model_flops_per_s_per_chip, NULL);
    ns_json_set_num(o, "hardware_flops_per_s_per_chip", b->hw_flops_per_s_per_chip, NULL);
    ns_json_set_num(o, "executed_flops_per_step_per_chip", b->executed_flops_per_chip, NULL);
    ns_json_set_num(o, "mfu", b->mfu, NULL);
    ns_json_set_num(o, "hfu", b->hfu, NULL);
    ns_json_set_num(o, "mfu_model_over_executed", b->model_over_executed, NULL);
    char conv[512];
    ns_mfu_convention_text(in, conv, sizeof conv);
    ns_json_set_str(o, "mfu_convention", conv);
    json_t *rel = json_object();
    ns_json_set_num(rel, "job_mtbf_s", b->job_mtbf_s, "no failures modelled (chip_mtbf_h = 0)");
    ns_json_set_num(rel, "checkpoint_interval_s", b->ckpt_interval_s, NULL);
    ns_json_set_num(rel, "goodput", b->goodput, NULL);
    json_object_set_new(o, "reliability", rel);
    const char *ts = ns_breakdown_train_status(in, b);
    ns_json_set_num(o, "time_to_train_s", b->time_to_train_s, ts);
    if (ts) ns_json_set_str(o, "time_to_train_s_status", ts);
    ns_json_set_num(o, "power_w", b->power_w, NULL);
    ns_json_set_num(o, "energy_j", b->energy_j, ts);
    ns_json_set_num(o, "cost_usd", b->cost_usd, ts);
    return o;
}

const char *ns_mfu_not_executed(const ns_cluster_input *in) {
    /* N from the shape counts an untied input embedding (ns_model_params), a lookup; a tied one
     * is the output layer's matrix, whose FLOPs run, so 6N holds nothing the model skips. */
    if (in->model.tied_embeddings) {
        if (in->model.causal && in->run.flash_attention)
            return "the causally masked half of attention, which flash attention skips (the "
                   "input embedding is tied to the output layer: no extra parameters)";
        return in->model.causal
                   ? "nothing the model skips (the input embedding is tied to the output layer; "
                     "unfused attention computes the causally masked half too)"
                   : "nothing the model skips (the input embedding is tied to the output layer; "
                     "attention is not causal: none of it is masked)";
    }
    if (!in->model.causal)
        return "the input embedding (a lookup; attention is not causal: none of it is masked)";
    if (in->run.flash_attention)
        return "the input embedding (a lookup) and the causally masked half of attention, which "
               "flash attention skips";
    return "the input embedding (a lookup; unfused attention computes the causally masked half "
           "too)";
}

void ns_mfu_convention_text(const ns_cluster_input *in, char *buf, size_t len) {
    snprintf(buf, len,
             "PaLM's model FLOPs (6N + 12*l*h*s per token; appendix B) count %s, so MFU can "
             "exceed HFU by the model FLOPs over those executed without recomputation; HFU and "
             "the FLOP/s per chip are the FLOPs the model times (recomputation included)",
             ns_mfu_not_executed(in));
}

/* The input a run's cluster section starts from, into *in: the defaults, the default model
 * (NS_CLUSTER_DEFAULT_MODEL), then `preset` over it (read once), refused unless the preset names
 * a chip (a chip peak: the default model has none) of the mechanistic model, not seed002's toy
 * law; then the chip finished and checked as the search needs it (ns_cluster_check_input). The
 * node is not applied: ns_cluster_from_results does that. 0, or -1 with a one-line reason. */
static int run_cluster_input(ns_cluster_input *in, const char *preset, char *err, size_t errlen) {
    ns_cluster_defaults(in);
    if (ns_cluster_apply_preset(in, NS_CLUSTER_DEFAULT_MODEL, err, errlen) ||
        ns_cluster_apply_preset(in, preset, err, errlen))
        return -1;
    int chip = 0;
    for (int p = 0; p < NS_CP_COUNT; p++)
        if (in->sys.chip.peak_flops[p] > 0) chip = 1;
    if (!chip) {
        snprintf(err, errlen,
                 "preset '%.200s' names no chip (no chip.peak_tflop_per_s): give a chip preset "
                 "such as h100-sxm (nodescale cluster --list-presets)",
                 preset);
        return -1;
    }
    if (in->eta.enabled) {
        /* The toy mode's chip has no memory or network: the search a run does would fail
         * after the measurement, so refuse it before. */
        snprintf(err, errlen,
                 "preset '%.200s' selects the toy efficiency law of preset seed002 (eta(G) = a - "
                 "b*log2 G), which has no memory or network to carry the node's chip to: give a "
                 "chip preset such as h100-sxm",
                 preset);
        return -1;
    }
    ns_chip_finish(&in->sys.chip);
    return ns_cluster_check_input(in, err, errlen);
}

int ns_cluster_check_chip_preset(const char *preset, char *err, size_t errlen) {
    ns_cluster_input *probe = malloc(sizeof *probe);
    if (!probe) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = run_cluster_input(probe, preset, err, errlen);
    free(probe);
    return rc;
}

json_t *ns_cluster_from_results(const json_t *results, const char *preset, const char *plot_dir,
                                char *err, size_t errlen) {
    ns_cluster_input in;
    if (!preset) preset = "h100-sxm";
    /* A model preset here would leave the chip unset and the node would stand in for it while
     * "preset" still names the model (test_cluster.c). */
    if (run_cluster_input(&in, preset, err, errlen) ||
        ns_cluster_apply_node(&in, results, 0, err, errlen))
        return NULL;
    ns_chip_finish(&in.sys.chip);
    if (ns_cluster_check_input(&in, err, errlen)) return NULL; /* the search needs it */
    const int counts[] = {in.sys.domain_chips, 1024, 8192, 16384};
    enum { N = sizeof counts / sizeof counts[0] };
    ns_breakdown best[N];
    int n = 0;
    json_t *sec = json_object(), *pts = json_array();
    ns_json_set_str(sec, "preset", preset);
    ns_json_set_str(sec, "chip", in.sys.chip.name);
    ns_json_set_str(sec, "model", in.model.name);
    ns_json_set_str(sec, "note",
                    "this node's measured GEMM efficiency per shape (its median sample against the "
                    "ceiling's fastest: fraction_of_roof) and its within-run sample CV "
                    "(time_s.cv: sample-to-sample jitter inside one run, used as the step-time "
                    "CV; --step-cv overrides it), applied "
                    "to the preset chip's peak, memory and network; fastest configuration found "
                    "by the search at each chip count");
    ns_node_info_json(sec, &in, "this run's results");
    for (int i = 0; i < N; i++) {
        long evaluated = 0;
        if (ns_cluster_search(&in, counts[i], &best[n], 1, &evaluated) < 1) continue;
        json_t *b = ns_breakdown_json(&in, &best[n++]);
        ns_json_set_int(b, "configurations_evaluated", evaluated);
        json_array_append_new(pts, b);
    }
    json_object_set_new(sec, "points", pts);
    if (plot_dir) {
        char perr[512];
        if (ns_cluster_write_plots(&in, best, n, plot_dir, perr, sizeof perr) == 0)
            ns_json_set_str(sec, "plots_status", "ok");
        else
            ns_json_set_str(sec, "plots_status", perr);
    }
    return sec;
}
