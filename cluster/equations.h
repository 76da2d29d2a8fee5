/* The cluster model's closed-form equations, one function each, with the paper and section they
 * come from. Every function is pure (no allocation, no I/O, no global state) so that the search
 * can call them hundreds of thousands of times a second and the tests can check each one against
 * figures published in those papers and against its limits (one rank, one stage,
 * infinite bandwidth, zero latency).
 *
 * Units: seconds, bytes, FLOP, FLOP/s, bytes/s. Bandwidths are PER DIRECTION per chip unless a
 * name says otherwise (NVIDIA's "1.8 TB/s per GPU" NVLink figure counts both directions; a NIC's
 * "800 Gb/s" is per direction). 1 GB = 1e9 B. A year is 365.25 days. */
#ifndef NS_CLUSTER_EQUATIONS_H
#define NS_CLUSTER_EQUATIONS_H

#define NS_SECONDS_PER_YEAR (365.25 * 86400.0)

/* ---- work ---------------------------------------------------------------------------------- */

/* Training FLOPs of a dense transformer, 6·N·D (N parameters, D tokens): 2 FLOP per parameter
 * per token forward, 4 backward. Kaplan et al. 2020, arXiv 2001.08361, section 2.1. The model
 * counts 6·N per token through ns_palm_flops_per_token. */
double ns_flops_6nd(double params, double tokens);

/* Model FLOPs per token, PaLM (Chowdhery et al. 2022, arXiv 2204.02311) appendix B:
 * 6·N + 12·L·H·Q·T (L layers, H heads, Q head dimension, T sequence length); the second term is
 * self-attention, counted without causal masking. Recomputation is not counted (MFU, not HFU). */
double ns_palm_flops_per_token(double params, double layers, double heads, double head_dim,
                               double seq);

/* FLOPs of one iteration (batch of B sequences), Narayanan et al. 2021 (arXiv 2104.04473)
 * section 5.1, eq. (3): 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) with full activation
 * recomputation (four passes through each layer); without recomputation the layers take three
 * passes: 72·B·s·l·h²·(1 + s/(6h)) + 6·B·s·h·V. Assumes FFN = 4h and multi-head attention.
 * Reference formula, checked by tests only (test_cluster.c: PaLM's per-token count, and 4/3 of
 * it with recomputation); the model counts its own layer shapes. */
double ns_megatron_flops_per_iter(double batch, double seq, double layers, double hidden,
                                  double vocab, int recompute);

/* Key/value heads one tensor-parallel rank holds under grouped-query attention (Ainslie et al.
 * 2023, arXiv 2305.13245: kv_heads groups of query heads share one K and V head): kv_heads / t
 * when there are at least t of them, else 1, each rank holding a replica of the one its query
 * heads use (Llama 3 405B: 8 KV heads, one per rank at TP 8). */
double ns_kv_heads_per_rank(double kv_heads, double t);

/* The shape of one transformer layer's activations on one rank, for ns_korthikanti_act_bytes
 * (Korthikanti et al. 2022, arXiv 2205.05198, section 4.1, term by term, for any FFN, gating and
 * KV head count, with e bytes per element: the paper's 16-bit case is e = 2; the model's
 * storage precision: the run's, BF16 under FP8). The terms: the inputs of the two norms (e·sbh
 * each), the QKV input (e·sbh), the two dropout masks (sbh each, 1 byte), the FFN input (e·sbh):
 * (4e + 2)·sbh, or 4e·sbh without dropout, ÷ t only with sequence parallelism; Q (e·sbh/t), K
 * and V (e·sb·d·k each, d = h/a the head dimension, k = ns_kv_heads_per_rank), the output
 * projection's input (e·sbh/t); the FFN's activation input and output (e·sbf/t each, f = ffn),
 * or with a gated FFN (SwiGLU) the up and gate outputs, the activation and the product
 * (4e·sbf/t); and the scores of the s queries against score_keys keys: the softmax output, its
 * dropout mask and output, (2e + 1)·(a/t)·s·score_keys·b, or without dropout the softmax output
 * alone (AV reads it), e·(a/t)·s·score_keys·b. GPT-3's case at e = 2 with dropout (f = 4h,
 * kv_heads = a, not gated, score_keys = s) is the paper's s·b·h·(34/t + 5·a·s/(h·t)) with
 * sequence parallelism and s·b·h·(10 + 24/t + 5·a·s/(h·t)) without (Table 2). */
