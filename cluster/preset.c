/* Cluster model inputs: defaults, the key table shared by presets and flags, where presets are
 * found (source tree, installed tree, $NODESCALE_PRESETS), and reading a preset's JSON sections
 * into ns_cluster_input. A preset may hold any subset of the sections; later presets and then
 * flags override earlier values. Unknown keys are ignored (readers ignore unknown keys). */
#include "cluster/keys.h"
#include "harness/json.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OFF(field) offsetof(ns_cluster_input, field)
#define BIG 1e30

const ns_cluster_key ns_cluster_keys[] = {
    /* chip */
    {"chip", "attention_efficiency", NS_KEY_DBL, OFF(sys.chip.attn_eff), 1, 1e-6, 1,
     "share of peak fused (flash) attention reaches"},
    {"chip", "mem_bw_gbytes_per_s", NS_KEY_DBL, OFF(sys.chip.mem_bw_bytes_per_s), 1e9, 1e-6, BIG,
     "chip memory bandwidth, GB/s"},
    {"chip", "mem_capacity_gbytes", NS_KEY_DBL, OFF(sys.chip.mem_capacity_bytes), 1e9, 0, BIG,
     "chip memory capacity, GB (0: unknown, no memory verdict)"},
    {"chip", "mem_usable_frac", NS_KEY_DBL, OFF(sys.chip.mem_usable_frac), 1, 1e-6, 1,
     "share of capacity a framework can use"},
    /* system: the two roads */
    {"system", "domain_chips", NS_KEY_INT, OFF(sys.domain_chips), 1, 1, 1 << 24,
     "chips in one scale-up domain (NVLink domain, TPU slice)"},
    {"system", "scaleup_gbytes_per_s_per_dir", NS_KEY_DBL, OFF(sys.scaleup.bw_bytes_per_s), 1e9,
     1e-9, BIG, "scale-up bandwidth per chip, GB/s, ONE direction"},
    {"system", "scaleup_latency_us", NS_KEY_DBL, OFF(sys.scaleup.latency_s), 1e-6, 0, BIG,
     "scale-up latency α, µs"},
    {"system", "scaleout_gbytes_per_s_per_dir", NS_KEY_DBL, OFF(sys.scaleout.bw_bytes_per_s), 1e9,
     1e-9, BIG, "scale-out (NIC) bandwidth per chip, GB/s, ONE direction (800 Gb/s = 100)"},
    {"system", "scaleout_latency_us", NS_KEY_DBL, OFF(sys.scaleout.latency_s), 1e-6, 0, BIG,
     "scale-out latency α, µs"},
    {"system", "oversubscription", NS_KEY_DBL, OFF(sys.oversubscription), 1, 1, BIG,
     "scale-out oversubscription (1 = full bisection)"},
    /* variability */
    {"variability", "step_cv", NS_KEY_DBL, OFF(sys.step_cv), 1, 0, 10,
     "per-chip step-time coefficient of variation"},
    {"variability", "slow_prob", NS_KEY_DBL, OFF(sys.slow_prob), 1, 0, 1,
     "probability a chip is slow in a step"},
    {"variability", "slowdown_frac", NS_KEY_DBL, OFF(sys.slowdown_frac), 1, 0, BIG,
     "how much slower a slow chip is (0.1 = 10%)"},
    /* reliability */
    {"reliability", "chip_mtbf_h", NS_KEY_DBL, OFF(sys.chip_mtbf_h), 1, 0, BIG,
     "MTBF per chip (all causes that stop the job), hours; 0 = none"},
    {"reliability", "checkpoint_write_s", NS_KEY_DBL, OFF(sys.checkpoint_write_s), 1, 0, BIG,
     "checkpoint write time, s"},
    {"reliability", "restart_s", NS_KEY_DBL, OFF(sys.restart_s), 1, 0, BIG,
     "restart time after a failure, s"},
    /* power and price */
    {"power", "chip_w", NS_KEY_DBL, OFF(sys.chip_w), 1, 0, BIG, "power per chip, W"},
    {"power", "other_w_per_chip", NS_KEY_DBL, OFF(sys.other_w_per_chip), 1, 0, BIG,
     "host, network, storage power per chip, W"},
    {"power", "pue", NS_KEY_DBL, OFF(sys.pue), 1, 1, 10,
     "power usage effectiveness (applied once)"},
    {"cost", "usd_per_chip_h", NS_KEY_DBL, OFF(sys.usd_per_chip_h), 1, 0, BIG,
     "price per chip-hour, USD"},
    /* model */
    {"model", "layers", NS_KEY_INT, OFF(model.layers), 1, 1, 1 << 20, "transformer layers"},
    {"model", "hidden", NS_KEY_INT, OFF(model.hidden), 1, 1, 1 << 24, "hidden size h"},
    {"model", "heads", NS_KEY_INT, OFF(model.heads), 1, 1, 1 << 20, "attention heads"},
    {"model", "kv_heads", NS_KEY_INT, OFF(model.kv_heads), 1, 1, 1 << 20, "key/value heads (GQA)"},
    {"model", "ffn", NS_KEY_INT, OFF(model.ffn), 1, 1, 1 << 26, "FFN inner size"},
    {"model", "vocab", NS_KEY_INT, OFF(model.vocab), 1, 1, 1 << 26, "vocabulary size"},
    {"model", "seq_tokens", NS_KEY_INT, OFF(model.seq_tokens), 1, 1, 1 << 26,
     "sequence length, tokens"},
    {"model", "gated_ffn", NS_KEY_BOOL, OFF(model.gated_ffn), 1, 0, 1, "SwiGLU FFN (3 matrices)"},
    {"model", "causal", NS_KEY_BOOL, OFF(model.causal), 1, 0, 1,
     "causal attention (flash attention kernels skip the masked half)"},
    {"model", "dropout", NS_KEY_BOOL, OFF(model.dropout), 1, 0, 1,
     "dropout in training (its 1-byte masks are activation memory)"},
    {"model", "tied_embeddings", NS_KEY_BOOL, OFF(model.tied_embeddings), 1, 0, 1,
     "input and output embeddings share one V x h matrix (its parameters counted once)"},
    {"model", "params", NS_KEY_DBL, OFF(model.params), 1, 0, BIG,
     "parameter count: 0 only (from the shape, which the step is timed from)"},
    {"model", "train_tokens", NS_KEY_DBL, OFF(model.train_tokens), 1, 0, BIG,
     "tokens to train on (time to train, energy, cost)"},
    /* run */
    {"run", "global_batch_seqs", NS_KEY_INT, OFF(run.global_batch_seqs), 1, 1, 1 << 30,
     "global batch, sequences"},
    {"run", "flash_attention", NS_KEY_BOOL, OFF(run.flash_attention), 1, 0, 1,
     "attention scores never stored"},
    {"run", "sequence_parallel", NS_KEY_BOOL, OFF(run.sequence_parallel), 1, 0, 1,
     "Megatron sequence parallelism in the TP group"},
    {"run", "distributed_optimizer", NS_KEY_BOOL, OFF(run.distributed_optimizer), 1, 0, 1,
     "optimizer state sharded over DP x CP (ZeRO-1)"},
    {"run", "grad_bytes_per_param", NS_KEY_DBL, OFF(run.grad_bytes_per_param), 1, 0, 64,
     "gradient bytes per parameter (reduced over DP)"},
    {"run", "optimizer_bytes_per_param", NS_KEY_DBL, OFF(run.optimizer_bytes_per_param), 1, 0, 256,
     "resident optimizer bytes per parameter"},
    {"run", "optimizer_traffic_bytes_per_param", NS_KEY_DBL,
     OFF(run.optimizer_traffic_bytes_per_param), 1, 0, 1024,
     "bytes one optimizer step reads and writes per parameter"},
    {"run", "overlap_tp_frac", NS_KEY_DBL, OFF(run.overlap_tp), 1, 0, 1, "TP comm hidden, 0..1"},
    {"run", "overlap_cp_frac", NS_KEY_DBL, OFF(run.overlap_cp), 1, 0, 1, "CP comm hidden, 0..1"},
    {"run", "overlap_pp_frac", NS_KEY_DBL, OFF(run.overlap_pp), 1, 0, 1, "PP comm hidden, 0..1"},
    {"run", "overlap_dp_frac", NS_KEY_DBL, OFF(run.overlap_dp), 1, 0, 1, "DP comm hidden, 0..1"},
    /* parallel layout (a fixed configuration; --search ignores it) */
    {"parallel", "tp", NS_KEY_INT, OFF(par.tp), 1, 1, 1 << 24, "tensor-parallel degree"},
    {"parallel", "pp", NS_KEY_INT, OFF(par.pp), 1, 1, 1 << 24, "pipeline stages"},
    {"parallel", "cp", NS_KEY_INT, OFF(par.cp), 1, 1, 1 << 24, "context-parallel degree"},
    {"parallel", "dp", NS_KEY_INT, OFF(par.dp), 1, 1, 1 << 30,
     "data-parallel degree (default: chips / (tp*pp*cp))"},
    {"parallel", "micro_batch_seqs", NS_KEY_INT, OFF(par.micro_batch), 1, 1, 1 << 30,
     "micro-batch, sequences"},
    {"parallel", "interleave", NS_KEY_INT, OFF(par.interleave), 1, 1, 1024,
     "model chunks per pipeline stage (interleaved 1F1B)"},
    /* the seed002 preset's toy efficiency law */
    {"seed002", "eta_a", NS_KEY_DBL, OFF(eta.a), 1, 1e-6, 1,
     "toy model: eta(G) = a - b*log2(G), a in (0, 1]"},
    {"seed002", "eta_b", NS_KEY_DBL, OFF(eta.b), 1, 0, 1,
     "toy model: eta(G) = a - b*log2(G), b in [0, 1]"},
};
const size_t ns_cluster_nkeys = sizeof ns_cluster_keys / sizeof ns_cluster_keys[0];

