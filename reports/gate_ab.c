/* Interleaved A/B mode of the regression gate (`nodescale gate --ab OLD NEW [KERNEL...]`).
 *
 * Two result files measured at different times differ by whatever the machine did in between
 * (clock drift, neighbours on a shared host); on a shared runner that drift, not the code, is the
 * main source of false alarms. Here the two builds run one after the other, round after round,
 * alternating which goes first (ABBA), and each round gives one pair of medians measured within
 * seconds of each other. The gate then tests the per-round log-ratios with the Wilcoxon
 * signed-rank test and a Walsh-average interval, so drift that is slow compared with a round
 * cancels out of every pair. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/context.h"
#include "harness/json.h"
#include "harness/stats.h"
#include "reports/gate.h"

/* The signal (SIGINT or SIGTERM) that asked a running gate --ab to stop; 0 while none has. The
 * handler only records it: the runner stops its bench child, removes its temporary folder and
 * then dies from the same signal with the default action (exit status 130 / 143 in a shell). */
static volatile sig_atomic_t ab_stop;

static void on_stop_signal(int sig) {
    ab_stop = sig;
}

/* Runs argv with stdout and stderr appended to log; returns the exit status, or -1 when it
 * could not be started or died from a signal (reason in err). */
static int run_child(char **argv, const char *log, char *err, size_t errlen) {
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        ns_affinity_release(NULL); /* not the CPU the parent's initial thread is bound to */
        if (strchr(argv[0], '/'))
            execv(argv[0], argv);
        else
            execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st;
    if (ab_stop) kill(pid, ab_stop);
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            return -1;
        }
        if (ab_stop) kill(pid, ab_stop); /* pass the stop on, then wait for the child */
    }
    if (WIFSIGNALED(st)) {
        snprintf(err, errlen, "%s died from signal %d", argv[0], WTERMSIG(st));
        return -1;
    }
    return WEXITSTATUS(st);
}

/* Last non-empty line of a log file, for error messages. */
static void last_line(const char *path, char *out, size_t len) {
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0]) snprintf(out, len, "%.200s", line);
    }
    fclose(f);
}

typedef struct {
    char *id;
    const char *id_side; /* "OLD" or "NEW": the run that id came from, in round id_round */
    int id_round;
    double *old_med, *new_med; /* one per round */
} ab_kernel;

/* The '/'-separated fields where ids a and b differ ("avx2 vs avx512"), into out. */
static void id_fields_diff(const char *a, const char *b, char *out, size_t len) {
    size_t used = 0;
    out[0] = 0;
    while (*a || *b) {
        size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
        if ((la != lb || strncmp(a, b, la)) && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%.*s vs %.*s", used ? ", " : "",
                                     (int)la, a, (int)lb, b);
        a += la + (a[la] == '/');
        b += lb + (b[lb] == '/');
    }
}

/* Median of the valid samples of the single result in doc (bench writes one). side ("OLD" or
 * "NEW") and round say which run wrote it; the first run's id is kept in k, and a later run
 * with another id is an error that names where the two came from. */