typedef struct ns_act_shape {
    double s;          /* tokens of the sequence on this rank (seq / cp) */
    double b;          /* micro-batch, sequences */
    double h;          /* hidden size */
    double heads;      /* attention heads a */
    double kv_heads;   /* key/value heads (a for multi-head attention) */
    double ffn;        /* FFN inner size f */
    int gated;         /* a gated FFN (SwiGLU: 3 matrices) */
    double t;          /* tensor-parallel degree */
    int sp;            /* Megatron sequence parallelism: the non-TP terms ÷ t */
    double e;          /* bytes per element */
    int dropout;       /* trained with dropout (its 1-byte masks are kept; Llama 3: none) */
    double score_keys; /* keys each query's stored scores span: s without context parallelism,
                          seq under CP (a rank's s/cp queries attend to the whole sequence), 0
                          when scores are not stored (flash attention, selective recompute) */
    int full;          /* full recomputation: only the layer input, e·s·b·h (÷ t with SP) */
} ns_act_shape;

/* Activation bytes one transformer layer keeps for one micro-batch of shape *a (ns_act_shape
 * gives each term). */
double ns_korthikanti_act_bytes(const ns_act_shape *a);

/* Bytes an unfused attention moves through memory per score in its forward pass: QKᵀ writes S,
 * the softmax reads S and writes P, AV reads P, four passes of e bytes (Dao et al. 2022, arXiv
 * 2205.14135, sec. 2.2, Algorithm 0: the standard implementation's Θ(s²) HBM accesses, which
 * flash attention avoids). Dropout on the scores is one more element-wise op with its own round
 * trip (ibid.): it reads P again and writes the dropped P (e bytes) and its mask (1 byte), which
 * AV then reads in place of P: 6e + 1 bytes instead of 4e. */
double ns_attn_score_bytes(double e, int dropout);

/* Bytes of the K and V that context parallelism gathers from the other CP ranks and keeps for
 * the backward pass of this rank's queries (Llama 3, arXiv 2407.21783, sec. 3.3.2: all-gather K
 * and V, attend the local Q): 2·e·b·(seq − seq/cp)·d·k, beyond the local K and V that
 * ns_korthikanti_act_bytes counts; e bytes per element, b micro-batch, d head dimension, k the
 * KV heads per TP rank (ns_kv_heads_per_rank). 0 for cp = 1. */
double ns_cp_gathered_kv_bytes(double e, double b, double seq, int cp, double head_dim,
                               double kv_per_rank);

/* ---- one chip: the roofline ---------------------------------------------------------------- */

/* Ridge point, FLOP/byte: peak / bandwidth. Williams, Waterman, Patterson 2009 (CACM 52(4)). */
double ns_ridge_point(double peak_flops, double bw_bytes_per_s);

/* The attainable bound min(peak, AI x bandwidth) is ns_roofline_attainable in roofline/roofline.h.
 */

/* Arithmetic intensity of C(m×n) = A(m×k)·B(k×n) reading A, B and writing C once:
 * 2mnk / (elem_bytes·(mk + kn + mn)). */
double ns_gemm_ai(double m, double n, double k, double elem_bytes);

/* Time of an operation under the roofline: max(flops / flop_rate, bytes / bandwidth). A
 * memory-bound operation takes bytes / bandwidth; flop_rate is peak × the efficiency measured for
 * the shape. Either rate may be INFINITY (that limit then vanishes). Williams et al. 2009. */
double ns_roofline_time_s(double flops, double bytes, double flop_rate, double bw_bytes_per_s);

/* ---- collectives under the α–β model (Hockney 1994; Thakur, Rabenseifner, Gropp 2005,
 *      IJHPCA 19(1), "Optimization of collective communication operations in MPICH") -------- */

/* A bandwidth quoted counting both directions (NVIDIA's NVLink "1.8 TB/s per GPU"), per
 * direction: half of it. Reference formula, checked by tests only (test_cluster.c): presets
 * and flags give bandwidths per direction already. */
double ns_per_direction(double bidirectional_bytes_per_s);

/* A link rate in Gb/s (network cards are quoted per direction) in bytes/s: ×1e9/8. Reference
 * formula, checked by tests only (test_cluster.c): presets and flags take GB/s. */
double ns_gbit_to_bytes_per_s(double gbit_per_s);

/* Point-to-point: α + S·β, β = 1 / bandwidth (bytes/s, per direction). */
double ns_p2p_s(double bytes, double alpha_s, double bw_bytes_per_s);

/* Ring all-reduce of S bytes over n ranks: 2(n−1)·α + 2·(n−1)/n·S·β (Patarasuk & Yuan 2009,
 * JPDC 69(2); Thakur et al. 2005 section 4.4). 0 for n = 1. */
double ns_allreduce_ring_s(double bytes, int n, double alpha_s, double bw_bytes_per_s);

