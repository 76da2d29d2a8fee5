/* Human-readable reports of a results.json document. */
#ifndef NS_REPORT_H
#define NS_REPORT_H

#include <jansson.h>
#include <stddef.h>

/* Writes report.md: node facts, compute and bandwidth ceilings, every kernel with its fraction
 * of its roof, GEMM beside its peers, counters status, the cluster extrapolation when present.
 * Written atomically. Returns 0, or -1 with a one-line reason in err. */
int ns_report_markdown(const json_t *results, const char *path, char *err, size_t errlen);

#include <stdio.h>

/* Flushes stdout; -1 with a reason in err when any write to it failed (a full disk, a closed
 * pipe), so that a report lost on stdout is an error, not a green CI job. */
int ns_report_check_stdout(char *err, size_t errlen);

/* Writes s as Markdown table-cell text: '|' as "\|", '<' '>' '&' as entities, control
 * characters as \xNN. */
void ns_md_cell(FILE *f, const char *s);

/* Writes s as a Markdown code span whose backtick fence is longer than any backtick run in s
 * (CommonMark), padded with a space when s begins or ends with a backtick; control characters
 * as \xNN; with in_table, '|' as "\|" (GFM splits table cells even inside code spans). */
void ns_md_code(FILE *f, const char *s, int in_table);

/* s with control characters as \xNN, for terminal output, in buf (cut to fit len). */
const char *ns_text_safe(const char *s, char *buf, size_t len);

#endif