static int doc_median(const json_t *doc, const char *file, ab_kernel *kern, const char *side,
                      int round, double *med, char *err, size_t errlen) {
    char **id = &kern->id;
    const json_t *a = json_object_get(doc, "results");
    if (!json_is_array(a) || json_array_size(a) != 1) {
        snprintf(err, errlen, "%s: want exactly one result from 'bench'", file);
        return -1;
    }
    const json_t *r = json_array_get(a, 0);
    const char *rid = json_string_value(json_object_get(r, "id"));
    const json_t *ss = json_object_get(r, "samples_s");
    const char *st = json_string_value(json_object_get(r, "status"));
    if (!rid || !json_is_array(ss) || (st && strcmp(st, "ok"))) {
        snprintf(err, errlen, "%s: the result has no id or no samples (status %s)", file,
                 st ? st : "missing");
        return -1;
    }
    size_t n = json_array_size(ss), k = 0;
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        double x = json_number_value(json_array_get(ss, i));
        if (json_is_number(json_array_get(ss, i)) && isfinite(x) && x > 0) v[k++] = x;
    }
    *med = k ? ns_median(v, k) : NAN;
    free(v);
    if (!k) {
        snprintf(err, errlen, "%s: no valid sample", file);
        return -1;
    }
    if (!*id) {
        if (!(*id = strdup(rid))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        kern->id_side = side;
        kern->id_round = round;
    }
    if (strcmp(*id, rid)) {
        char fields[200];
        id_fields_diff(rid, *id, fields, sizeof fields);
        if (kern->id_round == round && strcmp(kern->id_side, side))
            /* This clash within one round was reported as "an earlier round's" (gate.sh). */
            snprintf(err, errlen,
                     "result id \"%s\" differs from %s's \"%s\" in the same round (round %d: %s): "
                     "the two builds name this benchmark differently, so their times cannot be "
                     "paired",
                     rid, kern->id_side, *id, round + 1, fields);
        else
            snprintf(err, errlen,
                     "result id \"%s\" differs from \"%s\" that %s reported in round %d (%s)", rid,
                     *id, kern->id_side, kern->id_round + 1, fields);
        return -1;
    }
    return 0;
}

/* 1 when every kernel is settled after n rounds: significant with the whole interval above
 * 1 + threshold (a regression under any rule), or the interval entirely below 1 + threshold
 * (no regression of that size), so further rounds would not change the exit status. */
static int settled(const ab_kernel *ks, int nkernels, int n, double *scratch,
                   const ns_gate_opts *o) {
    for (int k = 0; k < nkernels; k++) {
        for (int r = 0; r < n; r++)
            scratch[r] = log(ks[k].new_med[r] / ks[k].old_med[r]);
        ns_gate_row row = {.id = ks[k].id,
                           .base = ks[k].old_med,
                           .cur = ks[k].new_med,
                           .nbase = (size_t)n,
                           .ncur = (size_t)n,
                           .d = scratch,
                           .nd = (size_t)n,
                           .drift = NAN};
        ns_gate_evaluate_row(&row, o);
        /* Stop early only on the interval (never on the estimate alone): each look could
         * otherwise add its own chance of a false alarm. */
        int slower = row.p < o->alpha && row.ci_lo > 1 + row.threshold;
        if (!slower && !(row.ci_hi < 1 + row.threshold)) return 0;
    }
    return 1;
}

/* 0 when bin (a path, or a name looked up in PATH as execvp does) is a regular file this user
 * may execute; else -1 with a one-line reason in err. access(X_OK) alone is true for a folder,
 * which then failed only in round 1 (gate_outputs.sh). */
static int check_binary(const char *bin, const char *role, char *err, size_t errlen) {
    struct stat st;
    if (strchr(bin, '/')) {
        if (stat(bin, &st) != 0) {
            snprintf(err, errlen, "%s %s: %s", role, bin, strerror(errno));
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s %s is %s: want an executable file", role, bin,
                     S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
            return -1;
        }
        if (access(bin, X_OK) != 0) {
            snprintf(err, errlen, "%s %s is not executable: %s", role, bin, strerror(errno));
            return -1;
        }
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/bin:/usr/bin";
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char file[4096];
        if (snprintf(file, sizeof file, "%.*s/%s", n ? (int)n : 1, n ? p : ".", bin) <
                (int)sizeof file &&
            stat(file, &st) == 0 && S_ISREG(st.st_mode) && access(file, X_OK) == 0)
            return 0;
        if (!end) break;
        p = end;
    }
    snprintf(err, errlen, "%s %s: no executable file of that name in PATH", role, bin);
    return -1;
}

