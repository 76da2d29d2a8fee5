/* What results.json records about GEMM: the micro-kernel and block sizes each precision used,
 * and the BLAS peers loaded beside it (version, threading, thread count, status). */
#ifndef NS_GEMM_CONTEXT_H
#define NS_GEMM_CONTEXT_H

#include <jansson.h>

/* {"dp": {isa, ukernel, mr, nr, mc, kc, nc, source, cache sizes}, "sp": {...},
 *  "peers": [{name, available, path, version, threading, threads, status, note}]}.
 * isa NULL: the ISA nodescale_?gemm dispatch to. */
json_t *ns_gemm_context_json(const char *isa);

#endif
