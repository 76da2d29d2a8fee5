/* Strict command-line parsing helpers (see cli.h). */
#include "harness/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/measure.h"

const char *ns_program = "nodescale";

int ns_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nodescale%s%s: error: ", *cmd ? " " : "", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return NS_EXIT_USAGE;
}

int ns_exit_signal(int sig) {
    return sig > 1 && sig < 64 ? 128 + sig : NS_EXIT_INTERRUPTED;
}

/* CLOCK_MONOTONIC nanoseconds of the first stop signal (clock_gettime is async-signal-safe). */
static volatile sig_atomic_t first_signal_s, first_signal_ns;

/* One request can arrive twice: GNU timeout sends its signal to the command and then to the whole
 * process group, so the command gets two in microseconds, and `timeout -s INT` lost every result
 * when the second one ended the run at once. A second signal counts only NS_STOP_REPEAT_NS after
 * the first. */
#define NS_STOP_REPEAT_NS 500000000LL

static void on_stop_signal(int sig) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!ns_interrupted) {
        first_signal_s = (sig_atomic_t)now.tv_sec;
        first_signal_ns = (sig_atomic_t)now.tv_nsec;
        ns_interrupted = sig;
        return;
    }
    long long since = ((long long)now.tv_sec - first_signal_s) * 1000000000LL +
                      ((long long)now.tv_nsec - first_signal_ns);
    if (since >= NS_STOP_REPEAT_NS) _exit(ns_exit_signal(sig)); /* a real second one: at once */
}

int ns_env_rank_is_zero(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v) return !strcmp(v, "0");
    }
    return 1;
}

void ns_install_stop_handler(void) {
    struct sigaction sa = {0};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int suffix_multiplier(const char *s, int64_t *mul) {
    static const struct { const char *sfx; int64_t mul; } tab[] = {
        {"", 1},
        {"k", 1000LL}, {"K", 1000LL}, {"M", 1000000LL}, {"G", 1000000000LL},
        {"T", 1000000000000LL},
        {"kB", 1000LL}, {"KB", 1000LL}, {"MB", 1000000LL}, {"GB", 1000000000LL},
        {"TB", 1000000000000LL},
        {"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30}, {"TiB", 1LL << 40},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(s, tab[i].sfx) == 0) {
            *mul = tab[i].mul;
            return 0;
        }
    return -1;
}

int ns_parse_int64(const char *s, int64_t min, int64_t max, int64_t *out) {
    /* strtoll skips leading blanks; trailing ones are refused, so refuse both (cli_errors.sh). */
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    if (min >= 0 && (*s == '-' || *s == '+')) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s) return -1;
    int64_t mul;
    if (suffix_multiplier(end, &mul) != 0) return -1;
    if (v != 0 && (v > INT64_MAX / mul || v < INT64_MIN / mul)) return -1;
    int64_t r = (int64_t)v * mul;
    if (r < min || r > max) return -1;
    *out = r;
    return 0;
}

int ns_parse_double(const char *s, double min, double max, double *out) {
    /* strtod also reads hex ("0x10" = 16), "inf", "nan" and leading blanks: only the characters
     * of a decimal number may appear, first a sign, digit or point (cli_errors.sh). */
    if (!s || !*s || !strchr("+-.0123456789", *s) || s[strspn(s, "+-.0123456789eE")]) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max) return -1;
    *out = v;
    return 0;
}

int ns_opt_value(int argc, char **argv, int *i, const char *name, const char **value) {
    const char *a = argv[*i];
    size_t len = strlen(name);
    if (strncmp(a, name, len) != 0) return 0;
    if (a[len] == '=') {
        *value = a + len + 1;
        return 1;
    }
    if (a[len] != '\0') return 0;
    if (*i + 1 >= argc) return -1;
    *value = argv[++*i];
    return 1;
}

/* Length of the option name in a ("--name" or "--name=value"). */
static size_t opt_name_len(const char *a) {
    return strcspn(a, "=");
}

const char *ns_repeated_option(int argc, char **argv, const char *const *repeatable) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) break;
        if (strncmp(a, "--", 2) != 0 || !strcmp(a, "--help")) continue;
        size_t len = opt_name_len(a);
        int may = 0;
        for (size_t k = 0; repeatable && repeatable[k] && !may; k++)
            may = strlen(repeatable[k]) == len && !strncmp(repeatable[k], a, len);
        if (may) continue;
        for (int j = 1; j < i; j++)
            if (!strncmp(argv[j], "--", 2) && opt_name_len(argv[j]) == len &&
                !strncmp(argv[j], a, len))
                return a;
    }
    return NULL;
}

int ns_refuse_repeated(const char *cmd, int argc, char **argv, const char *const *repeatable,
                       int quiet) {
    const char *a = ns_repeated_option(argc, argv, repeatable);
    if (!a) return 0;
    if (quiet) return NS_EXIT_USAGE;
    return ns_usage_error(cmd, "%.*s is given more than once: give each option once",
                          (int)opt_name_len(a), a);
}

int ns_bench_help(int argc, char **argv, const char *usage) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break; /* what follows is for another program */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 1;
        }
    }
    return 0;
}

int ns_bench_no_args(const char *cmd, int argc, char **argv) {
    if (argc < 2) return 0;
    return ns_usage_error(cmd, "no options ('%s' given; see --help)", argv[1]);
}
