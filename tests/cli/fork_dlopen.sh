#!/usr/bin/env bash
# A child that loads libnodescale.so after a fork of a process that ran an OpenMP parallel region
# (the pthread_atfork mark is never set there, and the first GEMM with a team
# waited forever): the workaround nodescale.h and the README give, omp_set_num_threads(1) before
# the first call, makes the child's calls return right results. The hang itself is not run.
set -u
cd "$(dirname "$0")/../.."
[ -f lib/libnodescale.so ] || { echo "skip: library not built"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "skip: $CC missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

grep -q 'omp_set_num_threads(1)' include/nodescale.h && grep -q 'omp_set_num_threads(1)' README.md ||
    { echo "FAIL: nodescale.h or README.md does not give the workaround"; fails=$((fails + 1)); }
cat >"$T/fk.c" <<'C'
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
typedef int (*gemm_t)(int, int, int, long, long, long, double, const double *, long,
                      const double *, long, double, double *, long);
typedef int (*sum_t)(long, const double *, long, int, int, double *);
enum { N = 400, XN = 1 << 20 };
static double a[N * N], b[N * N], c[N * N], x[XN];
int main(int argc, char **argv) {
    int s = 0;
#pragma omp parallel reduction(+ : s)
    s += 1;
    for (int i = 0; i < N * N; i++) a[i] = 1, b[i] = 2;
    for (int i = 0; i < XN; i++) x[i] = 1;
    pid_t p = fork();
    if (p == 0) {
        omp_set_num_threads(1); /* the workaround */
        void *h = dlopen(argv[1], RTLD_NOW);
        if (!h) _exit(3);
        gemm_t g = (gemm_t)dlsym(h, "nodescale_dgemm");
        sum_t sum = (sum_t)dlsym(h, "nodescale_dsum");
        double r = 0;
        int rc = g(102, 111, 111, N, N, N, 1, a, N, b, N, 0, c, N) | sum(XN, x, 1, 0, 0, &r);
        _exit(rc != 0 || c[0] != 2.0 * N || c[N * N - 1] != 2.0 * N || r != XN ? 4 : 0);
    }
    int st;
    waitpid(p, &st, 0);
    printf("parent team %d, child %s %d\n", s, WIFEXITED(st) ? "exit" : "signal",
           WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
C
if ! "$CC" -fopenmp "$T/fk.c" -o "$T/fk" -ldl 2>"$T/cc.err"; then
    echo "FAIL: cannot build the fork program:"; head -5 "$T/cc.err"; fails=$((fails + 1))
elif out=$(OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive timeout -s KILL 120 "$T/fk" "$PWD/lib/libnodescale.so" 2>&1); then
    echo "ok: dlopen after fork with omp_set_num_threads(1): $out"
else echo "FAIL: dlopen after fork with omp_set_num_threads(1): $out"; fails=$((fails + 1)); fi
[ $fails -eq 0 ] && echo "fork_dlopen: ok"
exit $((fails > 0))
