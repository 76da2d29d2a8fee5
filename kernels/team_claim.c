/* The process-wide team claim and the fork rule (team_claim.h). */
#include "kernels/team_claim.h"

#include <pthread.h>
#include <stdatomic.h>

static atomic_flag team_busy = ATOMIC_FLAG_INIT;
static atomic_int forked;

static void in_child(void) {
    atomic_store_explicit(&forked, 1, memory_order_relaxed);
}

/* At load: every fork after it, whoever calls it and whatever ran before, marks the child. */
__attribute__((constructor)) static void register_atfork(void) {
    pthread_atfork(NULL, NULL, in_child);
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
