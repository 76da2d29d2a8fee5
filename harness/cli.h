/* Command-line helpers shared by every subcommand: strict number parsing (the whole string,
 * range-checked, size suffixes) and the one-line usage error that exits 2. */
#ifndef NS_CLI_H
#define NS_CLI_H

#include <stdint.h>

/* Exit statuses of every subcommand. */
enum { NS_EXIT_OK = 0, NS_EXIT_FAIL = 1, NS_EXIT_USAGE = 2, NS_EXIT_INTERRUPTED = 130 };

/* The exit status of a command stopped by signal sig (Ctrl-C: SIGINT, kill: SIGTERM): 128 + sig,
 * as a shell reports it; NS_EXIT_INTERRUPTED (130, SIGINT's) when sig is not a signal number. */
int ns_exit_signal(int sig);

/* Installs the SIGINT/SIGTERM handler of the measuring commands (bench, run): the first signal
 * sets ns_interrupted, and the command stops at the next sample, writes what it measured and
 * exits 130/143; a second one, 0.5 s or more after the first, exits at once with that status
 * (_exit: nothing more is written; a file being replaced keeps its old content, its temporary copy
 * may remain). The second signal is the way out of a wait that never reaches a sample boundary (a
 * peer library's start-up, a hung device). One closer to the first is the same request delivered
 * twice (GNU timeout signals the command, then its process group) and is ignored. */
void ns_install_stop_handler(void);

/* The program as the user invoked it (main's argv[0]), for the command line run.log records;
 * "nodescale" until main sets it. */
extern const char *ns_program;

/* 0 in an MPI rank other than 0 as the launcher exported it before MPI_Init
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID), else 1: a usage error of
 * `mpirun -np N nodescale fleet` is printed once, by rank 0, not N times. */
int ns_env_rank_is_zero(void);

/* Prints "nodescale CMD: error: <message>" as one line on stderr and returns NS_EXIT_USAGE. */
int ns_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a decimal integer in [min, max]. Accepts an optional size suffix: k/M/G/T (x1000^i),
 * KiB/MiB/GiB/TiB (x1024^i), kB/MB/GB/TB (x1000^i). Rejects empty strings, leading blanks,
 * trailing junk, signs where min >= 0, and overflow. Returns 0 on success, -1 otherwise (*out untouched). */
int ns_parse_int64(const char *s, int64_t min, int64_t max, int64_t *out);

/* Parses a finite decimal floating-point number in [min, max]; no suffixes, no hex ("0x10"),
 * no "inf"/"nan", no blanks before or after. 0 or -1. */
int ns_parse_double(const char *s, double min, double max, double *out);

/* Matches "--name=value" or "--name value" at argv[*i]. On a match sets *value (advancing *i
 * past a separate value) and returns 1; returns -1 when the option is present without a value;
 * 0 when argv[*i] is not this option. */
int ns_opt_value(int argc, char **argv, int *i, const char *name, const char **value);

/* An option given twice was silently last-wins (cli_errors.sh). Scans argv[1..argc) up to a bare
 * "--" (what follows is for another program) for an option ("--name" or "--name=value") given
 * a second time; --help/-h and the names in repeatable (NULL-terminated, may be NULL) may
 * repeat. Returns the second occurrence's argv entry, or NULL when none repeats. */
const char *ns_repeated_option(int argc, char **argv, const char *const *repeatable);

/* ns_repeated_option as a usage error: prints "nodescale CMD: error: --name given twice..."
 * and returns NS_EXIT_USAGE when an option repeats (quiet: returns it without printing, for
 * MPI ranks other than 0), 0 otherwise. */
int ns_refuse_repeated(const char *cmd, int argc, char **argv, const char *const *repeatable,
                       int quiet);

/* For the bench/bench_* programs: when an argument is --help or -h, prints usage (its "usage:"
 * line and options) to stdout and returns 1, and the caller exits 0; otherwise returns 0. */
int ns_bench_help(int argc, char **argv, const char *usage);

/* For the bench/bench_* programs without options (after ns_bench_help): any argument is refused
 * as "nodescale CMD: error: no options ('ARG' given; see --help)", returning NS_EXIT_USAGE, so a
 * mistyped option does not start a multi-minute run; 0 when there is none. */
int ns_bench_no_args(const char *cmd, int argc, char **argv);

#endif
