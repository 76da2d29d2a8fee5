/* `mpirun -np N nodescale fleet`: every node of an allocation characterised with the same
 * settings, gathered at rank 0, stragglers named, collectives measured.
 *
 * Protocol (MPI_COMM_WORLD; MPI is initialised here and nowhere else in nodescale):
 *   1. handshake: every rank sends rank 0 its nodescale version, build flags, measurement
 *      settings, host and node-local rank (MPI_Gather). Rank 0 gives each rank a role: measure
 *      (the first --ranks-per-node ranks of each node), idle, or refused (version, build or
 *      settings differ from rank 0's, with the reason) and broadcasts the roles.
 *   2. characterise: each measuring rank runs ns_run_node (what `nodescale run` runs) and sends
 *      its results.json text and log to rank 0 (point to point). Rank 0 polls with a deadline of
 *      --timeout-s from the start of this step and writes each node's results.json and an
 *      updated fleet.json atomically as each arrives, so a later failure loses nothing gathered.
 *      Ranks with nothing by the deadline are reported missing. Rank 0's own characterisation
 *      has the same deadline (its watchdog jumps back and fails node 0). SIGINT/SIGTERM stops
 *      every rank at its next sample (run's stop handler); rank 0 then waits STOP_GRACE_S for
 *      the others, skips the collectives and writes an "interrupted" fleet.
 *   3. collectives: rank 0 tells the ranks that answered and the idle ranks which ranks are
 *      live (both kinds: an all-reduce between ranks of one host is a real measurement of its
 *      shared-memory transport); they form a communicator with MPI_Comm_create_group
 *      (collective over the live ranks only, so a hung rank cannot block it) and sweep
 *      all-reduce, reduce-scatter and all-gather. Refused ranks take no part. Each rank sends
 *      rank 0 its progress (TAG_PROGRESS) before each size; should the sweep outlast
 *      --timeout-s, rank 0's watchdog jumps out of MPI, keeps the sizes that finished and names
 *      the ranks that never reached its size.
 *   4. rank 0 writes fleet.json (stragglers, collectives, α–β fit) and report.md. With ranks
 *      missing it ends the job with MPI_Abort(1), the only way to stop a hung rank; otherwise
 *      MPI_Finalize.
 * Exit status (rank 0): 0; 1 when the status is "incomplete" or failed (ranks missing, refused
 * or failed, a node with failed or invalid results or an interrupted run, the collectives hung),
 * or a straggler was flagged under --fail-on-straggler; 2 for a usage or input error; 130/143 after SIGINT/SIGTERM
 * (every rank stops at its next sample, rank 0 writes what reached it: status "interrupted"). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fleet/collectives.h"
#include "fleet/fleet.h"
#include "fleet/straggler.h"
#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/context.h"
#include "harness/json.h"
#include "harness/measure.h"
#include "harness/outdir.h"
#include "harness/run.h"
#include "harness/strbuf.h"
#include "kernels/registry.h"
#include "reports/compare.h"
#include "roofline/roofline.h"

#ifndef NODESCALE_CFLAGS
#define NODESCALE_CFLAGS ""
#endif
#ifndef NODESCALE_CC
#define NODESCALE_CC ""
#endif

enum { TAG_HEADER = 11, TAG_RESULTS = 12, TAG_LOG = 13, TAG_GO = 14, TAG_PROGRESS = 15 };
enum { ROLE_MEASURE = 0, ROLE_IDLE = 1, ROLE_REFUSED = 2, ROLE_ABORT = 3 };

/* The watchdog's graces, in seconds past --timeout-s (alarm(2)). A measuring rank other than 0
 * exits GATHER_GRACE_S after --timeout-s: rank 0 stops waiting at --timeout-s, so it has
 * written the rank as missing before that exit can make the launcher end the job. */
#define GATHER_GRACE_S 60
/* In the collectives the other ranks fire NONZERO_RANK_GRACE_S after rank 0: their exiting
 * first would get rank 0 killed before it rewrites fleet.json. */
#define NONZERO_RANK_GRACE_S 10
/* Once its watchdog fired in the collectives, rank 0 has REWRITE_GRACE_S to write fleet.json and
 * report.md with what finished; past that the prepared fleet.json is renamed in. */
#define REWRITE_GRACE_S 30
/* After a stop signal (SIGINT, SIGTERM: Ctrl-C, scancel, a batch time limit) rank 0 waits this
 * long for the nodes still characterising, which got the signal too and stop at their next
 * sample; those that do not answer by then are missing. */
#define STOP_GRACE_S 10
#define STRINGIFY(x) #x
#define STRINGIFY_VALUE(x) STRINGIFY(x)

/* A watchdog exit with no prepared fleet.json to rename in: timeout(1)'s status for a command
 * that ran out of time. */
enum { EXIT_TIMED_OUT = 124 };

/* The settings string (options, then the environment that changes what is measured) travels
 * apart from the hello, allocated to its length: a long OMP_PLACES or GOMP_CPU_AFFINITY must not
 * cut off the variables that sort after it. */
typedef struct hello {
    char version[32], build[224], host[256];
    int local_rank, local_size;
    int cpus_allowed, cpus_online; /* CPUs this rank may use, and the node's CPUs (hwloc PUs) */
    long long mem_avail;           /* bytes it may allocate (ns_memory_available), 0: unknown */
    char mem_source[64];           /* what set mem_avail (MemAvailable, ulimit -v, cgroup) */
} hello;

typedef struct fleet_opts {
    int quick, threads, ranks_per_node, fail_on_straggler, collectives;
    double timeout_s;
    const char *out, *kernels, *from_results;
    int64_t max_bytes;
    ns_straggler_opts strag;
} fleet_opts;

static const char *fleet_help =
    "usage: mpirun -np N nodescale fleet [options]     (or: srun nodescale fleet [options])\n"
    "  Characterises every node of the allocation with the same settings (what `nodescale run`\n"
    "  measures), gathers the results at rank 0, names stragglers, measures MPI all-reduce,\n"
    "  reduce-scatter and all-gather, and writes a folder results/<host>-<UTC time>-fleet/ with\n"
    "  fleet.json, nodes/<node>/results.json and report.md.\n"
    "options:\n"
    "  --quick                 the short run on every node; collectives up to 4 MiB\n"
    "  --out DIR               write the folder here instead (refused when it holds another\n"
    "                          run's or fleet's files)\n"
    "  --ranks-per-node N      ranks per node that characterise it (default 1; the others\n"
    "                          idle, then join the collectives)\n"
    "  --threads N             threads per measuring rank (default: OMP_NUM_THREADS, else the\n"
    "                          CPUs the launcher bound it to)\n"
    "  --kernels LIST          only these STREAM/reduction kernels (comma-separated; default\n"
    "                          all; the ceilings, the sweep and GEMM always run)\n"
    "  --timeout-s S           rank 0 waits S seconds for every node's results (default 3600,\n"
    "                          --quick 600); the others are reported missing. S is also the\n"
    "                          watchdog of rank 0's own node and of the collectives sweep (size\n"
    "                          it for both), and a rank other than 0 exits S + 60 s after start\n"
    "  --fail-on-straggler     exit 1 when any node is flagged as a straggler\n"
    "  --straggler-threshold K flag a node when z < -K (default 3.5)\n"
    "  --mad-floor F           the spread is at least F x median (default 0.02)\n"
    "  --max-bytes B           largest collective message (default 256MiB, --quick 4MiB)\n"
    "  --no-collectives        skip the MPI collectives (without it they run over every rank\n"
    "                          not refused, idle ones included, whenever there are 2 or more)\n"
    "  --from-results PATTERN  read each node's results from PATTERN (%r = rank, %h = host)\n"
    "                          instead of measuring: re-analyse a fleet, measure only the network\n"
    "Straggler: z = (rate - fleet median) / max(1.4826*MAD, F*median) per benchmark, >= 3 nodes.\n"
    "busbw (nccl-tests): algbw * 2(n-1)/n for all-reduce, * (n-1)/n for reduce-scatter and\n"
    "all-gather. Open MPI aborts the whole job when a rank dies; add --enable-recovery to mpirun\n"
    "(Slurm: srun --no-kill) so rank 0 can report it missing. Exit: 0 ok; 1 incomplete\n"
    "(missing/refused/failed ranks, failed or invalid results, an interrupted node run, hung\n"
    "collectives) or (with --fail-on-straggler) a straggler; 2 usage error; 130/143 interrupted\n"
    "(SIGINT, SIGTERM: every rank stops at its next sample, rank 0 writes what reached it).\n";

