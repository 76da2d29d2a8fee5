/* Claiming and cleaning report folders, and what a named report file may replace (see
 * outdir.h). */
#include "harness/outdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/json.h"

#define PICTURES                                                                                   \
    "roofline.svg", "roofline_dp.svg", "roofline_dp.png", "roofline_sp.svg", "roofline_sp.png",    \
        "roofline_cache_aware_dp.svg", "roofline_cache_aware_dp.png",                              \
        "roofline_cache_aware_sp.svg", "roofline_cache_aware_sp.png",                              \
        "bandwidth_vs_working_set.svg", "bandwidth_vs_working_set.png"

#define COMPARE "compare.json", "compare.md", "compare.dat", "compare.gp", "compare.svg"

#define CLUSTER                                                                                    \
    "cluster_breakdown.dat", "cluster_breakdown.gp", "cluster_breakdown.svg",                      \
        "cluster_breakdown.png", "cluster_scaling.dat", "cluster_scaling.gp",                      \
        "cluster_scaling.svg", "cluster_scaling.png"

const char *const ns_outdir_pictures[] = {PICTURES, NULL};

int ns_path_check_name(const char *opt, const char *path, char *err, size_t errlen) {
    const char *bad = path;
    while (*bad && (unsigned char)*bad >= 0x20 && *bad != 0x7f)
        bad++;
    if (!*bad) return 0;
    char safe[512];
    size_t o = 0;
    for (const char *s = path; *s && o + 5 < sizeof safe; s++)
        o += (size_t)((unsigned char)*s < 0x20 || *s == 0x7f
                          ? snprintf(safe + o, sizeof safe - o, "\\x%02X", (unsigned char)*s)
                          : snprintf(safe + o, sizeof safe - o, "%c", *s));
    snprintf(err, errlen,
             "%s '%s' holds a control character (\\x%02X): choose a name without one "
             "(nothing written)",
             opt, safe, (unsigned char)*bad);
    return -1;
}

const char *const ns_outdir_compare[] = {COMPARE, NULL};

const char *const ns_outdir_cluster[] = {CLUSTER, NULL};

const char *const ns_outdir_names[] = {
    "results.json", "report.md",   "run.log",
    "report.html",  "results.csv", "sweep.csv",
    "gbench.json",  "fleet.json",  ".fleet.json.collectives-timeout",
    "nodes",        CLUSTER,       PICTURES,
    COMPARE,        NULL};

static int listed(const char *name, const char *const *list) {
    for (; list && *list; list++)
        if (!strcmp(name, *list)) return 1;
    return 0;
}

const char *ns_outdir_foreign(const char *dir, const char *const *keep) {
    char path[4300];
    struct stat st;
    for (const char *const *n = ns_outdir_names; *n; n++) {
        if (listed(*n, keep)) continue;
        snprintf(path, sizeof path, "%s/%s", dir, *n);
        if (lstat(path, &st) == 0) return *n;
    }
    return NULL;
}

const char *ns_outdir_foreign_below(const char *dir, char *buf, size_t len) {
    char path[4400];
    struct stat st;
    /* A fleet's nodes/ folder (empty or not): its parent holds the fleet.json. */
    snprintf(path, sizeof path, "%s", dir);
    size_t pl = strlen(path);
    while (pl > 1 && path[pl - 1] == '/')
        path[--pl] = '\0';
    char *base = strrchr(path, '/');
    if (!strcmp(base ? base + 1 : path, "nodes")) {
        if (base)
            snprintf(base, sizeof path - (size_t)(base - path), "/fleet.json");
        else
            snprintf(path, sizeof path, "fleet.json");
        if (lstat(path, &st) == 0) {
            snprintf(buf, len, "a fleet's nodes/ folder, beside %s", path);
            return buf;
        }
    }
    /* Inside one: an ancestor that is a fleet's nodes/ folder, or a run's or fleet's folder
     * (--out FLEET/nodes/new, --out RUN/inner). */
    char up[4400];
    snprintf(up, sizeof up, "%s", path);
    for (char *cut; (cut = strrchr(up, '/')) != NULL;) {
        *cut = '\0';
        while (cut > up && cut[-1] == '/')
            *--cut = '\0';
        if (!*up) break; /* the root */
        static const char *const marks[] = {"results.json", "fleet.json"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(buf, len, "%s/%s", up, marks[i]);
            if (lstat(buf, &st) == 0) {
                snprintf(buf, len, "inside the folder of %s/%s", up, marks[i]);
                return buf;
            }
        }
        const char *ub = strrchr(up, '/');
        if (!strcmp(ub ? ub + 1 : up, "nodes")) {
            snprintf(buf, len, "%.*sfleet.json", ub ? (int)(ub - up + 1) : 0, up);
            if (lstat(buf, &st) == 0) {
                snprintf(buf, len, "inside a fleet's nodes/ folder %s", up);
                return buf;
            }
        }
    }
    DIR *d = opendir(dir);
    if (!d) return NULL;
    const char *found = NULL;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        static const char *const names[] = {"results.json", "fleet.json"};
        for (size_t i = 0; !found && i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, names[i]);
            if (lstat(path, &st) == 0) {
                snprintf(buf, len, "%s/%s", e->d_name, names[i]);
                found = buf;
            }
        }
    }
    closedir(d);
    return found;
}

