/* Cluster model plots: a stacked bar per chip count of where one step's time goes, and MFU with
 * executed FLOP/s against chip count. Writes gnuplot data and scripts, then runs gnuplot as a
 * program (never linked, never through a shell: harness/gnuplot.h) to make SVGs and PNGs (as
 * the roofline pictures); the .dat and .gp files stay so a user can restyle. A write that fails
 * removes all eight files: nothing is left half-written. */
#include "cluster/cluster.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/gnuplot.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        goto fail;                                                                                 \
    } while (0)

static long long chips_of(const ns_breakdown *b) {
    return (long long)b->par.tp * b->par.pp * b->par.cp * b->par.dp;
}

/* Opens dir/stem.ext for writing (full path into path). */
static FILE *open_in(const char *dir, const char *stem, const char *ext, char *path, size_t len) {
    snprintf(path, len, "%s/%s.%s", dir, stem, ext);
    return fopen(path, "w");
}

/* Opens dir/stem.gp and writes the lines every plot shares: SVG terminal, output, title. */
static FILE *open_script(const char *dir, const char *stem, const char *what,
                         const ns_cluster_input *in, char *path, size_t len) {
    FILE *f = open_in(dir, stem, "gp", path, len);
    if (!f) return NULL;
    /* The names come from preset and results files: quoted (a quote in a CPU model ran
     * gnuplot's system(): plot_quoting.sh). */
    char title[1024];
    snprintf(title, sizeof title, "%s: %s on %s", what,
             in->model.name[0] ? in->model.name : "model",
             in->sys.chip.name[0] ? in->sys.chip.name : "chip");
    fprintf(f,
            "set terminal svg size 900,520 dynamic noenhanced background rgb 'white'\n"
            "set output '%s.svg'\nset title ",
            stem);
    ns_gnuplot_str(f, title);
    fprintf(f, "\nset xlabel 'chips'\n");
    return f;
}

/* Ends a script that open_script began, after its plot: the same picture again as stem.png
 * (pngcairo, or the libgd png terminal where gnuplot was built without cairo). */
static void png_too(FILE *f, const char *stem) {
    fprintf(f,
            "set output\n"
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size 900,520 noenhanced font 'sans,10' background rgb "
            "'white'\n"
            "} else {\n  set terminal png size 900,520 noenhanced\n}\n"
            "set output '%s.png'\nreplot\nset output\n",
            stem);
}

/* Closes f; -1 (errno set) if it or an earlier write to it failed. */
static int close_checked(FILE *f) {
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno ? errno : EIO;
    if (fclose(f) != 0) return -1;
    if (bad) errno = e;
    return bad ? -1 : 0;
}

void ns_cluster_remove_plots(const char *dir) {
    static const char *const names[] = {"cluster_breakdown.dat", "cluster_breakdown.gp",
                                        "cluster_breakdown.svg", "cluster_breakdown.png",
                                        "cluster_scaling.dat",   "cluster_scaling.gp",
                                        "cluster_scaling.svg",   "cluster_scaling.png"};
    char path[4096];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
}

