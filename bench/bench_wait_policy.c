/* make bench-wait_policy: what libgomp's wait policy costs the library's teams while another
 * process keeps a CPU busy (the rule in include/nodescale.h, the figures in README.md, section
 * "Library"). The parent keeps the last CPU of its affinity mask busy with a spinning child
 * process and runs this program three times, each a fresh process (libgomp reads the policy when
 * it loads): OMP_WAIT_POLICY unset (libgomp's default: spin, then sleep), OMP_WAIT_POLICY=passive,
 * and OMP_NUM_THREADS=1. Each prints the median time of one nodescale_ddot call (n = 65536, 15
 * batches of 20 calls) and of one nodescale_dgemm call (256^3, 5 calls). */
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/context.h"
#include "harness/stats.h"
#include "include/nodescale.h"

/* The ddot length and the GEMM order (macros: the help text spells them), the timed ddot
 * batches of CALLS calls and the timed GEMM calls (fewer when quick). */
#define NDOT 65536
#define NG 256
#define STR_(x) #x
#define STR(x) STR_(x)
enum { BATCHES = 15, CALLS = 20, GEMMS = 5 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One setting, in a process of its own: the two timings, one line. */
static int child(const char *label, int quick) {
    const int batches = quick ? 3 : BATCHES, gemms = quick ? 1 : GEMMS;
    double *x = malloc(NDOT * sizeof *x), *y = malloc(NDOT * sizeof *y);
    double *a = malloc(NG * NG * sizeof *a), *b = malloc(NG * NG * sizeof *b);
    double *c = malloc(NG * NG * sizeof *c);
    if (!x || !y || !a || !b || !c) {
        fprintf(stderr, "bench_wait_policy: out of memory\n");
        return 1;
    }
    for (int i = 0; i < NDOT; i++)
        x[i] = 1.0 + i % 7, y[i] = 0.5;
    for (int i = 0; i < NG * NG; i++)
        a[i] = 1.0 / (1 + i % 5), b[i] = 0.25, c[i] = 0;
    double r, t, tdot[BATCHES], tgemm[GEMMS];
    nodescale_ddot(NDOT, x, 1, y, 1, NodescaleSumPlain, NodescaleFast, &r); /* warm-up */
    for (int k = 0; k < batches; k++) {
        t = now();
        for (int i = 0; i < CALLS; i++)
            nodescale_ddot(NDOT, x, 1, y, 1, NodescaleSumPlain, NodescaleFast, &r);
        tdot[k] = (now() - t) / CALLS;
    }
    for (int k = 0; k < gemms; k++) {
        t = now();
        nodescale_dgemm(NodescaleRowMajor, NodescaleNoTrans, NodescaleNoTrans, NG, NG, NG, 1.0, a,
                        NG, b, NG, 0.0, c, NG);
        tgemm[k] = now() - t;
    }
    printf("%-40s %2d threads  ddot n = %d %9.1f us  dgemm %d^3 %8.2f ms\n", label,
           omp_get_max_threads(), NDOT, 1e6 * ns_median(tdot, (size_t)batches), NG,
           1e3 * ns_median(tgemm, (size_t)gemms));
    free(x), free(y), free(a), free(b), free(c);
    return 0;
}

int main(int argc, char **argv) {
    if (ns_bench_help(
            argc, argv,
            "usage: bench_wait_policy   (make bench-wait_policy)\n"
            "  nodescale_ddot (n = " STR(NDOT) ") and nodescale_dgemm (" STR(NG) "^3) while\n"
            "  a child process keeps the last CPU of the affinity mask busy, under\n"
            "  OMP_WAIT_POLICY unset, OMP_WAIT_POLICY=passive and OMP_NUM_THREADS=1, each\n"
            "  in a fresh process. No options.\n"
            "  NODESCALE_BENCH_QUICK=1  fewer calls\n"
            "  OMP_NUM_THREADS          threads of the first two settings (default: the\n"
            "                           CPUs in the affinity mask, the busy one included)\n"))
        return 0;
    const char *q = getenv("NODESCALE_BENCH_QUICK");
    int quick = q && atoi(q) > 0;
    if (argc == 3 && !strcmp(argv[1], "--child")) return child(argv[2], quick);
    if (ns_bench_no_args("bench-wait_policy", argc, argv)) return NS_EXIT_USAGE;

    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
        perror("bench_wait_policy: sched_getaffinity");
        return 1;
    }
    int last = -1;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &mask)) last = i;
    char threads[16];
    const char *env_threads = getenv("OMP_NUM_THREADS");
    snprintf(threads, sizeof threads, "%s", env_threads ? env_threads : "");
    if (!env_threads) snprintf(threads, sizeof threads, "%d", CPU_COUNT(&mask));
    printf("CPU %s; %d CPUs in the affinity mask, CPU %d kept busy by another process\n",
           ns_cpu_model(), CPU_COUNT(&mask), last);
    fflush(stdout);

    pid_t busy = fork();
    if (busy < 0) {
        perror("bench_wait_policy: fork");
        return 1;
    }
    if (busy == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(last, &one);
        sched_setaffinity(0, sizeof one, &one);
        for (volatile unsigned long spin = 0;; spin++) {
        }
    }
    const struct {
        const char *label, *policy, *threads;
    } runs[] = {{"OMP_WAIT_POLICY unset (libgomp default)", NULL, threads},
                {"OMP_WAIT_POLICY=passive", "passive", threads},
                {"OMP_NUM_THREADS=1", NULL, "1"}};
    int rc = 0;
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        pid_t p = fork();
        if (p == 0) {
            if (runs[k].policy)
                setenv("OMP_WAIT_POLICY", runs[k].policy, 1);
            else
                unsetenv("OMP_WAIT_POLICY");
            setenv("OMP_NUM_THREADS", runs[k].threads, 1);
            char *args[] = {argv[0], "--child", (char *)runs[k].label, NULL};
            execv("/proc/self/exe", args);
            perror("bench_wait_policy: exec");
            _exit(127);
        }
        int st = 0;
        if (p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) rc = 1;
    }
    kill(busy, SIGKILL);
    waitpid(busy, NULL, 0);
    return rc;
}
