/* Claiming and cleaning report folders (see outdir.h). */
#include "harness/outdir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PICTURES                                                                                   \
    "roofline.svg", "roofline_dp.svg", "roofline_dp.png", "roofline_sp.svg", "roofline_sp.png",    \
        "roofline_cache_aware_dp.svg", "roofline_cache_aware_dp.png",                              \
        "roofline_cache_aware_sp.svg", "roofline_cache_aware_sp.png",                              \
        "bandwidth_vs_working_set.svg", "bandwidth_vs_working_set.png"

#define COMPARE "compare.json", "compare.md", "compare.dat", "compare.gp", "compare.svg"

const char *const ns_outdir_pictures[] = {PICTURES, NULL};

const char *const ns_outdir_compare[] = {COMPARE, NULL};

const char *const ns_outdir_names[] = {"results.json",
                                       "report.md",
                                       "run.log",
                                       "gbench.json",
                                       "fleet.json",
                                       ".fleet.json.collectives-timeout",
                                       "nodes",
                                       "cluster_breakdown.dat",
                                       "cluster_breakdown.gp",
                                       "cluster_breakdown.svg",
                                       "cluster_breakdown.png",
                                       "cluster_scaling.dat",
                                       "cluster_scaling.gp",
                                       "cluster_scaling.svg",
                                       "cluster_scaling.png",
                                       PICTURES,
                                       COMPARE,
                                       NULL};

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
