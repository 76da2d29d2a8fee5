/* Human-readable reports of a results.json document. */
#ifndef NS_REPORT_H
#define NS_REPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Writes report.md: node facts, compute and bandwidth ceilings, every kernel with its fraction
 * of its roof, GEMM beside its peers, counters status, the cluster extrapolation when present;
 * its "Files:" line names report.md and the files beside path. Written with ns_write_file (a
 * temporary file beside it, fsync, rename; a link or device in place). Returns 0, or -1 with a
 * one-line reason in err. */
int ns_report_markdown(const json_t *results, const char *path, char *err, size_t errlen);

/* report.md's text as a new string (free it), or NULL when out of memory. Its "Files:" line
 * names the files that exist in folder dir, and self (the report being written, "report.md" or
 * "report.html"; may be NULL); with dir NULL every file a run writes. */
char *ns_report_markdown_text(const json_t *results, const char *dir, const char *self);

/* Writes report.html: report.md rendered by libcmark-gfm (raw HTML in it is never passed
 * through; its pipe tables as HTML tables, by the library's "table" extension), UTF-8, a
 * <title> and a small stylesheet. Its pictures are relative <img> links to the SVG files beside
 * path; one not there is named instead, and cluster_breakdown.svg and cluster_scaling.svg are
 * shown when present; its "Files:" line names only the files beside path. Written atomically.
 * Returns 0, or -1 with a one-line reason in err (also when report.md cannot be rendered:
 * nothing is written then). */
int ns_report_html(const json_t *results, const char *path, char *err, size_t errlen);

/* Writes Markdown md as HTML (the body of report.html) to f: libcmark-gfm's rendering, its pipe
 * tables as HTML tables, images relative to folder dir not there named instead (all of them),
 * then cluster_breakdown.svg and cluster_scaling.svg as pictures when dir holds them. Returns 0,
 * or -1 with a one-line reason in err when it cannot render (the library fails, out of memory):
 * then nothing is written to f. */
int ns_html_from_markdown(FILE *f, const char *md, const char *dir, char *err, size_t errlen);

/* Writes results.csv: a header row, then one row per results[] entry (id, name, family, isa,
 * precision, mix, threads, m, n, k, working set, flops, bytes, time median/min/max, cv, rates,
 * arithmetic intensity, roof in GFLOP/s and in GB/s, fraction of roof (by the median and the
 * fastest sample), roof limit, roof status, level, status). Numbers with %.17g
 * (they read back as results.json's doubles), an empty cell for null or absent, RFC 4180 quoting
 * (libcsv). Written atomically. Returns 0, or -1 with a one-line reason in err. */
int ns_report_csv(const json_t *results, const char *path, char *err, size_t errlen);

/* Writes sweep.csv: a header row, then one row per sweep[] point (working set, kernel, isa,
 * precision, threads, n, GB/s of the fastest sample and of the median, status: "ok" for a good
 * point), as ns_report_csv.
 * Returns 0, or -1 with a one-line reason in err. */
int ns_report_sweep_csv(const json_t *results, const char *path, char *err, size_t errlen);

/* Writes results.csv, sweep.csv and report.html into dir (after results.json and report.md;
 * report.html last, its "Files:" line naming the files then in dir); each one that fails prints
 * one line "WHAT: REASON" to log and leaves the others. Returns the number of failures. */
int ns_report_html_csv(const json_t *results, const char *dir, FILE *log);

/* Flushes stdout; -1 with a reason in err when any write to it failed (a full disk, a closed
 * pipe), so that a report lost on stdout is an error, not a green CI job. */
int ns_report_check_stdout(char *err, size_t errlen);

/* Writes s as Markdown table-cell text that renders as s itself: '\\' and the inline
 * punctuation | * _ [ ] ` ~ escaped by a backslash ('_' not between two ASCII letters or
 * digits, where it is no emphasis), '<' '>' '&' as entities, control characters as \xNN. */
void ns_md_cell(FILE *f, const char *s);

/* Writes s as a Markdown code span whose backtick fence is longer than any backtick run in s
 * (CommonMark), padded with a space when s begins or ends with a backtick; control characters
 * as \xNN; with in_table, '|' as "\|" (GFM splits table cells even inside code spans). */
void ns_md_code(FILE *f, const char *s, int in_table);

/* Writes s as XML or HTML text or attribute value: < > & " ' as entities, control characters
 * other than tab and newline as a space (XML 1.0 allows none). */
void ns_xml_text(FILE *f, const char *s);

/* s with control characters as \xNN, for terminal output, in buf (cut to fit len). */
const char *ns_text_safe(const char *s, char *buf, size_t len);

#endif
