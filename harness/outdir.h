/* Report folders that `run`, `roofline --out`, `fleet` and `compare --out` write: claiming one (a
 * new folder, or an existing one that holds no other run's or fleet's files), and removing what a
 * failed command wrote into it; and the report files a user names (bench --json, gate --json,
 * --junit, --markdown, cluster --json): what such a file may be written over. */
#ifndef NS_OUTDIR_H
#define NS_OUTDIR_H

#include <stddef.h>
#include <jansson.h>

/* The size of a buffer that holds a path a command builds (a report folder, a file in it):
 * Linux's PATH_MAX, the longest path the system takes. A path that does not fit is refused,
 * never cut: a cut path names another file. */
#define NS_PATH_MAX 4096

/* "DIR/NAME" into out (len bytes). Returns 0, or -1 with "DIR/NAME: File name too long" in err
 * (ns_path_error) when it does not fit; out then holds nothing to use. */
int ns_path_join(char *out, size_t len, const char *dir, const char *name, char *err,
                 size_t errlen);

/* 0 when DIR/NAME fits NS_PATH_MAX for every name of names (NULL-terminated), also as the
 * temporary file an atomic write makes beside it (NAME.tmpXXXXXX); else -1 with "NAME in DIR:
 * File name too long" (ns_path_error) for the longest, so a command refuses the folder before it
 * does any work instead of failing late (gnuplot could not open a picture's path). */
int ns_outdir_names_fit(const char *dir, const char *const *names, char *err, size_t errlen);

/* The names run, roofline, fleet, compare and cluster write into a report folder (files, and
 * fleet's nodes/ folder), NULL-terminated: the one list all five check, so none of them writes
 * beside another's files. A folder holding one of them holds another run's, fleet's or report's
 * files. */
extern const char *const ns_outdir_names[];

/* The picture names of ns_outdir_names (roofline_*.svg/png, roofline.svg,
 * bandwidth_vs_working_set.*), NULL-terminated: what `roofline` draws. */
extern const char *const ns_outdir_pictures[];

/* The names of ns_outdir_names that `compare --out` writes (compare.json, .md, .dat, .gp, .svg),
 * NULL-terminated. */
extern const char *const ns_outdir_compare[];

/* The names of ns_outdir_names that `cluster --plot-dir` (and run) writes (cluster_breakdown and
 * cluster_scaling .dat, .gp, .svg, .png), NULL-terminated. */
extern const char *const ns_outdir_cluster[];

/* The first name of ns_outdir_names that the folder dir holds and that keep (NULL-terminated,
 * or NULL) does not list; NULL when none (or dir does not exist). */
const char *ns_outdir_foreign(const char *dir, const char *const *keep);

/* One level down: a subfolder of dir holding a results.json or fleet.json (another run's or
 * fleet's), or dir being a fleet's nodes/ folder (its parent holds fleet.json); one level up or
 * more: an ancestor of dir that holds a results.json or fleet.json, or is a fleet's nodes/
 * folder. Returns a description in buf ("vm-r0/results.json"), or NULL when none. */
const char *ns_outdir_foreign_below(const char *dir, char *buf, size_t len);

/* The length of dir's first path prefix (at a '/' or the end) that does not exist: the folder
 * `mkdir -p dir` creates first; 0 when dir exists already. */
size_t ns_outdir_first_missing(const char *dir);

/* mkdir -p dir (0755). Returns 0, or -1 with errno set (ENOTDIR when dir is not a folder). */
int ns_outdir_mkdir_p(const char *dir);

/* Creates dir exclusively, after its parents (mkdir -p); when dir exists already, tries dir-2,
 * dir-3, ... (up to dir-999), so two commands started in the same second never share a folder.
 * dir (of size len) receives the name made, *created what ns_outdir_remove() takes to undo it.
 * Returns 0, or -1 with errno set. */
int ns_outdir_make_new(char *dir, size_t len, size_t *created);

/* Removes the ns_outdir_names files in dir (never nodes/ nor compare's files), then
 * ns_outdir_remove_dirs(). */
void ns_outdir_remove(const char *dir, size_t created);

/* Removes the folders mkdir -p made: dir and its parents down to the prefix of length created
 * (ns_outdir_first_missing() before the mkdir; 0: none was made), each only when empty. */
void ns_outdir_remove_dirs(const char *dir, size_t created);

/* Checks an output path (a file or folder the user names) before any work: -1 with a one-line
 * reason in err when it holds a control character (a newline, a tab...), 0 otherwise. Such a
 * name cannot be put into a gnuplot script (it was written as a space, and gnuplot failed late
 * on a folder that does not exist) nor shown on one line. opt names the option ("--out"). */
int ns_path_check_name(const char *opt, const char *path, char *err, size_t errlen);

/* Whether paths a and b name the same file (the same device and inode, whatever the path):
 * 1 yes, 0 no, -1 when either cannot be stat'ed (does not exist). */
int ns_same_file(const char *a, const char *b);

/* The file a write to p lands in, into out (PATH_MAX or more): p with its symbolic links
 * followed, a dangling link's target included (a write through a link to a missing file
 * creates that file: gate_outputs.sh), then its folder resolved by realpath (the text as it is
 * where the folder does not exist). Two outputs are one file when their targets are equal. */
void ns_output_target(const char *p, char *out, size_t len);

/* The report files a command writes to a path the user names. */
typedef enum {
    NS_REPORT_BENCH,         /* bench --json: a nodescale/1 file of one result */
    NS_REPORT_GATE_JSON,     /* gate --json: "schema": "nodescale-gate/1" */
    NS_REPORT_GATE_JUNIT,    /* gate --junit: <testsuites name="nodescale gate"> */
    NS_REPORT_GATE_MARKDOWN, /* gate --markdown: "### nodescale gate: ..." */
    NS_REPORT_CLUSTER,       /* cluster --json: "schema": "nodescale-cluster/1" */
} ns_report_kind;

/* The kind of report a parsed JSON document is (NS_REPORT_BENCH: a nodescale/1 file of at most
 * one result and no sweep, ceilings or roofline, what `bench --json` writes; a gate or cluster
 * report), or -1 for any other (a run's results, a fleet or compare report, foreign JSON); what
 * (len bytes) says what it holds either way ("a run's results (its sweep and 48 results)"). */
int ns_json_report_kind(const json_t *root, char *what, size_t len);

/* Whether a command may write its report of the given kind to path (the one check every such
 * writer shares, so that no report replaces a run's, fleet's or another command's file): yes
 * when path does not exist, is empty, is not a regular file (a device or pipe, written in place)
 * or holds an earlier report of this same kind. Returns 0, or -1 with a one-line reason in err
 * naming opt, path and what the file holds ("--json F holds a run's results (its sweep and 48
 * results), not an earlier bench result: give a new file"). */
int ns_report_may_write(const char *opt, const char *path, ns_report_kind kind, char *err,
                        size_t errlen);

#endif