/* ns_allreduce_ring_s inverted: a fit t(S) = A + B·S of a whole ring all-reduce over n ranks
 * (A seconds, B seconds per byte, in *alpha and *beta) into the per-link α = A / (2(n−1)) and
 * β = B / (2(n−1)/n) that ns_allreduce_ring_s takes (its bandwidth is 1/β). Unchanged for
 * n < 2. Thakur et al. 2005 section 4.4; Patarasuk & Yuan 2009. */
void ns_ring_link_alpha_beta(int n, double *alpha, double *beta);

/* Rabenseifner's all-reduce (recursive-halving reduce-scatter then recursive-doubling
 * all-gather): 2·lg p'·α + 2·(p'−1)/p'·S·β with p' = 2^⌊log2 n⌋; when n is not a power of two
 * the n − p' extra ranks first fold their vectors into partners and get the result back at the
 * end, 2·(α + S·β) more (Thakur et al. 2005 section 4.4). That extra step is what makes the ring
 * faster for large messages on such rank counts. 0 for n = 1. */
double ns_allreduce_rabenseifner_s(double bytes, int n, double alpha_s, double bw_bytes_per_s);

/* Ring reduce-scatter (or all-gather) of S bytes in total over n ranks:
 * (n−1)·α + (n−1)/n·S·β. Thakur et al. 2005 sections 4.1 and 4.3. */
double ns_reduce_scatter_ring_s(double bytes, int n, double alpha_s, double bw_bytes_per_s);

/* Recursive halving reduce-scatter (recursive doubling all-gather): lg p'·α + (p'−1)/p'·S·β,
 * plus α + S·β to fold in the extra ranks when n is not a power of two (Thakur et al. 2005). */
double ns_reduce_scatter_halving_s(double bytes, int n, double alpha_s, double bw_bytes_per_s);

/* The faster of ring and Rabenseifner for this size and rank count; *algo (may be NULL) is set
 * to "ring" or "rabenseifner". */
double ns_allreduce_best_s(double bytes, int n, double alpha_s, double bw_bytes_per_s,
                           const char **algo);

/* The faster of ring and recursive halving for a reduce-scatter (same cost as an all-gather). */
double ns_reduce_scatter_best_s(double bytes, int n, double alpha_s, double bw_bytes_per_s);

/* nccl-tests conventions (NVIDIA nccl-tests doc/PERFORMANCE.md): algbw = S / t;
 * busbw = algbw · bus factor, 2(n−1)/n for an all-reduce and (n−1)/n for a reduce-scatter or an
 * all-gather. The one implementation of the factor: the fleet's collectives sweep uses it too.
 * The all-reduce busbw: reference formula, checked by tests only (test_cluster.c and
 * test_fleet.c pin nccl-tests' numbers); the sweep multiplies algbw by ns_coll_bus_factor. */
double ns_algbw(double bytes, double time_s);
double ns_allreduce_busbw(double bytes, double time_s, int n);

/* busbw / algbw on n ranks, 0 for n < 2: 2(n−1)/n for an all-reduce; (n−1)/n for a
 * reduce-scatter or an all-gather (nccl-tests gives both that one factor, hence "rs_ag"). */
double ns_allreduce_bus_factor(int n);
double ns_rs_ag_bus_factor(int n);

/* ---- pipeline bubble ---------------------------------------------------------------------- */

/* GPipe (Huang et al. 2019, arXiv 1811.06965, section 2.3): the bubble as a share of total time,
 * (K−1)/(M+K−1) for K stages and M micro-batches: an output beside the model's bubble, which is
 * ns_bubble_megatron_ratio (test_cluster.c pins the paper's table). */
double ns_bubble_gpipe_share(int stages, int micro_batches);

/* Megatron (Narayanan et al. 2021 section 2.2): the bubble relative to ideal compute time,
 * (p−1)/(v·m) for p stages, m micro-batches and v interleaved model chunks per stage
 * (v = 1: the plain 1F1B schedule). */
double ns_bubble_megatron_ratio(int stages, int micro_batches, int interleave);

/* Micro-batches whose activations the first pipeline stage holds at its peak, for p stages, m
 * micro-batches and v model chunks per stage (v = 1: plain 1F1B). 1F1B keeps at most p
 * micro-batches in flight, min(m, p) (PipeDream-Flush, Narayanan et al. 2021 section 2.2.1), so
 * with m >= p the first stage holds p·(L/p) = L layers' activations whatever p; the interleaved
 * schedule holds 1 + (p−1)/(p·v) times as many (Korthikanti et al. 2022, arXiv 2205.05198,
 * section 4.2.3; Narayanan et al. 2021 section 2.2.2 for the schedule). */
double ns_pipeline_in_flight(int stages, int micro_batches, int interleave);

/* ---- stragglers --------------------------------------------------------------------------- */