size_t ns_outdir_first_missing(const char *dir) {
    char buf[4096];
    struct stat st;
    size_t len = strlen(dir);
    if (len >= sizeof buf) return 0;
    memcpy(buf, dir, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != 0) continue;
        char keep = buf[i];
        buf[i] = 0;
        int missing = stat(buf, &st) != 0;
        buf[i] = keep;
        if (missing) return i;
    }
    return 0;
}

int ns_outdir_mkdir_p(const char *dir) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int ns_path_join(char *out, size_t len, const char *dir, const char *name, char *err,
                 size_t errlen) {
    if ((size_t)snprintf(out, len, "%s/%s", dir, name) < len) return 0;
    char what[64];
    snprintf(what, sizeof what, "%.40s in", name);
    ns_path_error(err, errlen, what, dir, strerror(ENAMETOOLONG));
    if (len) out[0] = '\0';
    return -1;
}

int ns_outdir_names_fit(const char *dir, const char *const *names, char *err, size_t errlen) {
    const char *longest = NULL;
    for (size_t i = 0; names[i]; i++)
        if (!longest || strlen(names[i]) > strlen(longest)) longest = names[i];
    if (!longest || strlen(dir) + 1 + strlen(longest) + strlen(".tmpXXXXXX") < NS_PATH_MAX)
        return 0;
    char what[64];
    snprintf(what, sizeof what, "%.40s in", longest);
    ns_path_error(err, errlen, what, dir, strerror(ENAMETOOLONG));
    return -1;
}

int ns_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return -1;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int ns_outdir_make_new(char *dir, size_t len, size_t *created) {
    char base[4096], parent[4096];
    if (snprintf(base, sizeof base, "%s", dir) >= (int)sizeof base) {
        errno = ENAMETOOLONG;
        return -1;
    }
    size_t first = ns_outdir_first_missing(base);
    snprintf(parent, sizeof parent, "%s", base);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        if (ns_outdir_mkdir_p(parent) != 0) return -1;
    }
    for (int i = 1; i < 1000; i++) {
        if (i > 1 && snprintf(dir, len, "%s-%d", base, i) >= (int)len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (mkdir(dir, 0755) == 0) {
            *created = i == 1 && first ? first : strlen(dir);
            return 0;
        }
        if (errno != EEXIST) return -1;
    }
    errno = EEXIST;
    return -1;
}

void ns_outdir_remove(const char *dir, size_t created) {
    char buf[4300];
    for (const char *const *n = ns_outdir_names; *n; n++) {
        if (!strcmp(*n, "nodes") || listed(*n, ns_outdir_compare)) continue;
        snprintf(buf, sizeof buf, "%s/%s", dir, *n);
        unlink(buf);
    }
    ns_outdir_remove_dirs(dir, created);
}

void ns_outdir_remove_dirs(const char *dir, size_t created) {
    char buf[4300];
    if (!created) return;
    snprintf(buf, sizeof buf, "%s", dir);
    for (size_t len = strlen(buf); len >= created; len = strlen(buf)) {
        if (rmdir(buf) != 0) return;
        char *slash = strrchr(buf, '/');
        if (!slash) return;
        *slash = 0;
    }
}

/* What ns_report_may_write calls each kind of report, as "not <own>". */
static const char *const report_own[] = {
    [NS_REPORT_BENCH] = "an earlier bench result",
    [NS_REPORT_GATE_JSON] = "an earlier gate report",
    [NS_REPORT_GATE_JUNIT] = "an earlier gate JUnit report",
    [NS_REPORT_GATE_MARKDOWN] = "an earlier gate Markdown report",
    [NS_REPORT_CLUSTER] = "an earlier cluster report",
};

