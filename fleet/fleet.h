/* The fleet driver's pieces that have no MPI in them, for fleet.c and the unit tests: the
 * handshake's peer check, the --from-results pattern, and the fleet report (report.md) rendered
 * from fleet.json. The command itself is ns_cmd_fleet (harness/commands.h). */
#ifndef NS_FLEET_H
#define NS_FLEET_H

#include <jansson.h>
#include <stddef.h>

/* Compares a rank's nodescale version, build flags and settings string (v, b, s) with rank 0's
 * (v0, b0, s0). Returns 0 when all are equal, else -1 with a one-line reason naming the first
 * difference (for settings: the differing "key=value" on each side). */
int ns_fleet_check_peer(const char *v0, const char *b0, const char *s0, const char *v,
                        const char *b, const char *s, char *reason, size_t len);

/* Expands %r (rank), %h (host) and %% in pat into out (always NUL-terminated, truncated). */
void ns_fleet_expand_pattern(const char *pat, int rank, const char *host, char *out, size_t len);

/* report.md of a fleet.json document: nodes, stragglers, per-benchmark spread, collectives with
 * the busbw convention, the α–β fit. Returns a malloc'd string, or NULL on allocation failure. */
char *ns_fleet_report_md(const json_t *fleet);

/* The console line of fleet.json's `allreduce` (no newline): "all-reduce fit over N ranks:
 * alpha = A s, beta = B s/B", followed by "(STATUS)" when the fit has one (a poor fit, refused;
 * beta 0) or was made over the sizes that finished (the allreduce's status; both joined by
 * "; "), so that it never reads as a clean measurement (fleet_faults.sh).
 * Returns 0, or -1 (buf empty) when there is no fit to print. */
int ns_fleet_fit_line(const json_t *allreduce, char *buf, size_t len);

#endif