int ns_cluster_write_plots(const ns_cluster_input *in, const ns_breakdown *pts, int n,
                           const char *dir, char *err, size_t errlen) {
    char path[4096];
    FILE *f = NULL;

    if (!(f = open_in(dir, "cluster_breakdown", "dat", path, sizeof path)))
        FAIL("cannot write %s: %s", path, strerror(errno));
    fprintf(f, "# chips compute_s tp_s cp_s pp_s dp_s bubble_s straggler_s optimizer_s step_s fits "
               "(1 yes, 0 no, -1 unknown)\n");
    for (int i = 0; i < n; i++) {
        const ns_breakdown *b = &pts[i];
        fprintf(f, "%lld %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %d\n", chips_of(b),
                b->compute_s, b->tp_s, b->cp_s, b->pp_s, b->dp_s, b->bubble_s, b->straggler_s,
                b->optimizer_s, b->step_s, b->fits);
    }
    if (close_checked(f)) {
        f = NULL;
        FAIL("cannot write %s: %s", path, strerror(errno));
    }
    if (!(f = open_script(dir, "cluster_breakdown", "Step time per chip", in, path, sizeof path)))
        FAIL("cannot write %s: %s", path, strerror(errno));
    /* Shares of the step, so that chip counts whose steps differ 1000x stand side by side. */
    fprintf(f, "set ylabel 'share of step time (%%)'\n"
               "set style data histograms\nset style histogram rowstacked\n"
               "set style fill solid 0.85 border -1\nset boxwidth 0.7\nset key outside right\n"
               "set yrange [0:100]\n");
    /* A configuration that does not fit in memory (column 11 is 0) is not runnable: its tic
     * says so and a hatched box over its bar crosses it out (bar i sits at x = i). */
    int bnofit = 0;
    for (int i = 0; i < n; i++)
        if (pts[i].fits == 0) {
            fprintf(f,
                    "set object %d rect from %d-0.35, graph 0 to %d+0.35, graph 1 front "
                    "fs pattern 4 transparent border rgb '#d62728' fc rgb '#d62728'\n",
                    ++bnofit, i, i);
            fprintf(f,
                    "set label %d 'does not fit in memory: not runnable' at %d, 50 center "
                    "rotate by 90 front font ',11' tc rgb '#000000' boxed\n",
                    bnofit, i);
        }
    if (bnofit) fprintf(f, "set style textbox opaque noborder\n");
    fprintf(f, "plot 'cluster_breakdown.dat' using (100*$2/$10):xtic($11 == 0 ? "
               "strcol(1).' (no fit)' : strcol(1)) title 'compute', \\\n"
               "  '' using (100*$3/$10) title 'TP exposed', \\\n"
               "  '' using (100*$4/$10) title 'CP exposed', \\\n"
               "  '' using (100*$5/$10) title 'PP exposed', \\\n"
               "  '' using (100*$6/$10) title 'DP exposed', \\\n"
               "  '' using (100*$7/$10) title 'bubble', \\\n"
               "  '' using (100*$8/$10) title 'straggler wait', \\\n"
               "  '' using (100*$9/$10) title 'optimizer'\n");
    png_too(f, "cluster_breakdown");
    if (close_checked(f)) {
        f = NULL;
        FAIL("cannot write %s: %s", path, strerror(errno));
    }

    if (!(f = open_in(dir, "cluster_scaling", "dat", path, sizeof path)))
        FAIL("cannot write %s: %s", path, strerror(errno));
    fprintf(f,
            "# chips mfu executed_flops_per_s peak_flops_per_s fits (1 yes, 0 no, -1 unknown)\n");
    double peak = in->sys.chip.peak_flops[in->run.precision];
    long long cmin = 0, cmax = 0;
    for (int i = 0; i < n; i++) {
        const ns_breakdown *b = &pts[i];
        fprintf(f, "%lld %.6g %.6g %.6g %d\n", chips_of(b), b->mfu,
                b->hw_flops_per_s_per_chip * chips_of(b), peak * chips_of(b), b->fits);
        if (!i || chips_of(b) < cmin) cmin = chips_of(b);
        if (!i || chips_of(b) > cmax) cmax = chips_of(b);
    }
    if (close_checked(f)) {
        f = NULL;
        FAIL("cannot write %s: %s", path, strerror(errno));
    }
    if (!(f = open_script(dir, "cluster_scaling", "MFU and executed FLOP/s", in, path,
                          sizeof path)))
        FAIL("cannot write %s: %s", path, strerror(errno));
    /* Every chip count is a labelled tic; a configuration that does not fit in memory (column
     * 5 is 0) is off the lines, a red square, and the key says it cannot run. */
    fprintf(f, "set logscale x 2\n");
    if (n > 0) {
        fprintf(f, "set xrange [%.6g:%.6g]\nset xtics (", cmin / 1.5, cmax * 1.5);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s'%lld' %lld", i ? ", " : "", chips_of(&pts[i]), chips_of(&pts[i]));
        fprintf(f, ")\n");
    }
    int nofit = 0;
    double mfu_max = 0;
    for (int i = 0; i < n; i++) {
        nofit += pts[i].fits == 0;
        if (isfinite(pts[i].mfu) && pts[i].mfu > mfu_max) mfu_max = pts[i].mfu;
    }
    /* The MFU axis fitted to the data (from 0: MFU is a share), not 0-100% for values of 8%. */
    double top = mfu_max > 0 ? fmin(100, 100 * mfu_max * 1.3) : 100;
    /* MFU: circles on the left axis; FLOP/s: squares on the right; a configuration that does
     * not fit is the same shape, open and red, off the lines, each in the key. */
    fprintf(f,
            "set logscale y2 10\n"
            "set ylabel 'MFU'\nset yrange [0:%.6g]\nset format y '%%g%%%%'\n"
            "set y2label 'FLOP/s'\nset y2tics\nset ytics nomirror\nset key below\n"
            "set format y2 '%%.0e'\n"
            "plot 'cluster_scaling.dat' using 1:($5 != 0 ? $2*100 : 1/0) axes x1y1 with "
            "linespoints pt 7 lc rgb '#1f77b4' title 'MFU (left axis)', \\\n"
            "  '' using 1:($5 != 0 ? $3 : 1/0) axes x1y2 with linespoints pt 5 lc rgb "
            "'#2ca02c' title 'executed FLOP/s (right axis)', \\\n"
            "  '' using 1:4 axes x1y2 with lines dashtype 2 lc rgb '#2ca02c' title 'peak "
            "FLOP/s'",
            top);
    if (nofit)
        fprintf(f, ", \\\n  '' using 1:($5 == 0 ? $2*100 : 1/0) axes x1y1 with points pt 6 ps 1.5 "
                   "lw 2 lc rgb '#d62728' title 'does not fit in memory, not runnable: MFU as if "
                   "it did', \\\n"
                   "  '' using 1:($5 == 0 ? $3 : 1/0) axes x1y2 with points pt 4 ps 1.5 lw 2 lc "
                   "rgb '#d62728' title 'does not fit: FLOP/s as if it did'");
    fprintf(f, "\n");
    png_too(f, "cluster_scaling");
    if (close_checked(f)) {
        f = NULL;
        FAIL("cannot write %s: %s", path, strerror(errno));
    }
    f = NULL;
    if (ns_gnuplot_run(dir, "cluster_breakdown.gp", err, errlen) ||
        ns_gnuplot_run(dir, "cluster_scaling.gp", err, errlen))
        return -1;
    return 0;
fail:
    if (f) fclose(f);
    ns_cluster_remove_plots(dir);
    return -1;
}
