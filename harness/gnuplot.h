/* Running gnuplot as a program (never linked) and writing strings into its scripts: the one
 * place that `roofline`, `cluster --plot-dir` and `compare` share, so that no path or name from
 * the command line or an input file ever reaches a shell or a script unquoted. */
#ifndef NS_GNUPLOT_H
#define NS_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>

/* The gnuplot to run: $NODESCALE_GNUPLOT when set and not empty, else "gnuplot" (on PATH). */
const char *ns_gnuplot_name(void);

/* Whether ns_gnuplot_name() is there to run (a path that is executable, or a name found on
 * PATH). 0, or -1 with a one-line reason in err. */
int ns_gnuplot_found(char *err, size_t errlen);

/* Writes s to f as a gnuplot single-quoted string: a quote inside is doubled (the only escape
 * such a string has) and a control character (a newline) becomes a space, so that any text,
 * "H100 'SXM'" or "a'; system('rm x'); '", stays one string. */
void ns_gnuplot_str(FILE *f, const char *s);

/* Runs gnuplot on script with no shell: the program is started directly (posix_spawnp), in
 * folder dir when dir is not NULL (a script's relative names are read and written there), with
 * stdin from /dev/null and its output read back. Returns 0 when gnuplot exits 0, else -1 with a
 * one-line reason in err: cannot run it, or it failed or crashed, with gnuplot's first useful
 * line ("line 5: undefined variable"). */
int ns_gnuplot_run(const char *dir, const char *script, char *err, size_t errlen);

#endif
