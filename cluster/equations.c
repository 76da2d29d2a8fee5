/* The cluster model's closed-form equations (see equations.h for each one's source). */
#include "cluster/equations.h"

#include <math.h>

/* ---- work ---------------------------------------------------------------------------------- */

double ns_flops_6nd(double params, double tokens) {
    return 6.0 * params * tokens;
}

double ns_palm_flops_per_token(double params, double layers, double heads, double head_dim,
                               double seq) {
    return ns_flops_6nd(params, 1.0) + 12.0 * layers * heads * head_dim * seq;
}

double ns_megatron_flops_per_iter(double batch, double seq, double layers, double hidden,
                                  double vocab, int recompute) {
    double bslh2 = batch * seq * layers * hidden * hidden;
    if (recompute)
        return 96.0 * bslh2 * (1.0 + seq / (6.0 * hidden) + vocab / (16.0 * layers * hidden));
    return 72.0 * bslh2 * (1.0 + seq / (6.0 * hidden)) + 6.0 * batch * seq * hidden * vocab;
}

double ns_kv_heads_per_rank(double kv_heads, double t) {
    return kv_heads >= t ? kv_heads / t : 1.0; /* fewer than t: one per rank, replicated */
}

double ns_korthikanti_act_bytes(const ns_act_shape *a) {
    double sb = a->s * a->b, split = a->sp ? a->t : 1.0;
    if (a->full) return a->e * sb * a->h / split;
    double e = a->e, h = a->h, t = a->t;
    double kv_local = ns_kv_heads_per_rank(a->kv_heads, t);
    double masks = a->dropout ? 1.0 : 0.0; /* a dropout mask's byte per element */
    double not_tp = (4.0 * e + 2.0 * masks) * sb * h / split;  /* norms, their outputs; masks */
    double attn = e * sb * h / t                               /* Q */
                  + 2.0 * e * sb * (h / a->heads) * kv_local   /* K and V */
                  + e * sb * h / t;                            /* the output projection's input */
    double mlp = (a->gated ? 4.0 : 2.0) * e * sb * a->ffn / t; /* up (+ gate), act. (+ product) */
    /* softmax output, and with dropout its mask and output (without, AV reads the softmax's) */
    double scores = (a->dropout ? 2.0 * e + masks : e) * (a->heads / t) * a->score_keys * sb;
    return not_tp + attn + mlp + scores;
}

double ns_attn_score_bytes(double e, int dropout) {
    return 4.0 * e + (dropout ? 2.0 * e + 1.0 : 0.0);
}

double ns_cp_gathered_kv_bytes(double e, double b, double seq, int cp, double head_dim,
                               double kv_per_rank) {
    return 2.0 * e * b * (seq - seq / cp) * head_dim * kv_per_rank;
}

/* ---- one chip: the roofline ---------------------------------------------------------------- */

double ns_ridge_point(double peak_flops, double bw_bytes_per_s) {
    return peak_flops / bw_bytes_per_s;
}

double ns_gemm_ai(double m, double n, double k, double elem_bytes) {
    return 2.0 * m * n * k / (elem_bytes * (m * k + k * n + m * n));
}

double ns_roofline_time_s(double flops, double bytes, double flop_rate, double bw_bytes_per_s) {
    return fmax(flops / flop_rate, bytes / bw_bytes_per_s);
}

/* ---- collectives ------------------------------------------------------------------------- */

/* ⌊log2 n⌋ for n >= 1 without libm (the search calls this in its inner loop). Shifts n down
 * rather than a power of two up, so that it ends for every int n, INT_MAX included (at most 30
 * steps). */
static int floor_log2(int n) {
    int r = 0;
    while (n >>= 1)
        r++;
    return r;
}

double ns_per_direction(double bidirectional_bytes_per_s) {
    return 0.5 * bidirectional_bytes_per_s;
}

double ns_gbit_to_bytes_per_s(double gbit_per_s) {
    return gbit_per_s * 1e9 / 8.0;
}

double ns_p2p_s(double bytes, double alpha_s, double bw_bytes_per_s) {
    return alpha_s + bytes / bw_bytes_per_s;
}

