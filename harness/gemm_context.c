/* GEMM configuration and peers for results.json (see gemm_context.h). */
#include "harness/gemm_context.h"

#include "harness/json.h"
#include "kernels/gemm/gemm_kernels.h"

static json_t *config_json(const char *isa, ns_precision prec) {
    ns_gemm_config c;
    json_t *o = json_object();
    if (ns_gemm_config_get(isa, prec, &c) != 0) {
        ns_json_set_str(o, "status", "no GEMM micro-kernel for this ISA on this CPU");
        return o;
    }
    ns_json_set_str(o, "isa", c.isa);
    ns_json_set_str(o, "ukernel", c.ukernel);
    ns_json_set_int(o, "mr", c.mr);
    ns_json_set_int(o, "nr", c.nr);
    ns_json_set_int(o, "mc", c.mc);
    ns_json_set_int(o, "kc", c.kc);
    ns_json_set_int(o, "nc", c.nc);
    ns_json_set_str(o, "block_sizes_from", c.source);
    /* A level hwloc did not report is null: block_sizes_from names the default used. */
    const char *keys[3] = {"l1d_bytes", "l2_bytes", "l3_bytes"};
    int64_t sizes[3] = {c.l1d_bytes, c.l2_bytes, c.l3_bytes};
    for (int i = 0; i < 3; i++)
        json_object_set_new(o, keys[i], sizes[i] > 0 ? json_integer(sizes[i]) : json_null());
    return o;
}

json_t *ns_gemm_context_json(const char *isa) {
    json_t *o = json_object();
    json_object_set_new(o, "dp", config_json(isa, NS_PREC_DP));
    json_object_set_new(o, "sp", config_json(isa, NS_PREC_SP));
    json_t *peers = json_array();
    for (int which = 0; which < 2; which++) {
        ns_gemm_peer_info pi;
        if (ns_gemm_peer_info_get(which, &pi) != 0) continue;
        json_t *p = json_object();
        ns_json_set_str(p, "name", pi.name);
        json_object_set_new(p, "available", json_boolean(pi.available));
        ns_json_set_str(p, "path", pi.path[0] ? pi.path : NULL);
        ns_json_set_str(p, "version", pi.version[0] ? pi.version : NULL);
        ns_json_set_str(p, "threading", pi.threading[0] ? pi.threading : NULL);
        ns_json_set_str(p, "isa", pi.isa[0] ? pi.isa : NULL);
        ns_json_set_int(p, "threads", pi.threads);
        ns_json_set_str(p, "status", pi.status);
        if (pi.note[0]) ns_json_set_str(p, "note", pi.note);
        json_array_append_new(peers, p);
    }
    json_object_set_new(o, "peers", peers);
    ns_json_set_str(o, "peer_threads",
                    "each peer's thread count is set to the run's thread count before every call, "
                    "and ours and theirs never run at once: no oversubscription");
    return o;
}