void ns_cluster_key_flag(const ns_cluster_key *k, char *buf, size_t len) {
    snprintf(buf, len, "--%s", k->key);
    for (char *p = buf + 2; *p; p++)
        if (*p == '_') *p = '-';
}

int ns_cluster_key_set(ns_cluster_input *in, const ns_cluster_key *k, double v, const char *what,
                       char *err, size_t errlen) {
    if (!isfinite(v) || v < k->min || v > k->max || (k->kind != NS_KEY_DBL && v != floor(v))) {
        if (k->kind == NS_KEY_DBL)
            snprintf(err, errlen, "%s: %s.%s = %g is out of range (number %g..%g)", what,
                     k->section, k->key, v, k->min, k->max);
        else
            snprintf(err, errlen, "%s: %s.%s = %g is out of range (integer %lld..%lld)", what,
                     k->section, k->key, v, (long long)k->min, (long long)k->max);
        return -1;
    }
    char *base = (char *)in + k->offset;
    if (k->kind == NS_KEY_DBL)
        *(double *)base = v * k->scale;
    else
        *(int *)base = (int)v;
    return 0;
}

void ns_cluster_defaults(ns_cluster_input *in) {
    memset(in, 0, sizeof *in);
    ns_chip *c = &in->sys.chip;
    c->gemm_eff_default = 1.0;
    c->attn_eff = 0.5;
    c->mem_usable_frac = 0.9;
    in->sys.domain_chips = 1;
    in->sys.oversubscription = 1.0;
    in->sys.pue = 1.0;
    in->model.causal = 1;
    in->model.dropout = 1;
    in->run.precision = NS_CP_BF16;
    in->run.recompute = NS_RECOMP_AUTO;
    in->run.flash_attention = 1;
    in->run.sequence_parallel = 1;
    in->run.distributed_optimizer = 1;
    in->run.grad_bytes_per_param = 4.0;       /* fp32 gradient accumulation and reduction */
    in->run.optimizer_bytes_per_param = 12.0; /* fp32 master weights, Adam m and v */
    /* Adam step: read grad, master, m, v (16 B); write master, m, v (12 B) and bf16 weights (2). */
    in->run.optimizer_traffic_bytes_per_param = 30.0;
    in->par = (ns_par){1, 1, 0, 1, 1, 1};
}