static int parse_opts(int argc, char **argv, fleet_opts *o, int *help) {
    const char *cmd = "fleet", *v;
    memset(o, 0, sizeof *o);
    o->ranks_per_node = 1;
    o->collectives = 1;
    o->timeout_s = NAN;
    o->max_bytes = -1;
    o->strag = ns_straggler_defaults();
    *help = 0;
    int loud = ns_env_rank_is_zero();
#define FAIL(...) return loud ? ns_usage_error(cmd, __VA_ARGS__) : NS_EXIT_USAGE
    if (ns_refuse_repeated(cmd, argc, argv, NULL, !loud)) return NS_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        int m = 0;
        int64_t iv;
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            *help = 1;
            return NS_EXIT_OK;
        } else if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--fail-on-straggler")) {
            o->fail_on_straggler = 1;
        } else if (!strcmp(a, "--no-collectives")) {
            o->collectives = 0;
        } else if ((m = ns_opt_value(argc, argv, &i, "--out", &v)) > 0) {
            char perr[1024];
            if (ns_path_check_name("--out", v, perr, sizeof perr)) FAIL("%s", perr);
            o->out = v;
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--kernels", &v)) > 0) {
            char kerr[512];
            if (!*v) FAIL("--kernels needs a comma-separated list");
            if (ns_run_check_kernels(v, kerr, sizeof kerr)) FAIL("%s", kerr);
            o->kernels = v;
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--from-results", &v)) > 0) {
            if (!*v) FAIL("--from-results needs a file name (or a pattern with %%r, %%h)");
            o->from_results = v;
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--ranks-per-node", &v)) > 0) {
            if (ns_parse_int64(v, 1, 4096, &iv))
                FAIL("--ranks-per-node: '%s' is not in 1..4096", v);
            o->ranks_per_node = (int)iv;
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--threads", &v)) > 0) {
            if (ns_parse_int64(v, 1, NS_MAX_THREADS, &iv))
                FAIL("--threads: '%s' is not in 1..%d", v, NS_MAX_THREADS);
            o->threads = (int)iv;
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--timeout-s", &v)) > 0) {
            if (ns_parse_double(v, 0.1, 7 * 86400.0, &o->timeout_s))
                FAIL("--timeout-s: '%s' is not a number of seconds in [0.1, 604800]", v);
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--straggler-threshold", &v)) > 0) {
            if (ns_parse_double(v, 0.1, 1000.0, &o->strag.threshold))
                FAIL("--straggler-threshold: '%s' is not a number in [0.1, 1000]", v);
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--mad-floor", &v)) > 0) {
            if (ns_parse_double(v, 0.0, 1.0, &o->strag.mad_floor))
                FAIL("--mad-floor: '%s' is not a fraction in [0, 1]", v);
            o->strag.mad_floor += 0.0; /* -0 is 0: printed "0", not "-0" */
        } else if (m == 0 && (m = ns_opt_value(argc, argv, &i, "--max-bytes", &v)) > 0) {
            /* MPI counts are ints: at most 2^31 - 1 floats, so 8 GiB itself is no message size
             * (it was accepted and then skipped without a word). */
            if (ns_parse_int64(v, 8, ((int64_t)1 << 33) - 4, &o->max_bytes))
                FAIL("--max-bytes: '%s' is not a size in 8 B..8 GiB - 4 B (2^31 - 1 floats, "
                     "MPI's int count)",
                     v);
        } else if (m < 0) {
            FAIL("%s needs a value", a);
        } else {
            FAIL("unknown argument '%s' (see --help)", a);
        }
    }
    if (isnan(o->timeout_s)) o->timeout_s = o->quick ? 600 : 3600;
    return NS_EXIT_OK;
