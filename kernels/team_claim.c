/* The process-wide team claim and the fork rule (team_claim.h). */
#include "kernels/team_claim.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_flag team_busy = ATOMIC_FLAG_INIT;
static atomic_int forked;       /* this process is a child that may not open a team */
static atomic_int parent_teams; /* set by before_fork: the process forking may have a pool */

/* Threads of this process (the "Threads:" line of /proc/self/status); 0 when unknown. */
static long thread_count(void) {
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *t = strstr(buf, "\nThreads:");
    return t ? strtol(t + 9, NULL, 10) : 0;
}

/* libgomp keeps a team's threads (its pool) alive after the region, for the next one; a child
 * of fork() has only the forking thread, and a region there would wait for the pool's threads
 * forever. The user's own regions leave such a pool too, so the library's teams are not the
 * only ones that matter, and libgomp does not say whether it has one. The rule is conservative:
 * a parent with more than one thread (or an unknown count) may hold a pool; a single-threaded
 * parent has none (a pre-fork server or a Python worker forked at start-up). */
static void before_fork(void) {
    atomic_store_explicit(&parent_teams, thread_count() != 1, memory_order_relaxed);
}

/* The child of a marked process stays marked: it inherits the same dead pool. */
static void in_child(void) {
    if (atomic_load_explicit(&parent_teams, memory_order_relaxed))
        atomic_store_explicit(&forked, 1, memory_order_relaxed);
}

/* At load: every fork after it, whoever calls it, marks the child when the parent may have had a
 * team (before_fork). */
__attribute__((constructor)) static void register_atfork(void) {
    pthread_atfork(before_fork, NULL, in_child);
}

int ns_team_claim(void) {
    if (atomic_load_explicit(&forked, memory_order_relaxed)) return 0;
    return !atomic_flag_test_and_set_explicit(&team_busy, memory_order_acquire);
}

void ns_team_release(void) {
    atomic_flag_clear_explicit(&team_busy, memory_order_release);
}

int ns_team_forked(void) {
    return atomic_load_explicit(&forked, memory_order_relaxed);
}
