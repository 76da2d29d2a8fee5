/* Running gnuplot without a shell, and quoting strings for its scripts (see gnuplot.h). */
#include "harness/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *ns_gnuplot_name(void) {
    const char *gp = getenv("NODESCALE_GNUPLOT");
    return gp && *gp ? gp : "gnuplot";
}

int ns_gnuplot_found(char *err, size_t errlen) {
    const char *gp = ns_gnuplot_name();
    if (strchr(gp, '/')) {
        if (access(gp, X_OK) == 0) return 0;
    } else {
        const char *path = getenv("PATH");
        for (const char *p = path ? path : ""; *p;) {
            size_t len = strcspn(p, ":");
            char cand[4096];
            snprintf(cand, sizeof cand, "%.*s/%s", (int)len, len ? p : ".", gp);
            if (access(cand, X_OK) == 0) return 0;
            p += len + (p[len] == ':');
        }
    }
    snprintf(err, errlen,
             "cannot find %s to draw the plots (install gnuplot-nox, or set "
             "NODESCALE_GNUPLOT)",
             gp);
    return -1;
}

void ns_gnuplot_str(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
    }
    fputc('\'', f);
}

/* Keeps in msg (size 256) the first useful line of gnuplot's output: the first one that names
 * a script line ("roofline.gp" line 5: ...), else the first that is not blank or carets. */
static void keep_line(const char *line, char *msg, int *named) {
    const char *s = line + strspn(line, " \t^");
    if (*s == '\n' || !*s || *named) return;
    int names = strstr(line, "line ") != NULL;
    if (!msg[0] || names) {
        snprintf(msg, 256, "%s", line + strspn(line, " \t"));
        msg[strcspn(msg, "\n")] = '\0';
        *named = names;
    }
}

int ns_gnuplot_run(const char *dir, const char *script, char *err, size_t errlen) {
    const char *gp = ns_gnuplot_name();
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot run %s: %s", gp, strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    if (dir) posix_spawn_file_actions_addchdir_np(&fa, dir);
    char *argv[] = {(char *)gp, (char *)script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, gp, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        snprintf(err, errlen, "cannot run %s: %s (install gnuplot-nox, or set NODESCALE_GNUPLOT)",
                 gp, strerror(rc));
        return -1;
    }
    /* Read to the end (gnuplot never blocks on a full pipe), keeping the line that says why. */
    char msg[256] = "", line[256];
    int named = 0;
    FILE *out = fdopen(fds[0], "r");
    if (out) {
        while (fgets(line, sizeof line, out))
            keep_line(line, msg, &named);
        fclose(out);
    } else {
        close(fds[0]);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            snprintf(err, errlen, "waiting for %s: %s", gp, strerror(errno));
            return -1;
        }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    char where[4200];
    snprintf(where, sizeof where, "%s%s%s", dir ? dir : "", dir ? "/" : "", script);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) /* the spawned program is missing a part */
        snprintf(err, errlen, "cannot run %s (install gnuplot-nox, or set NODESCALE_GNUPLOT)%s%s",
                 gp, *msg ? ": " : "", msg);
    else if (WIFSIGNALED(st))
        snprintf(err, errlen, "gnuplot crashed on %s (%s, signal %d: %s)%s%s", where, gp,
                 WTERMSIG(st), strsignal(WTERMSIG(st)), *msg ? ": " : "", msg);
    else
        snprintf(err, errlen, "gnuplot failed on %s (exit %d%s%s)%s%s", where,
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, strcmp(gp, "gnuplot") ? ", " : "",
                 strcmp(gp, "gnuplot") ? gp : "", *msg ? ": " : "", msg);
    return -1;
}