int ns_gate_run_ab(const char *old_bin, const char *new_bin, char **kernels, int nkernels,
                   char **bench_args, int nargs, int min_rounds, int rounds, ns_gate_report *rep,
                   char *err, size_t errlen) {
    const char *bins[2] = {old_bin, new_bin};
    for (int i = 0; i < 2; i++)
        if (check_binary(bins[i], i ? "NEW_BINARY" : "OLD_BINARY", err, errlen) != 0) return -1;
    /* No SA_RESTART: a stop interrupts the wait for the bench child. A signal the caller
     * ignores (nohup, a background job's SIGINT) stays ignored. */
    static const int stop_sigs[2] = {SIGINT, SIGTERM};
    struct sigaction stop_sa = {.sa_handler = on_stop_signal}, old_sa[2];
    sigemptyset(&stop_sa.sa_mask);
    ab_stop = 0;
    for (int i = 0; i < 2; i++) {
        sigaction(stop_sigs[i], &stop_sa, &old_sa[i]);
        if (old_sa[i].sa_handler == SIG_IGN) sigaction(stop_sigs[i], &old_sa[i], NULL);
    }
    /* In TMPDIR, else (unset, or a folder that cannot be used) in /tmp. */
    const char *tmpdir = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/nodescale-gate-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int made = mkdtemp(dir) != NULL;
    if (!made) {
        tmpdir = "/tmp";
        snprintf(dir, sizeof dir, "/tmp/nodescale-gate-XXXXXX");
        made = mkdtemp(dir) != NULL;
    }
    if (!made) {
        snprintf(err, errlen, "cannot create a temporary folder in %s: %s",
                 tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
        for (int i = 0; i < 2; i++)
            sigaction(stop_sigs[i], &old_sa[i], NULL);
        return -1;
    }
    if (min_rounds > rounds) min_rounds = rounds;
    rep->mismatches = json_array();
    rep->build_diffs = json_array();
    int rc = -1;
    json_t *old_ctx = NULL;
    ab_kernel *ks = calloc((size_t)nkernels, sizeof *ks);
    char **argv = calloc((size_t)nargs + 6, sizeof *argv);
    double *scratch = calloc((size_t)rounds, sizeof *scratch);
    int done = 0;
    char file[600], logpath[600];
    snprintf(logpath, sizeof logpath, "%s/bench.log", dir);
    if (!ks || !argv || !scratch) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int k = 0; k < nkernels; k++) {
        ks[k].old_med = calloc((size_t)rounds, sizeof(double));
        ks[k].new_med = calloc((size_t)rounds, sizeof(double));
        if (!ks[k].old_med || !ks[k].new_med) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    }
    for (int r = 0; r < rounds && !done; r++) {
        fprintf(stderr, "nodescale gate: A/B round %d (at most %d)\n", r + 1, rounds);
        for (int k = 0; k < nkernels; k++) {
            for (int turn = 0; turn < 2; turn++) {
                if (ab_stop) goto out;
                /* ABBA: even rounds run OLD first, odd rounds NEW first. */
                int is_new = (r % 2 == 0) ? turn : 1 - turn;
                const char *bin = is_new ? new_bin : old_bin;
                snprintf(file, sizeof file, "%s/%s-%d-%d.json", dir, is_new ? "new" : "old", k, r);
                int a = 0;
                argv[a++] = (char *)bin;
                argv[a++] = "bench";
                argv[a++] = kernels[k];
                for (int i = 0; i < nargs; i++)
                    argv[a++] = bench_args[i];
                argv[a++] = "--json";
                argv[a++] = file;
                argv[a] = NULL;
                truncate(logpath, 0);
                char why[1024];
                int st = run_child(argv, logpath, why, sizeof why);
                const char *side = is_new ? "NEW" : "OLD";
                if (ab_stop) goto out;
                if (st != 0) {
                    char ll[300];
                    last_line(logpath, ll, sizeof ll);
                    if (st > 0)
                        snprintf(err, errlen, "%s binary %s exited %d running 'bench %s'%s%s", side,
                                 bin, st, kernels[k], ll[0] ? ": " : "", ll);
                    else
                        snprintf(err, errlen, "%s binary: %s%s%s", side, why, ll[0] ? ": " : "",
                                 ll);
                    goto out;
                }
                /* A program that is not a nodescale build (or ignores --json) exits 0 and
                 * writes nothing: say so rather than "No such file" about a temporary path. */
                if (access(file, F_OK) != 0) {
                    snprintf(err, errlen,
                             "%s binary %s exited 0 without writing results (is it a nodescale "
                             "build?)",
                             side, bin);
                    goto out;
                }
                json_t *doc = ns_json_load_results(file, why, sizeof why);
                if (!doc) {
                    snprintf(err, errlen, "%s binary %s: %s", side, bin, why);
                    goto out;
                }
                int ok =
                    doc_median(doc, file, &ks[k], side, r,
                               is_new ? &ks[k].new_med[r] : &ks[k].old_med[r], why, sizeof why);
                if (ok == 0 && r == 0 && k == 0 && !is_new) old_ctx = json_incref(doc);
                if (ok == 0 && r == 0 && k == 0 && is_new && old_ctx) {
                    /* Both builds ran once: compare their contexts. The machine must match;
                     * the builds are meant to differ, so those differences are only shown. */
                    ns_gate_context_diff(old_ctx, doc, 1, rep->mismatches);
                    json_t *all = json_array();
                    ns_gate_context_diff(old_ctx, doc, 0, all);
                    for (size_t i = 0; i < json_array_size(all); i++) {
                        json_t *m = json_array_get(all, i), *seen = NULL;
                        size_t j;
                        json_array_foreach(rep->mismatches, j, seen) {
                            if (json_equal(json_object_get(seen, "key"), json_object_get(m, "key")))
                                break;
                        }
                        if (j == json_array_size(rep->mismatches))
                            json_array_append(rep->build_diffs, m);
                    }
                    json_decref(all);
                }
                json_decref(doc);
                unlink(file);
                if (ok != 0) {
                    snprintf(err, errlen, "%s binary %s: %s", side, bin, why);
                    goto out;
                }
            }
        }
        rep->rounds = r + 1;
        /* Sequential looks: stop once no further round can change the outcome. */
        if (r + 1 >= min_rounds) done = settled(ks, nkernels, r + 1, scratch, &rep->opts);
    }
    rounds = rep->rounds;
    for (int k = 0; k < nkernels; k++) {
        ns_gate_row *nr = realloc(rep->rows, (rep->nrows + 1) * sizeof *nr);
        if (!nr) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        rep->rows = nr;
        ns_gate_row *row = &rep->rows[rep->nrows++];
        *row = (ns_gate_row){.id = ks[k].id,
                             .base = ks[k].old_med,
                             .cur = ks[k].new_med,
                             .nbase = (size_t)rounds,
                             .ncur = (size_t)rounds,
                             .d = malloc((size_t)rounds * sizeof(double)),
                             .nd = (size_t)rounds,
                             .ci_lo = NAN,
                             .ci_hi = NAN,
                             .p = NAN,
                             .ratio = NAN,
                             .threshold = NAN,
                             .drift = NAN};
        ks[k].id = NULL;
        ks[k].old_med = ks[k].new_med = NULL;
        if (!row->d) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        for (int r = 0; r < rounds; r++)
            row->d[r] = log(row->cur[r] / row->base[r]);
        ns_gate_evaluate_row(row, &rep->opts);
    }
    rc = 0;
out:
    for (int k = 0; ks && k < nkernels; k++) {
        free(ks[k].id);
        free(ks[k].old_med);
        free(ks[k].new_med);
    }
    free(ks);
    free(argv);
    free(scratch);
    json_decref(old_ctx);
    /* Remove what we created: the folder holds only our files and what the bench runs wrote
     * (a stopped run may leave its temporary file). */
    DIR *dh = opendir(dir);
    for (struct dirent *e; dh && (e = readdir(dh));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(dirfd(dh), e->d_name, 0);
    if (dh) closedir(dh);
    rmdir(dir);
    for (int i = 0; i < 2; i++)
        sigaction(stop_sigs[i], &old_sa[i], NULL);
    if (ab_stop) {
        /* Cleaned up: now stop as the signal asked, with its default action. */
        int sig = ab_stop;
        fprintf(stderr, "nodescale gate: stopped by signal %d; removed %s\n", sig, dir);
        signal(sig, SIG_DFL);
        raise(sig);
        snprintf(err, errlen, "stopped by signal %d", sig);
        return -1;
    }
    return rc;
}
