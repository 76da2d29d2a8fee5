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

/* Nonzero when path exists and is neither a regular file nor a folder (a device, a pipe). */
int ns_report_is_special(const char *path);

/* Writes the len bytes of buf to path: a regular (or new) file through a temporary file beside
 * it and a rename, so it is whole or untouched; a device or pipe (/dev/stdout, /dev/full)
 * directly, every write checked. Returns 0, or -1 with a one-line reason in err. */
int ns_report_write_file(const char *path, const char *buf, size_t len, char *err,
                         size_t errlen);

/* ns_report_write_file of root as indented JSON (the layout of ns_json_write_atomic). */
int ns_report_write_json(const json_t *root, const char *path, char *err, size_t errlen);

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
