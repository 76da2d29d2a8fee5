/* The cluster model's numeric inputs, described once: the preset JSON section and key, the flag
 * (the key with '_' → '-', prefixed "--"), the unit scale to SI, the valid range and the help
 * line. preset.c reads presets through this table and cli.c reads flags through it, so a
 * preset key and its flag always mean the same thing in the same unit. Private to cluster/. */
#ifndef NS_CLUSTER_KEYS_H
#define NS_CLUSTER_KEYS_H

#include <stddef.h>

#include "cluster/cluster.h"

typedef enum { NS_KEY_DBL, NS_KEY_INT, NS_KEY_BOOL } ns_key_kind;

typedef struct ns_cluster_key {
    const char *section; /* preset section: chip, system, variability, ... */
    const char *key;     /* key in the section; the flag is "--" + key with '_' → '-' */
    ns_key_kind kind;
    size_t offset;   /* into ns_cluster_input */
    double scale;    /* stored value = given value × scale (e.g. GB/s → B/s: 1e9) */
    double min, max; /* range of the given value */
    const char *help;
} ns_cluster_key;

/* The ranges the chip's peak and GEMM efficiency take, from a preset as from a flag
 * (--peak-tflop-per-s, --gemm-efficiency): TFLOP/s per chip, share of peak, and a GEMM shape's
 * m, n, k (integers). Outside them the model's step times overflow (cluster_ranges.sh). */
#define NS_PEAK_TFLOP_MIN 1e-9
#define NS_PEAK_TFLOP_MAX 1e9
#define NS_GEMM_EFF_MIN 1e-6
#define NS_GEMM_DIM_MAX 2147483647.0

extern const ns_cluster_key ns_cluster_keys[];
extern const size_t ns_cluster_nkeys;

/* The flag spelling of a key ("--mem-bw-gbytes-per-s") into buf. */
void ns_cluster_key_flag(const ns_cluster_key *k, char *buf, size_t len);

/* Stores given value v (in the key's unit) after the range check. 0, or -1 with a reason. */
int ns_cluster_key_set(ns_cluster_input *in, const ns_cluster_key *k, double v, const char *what,
                       char *err, size_t errlen);

#endif