#undef FAIL
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The settings every measuring rank must share: anything that changes what is measured. That is
 * the options, and the environment `run` records in context.env (ns_env_recorded: OMP_*,
 * NODESCALE_*, the BLAS libraries'...: NODESCALE_GEMM_KC, NODESCALE_INJECT_SLOWDOWN,
 * OMP_PROC_BIND, ... were accepted on one rank only), sorted by name, less the
 * variables that differ per rank by design (NODESCALE_START_CPUS, the launcher's mask) or are
 * the fault hook. */
static char *settings_string(const fleet_opts *o) {
    extern char **environ;
    /* Unset options by their meaning, not their internal 0 / -1. */
    char threads[24] = "rank-cpus";
    if (o->threads > 0) snprintf(threads, sizeof threads, "%d", o->threads);
    long long max_bytes = o->max_bytes > 0 ? (long long)o->max_bytes
                                           : (long long)ns_coll_defaults(o->quick).max_bytes;
    char head[512];
    snprintf(head, sizeof head,
             "quick=%d threads=%s kernels=%s ranks_per_node=%d collectives=%d max_bytes=%lld "
             "from_results=%s",
             o->quick, threads, o->kernels ? o->kernels : "all", o->ranks_per_node,
             o->collectives, max_bytes, o->from_results ? "yes" : "no");
    size_t nenv = 0;
    for (char **e = environ; *e; e++)
        nenv++;
    const char **vars = malloc((nenv ? nenv : 1) * sizeof *vars);
    size_t nv = 0;
    for (char **e = environ; vars && *e; e++)
        if (ns_env_recorded(*e) && strncmp(*e, "NODESCALE_START_CPUS=", 21) != 0 &&
            strncmp(*e, "NODESCALE_FLEET_FAULT=", 22) != 0)
            vars[nv++] = *e;
    if (vars) qsort(vars, nv, sizeof *vars, cmp_str);
    size_t len = strlen(head) + 1;
    for (size_t i = 0; i < nv; i++)
        len += 1 + strlen(vars[i]);
    char *buf = malloc(len);
    if (!buf) {
        perror("nodescale fleet: settings");
        exit(NS_EXIT_FAIL);
    }
    size_t w = 0;
    ns_appendf(buf, len, &w, "%s", head);
    for (size_t i = 0; i < nv; i++)
        ns_appendf(buf, len, &w, " %s", vars[i]);
    free(vars);
    return buf;
}

/* The length of the setting at p, up to the space before the next "NAME=" (a value such as
 * GOMP_CPU_AFFINITY="0 1 2" holds spaces); 0 at the end. */
static size_t setting_len(const char *p) {
    size_t n = 0;
    while (p[n]) {
        if (p[n] == ' ') {
            size_t k = n + 1;
            while (isalnum((unsigned char)p[k]) || p[k] == '_')
                k++;
            if (k > n + 1 && p[k] == '=') break;
        }
        n++;
    }
    return n;
}

/* The setting after the end of one (p at its end: a space or NUL). */
static const char *setting_next(const char *p) { return *p ? p + 1 : p; }

int ns_fleet_check_peer(const char *v0, const char *b0, const char *s0, const char *v,
                        const char *b, const char *s, char *reason, size_t len) {
    if (strcmp(v0, v) != 0) {
        snprintf(reason, len, "nodescale version %s differs from rank 0's %s", v, v0);
        return -1;
    }
    if (strcmp(b0, b) != 0) {
        snprintf(reason, len, "built with '%s', rank 0 with '%s'", b, b0);
        return -1;
    }
    if (strcmp(s0, s) != 0) {
        /* Name the first differing setting, not the whole string: walk both "key=value" lists
         * (options in a fixed order, then the variables sorted by name); a key on one side only
         * is "unset" on the other. */
        const char *p = s0, *q = s;
        char mine[160] = "", theirs[160] = "";
        for (;;) {
            size_t np = setting_len(p), nq = setting_len(q);
            if (np == nq && !strncmp(p, q, np)) {
                if (!np) break; /* unreachable: the strings differ */
                p = setting_next(p + np), q = setting_next(q + nq);
                continue;
            }
            size_t kp = strcspn(p, "= "), kq = strcspn(q, "= ");
            int cmp = !np ? 1 : !nq ? -1 : strncmp(p, q, kp < kq ? kp : kq);
            if (np && nq && !cmp && kp != kq) cmp = kp < kq ? -1 : 1;
            if (cmp == 0) { /* the same key, different values */
                snprintf(mine, sizeof mine, "%.*s", (int)nq, q);
                snprintf(theirs, sizeof theirs, "%.*s", (int)np, p);
            } else if (cmp < 0) { /* rank 0's key sorts first: this rank lacks it */
                snprintf(mine, sizeof mine, "%.*s unset", (int)kp, p);
                snprintf(theirs, sizeof theirs, "%.*s", (int)np, p);
            } else {
                snprintf(mine, sizeof mine, "%.*s", (int)nq, q);
                snprintf(theirs, sizeof theirs, "%.*s unset", (int)kq, q);
            }
            break;
        }
        snprintf(reason, len, "settings differ: %s here, %s on rank 0", mine, theirs);
        return -1;
    }
    return 0;
}

void ns_fleet_expand_pattern(const char *pat, int rank, const char *host, char *out, size_t len) {
    size_t w = 0;
    for (const char *p = pat; *p && w + 1 < len; p++) {
        if (p[0] == '%' && (p[1] == 'r' || p[1] == 'h' || p[1] == '%')) {
            char tmp[300];
            if (p[1] == 'r')
                snprintf(tmp, sizeof tmp, "%d", rank);
            else
                snprintf(tmp, sizeof tmp, "%s", p[1] == 'h' ? host : "%");
            w += (size_t)snprintf(out + w, len - w, "%s", tmp);
            if (w >= len) w = len - 1;
            p++;
        } else {
            out[w++] = *p;
        }
    }
    out[w] = '\0';
}

/* ---- one node's characterisation (every measuring rank) ---------------------------------- */

/* Test hook (documented in README): NODESCALE_FLEET_FAULT="RANK:die[:SECONDS]" or "RANK:hang"
 * makes that rank exit (status 3) or stop answering once characterisation starts. */
static void maybe_inject_fault(int rank) {
    const char *f = getenv("NODESCALE_FLEET_FAULT");
    int r;
    char what[8] = "";
    double secs = 0;
    if (!f || sscanf(f, "%d:%7[a-z]:%lf", &r, what, &secs) < 2 || r != rank) return;
    if (!strcmp(what, "die")) {
        if (secs > 0) usleep((useconds_t)(secs * 1e6));
        fprintf(stderr, "nodescale fleet: rank %d: NODESCALE_FLEET_FAULT: exiting now\n", rank);
        _exit(3);
    }
    if (!strcmp(what, "hang"))
        for (;;)
            pause();
}

/* NODESCALE_FLEET_FAULT="RANK:hangcoll[:K]": that rank stops answering when the collectives
 * start, or (K >= 1) before the K-th message size of the sweep, the earlier sizes done. */
static void maybe_hang_in_collectives(int rank, int stage) {
    const char *f = getenv("NODESCALE_FLEET_FAULT");
    int r, k = 0;
    char what[10] = "";
    if (f && sscanf(f, "%d:%9[a-z]:%d", &r, what, &k) >= 2 && r == rank &&
        !strcmp(what, "hangcoll") && k == stage)
        for (;;)
            pause();
}

/* The watchdog (SIGALRM): a rank past its deadline says so and exits, so the job can end. On
 * rank 0 during the collectives it first renames a fleet.json prepared in advance (status
 * "incomplete: collectives did not finish") over the current one: rename() is
 * async-signal-safe, and the gathered results stay. */
static const char *alarm_msg =
    "nodescale fleet: no result within --timeout-s (+" STRINGIFY_VALUE(GATHER_GRACE_S)
    " s grace); this rank exits so the job can end\n";
static char alarm_from[4400], alarm_to[4400];

/* Rank 0 in the collectives: the watchdog jumps back to collectives_over() instead, so that rank
 * 0 writes fleet.json and report.md with the sizes that finished and names the ranks that hung
 * (the prepared file above stays the fallback should that itself hang). */
static sigjmp_buf coll_jmp;
static volatile sig_atomic_t coll_jmp_armed;

/* Progress through the collectives: stage 0 = entered them, stage s >= 1 = started the s-th
 * message size. Every rank other than 0 sends rank 0 each stage it reaches (TAG_PROGRESS, fire
 * and forget); rank 0 keeps its finished rows and what each of its stages was. */
enum { COLL_STAGES = 1 + 3 * NS_COLL_MAX_ROWS };
static int coll_rank, coll_stage, coll_stage_msg[COLL_STAGES];
static int coll_stage_op[COLL_STAGES];
static double coll_stage_bytes[COLL_STAGES];
static ns_coll_row coll_rows[3][NS_COLL_MAX_ROWS];
static int coll_nrows[3];

static void send_progress(void) {
    if (coll_rank == 0 || coll_stage >= COLL_STAGES) return;
    MPI_Request req;
    coll_stage_msg[coll_stage] = coll_stage;
    MPI_Isend(&coll_stage_msg[coll_stage], 1, MPI_INT, 0, TAG_PROGRESS, MPI_COMM_WORLD, &req);
    MPI_Request_free(&req);
}

static void coll_progress(void *arg, ns_coll_op op, int row, double bytes, int done) {
    (void)arg;
    if (done) { /* rank 0: rows[op][0..row] are complete */
        coll_nrows[op] = row + 1;
        return;
    }
    if (coll_stage + 1 >= COLL_STAGES) return;
    coll_stage++;
    coll_stage_op[coll_stage] = (int)op;
    coll_stage_bytes[coll_stage] = bytes;
    maybe_hang_in_collectives(coll_rank, coll_stage);
    send_progress();
}

static void stage_name(int stage, char *buf, size_t len) {
    if (stage <= 0)
        snprintf(buf, len, "the start of the collectives");
    else
        snprintf(buf, len, "%s of %.0f B", ns_coll_name((ns_coll_op)coll_stage_op[stage]),
                 coll_stage_bytes[stage]);
}

/* Rank 0 while it characterises its own node: the watchdog jumps back to ns_cmd_fleet, which
 * writes what reached it from the others (a hang there lost every node). */
static sigjmp_buf gather_jmp;
static volatile sig_atomic_t gather_jmp_armed;

/* The thread that armed the watchdog: SIGALRM is sent to the process, and may land on an OpenMP
 * worker of the characterisation, which must not jump to the main thread's context. */
static pthread_t alarm_thread;

static void on_alarm(int sig) {
    if ((gather_jmp_armed || coll_jmp_armed) && !pthread_equal(pthread_self(), alarm_thread)) {
        pthread_kill(alarm_thread, sig); /* to the thread that set the jump */
        return;
    }
    if (gather_jmp_armed) {
        gather_jmp_armed = 0;
        siglongjmp(gather_jmp, 1);
    }
    if (coll_jmp_armed) {
        coll_jmp_armed = 0;
        siglongjmp(coll_jmp, 1);
    }
    int renamed = alarm_from[0] && rename(alarm_from, alarm_to) == 0;
    ssize_t unused = write(2, alarm_msg, strlen(alarm_msg));
    (void)unused;
    _exit(renamed ? NS_EXIT_FAIL : EXIT_TIMED_OUT);
}

/* fopencookie write function: to the memory log (cookie) and to stderr. */
static ssize_t tee_stderr(void *cookie, const char *buf, size_t n) {
    fwrite(buf, 1, n, stderr);
    return (ssize_t)fwrite(buf, 1, n, (FILE *)cookie);
}

/* Produces this node's results.json text (*json) or a reason (*json stays NULL), and its log. */
static void characterise(const fleet_opts *o, int rank, const char *host, char **json,
                         char **reason, char **log) {
    *json = *reason = *log = NULL;
    size_t loglen = 0;
    /* Every node's run.log, rank 0's too (which also goes to the terminal as it is written). */
    FILE *mem = open_memstream(log, &loglen), *lf = mem;
    if (mem && rank == 0) {
        lf = fopencookie(mem, "w", (cookie_io_functions_t){.write = tee_stderr});
        if (lf)
            setvbuf(lf, NULL, _IOLBF, 0);
        else
            lf = mem;
    }
    char err[1024];
    json_t *root = NULL;
    if (o->from_results) {
        char path[4096];
        ns_fleet_expand_pattern(o->from_results, rank, host, path, sizeof path);
        root = ns_json_load_results(path, err, sizeof err);
        /* A fleet or compare report is "nodescale/1" too, but not one node's results: a
         * fleet.json was taken as a node's and its benchmarks as the node's. */
        const char *kind = root ? json_string_value(json_object_get(root, "kind")) : NULL;
        if (root && (kind || json_object_get(root, "kind"))) {
            snprintf(err, sizeof err, "%.900s: a %.40s report, not a node's results.json", path,
                     kind ? kind : "nodescale");
            json_decref(root);
            root = NULL;
        }
        /* What `nodescale bench` writes (one result, no sweep, ceilings or roofline:
         * ns_json_report_kind) is not a characterised node; `cluster --node` refuses it too
         * (it ran as "rank 0: ok", its settings line claiming kernels=all:
         * fleet_report_input.sh). An empty "results" array is said as such. */
        char what[200];
        json_t *res = root ? json_object_get(root, "results") : NULL;
        if (json_is_array(res) && json_array_size(res) == 0) {
            snprintf(err, sizeof err,
                     "%.800s: holds no results (an empty \"results\" array): pass what "
                     "`nodescale run` writes",
                     path);
            json_decref(root);
            root = NULL;
        } else if (root && ns_json_report_kind(root, what, sizeof what) == NS_REPORT_BENCH) {
            snprintf(err, sizeof err,
                     "%.800s: a `nodescale bench` result (one result, no sweep, ceilings or "
                     "roofline), not a node's results.json: pass what `nodescale run` writes",
                     path);
            json_decref(root);
            root = NULL;
        }
        if (!root) *reason = strdup(err);
        /* err starts with the path: named once (fleet_report_input.sh). */
        if (lf && root)
            fprintf(lf, "nodescale fleet --from-results: rank %d read %s\n", rank, path);
        else if (lf)
            fprintf(lf, "nodescale fleet --from-results: rank %d: %s\n", rank, err);
    } else {
        /* --threads absent (0): the CPUs the launcher bound this rank to, as `run` does. */
        int64_t threads = o->threads;
        int cpus = ns_topology_get()->cpus_in_start_mask; /* as run: the mask, not the places */
        if (threads < 1 && ns_default_threads(&threads, err, sizeof err) != 0) {
            *reason = strdup(err);
        } else if (cpus > 0 && threads > cpus) {
            snprintf(err, sizeof err,
                     "--threads %lld is more than the %d CPUs of this rank's affinity mask",
                     (long long)threads, cpus);
            *reason = strdup(err);
        } else {
            ns_run_opts ro = {.quick = o->quick,
                              .threads = (int)threads,
                              .kernels = o->kernels,
                              .log = lf ? lf : stderr};
            root = ns_run_node(&ro);
            if (!root) *reason = strdup("ns_run_node failed (out of memory)");
            /* The roof of every result (GEMM fraction_of_roof, what `cluster --node` reads), as
             * `run` adds after ns_run_node. */
            if (root && ns_roofline_build(root, err, sizeof err) != 0 && lf)
                fprintf(lf, "roofline: %s\n", err);
        }
    }
    if (root) {
        *json = json_dumps(root, JSON_COMPACT);
        if (!*json) *reason = strdup("could not serialise results (non-finite number?)");
        json_decref(root);
    }
    if (lf && lf != mem) fclose(lf);
    if (mem) fclose(mem);
}

/* ---- rank 0's bookkeeping -------------------------------------------------------------------- */

typedef struct node {
    int rank, role;
    char host[256], name[300], status[16], reason[512], warning[1024];
    char coll_note[320]; /* why the collectives hung on this rank, when they did */
    int cpus_allowed, cpus_online;
    int interrupted; /* its results.json says "interrupted": true */
    json_t *results; /* owned, when status is "ok" */
    json_t *bad;     /* owned: [{id, status}] of its results that failed or failed their check */
    int threads;     /* its results' thread count (context.threads), 0 when unknown */
} node;

typedef struct fleet {
    fleet_opts o;
    int size;
    node *nodes;
    char *settings; /* owned: rank 0's settings string */
    char dir[4096], mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    char date[32], status_buf[256];
    const char *status;
    json_t *collectives, *allreduce, *benchmarks, *stragglers;
    json_t *warnings; /* owned: fleet-wide warnings (strings), or NULL */
    int flagged_nodes;
} fleet;

/* Appends a warning to the node's ("; " between two). */
static void add_warning(node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warning(node *n, const char *fmt, ...) {
    size_t len = strlen(n->warning);
    if (len && len + 2 < sizeof n->warning)
        len += (size_t)snprintf(n->warning + len, sizeof n->warning - len, "; ");
    va_list ap;
    va_start(ap, fmt);
    if (len < sizeof n->warning) vsnprintf(n->warning + len, sizeof n->warning - len, fmt, ap);
    va_end(ap);
}

static void node_dir(const fleet *f, const node *n, char *buf, size_t len) {
    if (snprintf(buf, len, "%s/nodes/%s", f->dir, n->name) >= (int)len) buf[0] = '\0';
}

static json_t *fleet_json(const fleet *f) {
    json_t *root = json_object(), *ctx = json_object(), *mpi = json_object(), *nodes = json_array();
    json_object_set_new(root, "schema", json_string(NS_SCHEMA));
    json_object_set_new(root, "kind", json_string("fleet"));
    ns_json_set_str(root, "status", f->status);
    ns_json_set_str(ctx, "host", f->nodes[0].host);
    ns_json_set_str(ctx, "date", f->date);
    ns_json_set_str(ctx, "nodescale_version", NODESCALE_VERSION);
    ns_json_set_str(ctx, "settings", f->settings);
    ns_json_set_str(mpi, "library_version", f->mpi_version);
    ns_json_set_int(mpi, "world_size", f->size);
    ns_json_set_int(mpi, "ranks_per_node", f->o.ranks_per_node);
    ns_json_set_num(mpi, "timeout_s", f->o.timeout_s, NULL);
    json_object_set_new(ctx, "mpi", mpi);
    json_object_set_new(root, "context", ctx);
    int counts[5] = {0}; /* ok, missing, refused, failed, idle */
    for (int r = 0; r < f->size; r++) {
        const node *n = &f->nodes[r];
        json_t *o = json_object();
        ns_json_set_str(o, "name", n->name);
        /* --from-results: the host that measured the data (its context.host, as in
         * stragglers.flagged), and the rank's own as mpi_host. */
        const char *rhost =
            json_string_value(json_object_get(json_object_get(n->results, "context"), "host"));
        if (f->o.from_results && rhost && *rhost) {
            ns_json_set_str(o, "host", rhost);
            ns_json_set_str(o, "mpi_host", n->host);
        } else {
            ns_json_set_str(o, "host", n->host);
        }
        ns_json_set_int(o, "rank", n->rank);
        ns_json_set_str(o, "status", n->status);
        if (n->interrupted) json_object_set_new(o, "interrupted", json_true());
        ns_json_set_int(o, "cpus_allowed", n->cpus_allowed);
        ns_json_set_int(o, "cpus_online", n->cpus_online);
        /* --from-results: the CPUs the data were measured on (context.cpu.cpus_in_affinity_mask,
         * null when not recorded); cpus_allowed is the live rank's binding on mpi_host. */
        if (f->o.from_results) {
            json_t *mask = json_object_get(
                json_object_get(json_object_get(n->results, "context"), "cpu"),
                "cpus_in_affinity_mask");
            json_object_set_new(o, "cpus_recorded",
                                json_is_integer(mask) ? json_integer(json_integer_value(mask))
                                                      : json_null());
        }
        if (*n->warning) ns_json_set_str(o, "warning", n->warning);
        if (*n->reason) ns_json_set_str(o, "reason", n->reason);
        if (*n->coll_note) ns_json_set_str(o, "collectives", n->coll_note);
        if (n->results && n->bad) json_object_set(o, "failed_benchmarks", n->bad);
        if (n->results) {
            char rel[400];
            snprintf(rel, sizeof rel, "nodes/%s/results.json", n->name);
            ns_json_set_str(o, "results", rel);
            json_t *cpu = json_object_get(json_object_get(n->results, "context"), "cpu");
            json_t *model = json_object_get(cpu, "model");
            if (json_is_string(model)) json_object_set(o, "cpu_model", model);
        }
        json_array_append_new(nodes, o);
        static const char *const names[] = {"ok", "missing", "refused", "failed", "idle"};
        for (int k = 0; k < 5; k++)
            counts[k] += !strcmp(n->status, names[k]);
    }
    json_object_set_new(root, "nodes", nodes);
    json_t *cnt = json_object();
    ns_json_set_int(cnt, "ok", counts[0]);
    ns_json_set_int(cnt, "missing", counts[1]);
    ns_json_set_int(cnt, "refused", counts[2]);
    ns_json_set_int(cnt, "failed", counts[3]);
    ns_json_set_int(cnt, "idle", counts[4]);
    json_object_set_new(root, "node_counts", cnt);
    if (f->warnings) json_object_set(root, "warnings", f->warnings);
    if (f->stragglers) json_object_set(root, "stragglers", f->stragglers);
    if (f->benchmarks) json_object_set(root, "benchmarks", f->benchmarks);
    if (f->collectives) json_object_set(root, "collectives", f->collectives);
    if (f->allreduce) json_object_set(root, "allreduce", f->allreduce);
    return root;
}

/* Rewrites fleet.json (atomically). A failure is reported, not fatal: results already written
 * per node stay. */
static void save_fleet(const fleet *f) {
    char path[4200], err[1024];
    json_t *root = fleet_json(f);
    snprintf(path, sizeof path, "%s/fleet.json", f->dir);
    if (ns_json_write_atomic(root, path, err, sizeof err))
        fprintf(stderr, "nodescale fleet: error: %s\n", err);
    json_decref(root);
}

static void accept_results(fleet *f, node *n, const char *text, const char *log) {
    char err[1024], dir[4400], path[4500];
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    const char *schema = root ? json_string_value(json_object_get(root, "schema")) : NULL;
    if (!root || !schema || strcmp(schema, NS_SCHEMA) != 0) {
        snprintf(n->status, sizeof n->status, "failed");
        snprintf(n->reason, sizeof n->reason, "its results are not a nodescale/1 document%s%s",
                 root ? "" : ": ", root ? "" : je.text);
        json_decref(root);
        return;
    }
    node_dir(f, n, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/results.json", dir);
    if (ns_outdir_mkdir_p(dir) || ns_json_write_atomic(root, path, err, sizeof err)) {
        snprintf(n->status, sizeof n->status, "failed");
        snprintf(n->reason, sizeof n->reason, "rank 0 could not write %.400s", path);
        json_decref(root);
        return;
    }
    n->results = root;
    snprintf(n->status, sizeof n->status, "ok");
    json_t *ctx = json_object_get(root, "context");
    json_t *th = json_object_get(ctx, "threads");
    if (!json_is_integer(th)) /* older files: the first result's */
        th = json_object_get(json_array_get(json_object_get(root, "results"), 0), "threads");
    n->threads = json_is_integer(th) ? (int)json_integer_value(th) : 0;
    /* An interrupted run holds only the benchmarks that finished (it passed as a plain "ok"
     * node of a "complete" fleet: interrupted_inputs.sh). */
    if (json_is_true(json_object_get(root, "interrupted"))) {
        n->interrupted = 1;
        add_warning(n, "its run was interrupted (\"interrupted\": true): it holds only the "
                       "benchmarks that finished");
        fprintf(stderr,
                "nodescale fleet: warning: rank %d (%s): its run was interrupted: it holds only "
                "the benchmarks that finished\n",
                n->rank, n->name);
    }
    /* Results that failed or failed their output check: the straggler test cannot see them (it
     * takes rates), so they are named here and count against the node. */
    size_t i;
    json_t *e;
    char list[600] = "";
    size_t llen = 0;
    json_array_foreach(json_object_get(root, "results"), i, e) {
        const char *id = json_string_value(json_object_get(e, "id"));
        const char *st = json_string_value(json_object_get(e, "status"));
        int failed_status = st && strcmp(st, "ok") != 0;
        if (!failed_status && !json_is_false(json_object_get(e, "validated"))) continue;
        if (n->interrupted && failed_status && strstr(st, "interrupted")) continue;
        if (!n->bad) n->bad = json_array();
        json_t *b = json_object();
        ns_json_set_str(b, "id", id ? id : "?");
        ns_json_set_str(b, "status", failed_status ? st : "validated: false");
        json_array_append_new(n->bad, b);
        if (llen < sizeof list)
            llen += (size_t)snprintf(list + llen, sizeof list - llen, "%s%.120s (%.80s)",
                                     llen ? ", " : "", id ? id : "?",
                                     failed_status ? st : "validated: false");
    }
    if (n->bad) {
        size_t nb = json_array_size(n->bad);
        add_warning(n, "%zu benchmark%s failed or invalid: %s", nb, nb == 1 ? "" : "s", list);
        fprintf(stderr,
                "nodescale fleet: warning: rank %d (%s): %zu benchmark%s failed or "
                "invalid: %s\n",
                n->rank, n->name, nb, nb == 1 ? "" : "s", list);
    }
    /* A slowdown injected on purpose (the test hook) is not a real straggler. */
    const char *inj = json_string_value(
        json_object_get(json_object_get(ctx, "env"), "NODESCALE_INJECT_SLOWDOWN"));
    if (inj && *inj) {
        add_warning(n, "recorded with NODESCALE_INJECT_SLOWDOWN=%.100s: deliberately injected work",
                    inj);
        fprintf(stderr,
                "nodescale fleet: warning: rank %d (%s): recorded with "
                "NODESCALE_INJECT_SLOWDOWN=%.100s: deliberately injected work\n",
                n->rank, n->name, inj);
    }
}

/* Prints a node's outcome ("rank R (NAME): STATUS: reason") and writes its folder's run.log:
 * the rank's log (may be NULL) and that line, whatever the status, so a node that failed or
 * went missing has its reason beside the others' (fleet.sh, fleet_faults.sh). */
static void report_node(const fleet *f, const node *n, const char *log) {
    char line[1200], dir[4400], path[4500], err[1024];
    snprintf(line, sizeof line, "nodescale fleet: rank %d (%s): %s%s%s\n", n->rank, n->name,
             n->status, *n->reason ? ": " : "", n->reason);
    fputs(line, stderr);
    node_dir(f, n, dir, sizeof dir);
    size_t llen = log ? strlen(log) : 0;
    char *text = malloc(llen + strlen(line) + 1);
    if (!text || !*dir) {
        free(text);
        return;
    }
    memcpy(text, log ? log : "", llen);
    strcpy(text + llen, line);
    snprintf(path, sizeof path, "%s/run.log", dir);
    if (ns_outdir_mkdir_p(dir) || ns_write_text_atomic(path, text, err, sizeof err))
        fprintf(stderr, "nodescale fleet: warning: cannot write %s\n", path);
    free(text);
}

static void receive_one(fleet *f, int src) {
    long long hdr[3]; /* results length (0: failed), log length, reason length */
    MPI_Recv(hdr, 3, MPI_LONG_LONG, src, TAG_HEADER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long long blen = hdr[0] > 0 ? hdr[0] : hdr[2];
    char *body = malloc((size_t)blen + 1), *log = malloc((size_t)hdr[1] + 1);
    if (!body || !log) {
        fprintf(stderr, "nodescale fleet: out of memory receiving rank %d\n", src);
        MPI_Abort(MPI_COMM_WORLD, NS_EXIT_USAGE);
    }
    MPI_Recv(body, (int)blen, MPI_CHAR, src, TAG_RESULTS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(log, (int)hdr[1], MPI_CHAR, src, TAG_LOG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    body[blen] = log[hdr[1]] = '\0';
    node *n = &f->nodes[src];
    if (hdr[0] > 0) {
        accept_results(f, n, body, log);
    } else {
        snprintf(n->status, sizeof n->status, "failed");
        snprintf(n->reason, sizeof n->reason, "%s", body);
    }
    report_node(f, n, log);
    free(body);
    free(log);
}

static void send_results(const char *json, const char *reason, const char *log) {
    const char *body = json ? json : reason ? reason : "unknown failure";
    size_t blen = strlen(body), llen = log ? strlen(log) : 0;
    if (blen > INT_MAX || llen > INT_MAX) { /* MPI counts are int */
        body = "results larger than 2 GiB; not sent";
        json = NULL;
        blen = strlen(body);
        llen = 0;
    }
    long long hdr[3] = {json ? (long long)blen : 0, (long long)llen, json ? 0 : (long long)blen};
    MPI_Send(hdr, 3, MPI_LONG_LONG, 0, TAG_HEADER, MPI_COMM_WORLD);
    MPI_Send(body, (int)blen, MPI_CHAR, 0, TAG_RESULTS, MPI_COMM_WORLD);
    MPI_Send(log ? log : "", (int)llen, MPI_CHAR, 0, TAG_LOG, MPI_COMM_WORLD);
}

/* Rank 0, --from-results: a node whose results are an earlier rank's document (a pattern
 * without %r or %h, copied files) is refused with the reason: one node's data counted twice would
 * pass as a fleet with MAD 0. Different documents with the same context.host and context.date
 * are warned about, not refused: ranks that split one node (--ranks-per-node > 1) record those
 * too. Measured ranks are not checked. */
static void refuse_duplicates(fleet *f) {
    for (int r = 1; f->o.from_results && r < f->size; r++) {
        node *n = &f->nodes[r];
        if (!n->results) continue;
        json_t *ctx = json_object_get(n->results, "context");
        const char *h = json_string_value(json_object_get(ctx, "host"));
        const char *d = json_string_value(json_object_get(ctx, "date"));
        for (int k = 0; k < r; k++) {
            const node *e = &f->nodes[k];
            if (!e->results) continue;
            json_t *ectx = json_object_get(e->results, "context");
            const char *eh = json_string_value(json_object_get(ectx, "host"));
            const char *ed = json_string_value(json_object_get(ectx, "date"));
            int same_run = h && d && eh && ed && *h && *d && !strcmp(h, eh) && !strcmp(d, ed);
            if (!json_equal(n->results, e->results)) {
                if (!same_run) continue;
                add_warning(n,
                            "recorded on the same context.host %.150s and context.date %.60s "
                            "as rank %d (%.100s): the same node?",
                            h, d, k, e->name);
                fprintf(stderr, "nodescale fleet: warning: rank %d (%s): %s\n", r, n->name,
                        n->warning);
                break;
            }
            snprintf(n->status, sizeof n->status, "refused");
            snprintf(n->reason, sizeof n->reason,
                     "its results are rank %d's (%.100s): the same document (context.host "
                     "%.150s, context.date %.60s)",
                     k, e->name, h ? h : "unknown", d ? d : "unknown");
            fprintf(stderr, "nodescale fleet: rank %d (%s) refused: %s\n", r, n->name, n->reason);
            json_decref(n->results);
            n->results = NULL;
            json_decref(n->bad);
            n->bad = NULL;
            n->interrupted = 0;
            *n->warning = '\0';
            char dir[4400], path[4500];
            node_dir(f, n, dir, sizeof dir);
            snprintf(path, sizeof path, "%s/results.json", dir);
            unlink(path); /* its copy: not a node's results */
            break;
        }
    }
}

/* The flagged entry of stragglers.flagged for node n, created (and counted) when absent. */
static json_t *flagged_entry(fleet *f, const node *n) {
    json_t *arr = json_object_get(f->stragglers, "flagged"), *e;
    size_t i;
    json_array_foreach(arr, i, e) {
        if (!strcmp(json_string_value(json_object_get(e, "name")), n->name)) return e;
    }
    e = json_object();
    ns_json_set_str(e, "name", n->name);
    ns_json_set_str(e, "host", n->host);
    json_object_set_new(e, "benchmarks", json_array());
    json_array_append_new(arr, e);
    f->flagged_nodes++;
    ns_json_set_int(f->stragglers, "flagged_nodes", f->flagged_nodes);
    return e;
}

/* Straggler analysis over the nodes with results. A node none of whose results can be compared
 * becomes "failed"; one with failed or invalid results is flagged on each of them. Rates are
 * compared only between nodes that ran the same thread count (the ids keep "/t<N>"): a node's
 * configuration is no straggler. With mixed counts the nodes are named in a warning, and a
 * benchmark fewer than 3 nodes ran at its count is "not tested (different thread counts)". */
static void analyse(fleet *f) {
    ns_bench_set *sets = calloc((size_t)f->size, sizeof *sets);
    node **of = calloc((size_t)f->size, sizeof *of);
    int ns = 0;
    char err[512];
    for (int r = 0; sets && of && r < f->size; r++) {
        node *n = &f->nodes[r];
        if (!n->results) continue;
        if (ns_bench_set_from_json(n->results, n->name, &sets[ns], err, sizeof err) == 0) {
            of[ns++] = n;
            continue;
        }
        /* err starts with the node's name */
        fprintf(stderr, "nodescale fleet: rank %d (%s): failed: %s\n", n->rank, n->name,
                strncmp(err, n->name, strlen(n->name)) ? err : err + strlen(n->name) + 2);
        snprintf(n->status, sizeof n->status, "failed");
        snprintf(n->reason, sizeof n->reason, "%s", err);
        json_decref(n->results);
        n->results = NULL;
    }
    /* Thread counts: the most common one, and every node that differs from it. */
    int common = 0, best = 0, mixed = 0;
    for (int i = 0; i < ns; i++) {
        int c = 0;
        for (int k = 0; k < ns; k++)
            c += of[k]->threads == of[i]->threads;
        if (c > best) best = c, common = of[i]->threads;
        mixed |= of[i]->threads != of[0]->threads;
    }
    if (mixed) {
        char list[800] = "";
        size_t len = 0;
        for (int i = 0; i < ns; i++) {
            if (of[i]->threads != common) {
                if (len < sizeof list)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s (%d)",
                                            len ? ", " : "", of[i]->name, of[i]->threads);
                add_warning(of[i],
                            "ran %d threads where most nodes ran %d: its rates are not "
                            "compared with theirs",
                            of[i]->threads, common);
            }
        }
        char w[1100];
        snprintf(w, sizeof w,
                 "the nodes ran different thread counts (most %d; %s): rates are compared only "
                 "between nodes of the same count; a benchmark fewer than 3 nodes ran at its "
                 "count is not tested (different thread counts)",
                 common, list);
        fprintf(stderr, "nodescale fleet: warning: %s\n", w);
        if (!f->warnings) f->warnings = json_array();
        json_array_append_new(f->warnings, json_string(w));
    }
    ns_straggler_result sr;
    if (sets && ns_straggler_analyse(sets, (size_t)ns, &f->o.strag, &sr) == 0) {
        for (size_t b = 0; mixed && b < sr.nbench; b++)
            if (!sr.b[b].tested) sr.b[b].untested = "not tested (different thread counts)";
        f->benchmarks = ns_straggler_benchmarks_json(&sr, sets);
        f->stragglers = ns_straggler_summary_json(&sr, sets, &f->o.strag);
        f->flagged_nodes = sr.flagged_nodes;
        ns_straggler_free(&sr);
    }
    /* Failed or invalid results count against their node: flagged on each, and named in the
     * benchmark's row ("failed": {node: status}). */
    for (int i = 0; f->stragglers && i < ns; i++) {
        size_t k, j;
        json_t *b, *row;
        json_array_foreach(of[i]->bad, k, b) {
            json_t *fe = flagged_entry(f, of[i]);
            json_array_append(json_object_get(fe, "benchmarks"), b);
            json_array_foreach(f->benchmarks, j, row) {
                if (strcmp(json_string_value(json_object_get(b, "id")),
                           json_string_value(json_object_get(row, "id"))) != 0)
                    continue;
                json_t *fo = json_object_get(row, "failed");
                if (!fo) json_object_set_new(row, "failed", fo = json_object());
                json_object_set(fo, of[i]->name, json_object_get(b, "status"));
            }
        }
    }
    for (int i = 0; i < ns; i++)
        ns_bench_set_free(&sets[i]);
    free(sets);
    free(of);
}

/* Every live measuring rank (comm = the live ranks) runs the three sweeps. */
static void run_collectives(MPI_Comm comm, const fleet_opts *o, fleet *f) {
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    ns_coll_opts co = ns_coll_defaults(o->quick);
    if (o->max_bytes > 0) co.max_bytes = (size_t)o->max_bytes;
    co.progress = coll_progress;
    ns_coll_row(*rows)[NS_COLL_MAX_ROWS] = coll_rows;
    int *nrows = coll_nrows;
    for (int op = 0; op < 3; op++) {
        if (rank == 0) { /* this operation's own sizes (a multiple of n for two of them) */
            double lo, hi;
            char a[32], b[32];
            ns_coll_size_range((ns_coll_op)op, &co, n, &lo, &hi);
            ns_format_bytes(a, sizeof a, lo);
            ns_format_bytes(b, sizeof b, hi);
            fprintf(stderr, "nodescale fleet: %s over %d ranks, %s to %s\n",
                    ns_coll_name((ns_coll_op)op), n, a, b);
        }
        nrows[op] = ns_coll_sweep(comm, (ns_coll_op)op, &co, rows[op], NS_COLL_MAX_ROWS);
        if (nrows[op] < 0) {
            if (rank == 0)
                fprintf(stderr, "nodescale fleet: %s: buffers of %zu B could not be allocated\n",
                        ns_coll_name((ns_coll_op)op), co.max_bytes);
            nrows[op] = 0;
        }
    }
    if (rank != 0 || !f) return;
    const ns_coll_row *const rp[3] = {rows[0], rows[1], rows[2]};
    f->collectives = ns_coll_json(n, rp, nrows);
    f->allreduce = ns_coll_allreduce_fit_json(n, rows[0], nrows[0]);
}

/* Rank 0 after the collectives timed out: the sizes that finished, and the live ranks that did
 * not reach the stage rank 0 was in (from their TAG_PROGRESS messages, read for up to 1 s). */
static void collectives_timed_out(const int *live, int nlive, fleet *f) {
    int *last = malloc((size_t)f->size * sizeof *last), behind = 0;
    char where[96], theirs[128];
    for (int r = 0; last && r < f->size; r++)
        last[r] = -1;
    for (double t0 = MPI_Wtime(); last && MPI_Wtime() - t0 < 1.0;) {
        int flag, v;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            usleep(1000);
            continue;
        }
        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, TAG_PROGRESS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (v > last[st.MPI_SOURCE]) last[st.MPI_SOURCE] = v;
    }
    const ns_coll_row *const rp[3] = {coll_rows[0], coll_rows[1], coll_rows[2]};
    f->collectives = ns_coll_json(nlive, rp, coll_nrows);
    f->allreduce = ns_coll_allreduce_fit_json(nlive, coll_rows[0], coll_nrows[0]);
    json_t *hung = json_array();
    for (int i = 1; last && i < nlive; i++) {
        node *n = &f->nodes[live[i]];
        if (last[live[i]] >= coll_stage) continue;
        behind++;
        if (last[live[i]] < 0)
            snprintf(theirs, sizeof theirs, "did not reach the collectives");
        else {
            stage_name(last[live[i]], where, sizeof where);
            snprintf(theirs, sizeof theirs, "last started %s", where);
        }
        stage_name(coll_stage, where, sizeof where);
        snprintf(n->coll_note, sizeof n->coll_note,
                 "hung in the collectives: rank 0 waited at %s; this rank %s", where, theirs);
        json_t *h = json_object();
        ns_json_set_int(h, "rank", live[i]);
        ns_json_set_str(h, "name", n->name);
        ns_json_set_str(h, "host", n->host);
        ns_json_set_str(h, "reason", n->coll_note);
        json_array_append_new(hung, h);
        fprintf(stderr, "nodescale fleet: rank %d (%s) %s\n", live[i], n->name, n->coll_note);
    }
    char status[400];
    stage_name(coll_stage, where, sizeof where);
    snprintf(status, sizeof status,
             "incomplete: did not finish within --timeout-s %g s; rank 0 waited at %s; %s",
             f->o.timeout_s, where,
             behind ? "the ranks in hung_ranks did not reach it"
                    : "every rank reached it (the operation itself hung: the network?)");
    ns_json_set_str(f->collectives, "status", status);
    json_object_set_new(f->collectives, "hung_ranks", hung);
    ns_json_set_str(f->allreduce, "status",
                    "the collectives did not finish: fit over the "
                    "all-reduce sizes that did");
    free(last);
}

/* The live ranks form their own communicator: MPI_Comm_create_group is collective over the group
 * only, so a missing rank cannot block it (MPI_Comm_split would wait for every rank). Returns 1
 * on rank 0 when the collectives timed out (f then holds what finished), else 0. */
static int collectives_over(const int *live, int nlive, const fleet_opts *o, fleet *f) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    alarm_msg = "nodescale fleet: the MPI collectives did not finish within --timeout-s; this "
                "rank exits (fleet.json keeps the node results)\n";
    coll_rank = rank;
    coll_stage = 0;
    coll_nrows[0] = coll_nrows[1] = coll_nrows[2] = 0;
    if (rank == 0 && f) {
        if (sigsetjmp(coll_jmp, 1)) {
            /* the watchdog fired: MPI may be mid-operation; only point-to-point reads follow */
            fprintf(stderr,
                    "nodescale fleet: the MPI collectives did not finish within "
                    "--timeout-s %g s; writing what finished\n",
                    o->timeout_s);
            /* should this hang too, the prepared fleet.json is renamed in */
            alarm(REWRITE_GRACE_S);
            collectives_timed_out(live, nlive, f);
            return 1;
        }
    }
    signal(SIGALRM, on_alarm);
    coll_jmp_armed = rank == 0 && f;
    /* Rank 0 fires first: the others exiting first would get it killed before it rewrites. */
    alarm((unsigned)ceil(o->timeout_s) + (rank == 0 ? 0 : NONZERO_RANK_GRACE_S));
    maybe_hang_in_collectives(rank, 0);
    send_progress();
    MPI_Group world, g;
    MPI_Comm comm;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, nlive, live, &g);
    MPI_Comm_create_group(MPI_COMM_WORLD, g, TAG_GO, &comm);
    run_collectives(comm, o, f);
    coll_jmp_armed = 0;
    alarm(0);
    MPI_Comm_free(&comm);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    /* Rank 0 reads every live rank's progress messages (all sent before the last collective). */
    for (int i = 1; rank == 0 && i < nlive; i++)
        for (int k = 0; k <= coll_stage; k++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, live[i], TAG_PROGRESS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    return 0;
}

/* ---- the command --------------------------------------------------------------------------- */

/* The fleet's folder, its own: --out DIR when it holds no other run's or fleet's files (it is
 * created with its parents), else a new results/<host>-<time>-fleet (suffixed when another
 * fleet made that name in the same second). */
static int make_dir(fleet *f) {
    size_t created;
    if (f->o.out) {
        snprintf(f->dir, sizeof f->dir, "%s", f->o.out);
        char below[4500];
        const char *old = ns_outdir_foreign(f->dir, NULL);
        /* its subfolders too: --out FLEET/nodes mixed two fleets' nodes */
        if (!old && ns_outdir_foreign_below(f->dir, below, sizeof below)) {
            ns_usage_error("fleet",
                           "--out '%s' is part of another fleet or holds another run's folder "
                           "(%s); choose a new folder",
                           f->dir, below);
            return -1;
        }
        if (old) {
            ns_usage_error("fleet",
                           "--out '%s' already holds %s of another run or fleet; choose a "
                           "new folder or remove that one",
                           f->dir, old);
            return -1;
        }
    } else {
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
        snprintf(f->dir, sizeof f->dir, "results/%s-%s-fleet", f->nodes[0].host, stamp);
        if (ns_outdir_make_new(f->dir, sizeof f->dir, &created)) {
            ns_usage_error("fleet", "cannot create %s: %s", f->dir, strerror(errno));
            return -1;
        }
    }
    char nodes[4200];
    snprintf(nodes, sizeof nodes, "%s/nodes", f->dir);
    if (ns_outdir_mkdir_p(f->dir) || ns_outdir_mkdir_p(nodes)) {
        ns_usage_error("fleet", "cannot create %s: %s", f->dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* Rank 0: roles and node names from the handshake. */
static void assign_roles(fleet *f, const hello *all, char *const *settings, int *roles) {
    const hello *h0 = &all[0];
    for (int r = 0; r < f->size; r++) {
        node *n = &f->nodes[r];
        n->rank = r;
        snprintf(n->host, sizeof n->host, "%s", all[r].host);
        n->cpus_allowed = all[r].cpus_allowed;
        n->cpus_online = all[r].cpus_online;
        char reason[512];
        if (ns_fleet_check_peer(h0->version, h0->build, settings[0], all[r].version, all[r].build,
                                settings[r], reason, sizeof reason)) {
            roles[r] = ROLE_REFUSED;
            snprintf(n->status, sizeof n->status, "refused");
            snprintf(n->reason, sizeof n->reason, "%s", reason);
        } else if (all[r].local_rank >= f->o.ranks_per_node) {
            roles[r] = ROLE_IDLE;
            snprintf(n->status, sizeof n->status, "idle");
            snprintf(n->reason, sizeof n->reason, "node-local rank %d >= --ranks-per-node %d",
                     all[r].local_rank, f->o.ranks_per_node);
        } else {
            roles[r] = ROLE_MEASURE;
            snprintf(n->status, sizeof n->status, "pending");
            /* mpirun binds each rank to one core by default when -np <= 2 (to a socket above):
             * a rank meant to own its node would then measure one core. --from-results
             * measures nothing on the node: no warning (fleet.sh). */
            if (!f->o.from_results && f->o.ranks_per_node == 1 &&
                all[r].cpus_allowed < all[r].cpus_online)
                snprintf(n->warning, sizeof n->warning,
                         "the launcher bound this rank to %d of the node's %d CPUs: its "
                         "measurements use only those (mpirun: add --bind-to none)",
                         all[r].cpus_allowed, all[r].cpus_online);
        }
    }
    /* A node's name is its host, or host-r<rank> when several ranks measure the same host. */
    for (int r = 0; r < f->size; r++) {
        int same = 0;
        for (int q = 0; q < f->size; q++)
            same += roles[q] == ROLE_MEASURE && !strcmp(all[q].host, all[r].host);
        if (same > 1 || roles[r] != ROLE_MEASURE)
            snprintf(f->nodes[r].name, sizeof f->nodes[r].name, "%s-r%d", all[r].host, r);
        else
            snprintf(f->nodes[r].name, sizeof f->nodes[r].name, "%s", all[r].host);
    }
}

/* A rank other than 0 waits for rank 0's list of live ranks (TAG_GO) and, when it is on it and
 * the list has 2 or more, runs the collectives with them. It may wait while other ranks still
 * characterise their nodes, so it polls (MPI_Test, 2 ms sleeps) rather than blocking: a blocking
 * receive spins on a CPU the measuring rank of its host may use. Returns NS_EXIT_OK. */
static int join_collectives(const fleet_opts *o, int rank) {
    int nlive = 0;
    MPI_Request req;
    MPI_Irecv(&nlive, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, &req);
    for (int done = 0; !done;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) usleep(2000);
    }
    int *live = malloc((size_t)(nlive > 0 ? nlive : 1) * sizeof *live);
    MPI_Recv(live, nlive, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int in = 0;
    for (int i = 0; i < nlive; i++)
        in |= live[i] == rank;
    if (in && nlive >= 2 && o->collectives) collectives_over(live, nlive, o, NULL);
    free(live);
    return ns_interrupted ? ns_exit_signal(ns_interrupted) : NS_EXIT_OK;
}

static void print_summary(const fleet *f) {
    int ok = 0;
    for (int r = 0; r < f->size; r++)
        ok += !strcmp(f->nodes[r].status, "ok");
    printf("nodescale fleet: %d of %d ranks characterised; %d straggler node(s); status %s\n", ok,
           f->size, f->flagged_nodes, f->status);
    char fit[1024];
    if (ns_fleet_fit_line(f->allreduce, fit, sizeof fit) == 0) printf("%s\n", fit);
    printf("report: %s/report.md\n", f->dir);
}

static void write_report(const fleet *f) {
    char path[4200], err[1024];
    json_t *root = fleet_json(f);
    char *md = ns_fleet_report_md(root);
    snprintf(path, sizeof path, "%s/report.md", f->dir);
    if (!md || ns_write_text_atomic(path, md, err, sizeof err))
        fprintf(stderr, "nodescale fleet: error: %s\n", md ? err : "out of memory");
    free(md);
    json_decref(root);
}

/* 1. The handshake: every rank sends rank 0 its hello (version, build, settings, host, CPUs);
 * rank 0 assigns the roles, refusing an impossible --ranks-per-node, claims the folder and
 * writes the first fleet.json; then every rank learns its role (roles[r]). me receives this
 * rank's hello. Returns this rank's role. */
static int handshake(fleet *f, int rank, hello *me, int *roles) {
    const fleet_opts *o = &f->o;
    int size = f->size;
    memset(me, 0, sizeof *me);
    snprintf(me->version, sizeof me->version, "%s", NODESCALE_VERSION);
    snprintf(me->build, sizeof me->build, "%s %s", NODESCALE_CC, NODESCALE_CFLAGS);
    char *mine = settings_string(o);
    gethostname(me->host, sizeof me->host - 1);
    MPI_Comm node_comm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
    MPI_Comm_rank(node_comm, &me->local_rank);
    MPI_Comm_size(node_comm, &me->local_size);
    /* The CPUs `run` will use (the OpenMP places, i.e. the launcher's mask) and the node's. */
    const ns_topology *topo = ns_topology_get();
    me->cpus_allowed = topo->cpus_in_mask;
    me->cpus_online = topo->pus > 0 ? topo->pus : (int)sysconf(_SC_NPROCESSORS_ONLN);
    const char *msrc = NULL;
    me->mem_avail = (long long)ns_memory_available(&msrc);
    snprintf(me->mem_source, sizeof me->mem_source, "%s", msrc ? msrc : "memory");
    MPI_Comm_free(&node_comm);
    hello *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    MPI_Gather(me, (int)sizeof *me, MPI_BYTE, all, (int)sizeof *me, MPI_BYTE, 0, MPI_COMM_WORLD);
    /* The whole settings strings, whatever their length (MPI_Gatherv). */
    int mylen = (int)strlen(mine) + 1;
    int *lens = rank == 0 ? calloc((size_t)size, sizeof *lens) : NULL;
    int *displs = rank == 0 ? calloc((size_t)size, sizeof *displs) : NULL;
    MPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *packed = NULL;
    char **settings = NULL;
    if (rank == 0) {
        long long total = 0;
        for (int r = 0; r < size; r++) {
            displs[r] = (int)total;
            total += lens[r];
        }
        packed = malloc((size_t)total);
        settings = calloc((size_t)size, sizeof *settings);
        if (!packed || !settings) {
            perror("nodescale fleet: settings");
            MPI_Abort(MPI_COMM_WORLD, NS_EXIT_FAIL);
        }
        for (int r = 0; packed && settings && r < size; r++)
            settings[r] = packed + displs[r];
    }
    MPI_Gatherv(mine, mylen, MPI_CHAR, packed, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    free(lens);
    free(displs);
    if (rank == 0) {
        f->nodes = calloc((size_t)size, sizeof *f->nodes);
        f->settings = mine;
        mine = NULL;
        int vlen;
        MPI_Get_library_version(f->mpi_version, &vlen);
        f->mpi_version[strcspn(f->mpi_version, "\n")] = '\0';
        time_t now = time(NULL);
        strftime(f->date, sizeof f->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        f->status = "gathering";
        assign_roles(f, all, settings, roles);
        /* More ranks per node than any node runs: the option cannot mean what it says
         * (--ranks-per-node 2 with -np 1 was accepted: fleet.sh). */
        int most = 0;
        for (int r = 0; r < size; r++)
            if (all[r].local_size > most) most = all[r].local_size;
        /* Every rank of a host allocates two buffers of --max-bytes for the collectives: beyond
         * the memory they would fail (or first-touch into the OOM killer), refused up front as
         * `run` refuses a working set beyond memory. */
        long long coll = o->max_bytes > 0 ? (long long)o->max_bytes
                                          : (long long)ns_coll_defaults(o->quick).max_bytes;
        int too_big = -1;
        for (int r = 0; o->collectives && size >= 2 && r < size && too_big < 0; r++)
            if (all[r].mem_avail > 0 &&
                2.0 * (double)coll * all[r].local_size > (double)all[r].mem_avail)
                too_big = r;
        if (too_big >= 0) {
            const hello *h = &all[too_big];
            ns_usage_error("fleet",
                           "--max-bytes %lld: the collectives' 2 buffers on each of the %d "
                           "rank(s) of %s need %.3g GiB, beyond the %.3g GiB it may allocate "
                           "(%s): give a smaller --max-bytes, or --no-collectives",
                           coll, h->local_size, h->host,
                           2.0 * (double)coll * h->local_size / (1 << 30),
                           (double)h->mem_avail / (1 << 30), h->mem_source);
            for (int r = 0; r < size; r++)
                roles[r] = ROLE_ABORT;
        } else if (o->ranks_per_node > most) {
            ns_usage_error("fleet",
                           "--ranks-per-node %d, but no node runs more than %d rank%s (mpirun -np "
                           "%d): give at most %d",
                           o->ranks_per_node, most, most == 1 ? "" : "s", size, most);
            for (int r = 0; r < size; r++)
                roles[r] = ROLE_ABORT;
        } else if (make_dir(f))
            for (int r = 0; r < size; r++)
                roles[r] = ROLE_ABORT;
        else
            save_fleet(f);
        /* by node name, as every other line and fleet.json */
        for (int r = 0; r < size; r++)
            if (*f->nodes[r].warning)
                fprintf(stderr, "nodescale fleet: warning: rank %d (%s): %s\n", r, f->nodes[r].name,
                        f->nodes[r].warning);
        for (int r = 1; r < size; r++)
            if (roles[r] == ROLE_REFUSED)
                fprintf(stderr, "nodescale fleet: rank %d (%s) refused: %s\n", r, f->nodes[r].name,
                        f->nodes[r].reason);
    }
    free(all);
    free(settings);
    free(packed);
    free(mine);
    MPI_Bcast(roles, size, MPI_INT, 0, MPI_COMM_WORLD);
    return roles[rank];
}

/* 2. (rank 0) Files its own results (json, else the failure reason), then gathers the other
 * measuring ranks' until every one answered or --timeout-s since start passed; the rest are
 * missing. Analyses the nodes, and counts the missing, refused and failed ones. */
static void gather_results(fleet *f, const int *roles, double start, const char *json,
                           const char *reason, const char *log, int *missing, int *refused,
                           int *failed) {
    int size = f->size;
    if (json)
        accept_results(f, &f->nodes[0], json, log);
    else {
        snprintf(f->nodes[0].status, sizeof f->nodes[0].status, "failed");
        snprintf(f->nodes[0].reason, sizeof f->nodes[0].reason, "%s", reason);
    }
    report_node(f, &f->nodes[0], log);
    save_fleet(f);
    int pending = 0;
    double stopped_at = 0, drain_until = 0;
    for (int r = 1; r < size; r++)
        pending += roles[r] == ROLE_MEASURE;
    for (;;) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_HEADER, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            receive_one(f, st.MPI_SOURCE);
            save_fleet(f);
            pending--;
            continue;
        }
        if (ns_interrupted && stopped_at == 0) stopped_at = MPI_Wtime();
        if (pending == 0) break;
        if (MPI_Wtime() - start > f->o.timeout_s ||
            (stopped_at > 0 && MPI_Wtime() - stopped_at > STOP_GRACE_S)) {
            /* Past the deadline (rank 0 may come here late, from its own watchdog): what has
             * already been sent still counts; one probe may not yet show it. */
            if (drain_until == 0) drain_until = MPI_Wtime() + 1.0;
            if (MPI_Wtime() > drain_until) break;
        }
        usleep(2000);
    }
    refuse_duplicates(f);
    analyse(f); /* may turn a node without a comparable result into a failed one */
    *missing = *refused = *failed = 0;
    for (int r = 0; r < size; r++) {
        node *n = &f->nodes[r];
        if (!strcmp(n->status, "pending")) {
            snprintf(n->status, sizeof n->status, "missing");
            if (stopped_at > 0)
                snprintf(n->reason, sizeof n->reason,
                         "no results within %d s of the stop signal (interrupted)", STOP_GRACE_S);
            else
                snprintf(n->reason, sizeof n->reason,
                         "no results within --timeout-s %g s (the rank died, hung or is slow)",
                         f->o.timeout_s);
            report_node(f, n, NULL);
            (*missing)++;
        }
        *refused += !strcmp(n->status, "refused");
        *failed += !strcmp(n->status, "failed");
    }
    f->status = *missing ? "incomplete: collectives running" : "collectives running";
    save_fleet(f);
}

/* 3. (rank 0) The collectives over the measuring ranks that answered and the idle ranks (an
 * all-reduce between ranks of one host measures its shared-memory transport), with a fleet.json
 * prepared for the watchdog. Returns 1 when they did not finish within --timeout-s, else 0. */
static int lead_collectives(fleet *f, const int *roles, const char *skip) {
    int size = f->size, nlive = 0, *live = malloc((size_t)size * sizeof *live);
    for (int r = 0; r < size; r++)
        if ((roles[r] == ROLE_MEASURE && strcmp(f->nodes[r].status, "missing") != 0) ||
            roles[r] == ROLE_IDLE)
            live[nlive++] = r;
    /* skip (a stop signal, rank 0 hung): an empty list sends every live rank to the end. */
    int nsent = skip ? 0 : nlive;
    for (int i = 1; i < nlive; i++) {
        MPI_Send(&nsent, 1, MPI_INT, live[i], TAG_GO, MPI_COMM_WORLD);
        MPI_Send(live, nsent, MPI_INT, live[i], TAG_GO, MPI_COMM_WORLD);
    }
    int coll_hung = 0;
    if (skip) {
        f->allreduce = ns_coll_allreduce_fit_json(nlive, NULL, 0);
        json_object_set_new(f->allreduce, "status", json_string(skip));
    } else if (nlive >= 2 && f->o.collectives) {
        const char *st = f->status;
        char err[1024];
        f->status = "incomplete: the MPI collectives did not finish within --timeout-s";
        json_t *timed_out = fleet_json(f);
        f->status = st;
        snprintf(alarm_to, sizeof alarm_to, "%s/fleet.json", f->dir);
        snprintf(alarm_from, sizeof alarm_from, "%s/.fleet.json.collectives-timeout", f->dir);
        if (ns_json_write_atomic(timed_out, alarm_from, err, sizeof err)) alarm_from[0] = '\0';
        json_decref(timed_out);
        coll_hung = collectives_over(live, nlive, &f->o, f);
        if (!coll_hung) {
            if (alarm_from[0]) unlink(alarm_from);
            alarm_from[0] = '\0';
        }
    } else {
        f->allreduce = ns_coll_allreduce_fit_json(nlive, NULL, 0);
        if (!f->o.collectives)
            json_object_set_new(f->allreduce, "status", json_string("--no-collectives"));
    }
    free(live);
    return coll_hung;
}

/* 4. (rank 0) The final status, fleet.json, report.md and the summary line. Returns the exit
 * status: NS_EXIT_FAIL when a node is missing, refused or failed, has failed or invalid results
 * or an interrupted run, the collectives hung, or (--fail-on-straggler) a straggler was flagged. */
static int final_files(fleet *f, int missing, int refused, int failed, int coll_hung) {
    int ok = 0, interrupted = 0, bad = 0;
    for (int r = 0; r < f->size; r++) {
        ok += !strcmp(f->nodes[r].status, "ok");
        interrupted += f->nodes[r].interrupted;
        bad += f->nodes[r].results && f->nodes[r].bad;
    }
    /* Failed, refused and nodes with failed or invalid results make it incomplete too: compare
     * and scripts read the status. */
    char parts[160] = "";
    size_t len = 0;
    if (failed)
        len += (size_t)snprintf(parts + len, sizeof parts - len, "%d node(s) failed", failed);
    if (refused)
        len += (size_t)snprintf(parts + len, sizeof parts - len, "%s%d node(s) refused",
                                len ? ", " : "", refused);
    if (bad)
        snprintf(parts + len, sizeof parts - len, "%s%d node(s) with failed or invalid results",
                 len ? ", " : "", bad);
    snprintf(f->status_buf, sizeof f->status_buf, "incomplete: %s", parts);
    f->status = ns_interrupted ? "interrupted"
                : ok == 0      ? "failed: no rank characterised its node"
                : coll_hung    ? "incomplete: the MPI collectives did not finish within --timeout-s"
                : missing      ? "incomplete"
                : interrupted  ? "incomplete: a node's run was interrupted"
                : *parts       ? f->status_buf
                               : "complete";
    save_fleet(f);
    write_report(f);
    if (coll_hung) { /* fleet.json and report.md now hold what finished: drop the fallback */
        alarm(0);
        if (alarm_from[0]) unlink(alarm_from);
        alarm_from[0] = '\0';
    }
    print_summary(f);
    int straggled = f->o.fail_on_straggler && f->flagged_nodes;
    if (straggled)
        fprintf(stderr, "nodescale fleet: %d straggler node(s) flagged (--fail-on-straggler)\n",
                f->flagged_nodes);
    if (ns_interrupted) return ns_exit_signal(ns_interrupted);
    /* Every "incomplete" status fails: a timed-out benchmark, a failed output check or a cut-short
     * node is not a good fleet for a script that reads the exit status. */
    return ok == 0 || missing || coll_hung || refused || failed || bad || interrupted || straggled
               ? NS_EXIT_FAIL
               : NS_EXIT_OK;
}

/* Frees what rank 0 gathered in f. */
static void fleet_free(fleet *f) {
    for (int r = 0; r < f->size; r++) {
        json_decref(f->nodes[r].results);
        json_decref(f->nodes[r].bad);
    }
    free(f->nodes);
    json_decref(f->warnings);
    json_decref(f->collectives);
    json_decref(f->allreduce);
    json_decref(f->benchmarks);
    json_decref(f->stragglers);
    free(f->settings);
}

int ns_cmd_fleet(int argc, char **argv) {
    fleet_opts o;
    int help, rc = parse_opts(argc, argv, &o, &help);
    if (help) {
        fputs(fleet_help, stdout);
        return NS_EXIT_OK;
    }
    if (rc) return rc;

    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* SIGINT/SIGTERM (Ctrl-C, scancel, a time limit) as in `run`: each rank stops at its next
     * sample and sends what finished; rank 0 writes an "interrupted" fleet. */
    ns_install_stop_handler();

    /* 1. handshake */
    hello me;
    int *roles = calloc((size_t)size, sizeof *roles);
    fleet f;
    memset(&f, 0, sizeof f);
    f.o = o;
    f.size = size;
    int role = handshake(&f, rank, &me, roles);
    if (role == ROLE_ABORT) {
        MPI_Finalize();
        return NS_EXIT_USAGE;
    }
    if (role == ROLE_REFUSED) { /* different version, build or settings: take no part */
        if (rank != 0)
            fprintf(stderr, "nodescale fleet: rank %d: refused by rank 0 (see fleet.json)\n", rank);
        free(roles);
        MPI_Finalize();
        return NS_EXIT_OK;
    }
    if (role == ROLE_IDLE) { /* measures nothing, then joins the collectives */
        free(roles);
        int rc_idle = join_collectives(&o, rank);
        MPI_Finalize();
        return rc_idle;
    }

    /* 2. characterise and gather */
    double start = MPI_Wtime();
    char *json = NULL, *reason = NULL, *log = NULL;
    volatile int self_hung = 0; /* rank 0: its own characterisation outlasted --timeout-s */
    alarm_thread = pthread_self();
    signal(SIGALRM, on_alarm);
    if (rank != 0) {
        alarm((unsigned)ceil(o.timeout_s) + GATHER_GRACE_S);
    } else if (sigsetjmp(gather_jmp, 1)) {
        /* The watchdog: this node is failed, the others' results are gathered as they stand. */
        self_hung = 1;
        json = log = NULL;
        reason = malloc(200);
        if (reason)
            snprintf(reason, 200,
                     "rank 0's own characterisation did not finish within "
                     "--timeout-s %g s (hung or slow)",
                     o.timeout_s);
        fprintf(stderr, "nodescale fleet: rank 0: %s; writing what the other ranks sent\n",
                reason ? reason : "hung");
    } else {
        gather_jmp_armed = 1;
        alarm((unsigned)ceil(o.timeout_s));
    }
    if (!self_hung) {
        maybe_inject_fault(rank);
        characterise(&o, rank, me.host, &json, &reason, &log);
    }
    gather_jmp_armed = 0;
    alarm(0); /* waiting for rank 0 below is not this rank's fault: no self-kill there */
    if (rank != 0) {
        send_results(json, reason, log);
        free(json);
        free(reason);
        free(log);
        /* 3. collectives, if rank 0 counts us live */
        int rc_rank = join_collectives(&o, rank);
        free(roles);
        MPI_Finalize();
        return rc_rank;
    }
    int missing, refused, failed;
    gather_results(&f, roles, start, json, reason, log, &missing, &refused, &failed);
    free(json);
    free(reason);
    free(log);

    /* 3. collectives */
    int coll_hung =
        lead_collectives(&f, roles,
                         ns_interrupted ? "not run: the fleet was interrupted (SIGINT or SIGTERM)"
                         : self_hung    ? "not run: rank 0's own characterisation hung"
                                        : NULL);

    /* 4. final files */
    rc = final_files(&f, missing, refused, failed, coll_hung);
    fleet_free(&f);
    free(roles);
    if (missing || coll_hung || self_hung) {
        fprintf(stderr,
                "nodescale fleet: %s; the results are in %s. Ending the job with MPI_Abort so "
                "hung ranks stop.\n",
                self_hung ? "rank 0 hung or was slow"
                : missing ? "rank(s) missing"
                          : "the collectives hung",
                f.dir);
        fflush(NULL);
        MPI_Abort(MPI_COMM_WORLD, ns_interrupted ? rc : NS_EXIT_FAIL);
    }
    MPI_Finalize();
    return rc;
}
