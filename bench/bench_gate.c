/* make bench-gate: how often the regression gate raises a false alarm, how often it catches a
 * known slowdown, and what one gate run costs, from real runs of `nodescale bench` on this
 * machine with the gate's default settings.
 *
 * Each of N iterations (default 20) runs four comparisons, interleaved so the machine's drift
 * hits all four alike:
 *   files A/A    bench -> base.json, bench -> cur.json,            `gate base cur`
 *   files 10%    bench -> base.json, slowed bench -> cur.json,     `gate base cur`
 *   A/B   A/A    `gate --ab nodescale nodescale KERNEL`
 *   A/B   10%    `gate --ab nodescale slowed KERNEL`
 * "slowed" is the same binary with NODESCALE_INJECT_SLOWDOWN=KERNEL:0.10 (the kernel does 10%
 * more real work per timed repetition). A false alarm is exit 1 on an A/A comparison; a catch
 * is exit 1 on a 10% comparison. The gate's own time is the wall time of the `gate` process
 * (files mode) and of the whole `gate --ab` run (which replaces the separate bench runs).
 *
 *   bench_gate [--iterations N] [--kernel K] [--slowdown F] [-- BENCH_ARGS...]
 * Default kernel peak_dp_fma with bench arguments "--threads 1 --samples 21 --min-time 0.005":
 * on a shared 2-core machine a one-thread, register-resident kernel is disturbed least by its
 * neighbours, and 21 short samples a run make its median steadier. A full run took 6 minutes
 * here at load average 2-3 (A/B comparisons run until settled, up to 30 rounds). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/context.h"
#include "harness/json.h"
#include "harness/stats.h"
#include "kernels/registry.h"

#define NS "bin/nodescale"

/* The temporary folder and its files, removed at exit whichever way the program ends (atexit:
 * the usage errors after mkdtemp and gate_files' exit(2) included); empty until made. */
static char tmp_dir[] = "/tmp/nodescale-bench-gate-XXXXXX";
static char tmp_slowed[300], tmp_base[300], tmp_cur[300], tmp_rep[300];
static int tmp_made;

static void remove_tmp(void) {
    if (!tmp_made) return;
    unlink(tmp_slowed);
    unlink(tmp_base);
    unlink(tmp_cur);
    unlink(tmp_rep);
    rmdir(tmp_dir);
}

/* Ctrl-C or kill: the folder removed (unlink and rmdir are async-signal-safe), then the signal's
 * default action, so the exit status says which signal ended the run. */