double ns_allreduce_ring_s(double bytes, int n, double alpha_s, double bw_bytes_per_s) {
    if (n <= 1) return 0.0;
    return 2.0 * (n - 1) * alpha_s + 2.0 * (n - 1) / n * bytes / bw_bytes_per_s;
}

void ns_ring_link_alpha_beta(int n, double *alpha, double *beta) {
    if (n < 2) return;
    *alpha /= 2.0 * (n - 1);
    *beta /= 2.0 * (n - 1) / n;
}

double ns_allreduce_rabenseifner_s(double bytes, int n, double alpha_s, double bw_bytes_per_s) {
    if (n <= 1) return 0.0;
    int lg = floor_log2(n); /* <= 30 for any int n */
    double p2 = (double)(1L << lg);
    double t = 2.0 * lg * alpha_s + 2.0 * (p2 - 1) / p2 * bytes / bw_bytes_per_s;
    if (p2 != n) t += 2.0 * (alpha_s + bytes / bw_bytes_per_s); /* fold the extra ranks in, out */
    return t;
}

double ns_reduce_scatter_ring_s(double bytes, int n, double alpha_s, double bw_bytes_per_s) {
    if (n <= 1) return 0.0;
    return (n - 1) * alpha_s + (double)(n - 1) / n * bytes / bw_bytes_per_s;
}

double ns_reduce_scatter_halving_s(double bytes, int n, double alpha_s, double bw_bytes_per_s) {
    if (n <= 1) return 0.0;
    int lg = floor_log2(n); /* <= 30 for any int n */
    double p2 = (double)(1L << lg);
    double t = lg * alpha_s + (p2 - 1) / p2 * bytes / bw_bytes_per_s;
    if (p2 != n) t += alpha_s + bytes / bw_bytes_per_s; /* fold the extra ranks in first */
    return t;
}

double ns_allreduce_best_s(double bytes, int n, double alpha_s, double bw_bytes_per_s,
                           const char **algo) {
    double ring = ns_allreduce_ring_s(bytes, n, alpha_s, bw_bytes_per_s);
    double rab = ns_allreduce_rabenseifner_s(bytes, n, alpha_s, bw_bytes_per_s);
    if (algo) *algo = rab < ring ? "rabenseifner" : "ring";
    return fmin(ring, rab);
}

double ns_reduce_scatter_best_s(double bytes, int n, double alpha_s, double bw_bytes_per_s) {
    return fmin(ns_reduce_scatter_ring_s(bytes, n, alpha_s, bw_bytes_per_s),
                ns_reduce_scatter_halving_s(bytes, n, alpha_s, bw_bytes_per_s));
}

double ns_algbw(double bytes, double time_s) {
    return bytes / time_s;
}

double ns_allreduce_busbw(double bytes, double time_s, int n) {
    return ns_algbw(bytes, time_s) * ns_allreduce_bus_factor(n);
}

double ns_allreduce_bus_factor(int n) {
    return n < 2 ? 0.0 : 2.0 * (n - 1) / n;
}

double ns_rs_ag_bus_factor(int n) {
    return n < 2 ? 0.0 : (double)(n - 1) / n;
}

/* ---- pipeline bubble ---------------------------------------------------------------------- */

double ns_bubble_gpipe_share(int stages, int micro_batches) {
    return (stages - 1.0) / ((double)micro_batches + stages - 1.0); /* no int overflow */
}

double ns_bubble_megatron_ratio(int stages, int micro_batches, int interleave) {
    return (double)(stages - 1) / ((double)interleave * micro_batches);
}

double ns_pipeline_in_flight(int stages, int micro_batches, int interleave) {
    int p = stages, v = interleave;
    return (micro_batches < p ? micro_batches : p) *
           (v > 1 ? 1.0 + (p - 1.0) / ((double)p * v) : 1.0);
}

/* ---- stragglers --------------------------------------------------------------------------- */

/* log Φ(x) accurately in both tails: Φ(x) = erfc(−x/√2)/2. */
static double log_phi(double x) {
    if (x > 0) return log1p(-0.5 * erfc(x / M_SQRT2));
    return log(0.5 * erfc(-x / M_SQRT2));
}

