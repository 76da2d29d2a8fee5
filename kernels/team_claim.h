/* One library team at a time, and none in a forked child.
 *
 * The library's own parallel regions (the public reductions, GEMM) open an OpenMP team of the
 * threads they choose. Callers on several threads would each open one and oversubscribe the
 * CPUs (4 callers x 2 threads on 2 CPUs: 2-2.4x slower for the same work; test_team.c), so a
 * call takes a process-wide claim before it opens a team and drops it after; a call that finds
 * the claim taken runs on its calling thread alone. libgomp cannot run a team in a child forked
 * from a process that ran one (the child waits forever for pool threads that do not exist), so
 * in a child of fork() every later call runs on one thread (test_team.c), unless the parent had
 * one thread when it forked: then it had no pool, whoever's regions ran (test_team.c). */
#ifndef NS_TEAM_CLAIM_H
#define NS_TEAM_CLAIM_H

/* 1: the caller holds the claim and may open a team (it must call ns_team_release after the
 * team has joined); 0: another call holds it, or this process is a forked child: run on one
 * thread. Never blocks. */
int ns_team_claim(void);

/* Drops the claim ns_team_claim gave. */
void ns_team_release(void);

/* 1 in a child forked (fork(), not followed by exec) from a process that had loaded the
 * library and had more than one thread then (or an unknown count), or from such a child: no
 * OpenMP team may be opened there. */
int ns_team_forked(void);

#endif