static void remove_tmp_on_signal(int sig) {
    remove_tmp();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* s as one single-quoted shell word ('it'\''s' for it's) on f. */
static void put_shell_word(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* The 1-minute load average, to state how shared the machine was. */
static double loadavg(void) {
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = NAN;
        fclose(f);
    }
    return l;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs argv (stdout/stderr to /dev/null unless verbose), with env "NAME=VALUE" set when
 * non-NULL; returns the exit status (-1 when it could not run) and the wall time in *wall. */
static int run(char **argv, const char *env, double *wall) {
    fflush(NULL); /* or the child's exit would repeat buffered output */
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        ns_affinity_release(NULL); /* not the CPU the parent's initial thread is bound to */
        if (env) putenv((char *)env);
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (wall) *wall = now_s() - t0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The ratio the gate estimated for the (single) benchmark in its JSON report. */
static double gate_ratio(const char *path) {
    char err[256];
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    (void)err;
    double r = ns_json_get_num(json_array_get(json_object_get(j, "benchmarks"), 0), "ratio");
    json_decref(j);
    return r;
}

typedef struct {
    const char *name;
    int alarms, runs;
    double ratio[256], wall[256];
} cell;

static void bench_run(const char *kernel, char **args, int nargs, const char *out, const char *env,
                      int *ok) {
    char *argv[64];
    int a = 0;
    argv[a++] = NS;
    argv[a++] = "bench";
    argv[a++] = (char *)kernel;
    for (int i = 0; i < nargs && a < 60; i++)
        argv[a++] = args[i];
    argv[a++] = "--json";
    argv[a++] = (char *)out;
    argv[a] = NULL;
    if (run(argv, env, NULL) != 0) *ok = 0;
}

static void gate_files(cell *c, const char *base, const char *cur, const char *rep) {
    char *argv[] = {NS, "gate", "--quiet", "--json", (char *)rep, (char *)base, (char *)cur, NULL};
    double w;
    int rc = run(argv, NULL, &w);
    if (rc != 0 && rc != 1) {
        fprintf(stderr, "bench_gate: gate exited %d on %s %s\n", rc, base, cur);
        exit(2);
    }
    c->ratio[c->runs] = gate_ratio(rep);
    c->wall[c->runs++] = w;
    c->alarms += rc == 1;
}

static void gate_ab(cell *c, const char *new_bin, const char *kernel, char **args, int nargs,
                    const char *rep) {
    char *argv[80];
    int a = 0;
    argv[a++] = NS;
    argv[a++] = "gate";
    argv[a++] = "--quiet";
    argv[a++] = "--json";
    argv[a++] = (char *)rep;
    argv[a++] = "--ab";
    argv[a++] = NS;
    argv[a++] = (char *)new_bin;
    argv[a++] = (char *)kernel;
    if (nargs) argv[a++] = "--";
    for (int i = 0; i < nargs && a < 78; i++)
        argv[a++] = args[i];
    argv[a] = NULL;
    double w;
    int rc = run(argv, NULL, &w);
    if (rc != 0 && rc != 1) {
        fprintf(stderr, "bench_gate: gate --ab exited %d\n", rc);
        exit(2);
    }
    c->ratio[c->runs] = gate_ratio(rep);
    c->wall[c->runs++] = w;
    c->alarms += rc == 1;
}

static void summary(const cell *c, const char *what) {
    double r[256], w[256];
    memcpy(r, c->ratio, sizeof r);
    memcpy(w, c->wall, sizeof w);
    ns_sort_doubles(r, (size_t)c->runs);
    ns_sort_doubles(w, (size_t)c->runs);
    printf("%-10s %-16s %2d/%-2d   ratio median %.3f, range [%.3f, %.3f]   gate time median %.3f s"
           " (max %.3f)\n",
           c->name, what, c->alarms, c->runs, ns_quantile_sorted(r, (size_t)c->runs, 0.5), r[0],
           r[c->runs - 1], ns_quantile_sorted(w, (size_t)c->runs, 0.5), w[c->runs - 1]);
}

int main(int argc, char **argv) {
    if (ns_bench_help(argc, argv,
                      "usage: bench_gate [options] [-- BENCH_ARGS...]   (make bench-gate)\n"
                      "  the gate's false-alarm and catch rates and its cost, from real runs\n"
                      "  --iterations N  1..256 (default 20)\n"
                      "  --kernel K      kernel to bench (default peak_dp_fma)\n"
                      "  --slowdown F    injected slowdown fraction (default 0.10)\n"
                      "  BENCH_ARGS      `nodescale bench` arguments (default --threads 1\n"
                      "                  --samples 21 --min-time 0.005)\n"))
        return 0;
    int iters = 20;
    const char *kernel = "peak_dp_fma", *v;
    double slow = 0.10;
    static char *def_args[] = {"--threads", "1", "--samples", "21", "--min-time", "0.005"};
    char **args = def_args;
    int nargs = 6;
    for (int i = 1; i < argc; i++) {
        int m;
        int64_t x;
        if ((m = ns_opt_value(argc, argv, &i, "--iterations", &v))) {
            if (m < 0 || ns_parse_int64(v, 1, 256, &x) != 0)
                return ns_usage_error("bench-gate", "--iterations wants 1..256");
            iters = (int)x;
        } else if ((m = ns_opt_value(argc, argv, &i, "--kernel", &v))) {
            if (m < 0) return ns_usage_error("bench-gate", "--kernel wants a name");
            kernel = v;
        } else if ((m = ns_opt_value(argc, argv, &i, "--slowdown", &v))) {
            if (m < 0 || ns_parse_double(v, 0.001, 10, &slow) != 0)
                return ns_usage_error("bench-gate", "--slowdown wants a fraction");
        } else if (!strcmp(argv[i], "--")) {
            args = argv + i + 1;
            nargs = argc - i - 1;
            break;
        } else {
            return ns_usage_error("bench-gate", "unknown argument '%s'", argv[i]);
        }
    }
    if (access(NS, X_OK) != 0) return ns_usage_error("bench-gate", "%s not built", NS);
    size_t nk;
    const ns_kernel *const *all = ns_registry(&nk);
    int known = 0;
    for (size_t i = 0; i < nk && !known; i++)
        known = !strcmp(all[i]->name, kernel);
    if (!known)
        return ns_usage_error("bench-gate", "unknown kernel '%s' (bin/nodescale list shows them)",
                              kernel);
    char env[256], cwd[1024];
    snprintf(env, sizeof env, "NODESCALE_INJECT_SLOWDOWN=%s:%g", kernel, slow);
    const char *env_value = strchr(env, '=') + 1;
    if (!getcwd(cwd, sizeof cwd)) return ns_usage_error("bench-gate", "getcwd failed");

    if (!mkdtemp(tmp_dir)) return ns_usage_error("bench-gate", "mkdtemp: %s", strerror(errno));
    tmp_made = 1;
    atexit(remove_tmp);
    signal(SIGINT, remove_tmp_on_signal);
    signal(SIGTERM, remove_tmp_on_signal);
    snprintf(tmp_slowed, sizeof tmp_slowed, "%s/slowed-nodescale", tmp_dir);
    snprintf(tmp_base, sizeof tmp_base, "%s/base.json", tmp_dir);
    snprintf(tmp_cur, sizeof tmp_cur, "%s/cur.json", tmp_dir);
    snprintf(tmp_rep, sizeof tmp_rep, "%s/report.json", tmp_dir);
    FILE *f = fopen(tmp_slowed, "w");
    if (!f) return ns_usage_error("bench-gate", "cannot write %s", tmp_slowed);
    /* every word quoted: the checkout's path may hold blanks or shell metacharacters */
    fputs("#!/bin/sh\nNODESCALE_INJECT_SLOWDOWN=", f);
    put_shell_word(f, env_value);
    fputs(" exec ", f);
    char bin[1100];
    snprintf(bin, sizeof bin, "%s/%s", cwd, NS);
    put_shell_word(f, bin);
    fputs(" \"$@\"\n", f);
    fclose(f);
    chmod(tmp_slowed, 0755);

    static cell fa = {.name = "files"}, fd = {.name = "files"}, aa = {.name = "A/B"},
                ad = {.name = "A/B"};
    printf("bench-gate: kernel %s, bench args:", kernel);
    for (int i = 0; i < nargs; i++)
        printf(" %s", args[i]);
    printf("; %d iterations; gate defaults (threshold 5%%, alpha 0.05, A/B 8..30 rounds, stop when "
           "settled);\n"
           "slowdown: %s\n",
           iters, env);
    double t0 = now_s(), load0 = loadavg();
    for (int it = 0; it < iters; it++) {
        int ok = 1, a0[4] = {fa.alarms, fd.alarms, aa.alarms, ad.alarms};
        bench_run(kernel, args, nargs, tmp_base, NULL, &ok);
        bench_run(kernel, args, nargs, tmp_cur, NULL, &ok);
        if (!ok) return ns_usage_error("bench-gate", "'%s bench %s' failed", NS, kernel);
        gate_files(&fa, tmp_base, tmp_cur, tmp_rep);
        bench_run(kernel, args, nargs, tmp_base, NULL, &ok);
        bench_run(kernel, args, nargs, tmp_cur, env, &ok);
        if (!ok) return ns_usage_error("bench-gate", "slowed bench failed");
        gate_files(&fd, tmp_base, tmp_cur, tmp_rep);
        gate_ab(&aa, NS, kernel, args, nargs, tmp_rep);
        gate_ab(&ad, tmp_slowed, kernel, args, nargs, tmp_rep);
        fprintf(stderr,
                "iteration %d/%d: files A/A %.3f%s, files slowed %.3f%s, A/B A/A %.3f%s, "
                "A/B slowed %.3f%s (%.0f s)\n",
                it + 1, iters, fa.ratio[it], fa.alarms > a0[0] ? " ALARM" : "", fd.ratio[it],
                fd.alarms > a0[1] ? " caught" : " missed", aa.ratio[it],
                aa.alarms > a0[2] ? " ALARM" : "", ad.ratio[it],
                ad.alarms > a0[3] ? " caught" : " missed", now_s() - t0);
    }
    printf("\nmode       comparison       alarms\n");
    summary(&fa, "A/A (false)");
    summary(&fd, "slowed (caught)");
    summary(&aa, "A/A (false)");
    summary(&ad, "slowed (caught)");
    printf("total %.0f s; 1-minute load average %.1f at the start, %.1f at the end (%ld CPUs)\n",
           now_s() - t0, load0, loadavg(), sysconf(_SC_NPROCESSORS_ONLN));
    return 0;
}