/* Composite Simpson of f(x, n) over [a, b] with `steps` (even) intervals. */
static double simpson(double (*f)(double, int), int n, double a, double b, int steps) {
    double dx = (b - a) / steps, sum = f(a, n) + f(b, n);
    for (int i = 1; i < steps; i++)
        sum += (i % 2 ? 4.0 : 2.0) * f(a + i * dx, n);
    return sum * dx / 3.0;
}

static double upper_tail(double x, int n) { /* 1 − Φ(x)^n, x >= 0 */
    return -expm1(n * log_phi(x));
}

static double lower_part(double x, int n) { /* Φ(x)^n, x <= 0 */
    return exp(n * log_phi(x));
}

double ns_expected_max_normal(int n) {
    if (n <= 1) return 0.0;
    /* Split at 0, where the integrand jumps from −Φ^n to 1 − Φ^n; beyond |x| = 12 both parts
     * are below 1e-23 for every int n. */
    return simpson(upper_tail, n, 0.0, 12.0, 12000) - simpson(lower_part, n, -12.0, 0.0, 12000);
}

double ns_prob_any_slow(double q, int n) {
    return -expm1(n * log1p(-q));
}

/* ---- failures ----------------------------------------------------------------------------- */

double ns_job_mtbf_s(double chip_mtbf_s, int chips) {
    return chip_mtbf_s / chips;
}

double ns_young_interval_s(double ckpt_s, double mtbf_s) {
    return sqrt(2.0 * ckpt_s * mtbf_s);
}

double ns_daly_interval_s(double ckpt_s, double mtbf_s) {
    if (ckpt_s >= 2.0 * mtbf_s) return mtbf_s;
    double r = ckpt_s / (2.0 * mtbf_s);
    return ns_young_interval_s(ckpt_s, mtbf_s) * (1.0 + sqrt(r) / 3.0 + r / 9.0) - ckpt_s;
}

double ns_goodput_fraction(double interval_s, double ckpt_s, double restart_s, double mtbf_s) {
    /* T_s / T_w = tau / (M e^{R/M} (e^{(tau + delta)/M} - 1)); expm1 keeps large M exact. */
    if (!isfinite(mtbf_s)) return interval_s / (interval_s + ckpt_s);
    double wall = mtbf_s * exp(restart_s / mtbf_s) * expm1((interval_s + ckpt_s) / mtbf_s);
    return fmin(1.0, fmax(0.0, interval_s / wall)); /* wall = inf (M tiny): 0 */
}

double ns_goodput_no_checkpoint(double restart_s, double mtbf_s) {
    return isfinite(mtbf_s) ? exp(-restart_s / mtbf_s) : 1.0;
}

/* ---- utilisation, scaling, power, cost ---------------------------------------------------- */

double ns_mfu(double tokens_per_s, double flops_per_token, int chips, double peak_flops) {
    return tokens_per_s * flops_per_token / ((double)chips * peak_flops);
}

double ns_share_of_peak(double achieved, double peak) {
    return achieved / peak;
}

double ns_speedup(double t_small_s, double t_large_s) {
    return t_small_s / t_large_s;
}

double ns_scaling_efficiency(double thr_small, double chips_small, double thr_large,
                             double chips_large) {
    return (thr_large / thr_small) / (chips_large / chips_small);
}

double ns_amdahl_speedup(double p, double n) {
    return 1.0 / ((1.0 - p) + (isinf(n) ? 0.0 : p / n));
}

double ns_gustafson_speedup(double p, double n) {
    return (1.0 - p) + p * n;
}

double ns_cluster_power_w(int chips, double chip_w, double other_w, double pue) {
    return (double)chips * (chip_w + other_w) * pue;
}

double ns_eta_log2(double a, double b, double chips) {
    return a - b * log2(chips);
}

double ns_realized_flops(double chips, double peak_flops, double eta) {
    return chips * peak_flops * eta;
}

double ns_time_for_flops_s(double flops, double chips, double flops_per_chip) {
    return flops / (chips * flops_per_chip);
}

double ns_cost(double chip_hours, double price_per_chip_hour) {
    return chip_hours * price_per_chip_hour;
}
