/* Human-readable reports of a results.json document. */
#ifndef NS_REPORT_H
#define NS_REPORT_H

#include <jansson.h>
#include <stddef.h>

/* Writes report.md: node facts, compute and bandwidth ceilings, every kernel with its fraction
 * of its roof, GEMM beside its peers, counters status, the cluster extrapolation when present.
 * Written atomically. Returns 0, or -1 with a one-line reason in err. */
int ns_report_markdown(const json_t *results, const char *path, char *err, size_t errlen);

#endif
