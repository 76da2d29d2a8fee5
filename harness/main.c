/* bin/nodescale: dispatch to a subcommand. See README.md for every command and option. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/context.h"
#include "harness/measure.h"
#include "kernels/registry.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    {"run", ns_cmd_run, "characterise this node end to end and write a report folder"},
    {"list", ns_cmd_list, "kernels, ISAs on this CPU, counter backends and their status"},
    {"bench", ns_cmd_bench, "one kernel, one shape"},
    {"roofline", ns_cmd_roofline, "ceilings and points from a results.json -> roofline plots"},
    {"gate", ns_cmd_gate, "regression gate: exit 0 pass, 1 regression, 2 usage/input error"},
    {"compare", ns_cmd_compare, "several nodes or providers side by side"},
    {"cluster", ns_cmd_cluster, "the cluster scaling model"},
    {"fleet", ns_cmd_fleet, "many nodes over MPI (launch with mpirun or srun)"},
};

/* NODESCALE_GEMM_MC/KC/NC (block sizes, 1..2^30) and _JC_NT/_IC_NT/_JR_NT (ways, 1..1024):
 * decimal integers when set. The library only warns and ignores a bad value (it must not
 * exit); the command line refuses it. 0, or -1 with a one-line reason in err. */
static int gemm_env_check(char *err, size_t errlen) {
    static const struct {
        const char *name;
        long long max;
    } vars[] = {{"NODESCALE_GEMM_MC", 1LL << 30}, {"NODESCALE_GEMM_KC", 1LL << 30},
                {"NODESCALE_GEMM_NC", 1LL << 30}, {"NODESCALE_GEMM_JC_NT", 1024},
                {"NODESCALE_GEMM_IC_NT", 1024},   {"NODESCALE_GEMM_JR_NT", 1024}};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i].name);
        if (!v || !*v) continue;
        int ok = strspn(v, "0123456789") == strlen(v) && strlen(v) <= 10;
        long long x = ok ? strtoll(v, NULL, 10) : 0;
        if (!ok || x < 1 || x > vars[i].max) {
            snprintf(err, errlen, "%s=%s: want an integer in [1, %lld]", vars[i].name, v,
                     vars[i].max);
            return -1;
        }
    }
    return 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: nodescale COMMAND [options]   (nodescale COMMAND --help for options)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\nnodescale %s\n", NODESCALE_VERSION);
}

/* rc, after flushing standard output: when a command that succeeded could not write what it
 * printed there (a full disk, `> /dev/full`), one line says so and it exits 1. (A command that
 * failed has given its reason, its own write errors on stdout included.) */
static int flushed(const char *cmd, int rc) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    if (rc != NS_EXIT_OK) return rc;
    fprintf(stderr, "nodescale%s%s: error: cannot write to standard output: %s\n", *cmd ? " " : "",
            cmd, errno ? strerror(errno) : "write error");
    return NS_EXIT_FAIL;
}

/* A fleet rank other than 0 with a usage error rank 0 prints: NS_EXIT_USAGE after a second, for
 * mpirun ends the job at the first rank that exits, and a rank 0 slower to start had not printed
 * the error yet. */
static int quiet_usage_exit(void) {
    sleep(1);
    return NS_EXIT_USAGE;
}

int main(int argc, char **argv) {
    ns_affinity_defaults(argv);
    if (argv[0] && *argv[0]) ns_program = argv[0]; /* unchanged by the re-exec */
    if (argc < 2) return ns_usage_error("", "no command given (try: nodescale --help)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return flushed("", NS_EXIT_OK);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("nodescale %s\n", NODESCALE_VERSION);
        return flushed("", NS_EXIT_OK);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        /* Commands that run kernels refuse a forced ISA they cannot honour, and environment
         * settings they would otherwise ignore or only warn about. */
        const char *forced = getenv("NODESCALE_ISA");
        int runs_kernels = !strcmp(argv[1], "run") || !strcmp(argv[1], "bench") ||
                           !strcmp(argv[1], "fleet");
        int wants_help = argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"));
        /* Under mpirun every rank of a fleet finds the same error: rank 0 prints it, the others
         * exit 2 quietly. */
        int quiet = !strcmp(argv[1], "fleet") && !ns_env_rank_is_zero();
        if (runs_kernels && !wants_help && forced && *forced && !ns_isa_selected())
            return quiet
                       ? quiet_usage_exit()
                       : ns_usage_error(
                             argv[1],
                             "NODESCALE_ISA=%s is unknown or this CPU cannot run it "
                             "(want avx512, avx2 or scalar; `nodescale list` shows which run here)",
                             forced);
        char err[512];
        if (runs_kernels && !wants_help &&
            (ns_inject_slowdown_check(err, sizeof err) != 0 ||
             gemm_env_check(err, sizeof err) != 0))
            return quiet ? quiet_usage_exit() : ns_usage_error(argv[1], "%s", err);
        return flushed(argv[1], commands[i].fn(argc - 1, argv + 1));
    }
    return ns_usage_error("", "unknown command '%s' (try: nodescale --help)", argv[1]);
}

