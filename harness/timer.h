/* Wall-clock timing for the harness: CLOCK_MONOTONIC (never steps backwards, unaffected by
 * NTP slews of the wall date), and the timer's resolution both as the OS reports it
 * (clock_getres) and as measured (the smallest non-zero difference of back-to-back reads). */
#ifndef NS_TIMER_H
#define NS_TIMER_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double ns_now(void);

/* Resolution claimed by clock_getres(CLOCK_MONOTONIC), seconds. */
double ns_timer_resolution_reported(void);

/* Smallest non-zero difference between back-to-back ns_now() calls over a short probe, seconds.
 * This is the resolution the harness uses to size repetitions (a coarse clock). */
double ns_timer_resolution_measured(void);

/* Resolution of CLOCK_PROCESS_CPUTIME_ID (recorded, not used for timing). */
double ns_cputime_resolution_reported(void);

#endif
