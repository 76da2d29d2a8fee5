/* likwid-bench as a subprocess (see likwid_ref.h). */
#include "harness/likwid_ref.h"

#include "harness/context.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int ns_likwid_bench(const char *test, double working_set_bytes, int threads, double iters,
                    ns_likwid_result *out, char *err, size_t errlen) {
    for (const char *c = test; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') {
            snprintf(err, errlen, "likwid-bench: bad kernel name '%s'", test);
            return -1;
        }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "likwid-bench -t %s -W N:%.0fkB:%d -i %.0f 2>&1", test,
             fmax(1, working_set_bytes / 1000), threads, fmax(1, iters));
    /* likwid-bench places its threads within the CPUs it inherits: not the one CPU this
     * process's initial thread is bound to. */
    cpu_set_t saved;
    int released = ns_affinity_release(&saved) == 0;
    FILE *p = popen(cmd, "r");
    if (released) sched_setaffinity(0, sizeof saved, &saved);
    if (!p) {
        snprintf(err, errlen, "likwid-bench: cannot start");
        return -1;
    }
    *out = (ns_likwid_result){NAN, NAN, NAN, NAN};
    char line[512], last[512] = "";
    while (fgets(line, sizeof line, p)) {
        double v;
        if (sscanf(line, "MFlops/s: %lf", &v) == 1)
            out->mflops_per_s = v;
        else if (sscanf(line, "MByte/s: %lf", &v) == 1)
            out->mbytes_per_s = v;
        else if (sscanf(line, "Size (Byte): %lf", &v) == 1)
            out->size_bytes = v;
        else if (sscanf(line, "Time: %lf", &v) == 1)
            out->time_s = v;
        if (strlen(line) > 1) snprintf(last, sizeof last, "%s", line);
    }
    int st = pclose(p);
    if (st != 0 || (isnan(out->mflops_per_s) && isnan(out->mbytes_per_s))) {
        last[strcspn(last, "\n")] = 0;
        snprintf(err, errlen, "likwid-bench -t %s failed (exit %d): %s", test,
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, last);
        return -1;
    }
    return 0;
}

double ns_likwid_calibrate(const char *test, double working_set_bytes, int threads, double target_s,
                           char *err, size_t errlen) {
    double iters = fmax(10, 2e8 / fmax(working_set_bytes, 1));
    ns_likwid_result r = {0};
    for (int tries = 0; tries < 5; tries++) {
        if (ns_likwid_bench(test, working_set_bytes, threads, iters, &r, err, errlen) != 0)
            return -1;
        if (r.time_s > 0.02) break;
        iters *= r.time_s > 0 ? fmin(100, 0.05 / r.time_s) : 100;
    }
    return r.time_s > 0 ? fmax(10, round(iters * target_s / r.time_s)) : iters;
}
