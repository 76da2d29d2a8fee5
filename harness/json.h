/* JSON helpers over jansson for results files: numbers that may be unmeasurable (written as null
 * with a sibling status, never NaN/Inf/0), atomic writes (a reader never sees half a file), and
 * strict loading with a schema check and a one-line reason on failure. */
#ifndef NS_JSON_H
#define NS_JSON_H

#include <jansson.h>
#include <stdio.h>
#include <stddef.h>

#define NS_SCHEMA "nodescale/1"

/* obj[key] = v if v is finite, else obj[key] = null and, when status is non-NULL,
 * obj["status"] = status unless a status is already present. Returns 0 if a number was set,
 * 1 if null was set. */
int ns_json_set_num(json_t *obj, const char *key, double v, const char *status);

/* obj[key] = v (integer). */
void ns_json_set_int(json_t *obj, const char *key, long long v);

/* obj[key] = s, or null when s is NULL. */
void ns_json_set_str(json_t *obj, const char *key, const char *s);

/* 1 when path must be written in place rather than through a temporary file renamed over it:
 * it exists and is a device, a pipe or a socket, or it is a symbolic link (/dev/stdout ->
 * /proc/self/fd/1: a rename would replace the link with a file, and as root a device node). */
int ns_path_write_in_place(const char *path);

/* Writes "WHAT PATH: REASON" to err (size errlen) whole when it fits. When it does not (a path
 * of thousands of characters), the middle of PATH gives way to "…[N characters cut]…", so the
 * message keeps the path's start and end and always its reason ("File name too long"). */
void ns_path_error(char *err, size_t errlen, const char *what, const char *path,
                   const char *reason);

/* Writes len bytes of buf to path: a regular or new file atomically (a temporary file in the
 * same folder, fsync, rename), a device, pipe or link in place (ns_path_write_in_place), every
 * write checked. Returns 0, or -1 with a one-line reason in err (empty path, a folder, ENOSPC...). */
int ns_write_file(const char *path, const char *buf, size_t len, char *err, size_t errlen);

/* ns_write_file of the NUL-terminated text (its strlen bytes). Returns 0, or -1 with a one-line
 * reason in err. */
int ns_write_text_atomic(const char *path, const char *text, char *err, size_t errlen);

/* Writes len bytes of buf as a command's output file: to path with ns_write_file, or to standard
 * output (flushed and checked) when path is "-". Returns 0, or -1 with a one-line reason in err. */
int ns_write_output(const char *path, const char *buf, size_t len, char *err, size_t errlen);

/* Closes f, a stream of open_memstream(buf, len), checking that every write to it succeeded.
 * Returns 0; or -1 (out of memory) with *buf freed and set to NULL. */
int ns_close_memstream(FILE *f, char **buf);

/* Closes f, a stream of open_memstream(buf, len) (ns_close_memstream), and writes its text with
 * ns_write_output (atomically; "-" is standard output); frees *buf and sets it to NULL. Returns
 * 0, or -1 with a one-line reason in err. */
int ns_write_memstream(FILE *f, char **buf, size_t *len, const char *path, char *err,
                       size_t errlen);

/* How results files are dumped: indented, keys in insertion order, and every double with 17
 * significant digits, so that it reads back bit for bit (`nodescale roofline` on a written
 * results.json reproduces the run's numbers exactly). */
#define NS_JSON_DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* Writes root to path with ns_write_file: NS_JSON_DUMP_FLAGS, a final newline, NaN impossible
 * (jansson rejects it). Returns 0, or -1 with a one-line reason in err. */
int ns_json_write_atomic(const json_t *root, const char *path, char *err, size_t errlen);

/* Checks, before any work is done, that path can be written the way ns_write_file writes it:
 * path is not empty, not a folder, and either is written in place and writable (a device, pipe
 * or link) or a file can be created beside it. Returns 0, or -1 with a one-line reason in err.
 * Creates nothing that stays. */
int ns_json_check_writable(const char *path, char *err, size_t errlen);

/* The most samples_s a results file may hold per result (nodescale records at most 256): more
 * is not a file this tool wrote, and would only slow every consumer down (gate's interval sorts
 * every pair of samples: 1024 x 1024 is a million; results_check.sh). */
#define NS_RESULTS_MAX_SAMPLES 1024

/* Checks the content of a results document (harness/results_check.c): results[] ids present
 * and unique; status a string, validated a boolean, samples_s an array of numbers or nulls
 * (at most NS_RESULTS_MAX_SAMPLES, each positive one a plausible time); time_s an object;
 * quantities of results[], sweep[] and ceilings numbers, non-negative and of plausible size,
 * so that no report derives inf or NaN from them; thread counts whole numbers in
 * 1..NS_MAX_THREADS; no sweep point twice in a curve, no curve of more than 1024 points. A fleet
 * report ("kind": "fleet"): its benchmarks[] median, spread and values{} within the same bounds,
 * each median the median of its values{}, and its all-reduce rows; other kinds (compare) are not
 * checked here. Returns 0, or -1 with a one-line reason naming path in err. */
int ns_results_check(const json_t *root, const char *path, char *err, size_t errlen);

/* One entry of context.cpu.caches as every reader takes it (ns_results_check) and the writer
 * records it (ns_context_json): a level 1 to 6 (a number or "L<n>"), a whole size_bytes from
 * 1 KiB to 1 TiB, and count and shared_by_cores absent, null or whole numbers from 1 to 1000000.
 * Returns 0, or -1 with the failing field and why in why ("size_bytes is not ..."). */
int ns_cache_entry_check(const json_t *c, char *why, size_t whylen);

/* The rule that cache capacities grow with the level: 0 when prev_level is 0 (no lower data or
 * unified cache) or size > prev_size; else -1 with "L<level> (... bytes) is not larger than
 * L<prev_level> ..." in why. */
int ns_cache_grows(int level, double size, int prev_level, double prev_size, char *why,
                   size_t whylen);

/* Loads path strictly (NaN/Inf/duplicate keys rejected by jansson), checks that it is an
 * object whose "schema" equals NS_SCHEMA, and its content with ns_results_check: the one
 * validation every consumer of results files shares. Returns a new reference, or NULL with a
 * one-line reason in err. */
json_t *ns_json_load_results(const char *path, char *err, size_t errlen);

/* A byte count as every output prints it (report.md, run's progress lines, the roofline's notes
 * and pictures): B, KiB, MiB, GiB or TiB, three significant digits, whole numbers from 100
 * ("512 B", "7.5 KiB", "1.17 GiB", "512 MiB"); a size that would print as 1024 of a unit is the
 * next unit's 1 ("1 MiB" for 1 MiB less 1 B); an em dash for a negative or non-finite count. */
void ns_format_bytes(char *buf, size_t len, double bytes);

/* Number at obj[key] as double; NAN when absent, null or not a number. */
double ns_json_get_num(const json_t *obj, const char *key);

#endif