int ns_json_report_kind(const json_t *root, char *what, size_t len) {
    if (!json_is_object(root)) {
        snprintf(what, len, "JSON that is not a nodescale file");
        return -1;
    }
    const char *schema = json_string_value(json_object_get(root, "schema"));
    const char *kind = json_string_value(json_object_get(root, "kind"));
    if (schema && !strcmp(schema, "nodescale-gate/1")) {
        snprintf(what, len, "a gate report");
        return NS_REPORT_GATE_JSON;
    }
    if (schema && !strcmp(schema, "nodescale-cluster/1")) {
        snprintf(what, len, "a cluster report");
        return NS_REPORT_CLUSTER;
    }
    if (kind && !strcmp(kind, "fleet")) {
        snprintf(what, len, "a fleet's results");
        return -1;
    }
    if (kind && !strcmp(kind, "compare")) {
        snprintf(what, len, "a compare report");
        return -1;
    }
    if (kind || !schema || strcmp(schema, NS_SCHEMA)) {
        snprintf(what, len, "JSON that no nodescale command writes");
        return -1;
    }
    /* A run's record: its sweep, ceilings or roofline, or more than one result (bench --json
     * over a run's results.json replaced 44 results by 1: bench_args.sh). One result alone is
     * bench's. */
    size_t n = json_array_size(json_object_get(root, "results"));
    static const char *const parts[] = {"sweep", "ceilings", "roofline"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (json_object_get(root, parts[i])) {
            snprintf(what, len, "a run's results (its %s and %zu result%s)", parts[i], n,
                     n == 1 ? "" : "s");
            return -1;
        }
    if (n > 1) {
        snprintf(what, len, "a run's results (%zu results)", n);
        return -1;
    }
    snprintf(what, len, "a bench result");
    return NS_REPORT_BENCH;
}

int ns_report_may_write(const char *opt, const char *path, ns_report_kind kind, char *err,
                        size_t errlen) {
    struct stat st;
    if (ns_path_check_name(opt, path, err, errlen) != 0) return -1;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s %s cannot be read to tell what it holds: %s", opt, path,
                 strerror(errno));
        return -1;
    }
    char head[512];
    size_t n = fread(head, 1, sizeof head - 1, f);
    head[n] = 0;
    size_t skip = strspn(head, " \t\r\n");
    char what[160];
    int is = -1;
    if (head[skip] == '{' || head[skip] == '[') {
        rewind(f);
        json_error_t je;
        json_t *root = json_loadf(f, 0, &je);
        if (root)
            is = ns_json_report_kind(root, what, sizeof what);
        else
            snprintf(what, sizeof what, "text that is not valid JSON");
        json_decref(root);
    } else if (head[skip] == '<') {
        is = strstr(head, "<testsuites name=\"nodescale gate\"") ? NS_REPORT_GATE_JUNIT : -1;
        snprintf(what, sizeof what, is < 0 ? "XML that gate did not write" : "a gate JUnit report");
    } else if (!strncmp(head, "### nodescale gate: ", 20)) {
        is = NS_REPORT_GATE_MARKDOWN;
        snprintf(what, sizeof what, "a gate Markdown report");
    } else if (!strncmp(head, "# nodescale report: ", 20)) {
        snprintf(what, sizeof what, "a run's report (report.md)");
    } else {
        snprintf(what, sizeof what, "%s",
                 kind == NS_REPORT_GATE_JUNIT || kind == NS_REPORT_GATE_MARKDOWN
                     ? "other text"
                     : "text that is not JSON");
    }
    fclose(f);
    if (is == (int)kind) return 0;
    snprintf(err, errlen, "%s %s holds %s, not %s: give a new file", opt, path, what,
             report_own[kind]);
    return -1;
}

/* Path p with its folder resolved by realpath (the text itself when the folder does not exist),
 * into out. */
static void resolved_path(const char *p, char *out, size_t len) {
    const char *slash = strrchr(p, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == p ? 1 : (int)(slash - p), p);
    if (realpath(dir, real))
        snprintf(out, len, "%s/%s", real, slash ? slash + 1 : p);
    else
        snprintf(out, len, "%s", p);
}

void ns_output_target(const char *p, char *out, size_t len) {
    char cur[PATH_MAX], link[PATH_MAX];
    if (strlen(p) >= sizeof cur) { /* too long to be opened: its text as it is */
        resolved_path(p, out, len);
        return;
    }
    memcpy(cur, p, strlen(p) + 1);
    struct stat st;
    for (int hops = 0; hops < 40 && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n <= 0) break;
        link[n] = 0;
        /* A relative target is relative to the link's folder. */
        char *slash = strrchr(cur, '/');
        size_t keep = link[0] == '/' || !slash ? 0 : (size_t)(slash + 1 - cur);
        if (keep + (size_t)n >= sizeof cur) break;
        memcpy(cur + keep, link, (size_t)n + 1);
    }
    resolved_path(cur, out, len);
}