/* ---- finding presets ------------------------------------------------------------------------ */

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int ns_cluster_presets_dir(char *buf, size_t len) {
    const char *env = getenv("NODESCALE_PRESETS");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = '\0';
    /* Installed: PREFIX/bin/nodescale and PREFIX/share/nodescale/presets. */
    snprintf(buf, len, "%s/../share/nodescale/presets", exe);
    if (is_dir(buf)) return 0;
    /* The source tree: the binary is bin/nodescale, bin/tests/x, bin/asan/tests/x, ... */
    char up[PATH_MAX] = "";
    for (int depth = 1; depth <= 3; depth++) {
        strncat(up, "/..", sizeof up - strlen(up) - 1);
        snprintf(buf, len, "%s%s/cluster/presets", exe, up);
        if (is_dir(buf)) return 0;
    }
    return -1;
}

/* ---- reading preset sections ---------------------------------------------------------------- */

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -1;                                                                                 \
    } while (0)

/* chip.peak_tflop_per_s: {"bf16": 989, "fp8": 1979, ...} */
static int read_peaks(ns_chip *c, const json_t *obj, const char *what, char *err, size_t errlen) {
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        ns_cprec p;
        if (ns_cprec_parse(key, &p) != 0) continue; /* a precision we do not model */
        if (!json_is_number(v) || !(json_number_value(v) >= NS_PEAK_TFLOP_MIN &&
                                    json_number_value(v) <= NS_PEAK_TFLOP_MAX))
            FAIL("%s: chip.peak_tflop_per_s.%s must be a number in %g..%g (as "
                 "--peak-tflop-per-s)",
                 what, key, NS_PEAK_TFLOP_MIN, NS_PEAK_TFLOP_MAX);
        c->peak_flops[p] = json_number_value(v) * 1e12;
    }
    return 0;
}

