/* The subcommands of bin/nodescale. Each takes the arguments after its own name (argv[0] is the
 * subcommand name) and returns the process exit status: 0 success, 1 a failure the command
 * exists to report (a regression, a straggler, a failed check), 2 a usage or input error. */
#ifndef NS_COMMANDS_H
#define NS_COMMANDS_H

int ns_cmd_run(int argc, char **argv);      /* harness/run.c */
int ns_cmd_list(int argc, char **argv);     /* harness/list.c */
int ns_cmd_bench(int argc, char **argv);    /* harness/bench.c */
int ns_cmd_roofline(int argc, char **argv); /* roofline/cli.c */
int ns_cmd_gate(int argc, char **argv);     /* reports/gate.c */
int ns_cmd_compare(int argc, char **argv);  /* reports/compare.c */
int ns_cmd_cluster(int argc, char **argv);  /* cluster/cli.c */
int ns_cmd_fleet(int argc, char **argv);    /* fleet/ */

#endif