/* Expected maximum of n independent standard normal samples, E[max Z_i], by numerical
 * integration of E = ∫ (1 − Φ(x)^n) dx over x > 0 − ∫ Φ(x)^n dx over x < 0 (order statistics;
 * David & Nagaraja, "Order Statistics", 3rd ed., section 4.2). Not √(2 ln n), which is the
 * asymptote and too high at every practical n. 0 for n = 1. Costs ~10^4 erfc calls: compute once
 * per chip count, never in an inner loop. */
double ns_expected_max_normal(int n);

/* Probability that at least one of n participants is slow when each is slow with probability q:
 * 1 − (1 − q)^n. Dean & Barroso 2013, "The Tail at Scale", CACM 56(2). */
double ns_prob_any_slow(double q, int n);

/* ---- failures ----------------------------------------------------------------------------- */

/* Job MTBF when any one of G chips stops the job: chip MTBF / G (exponential failures). */
double ns_job_mtbf_s(double chip_mtbf_s, int chips);

/* Young 1974 (CACM 17(9)): optimal checkpoint interval √(2·δ·M), δ = checkpoint write time,
 * M = job MTBF; the first-order term of ns_daly_interval_s. */
double ns_young_interval_s(double ckpt_s, double mtbf_s);

/* Daly 2006 (FGCS 22(3), eq. 37): √(2δM)·[1 + (1/3)·√(δ/(2M)) + (1/9)·(δ/(2M))] − δ for
 * δ < 2M, else M. */
double ns_daly_interval_s(double ckpt_s, double mtbf_s);

/* Goodput fraction, solve time over wall time, by Daly 2006's higher-order model (FGCS 22(3),
 * section 4: exponential failures at job MTBF M, a restart R after each, the segment in
 * progress lost): T_w = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ, so T_s/T_w =
 * τ / (M·e^{R/M}·(e^{(τ+δ)/M} − 1)), in [0, 1]. A checkpoint write δ every τ of solve time.
 * M = INFINITY gives τ/(τ+δ). To first order in (τ+δ)/M and R/M it is Daly's section 3
 * (1 − (R + (τ+δ)/2)/M)/(1 + δ/τ), which is far too low where they are not small (M = 1000 s,
 * δ 60 s, R 600 s: 0.181 against 0.380). */
double ns_goodput_fraction(double interval_s, double ckpt_s, double restart_s, double mtbf_s);

/* Goodput fraction with no checkpoint cost: ns_goodput_fraction's limit δ = 0, τ → 0, where a
 * failure costs only its restart R: e^{−R/M}; 1 when M is INFINITY. */
double ns_goodput_no_checkpoint(double restart_s, double mtbf_s);

/* ---- utilisation, scaling, power, cost ---------------------------------------------------- */

/* MFU (PaLM appendix B): tokens/s · model FLOPs per token / (chips · peak). (The cluster model's
 * HFU is the FLOPs it times over step time and peak, recomputation included: model.c.) */
double ns_mfu(double tokens_per_s, double flops_per_token, int chips, double peak_flops);

/* Share of peak: achieved / peak (Narayanan et al. 2021 report per-GPU FLOP/s this way; HFU is
 * this of the executed FLOP/s; test_cluster.c pins the paper's 52%). */
double ns_share_of_peak(double achieved, double peak);

/* Speed-up of going from t_small to t_large (times of the same job): t_small / t_large. */
double ns_speedup(double t_small_s, double t_large_s);

/* Scaling efficiency: (throughput_large / throughput_small) / (chips_large / chips_small). */
double ns_scaling_efficiency(double thr_small, double chips_small, double thr_large,
                             double chips_large);

/* Amdahl's bound (the formula later attributed to Amdahl 1967): 1 / ((1−p) + p/n);
 * n = INFINITY gives 1/(1−p). */
double ns_amdahl_speedup(double p, double n);

/* Gustafson 1988 (CACM 31(5)), scaled speed-up: (1−p) + p·n. */
double ns_gustafson_speedup(double p, double n);

/* Facility power: G · (W_chip + W_other) · PUE, applied once. */
double ns_cluster_power_w(int chips, double chip_w, double other_w, double pue);

/* A toy efficiency law (the seed002 preset), η(G) = a − b·log2(G) (illustrative, not derived). */
double ns_eta_log2(double a, double b, double chips);

/* Realized FLOP/s: G · f_chip · η. */
double ns_realized_flops(double chips, double peak_flops, double eta);

/* Time of `flops` at `chips` × `flops_per_chip`. Reference formula, checked by tests only
 * (test_cluster.c: the published training-time estimates). */
double ns_time_for_flops_s(double flops, double chips, double flops_per_chip);

/* Cost: chip-hours · price per chip-hour. */
double ns_cost(double chip_hours, double price_per_chip_hour);

#endif