/* chip.gemm_efficiency: a number, or [{"m":..,"n":..,"k":..,"eff":..}, ...] */
static int read_gemm_table(ns_chip *c, const json_t *v, const char *what, char *err,
                           size_t errlen) {
    if (json_is_number(v)) {
        double e = json_number_value(v);
        if (!(e >= NS_GEMM_EFF_MIN && e <= 1))
            FAIL("%s: chip.gemm_efficiency must be a number in %g..1 (as --gemm-efficiency)", what,
                 NS_GEMM_EFF_MIN);
        c->gemm_eff_default = e;
        c->n_gemm = 0;
        return 0;
    }
    if (!json_is_array(v) || json_array_size(v) == 0)
        FAIL("%s: chip.gemm_efficiency must be a number or a non-empty array", what);
    if (json_array_size(v) > NS_GEMM_POINTS_MAX)
        FAIL("%s: chip.gemm_efficiency has more than %d points", what, NS_GEMM_POINTS_MAX);
    c->n_gemm = 0;
    size_t i;
    json_t *pt;
    json_array_foreach(v, i, pt) {
        ns_gemm_point g = {ns_json_get_num(pt, "m"), ns_json_get_num(pt, "n"),
                           ns_json_get_num(pt, "k"), ns_json_get_num(pt, "eff"), 0};
        int dims_ok = 1;
        for (int d = 0; d < 3; d++) {
            double x = d == 0 ? g.m : d == 1 ? g.n : g.k;
            dims_ok &= x >= 1 && x <= NS_GEMM_DIM_MAX && x == floor(x);
        }
        if (!dims_ok || !(g.eff >= NS_GEMM_EFF_MIN && g.eff <= 1))
            FAIL("%s: chip.gemm_efficiency[%zu] needs m, n, k integers in 1..%.0f and eff in "
                 "%g..1",
                 what, i, NS_GEMM_DIM_MAX, NS_GEMM_EFF_MIN);
        c->gemm[c->n_gemm++] = g;
    }
    ns_chip_finish(c);
    return 0;
}

static void copy_name(char *dst, size_t len, const json_t *v) {
    if (json_is_string(v)) snprintf(dst, len, "%s", json_string_value(v));
}

/* The keys that are not plain numbers: names, per-precision peaks, the GEMM table, precision,
 * recomputation, the seed-002 switch and chip-count list. */
static int read_special(ns_cluster_input *in, const json_t *root, const char *what, char *err,
                        size_t errlen) {
    json_t *chip = json_object_get(root, "chip"), *model = json_object_get(root, "model"),
           *run = json_object_get(root, "run"), *v;
    if (chip) {
        copy_name(in->sys.chip.name, sizeof in->sys.chip.name, json_object_get(chip, "name"));
        if ((v = json_object_get(chip, "peak_tflop_per_s")) &&
            read_peaks(&in->sys.chip, v, what, err, errlen))
            return -1;
        if ((v = json_object_get(chip, "gemm_efficiency")) &&
            read_gemm_table(&in->sys.chip, v, what, err, errlen))
            return -1;
    }
    if (model) copy_name(in->model.name, sizeof in->model.name, json_object_get(model, "name"));
    if (run && (v = json_object_get(run, "precision"))) {
        if (!json_is_string(v) || ns_cprec_parse(json_string_value(v), &in->run.precision))
            FAIL("%s: run.precision must be one of fp64 fp32 tf32 bf16 fp16 fp8", what);
    }
    if (run && (v = json_object_get(run, "recompute")) &&
        (!json_is_string(v) || ns_recompute_parse(json_string_value(v), &in->run.recompute)))
        FAIL("%s: run.recompute must be none, selective, full or auto", what);
    if (json_object_get(root, "seed002")) in->eta.enabled = 1;
    if ((v = json_object_get(root, "chips"))) {
        if (!json_is_array(v) || json_array_size(v) == 0 ||
            json_array_size(v) > sizeof in->chip_counts / sizeof in->chip_counts[0])
            FAIL("%s: chips must be a non-empty array of at most %zu counts", what,
                 sizeof in->chip_counts / sizeof in->chip_counts[0]);
        size_t i;
        json_t *c;
        json_array_foreach(v, i, c) {
            if (!json_is_integer(c) || json_integer_value(c) < 1 ||
                json_integer_value(c) > NS_CLUSTER_MAX_CHIPS)
                FAIL("%s: chips[%zu] must be an integer in 1..%d", what, i, NS_CLUSTER_MAX_CHIPS);
            in->chip_counts[i] = (int)json_integer_value(c);
        }
        in->n_chip_counts = (int)json_array_size(v);
    }
    return 0;
}

/* Whether `key` of `section` ("" at the top level) is one a preset may hold: the key table's,
 * the special ones read_special reads, or a "note". */
static int known_key(const char *section, const char *key) {
    static const char *const special[][2] = {{"", "chips"},
                                             {"", "note"},
                                             {"chip", "name"},
                                             {"chip", "peak_tflop_per_s"},
                                             {"chip", "gemm_efficiency"},
                                             {"model", "name"},
                                             {"run", "precision"},
                                             {"run", "recompute"}};
    if (!strcmp(key, "note")) return 1;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (!strcmp(section, special[i][0]) && !strcmp(key, special[i][1])) return 1;
    for (size_t i = 0; i < ns_cluster_nkeys; i++) {
        const ns_cluster_key *k = &ns_cluster_keys[i];
        if (*section ? !strcmp(section, k->section) && !strcmp(key, k->key)
                     : !strcmp(key, k->section))
            return 1;
    }
    return 0;
}

/* Refuses a key no one reads (a misspelling would otherwise be silently ignored) and a section
 * that is not an object. */
static int check_keys(const json_t *root, const char *what, char *err, size_t errlen) {
    const char *sec, *key;
    json_t *v, *x;
    json_object_foreach((json_t *)root, sec, v) {
        if (!known_key("", sec)) FAIL("%s: unknown key '%s'", what, sec);
        if (!strcmp(sec, "chips") || !strcmp(sec, "note")) continue;
        if (!json_is_object(v)) FAIL("%s: %s must be an object", what, sec);
        json_object_foreach(v, key, x) {
            if (!known_key(sec, key)) FAIL("%s: unknown key '%s.%s'", what, sec, key);
        }
    }
    return 0;
}

int ns_cluster_apply_json(ns_cluster_input *in, const json_t *root, const char *what, char *err,
                          size_t errlen) {
    if (!json_is_object(root)) FAIL("%s: a preset must be a JSON object", what);
    if (check_keys(root, what, err, errlen)) return -1;
    for (size_t i = 0; i < ns_cluster_nkeys; i++) {
        const ns_cluster_key *k = &ns_cluster_keys[i];
        json_t *sec = json_object_get(root, k->section);
        json_t *v = sec ? json_object_get(sec, k->key) : NULL;
        if (!v) continue;
        double x;
        if (k->kind == NS_KEY_BOOL && json_is_boolean(v))
            x = json_is_true(v);
        else if (json_is_number(v))
            x = json_number_value(v);
        else
            FAIL("%s: %s.%s must be a %s", what, k->section, k->key,
                 k->kind == NS_KEY_BOOL ? "boolean" : "number");
        if (ns_cluster_key_set(in, k, x, what, err, errlen)) return -1;
    }
    return read_special(in, root, what, err, errlen);
}

int ns_cluster_apply_preset(ns_cluster_input *in, const char *name, char *err, size_t errlen) {
    char path[PATH_MAX + 64], dir[PATH_MAX];
    size_t len = strlen(name);
    if (len > 5 && !strcmp(name + len - 5, ".json")) {
        snprintf(path, sizeof path, "%s", name);
    } else {
        if (!*name || strchr(name, '/')) FAIL("bad preset name '%s'", name);
        if (ns_cluster_presets_dir(dir, sizeof dir))
            FAIL("preset '%s': no presets folder found (set NODESCALE_PRESETS)", name);
        snprintf(path, sizeof path, "%s/%s.json", dir, name);
        if (access(path, R_OK) != 0)
            FAIL("unknown preset '%s' (nodescale cluster --list-presets shows those in %s)", name,
                 dir);
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) FAIL("preset %s: %s (line %d)", path, je.text, je.line);
    int rc = ns_cluster_apply_json(in, root, name, err, errlen);
    json_decref(root);
    return rc;
}
