/* Roofline pictures with gnuplot (see roofline.h: ns_roofline_plot). The program writes the
 * data as small whitespace-separated files and one gnuplot script into a temporary folder, runs
 * gnuplot on it as a child process (harness/gnuplot.h: no shell), and renames the finished
 * pictures into place. Every picture is drawn twice from one body: SVG (svg terminal) and PNG
 * (pngcairo, or the libgd png terminal where gnuplot was built without cairo). */
#include "roofline/roofline.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/gnuplot.h"
#include "harness/json.h"
#include "harness/outdir.h"

#define MAX_PICS 16
#define MAX_DATA 256

typedef struct {
    char tmpdir[4096];
    int ndata;
    char *pics[MAX_PICS]; /* final paths without extension */
    int npics;
    FILE *script;
    const char *dir;
    json_t *skipped; /* "NAME: reason" for pictures not drawn (may be NULL) */
} plot_ctx;

static void skip(plot_ctx *c, const char *name, const char *why) {
    if (!c->skipped) return;
    char buf[320];
    snprintf(buf, sizeof buf, "%s: %s", name, why);
    json_array_append_new(c->skipped, json_string(buf));
}

static const char *level_color(const char *level) {
    if (!level) return "#777777";
    if (!strcmp(level, "L1")) return "#d62728";
    if (!strcmp(level, "L2")) return "#ff7f0e";
    if (!strcmp(level, "L3")) return "#2ca02c";
    if (!strcmp(level, "L4")) return "#8c564b";
    return "#1f77b4"; /* DRAM */
}

/* The line colour of a compute ceiling of mix (FMA-only: black, the roof). */
static const char *mix_color(const char *mix) {
    if (!strcmp(mix, "fma")) return "#000000";
    if (!strcmp(mix, "fma+add")) return "#9467bd";
    if (!strcmp(mix, "add")) return "#e377c2";
    return "#7f7f7f"; /* scalar_fma and any other */
}

static const char *str_of(const json_t *o, const char *k, const char *dflt) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : dflt;
}

static int int_of(const json_t *o, const char *k) {
    double v = ns_json_get_num(o, k);
    return isfinite(v) ? (int)v : 0;
}

/* Writes s as a gnuplot single-quoted string (the shared quoting of harness/gnuplot.h). */
static void gp_str(FILE *f, const char *s) {
    ns_gnuplot_str(f, s);
}

/* Opens a new data file; its path is written to path. */
static FILE *data_file(plot_ctx *c, char *path, size_t len) {
    if (c->ndata >= MAX_DATA) return NULL;
    snprintf(path, len, "%s/d%d.dat", c->tmpdir, c->ndata++);
    return fopen(path, "w");
}

static void fmt_gbps(double v, char *buf, size_t len) {
    snprintf(buf, len, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
}

/* Adds the thread count of every entry of arr to the set t[0..*n), kept sorted: the highest
 * max counts (the all-thread one is the headline; roofline.notes names those left out). */
static void add_threads(const json_t *arr, int *t, int *n, int max) {
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        int v = int_of(e, "threads"), j;
        for (j = 0; j < *n && t[j] != v; j++) {
        }
        if (j < *n || v <= 0) continue;
        if (*n >= max) { /* full: v replaces the lowest when it is higher */
            if (v < t[0]) continue;
            for (j = 1; j < *n; j++)
                t[j - 1] = t[j];
            (*n)--;
        }
        for (j = (*n)++; j > 0 && t[j - 1] > v; j--)
            t[j] = t[j - 1];
        t[j] = v;
    }
}

/* Thread counts present in the compute and bandwidth roofs, ascending, at most max. */
static int roof_threads(const json_t *used, int *t, int max) {
    int n = 0;
    add_threads(json_object_get(used, "compute"), t, &n, max);
    add_threads(json_object_get(used, "bandwidth"), t, &n, max);
    return n;
}

/* 1 when compute ceiling e (of ceilings_used) is the FMA-only roof, drawn as the roof: its
 * "roof" flag also marks other mixes that are some kernel's roof (a sum's ADD-only one). */
static int fma_roof_entry(const json_t *e) {
    return json_is_true(json_object_get(e, "roof")) && !strcmp(str_of(e, "mix", ""), "fma");
}

static double fma_roof(const json_t *used, const char *prec, int threads) {
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(used, "compute"), i, e) {
        if (!strcmp(str_of(e, "precision", ""), prec) && int_of(e, "threads") == threads &&
            fma_roof_entry(e))
            return ns_json_get_num(e, "gflops");
    }
    return NAN;
}

/* The bandwidth roof of level at threads (GB/s, NAN if none); *suspect set from its flag,
 * *kernel to the kernel it was measured with. */
static double bw_roof(const json_t *used, const char *level, int threads, int *suspect,
                      const char **kernel) {
    size_t i;
    json_t *e;
    *suspect = 0;
    *kernel = "?";
    json_array_foreach(json_object_get(used, "bandwidth"), i, e) {
        if (!strcmp(str_of(e, "level", ""), level) && int_of(e, "threads") == threads) {
            *suspect = json_is_true(json_object_get(e, "suspect"));
            *kernel = str_of(e, "kernel", "?");
            return ns_json_get_num(e, "gbytes_per_s");
        }
    }
    return NAN;
}

/* A picture's size in px, both terminals: PIC_W wide, PIC_H high unless a long legend needs
 * more (body.height). */
#define PIC_W 1300
#define PIC_H 780

/* Begins a picture: its body is written to a memory stream, then emitted once per terminal. */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
    int height; /* px, both terminals (PIC_W wide); PIC_H unless a long legend needs more */
} body;

static void body_begin(body *b) {
    b->buf = NULL;
    b->len = 0;
    b->height = PIC_H;
    b->f = open_memstream(&b->buf, &b->len);
}

static int body_end(plot_ctx *c, body *b, const char *name) {
    if (!b->f) return -1;
    fclose(b->f);
    if (c->npics == MAX_PICS) {
        free(b->buf);
        return -1;
    }
    size_t len = strlen(c->dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (!path) {
        free(b->buf);
        return -1;
    }
    snprintf(path, len, "%s/%s", c->dir, name);
    c->pics[c->npics++] = path;
    FILE *s = c->script;
    fprintf(s,
            "\n# ---- %s\nreset\nset terminal svg size %d,%d dynamic noenhanced "
            "font 'sans,12' background rgb 'white'\nset output ",
            name, PIC_W, b->height);
    char out[4200];
    snprintf(out, sizeof out, "%s.svg.tmp", path);
    gp_str(s, out);
    fprintf(s, "\n%s\nset output\nreset\n", b->buf);
    fprintf(s,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %d,%d noenhanced font 'sans,10' background "
            "rgb 'white'\n} else {\n  set terminal png size %d,%d noenhanced\n}\n"
            "set output ",
            PIC_W, b->height, PIC_W, b->height);
    snprintf(out, sizeof out, "%s.png.tmp", path);
    gp_str(s, out);
    fprintf(s, "\n%s\nset output\n", b->buf);
    free(b->buf);
    return 0;
}

/* Index of a level in levels[] below; 5 (none) when unknown. */
static int level_index(const char *level);

/* Points of one precision into a data file: ai gflops threads number level-index measured-ai
 * ('?' when the counters gave none; *nmeasured counts the others). Returns the count. */
static int write_points(plot_ctx *c, const json_t *points, const char *prec, char *path, size_t len,
                        const json_t **kept, int maxkept, int *nmeasured) {
    FILE *f = data_file(c, path, len);
    if (!f) return -1;
    int n = 0;
    size_t i;
    json_t *p;
    json_array_foreach(points, i, p) {
        double ai = ns_json_get_num(p, "ai_flop_per_byte"), g = ns_json_get_num(p, "gflops");
        if (strcmp(str_of(p, "precision", ""), prec) || !(ai > 0) || !(g > 0) || n >= maxkept)
            continue;
        kept[n] = p;
        double mai = ns_json_get_num(p, "measured_ai_flop_per_byte");
        fprintf(f, "%.9g %.9g %d %d %d ", ai, g, int_of(p, "threads"), n + 1,
                level_index(str_of(p, "level", NULL)));
        fprintf(f, mai > 0 ? "%.9g\n" : "?\n", mai);
        *nmeasured += mai > 0;
        n++;
    }
    fclose(f);
    return n;
}

/* The short label of a point: its name, ISA and thread count. */
static void fmt_bytes(double b, char *buf, size_t len);

/* The short label of a point: name, ISA, GEMM shape or working set, thread count. */
static void point_label(const json_t *p, char *buf, size_t len) {
    const json_t *pa = json_object_get(p, "params");
    int m = int_of(pa, "m"), n = int_of(pa, "n"), k = int_of(pa, "k");
    char what[48] = "";
    if (m > 0 && n > 0 && k > 0 && m == n && n == k)
        snprintf(what, sizeof what, " n=%d", n);
    else if (m > 0 && n > 0 && k > 0)
        snprintf(what, sizeof what, " %dx%dx%d", m, n, k);
    else if (ns_json_get_num(p, "working_set_bytes") > 0)
        fmt_bytes(ns_json_get_num(p, "working_set_bytes"), what + 1, sizeof what - 1),
            what[0] = ' ';
    snprintf(buf, len, "%s %s%s t%d", str_of(p, "name", "?"), str_of(p, "isa", ""), what,
             int_of(p, "threads"));
}

static const char *levels[] = {"L1", "L2", "L3", "L4", "DRAM"};
#define NLEVELS 5

static int level_index(const char *level) {
    for (int i = 0; level && i < NLEVELS; i++)
        if (!strcmp(levels[i], level)) return i;
    return NLEVELS;
}

/* Where the point labels go. The pictures are PIC_W x H (both terminals; H = PIC_H unless the
 * kernel list needs more); the plot area of a roofline picture spans about 61..832 px across
 * and 47..H-52 px down; a label (font 9) is about 7 px a character and 12 px high, a point
 * marker about 14 px wide. */
#define PA_X0 61.0
#define PA_W 771.0
#define PA_Y0 52.0     /* from the bottom */
#define PA_YGAP 99.0   /* H minus the plot area's height */
#define MAX_POINTS 128 /* points drawn per picture; more are named in a note */
#define LBL_CW 7.0     /* px a character, font 9 or 10 (the sweep's ceiling labels) */
#define LBL_H 12.0
#define MARK_R 7.0
/* Rows of label places tried around a point (0: its corners; more where labels collide). */
#define LABEL_RINGS 8

typedef struct {
    double x0, x1, y0, y1;
} box;

static int boxes_meet(box a, box b) {
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/* How much a label on a label costs against a label on a point's marker (1): a roofline point's
 * number beside a pile of points may cover markers rather than another number; a ceiling's text
 * over another's cannot be read, so it covers any number of points first. */
#define POINT_LABEL_ON_LABEL 4
#define SWEEP_LABEL_ON_LABEL 100

/* The cost of a label at box b: weight for each label of placed[0..nplaced) it meets, 1 for each
 * marker of marks[0..nmarks) it meets but marks[skip] (its own point's; -1: none). The placers
 * take the place of least cost. */
static int place_label(box b, const box *placed, int nplaced, int weight, const box *marks,
                       int nmarks, int skip) {
    int hits = 0;
    for (int j = 0; j < nplaced; j++)
        hits += weight * boxes_meet(b, placed[j]);
    for (int j = 0; j < nmarks; j++)
        hits += j != skip && boxes_meet(b, marks[j]);
    return hits;
}

/* Labels each point with its number as `set label` commands: to the right of a filled point
 * (left of an open one) and above it, else the first of the other three corners where the
 * label meets no label placed before, none of avoid[0..navoid) (the ceilings' labels) and no
 * other point's marker; where none is free (a pile of points), the corner that meets the
 * fewest. */
static void point_labels(FILE *f, const json_t **kept, int np, int tmax, double xmin, double xmax,
                         double ymin, double ytop, int height, const box *avoid, int navoid) {
    const double PA_H = height - PA_YGAP;
    box placed[MAX_POINTS], mark[MAX_POINTS];
    double px[MAX_POINTS], py[MAX_POINTS];
    double lx = log(xmax / xmin), ly = log(ytop / ymin);
    for (int k = 0; k < np; k++) {
        px[k] = PA_X0 + PA_W * log(ns_json_get_num(kept[k], "ai_flop_per_byte") / xmin) / lx;
        py[k] = PA_Y0 + PA_H * log(ns_json_get_num(kept[k], "gflops") / ymin) / ly;
        mark[k] = (box){px[k] - MARK_R, px[k] + MARK_R, py[k] - MARK_R, py[k] + MARK_R};
    }
    for (int k = 0; k < np; k++) {
        char num[16];
        int w = snprintf(num, sizeof num, "%d", k + 1);
        int open = ns_json_get_num(kept[k], "threads") != tmax;
        /* Corners (x side, y side) in order of preference. */
        static const int corner[2][4][2] = {{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}},
                                            {{-1, 1}, {-1, -1}, {1, 1}, {1, -1}}};
        int best = 0, best_ring = 0, best_hits = 1 << 30;
        box bb = {0, 0, 0, 0};
        /* Ring 0: the corners next to the point. Where each of them lies on a label (points at
         * one spot: a kernel and its peer at the same AI and rate), the label moves out, a line
         * further up or down per ring, until it is clear. */
        for (int ring = 0; ring < LABEL_RINGS && best_hits >= 4; ring++)
            for (int c = 0; c < 4; c++) {
                int sx = corner[open][c][0], sy = corner[open][c][1];
                double x0 = sx > 0 ? px[k] + 0.8 * LBL_CW : px[k] - 0.8 * LBL_CW - w * LBL_CW;
                double yc = py[k] + sy * (0.5 + ring) * LBL_H;
                box b = {x0, x0 + w * LBL_CW, yc - LBL_H / 2, yc + LBL_H / 2};
                int hits = place_label(b, placed, k, POINT_LABEL_ON_LABEL, mark, np, k) +
                           place_label(b, avoid, navoid, POINT_LABEL_ON_LABEL, NULL, 0, -1);
                if (hits < best_hits) best = c, best_ring = ring, best_hits = hits, bb = b;
                if (!hits) break;
            }
        placed[k] = bb;
        int sx = corner[open][best][0], sy = corner[open][best][1];
        fprintf(f,
                "set label %d '%s' at first %.9g, first %.9g %s offset %.1f,%.1f font ',9' front\n",
                1000 + k, num, ns_json_get_num(kept[k], "ai_flop_per_byte"),
                ns_json_get_num(kept[k], "gflops"), sx > 0 ? "left" : "right", 0.8 * sx,
                (0.5 + best_ring) * sy);
    }
}

/* One roofline picture being drawn (roofline_picture): its roofs, its points, its axes and its
 * gnuplot script. */
typedef struct {
    plot_ctx *c;
    const json_t *sec, *used;
    const char *prec;
    int cache_aware;
    int tc[NS_ROOFLINE_DRAWN_THREAD_COUNTS]; /* the roofs' thread counts drawn, ascending */
    int nt, tmax;                            /* how many; the highest */
    const json_t *kept[MAX_POINTS]; /* the points drawn */
    int np, nmeasured;   /* how many; how many at a counter-measured AI too */
    char pts[4200];      /* their data file */
    double cmax;         /* the highest FMA-only roof */
    double xmin, xmax, ymin, ymax;
    body b;
    const json_t *ce[32]; /* the compute ceilings drawn */
    int nce;
    box avoid[32]; /* their labels, which the point numbers keep clear of */
    int nce_boxes;
    int first; /* nothing plotted yet */
} picture;

/* The separator before the next element of the plot command. */
static const char *plot_sep(picture *p) {
    if (p->first) {
        p->first = 0;
        return "";
    }
    return ", \\\n     ";
}

/* Axis ranges: a decade around the points and every ridge point. */
static void picture_axes(picture *p) {
    const json_t *sec = p->sec, *used = p->used;
    const char *prec = p->prec;
    const json_t *const *kept = p->kept;
    int np = p->np;
    double cmax = p->cmax;
    double xmin = 1.0 / 64, xmax = 64, ymin = INFINITY, ymax = cmax > 0 ? cmax : 0;
    for (int i = 0; i < np; i++) {
        double ai = ns_json_get_num(kept[i], "ai_flop_per_byte");
        double g = ns_json_get_num(kept[i], "gflops");
        xmin = fmin(xmin, ai / 2);
        xmax = fmax(xmax, ai * 2);
        ymin = fmin(ymin, g / 2);
        ymax = fmax(ymax, g);
    }
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(sec, "ridge_points"), i, e) {
        double r = ns_json_get_num(e, "ridge_flop_per_byte");
        if (r > 0 && !strcmp(str_of(e, "precision", ""), prec)) xmax = fmax(xmax, 4 * r);
    }
    json_array_foreach(json_object_get(used, "bandwidth"), i, e) {
        double b = ns_json_get_num(e, "gbytes_per_s");
        if (b > 0) ymin = fmin(ymin, b * xmin);
    }
    if (!isfinite(ymin) || ymin <= 0) ymin = ymax > 0 ? ymax / 1e4 : 0.01;
    if (!(ymax > 0)) ymax = 1;
    if (ymax * 3 < 100 * ymin) ymin = ymax * 3 / 100; /* two decades at least: log tics show */

    p->xmin = xmin, p->xmax = xmax, p->ymin = ymin, p->ymax = ymax;
}

/* The axes' settings, and the title with the thread count of each line style. */
static void picture_header(picture *p) {
    FILE *f = p->b.f;
    const json_t *sec = p->sec;
    const char *prec = p->prec;
    const int *tc = p->tc;
    int nt = p->nt, tmax = p->tmax, cache_aware = p->cache_aware;
    double xmin = p->xmin, xmax = p->xmax, ymin = p->ymin, ymax = p->ymax;
    fprintf(f, "set logscale xy 10\nset xrange [%g:%g]\nset yrange [%g:%g]\n", xmin, xmax, ymin,
            ymax * 3);
    fprintf(f, "set xlabel 'arithmetic intensity (FLOP/byte)'\nset ylabel 'GFLOP/s'\n"
               "set grid xtics ytics lc rgb '#e0e0e0'\nset rmargin at screen 0.64\n"
               "set key outside right bottom Right nobox font ',9' spacing 0.9\n"
               "set format x '%%g'\nset format y '%%g'\nmin(a,b) = a < b ? a : b\n"
               "set datafile missing '?'\n");
    /* The line style says the thread count, whatever the mix: solid at the highest, dashed at
     * fewer (drawn in the plain picture only), which the title names. */
    char styles[96] = "";
    if (!cache_aware && nt > 1) {
        int n = snprintf(styles, sizeof styles, " (solid: %d threads, dashed: ", tmax);
        for (int t = 0; t < nt - 1 && n > 0 && (size_t)n < sizeof styles; t++)
            n += snprintf(styles + n, sizeof styles - n, "%s%d", t ? ", " : "", tc[t]);
        if (n > 0 && (size_t)n < sizeof styles)
            snprintf(styles + n, sizeof styles - n, " thread%s)", nt > 2 || tc[0] != 1 ? "s" : "");
    }
    fprintf(f, "set title '%s roofline, %s precision, %s bytes%s'\n",
            cache_aware ? "Cache-aware" : "Empirical", !strcmp(prec, "dp") ? "double" : "single",
            str_of(sec, "bytes_policy", "?"), styles);
}

/* The kernel list right of the plot (every kernel of this precision, those without FLOPs
 * too); sets the picture's height to hold it. */
static void picture_legend(picture *p) {
    FILE *f = p->b.f;
    const json_t *sec = p->sec;
    const char *prec = p->prec;
    const json_t *const *kept = p->kept;
    int np = p->np;
    size_t i;
    json_t *e;
    /* The points' legend: number, kernel, fraction of its roof; top left, above the roofs.
     * Then the kernels without FLOPs (copy, load: no point on a FLOP/s axis), by name with
     * their fraction of the bandwidth roof, so that no kernel leaves the picture unsaid. */
    const json_t *zero[64];
    int nz = 0;
    json_array_foreach(json_object_get(sec, "points"), i, e) {
        if (!strcmp(str_of(e, "precision", ""), prec) && nz < 64 &&
            json_is_number(json_object_get(e, "ai_flop_per_byte")) &&
            ns_json_get_num(e, "ai_flop_per_byte") == 0)
            zero[nz++] = e;
    }
    /* Every kernel is listed: one line of LINE_PX each from the top, above the key (about
     * KEY_PX at the bottom right, outside the plot frame, its bottom level with the frame's);
     * the picture grows taller when the list needs it. */
    const double TOP_PX = 46.8, LINE_PX = 18.72, KEY_PX = 250;
    int ndrawable = 0; /* points of this precision, drawn or beyond MAX_POINTS */
    json_array_foreach(json_object_get(sec, "points"), i, e) {
        ndrawable += !strcmp(str_of(e, "precision", ""), prec) &&
                     ns_json_get_num(e, "ai_flop_per_byte") > 0 && ns_json_get_num(e, "gflops") > 0;
    }
    int nlist = np, nzlist = nz, lines = nlist + (nzlist ? nzlist + 1 : 0) + (ndrawable > np);
    double need = TOP_PX + LINE_PX * (lines + 1) + KEY_PX;
    p->b.height = need > PIC_H ? (int)ceil(need) : PIC_H;
    const double H = p->b.height;
#define LIST_Y(k) (1 - (TOP_PX + LINE_PX * (k)) / H) /* screen y of list line k */
    if (ndrawable > np)
        fprintf(f,
                "set label 98 '... and %d more kernels, not drawn: see roofline.points in "
                "results.json' at screen 0.655, screen %.4f font ',9'\n",
                ndrawable - np, LIST_Y(lines - 1));
    for (int k = 0; k < nlist; k++) {
        char l[160], line[240]; /* holds the longest: 11 + 159 + 15 + 37 bytes and the NUL */
        point_label(kept[k], l, sizeof l);
        double fr = ns_json_get_num(kept[k], "fraction_of_roof");
        /* Above the roof, or measured against a suspect one: said on the line. */
        int above = json_is_true(json_object_get(kept[k], "above_roof")),
            sus = json_is_true(json_object_get(kept[k], "roof_suspect"));
        char pc[16];
        ns_roofline_percent(fr, pc, sizeof pc);
        if (isfinite(fr))
            snprintf(line, sizeof line, "%d  %s: %s of roof%s%s%s", k + 1, l, pc,
                     above || sus ? " (" : "", above ? (sus ? "above it, " : "above it") : "",
                     sus     ? "roof suspect)"
                     : above ? ")"
                             : "");
        else
            snprintf(line, sizeof line, "%d  %s: no roof", k + 1, l);
        fprintf(f, "set label %d ", 100 + k);
        gp_str(f, line);
        fprintf(f, " at screen 0.655, screen %.4f font ',9' tc rgb '%s'\n", LIST_Y(k),
                level_color(str_of(kept[k], "level", NULL)));
    }
    if (nzlist)
        fprintf(
            f,
            "set label 97 'no FLOPs, so no point here (share of the bandwidth roof):' at screen "
            "0.655, screen %.4f font ',9'\n",
            LIST_Y(nlist));
    for (int k = 0; k < nzlist; k++) {
        char l[160], line[220];
        point_label(zero[k], l, sizeof l);
        double fr = ns_json_get_num(zero[k], "fraction_of_roof");
        const char *lim = str_of(zero[k], "roof_limit", "");
        const char *lv = !strncmp(lim, "bandwidth:", 10) ? lim + 10 : "";
        char pc[16];
        ns_roofline_percent(fr, pc, sizeof pc);
        if (isfinite(fr))
            snprintf(line, sizeof line, "-  %s: %s of %s%sroof", l, pc, lv,
                     *lv ? " bandwidth " : "bandwidth ");
        else
            snprintf(line, sizeof line, "-  %s: no roof", l);
        fprintf(f, "set label %d ", 100 + nlist + k);
        gp_str(f, line);
        fprintf(f, " at screen 0.655, screen %.4f font ',9' tc rgb '%s'\n", LIST_Y(nlist + 1 + k),
                level_color(str_of(zero[k], "level", NULL)));
    }
    if (np || nz)
        fprintf(f,
                "set label 99 'kernels (colour: level of the working set)' at screen 0.655, "
                "screen %.4f font ',10'\n",
                1 - 27.3 / H);
#undef LIST_Y
}

/* The compute ceilings drawn: the FMA-only roof at every thread count of the plain picture
 * (the highest only in the cache-aware one), and every other mix at the highest thread
 * count in both: a point's own roof may be one of them (the ADD-only roof of a sum). Each
 * is labelled at the right end of its line with its mix and GFLOP/s, the labels pushed
 * apart where lines lie close. */
static void compute_roof_labels(picture *p) {
    FILE *f = p->b.f;
    const json_t *used = p->used;
    const char *prec = p->prec;
    const json_t *const *kept = p->kept;
    const int *tc = p->tc;
    int np = p->np, nt = p->nt, tmax = p->tmax, cache_aware = p->cache_aware;
    double xmin = p->xmin, xmax = p->xmax, ymin = p->ymin, ymax = p->ymax;
    size_t i;
    json_t *e;
    const json_t **ce = p->ce;
    box *avoid = p->avoid; /* their labels, which the point numbers keep clear of */
    int nce = 0, nce_boxes = 0;
    for (int t = nt - 1; t >= 0; t--) {
        if (cache_aware && tc[t] != tmax) continue;
        json_array_foreach(json_object_get(used, "compute"), i, e) {
            if (strcmp(str_of(e, "precision", ""), prec) || int_of(e, "threads") != tc[t]) continue;
            int roof = fma_roof_entry(e);
            if ((roof || tc[t] == tmax) && ns_json_get_num(e, "gflops") > 0 && nce < 32)
                ce[nce++] = e;
        }
    }
    {
        const double PA_H = p->b.height - PA_YGAP, ly = log(ymax * 3 / ymin);
        double line[32], ypx[32];
        for (int k = 0; k < nce; k++)
            line[k] = PA_Y0 + PA_H * log(ns_json_get_num(ce[k], "gflops") / ymin) / ly;
        /* Lowest line first: its label above the line, else below where another line lies
         * just above (a line through the label), else above and pushed up past the labels
         * placed before. */
        int done[32] = {0};
        for (int n = 0; n < nce; n++) {
            int k = -1;
            for (int j = 0; j < nce; j++)
                if (!done[j] && (k < 0 || line[j] < line[k])) k = j;
            done[k] = 1;
            double best = NAN;
            for (int side = 1; side >= -1 && isnan(best); side -= 2) {
                double y = line[k] + side * (LBL_H / 2 + 1);
                int hit = 0;
                for (int j = 0; j < nce; j++)
                    hit |= j != k && fabs(line[j] - y) < LBL_H / 2 + 1;
                for (int j = 0; j < nce; j++)
                    hit |= j != k && done[j] && fabs(ypx[j] - y) < LBL_H;
                if (!hit) best = y;
            }
            if (isnan(best)) {
                best = line[k] + LBL_H / 2 + 1;
                for (int j = 0; j < nce; j++)
                    if (j != k && done[j] && fabs(ypx[j] - best) < LBL_H) best = ypx[j] + LBL_H;
            }
            ypx[k] = best;
        }
        for (int k = 0; k < nce; k++) {
            char l[96], th[32] = "";
            if (int_of(ce[k], "threads") != tmax)
                snprintf(th, sizeof th, ", %d thr", int_of(ce[k], "threads"));
            snprintf(l, sizeof l, "%s %.4g GFLOP/s%s%s", str_of(ce[k], "mix", "?"),
                     ns_json_get_num(ce[k], "gflops"), th,
                     json_is_true(json_object_get(ce[k], "suspect")) ? " (suspect)" : "");
            /* At the right end, or moved left of the point markers it would cover. */
            double w = LBL_CW * (double)strlen(l), xr = PA_X0 + PA_W * 0.995;
            box lb = {xr - w, xr, ypx[k] - LBL_H / 2, ypx[k] + LBL_H / 2};
            for (int moved = 1, guard = 0; moved && guard < MAX_POINTS; guard++) {
                moved = 0;
                for (int j = 0; j < np; j++) {
                    double mx =
                        PA_X0 + PA_W * log(ns_json_get_num(kept[j], "ai_flop_per_byte") / xmin) /
                                    log(xmax / xmin);
                    double my = PA_Y0 + PA_H * log(ns_json_get_num(kept[j], "gflops") / ymin) / ly;
                    box mk = {mx - MARK_R, mx + MARK_R, my - MARK_R, my + MARK_R};
                    if (boxes_meet(lb, mk) && mk.x0 - w > PA_X0) {
                        lb.x1 = mk.x0 - 2, lb.x0 = lb.x1 - w;
                        moved = 1;
                    }
                }
            }
            avoid[nce_boxes++] = lb;
            fprintf(f, "set label %d ", 900 + k);
            gp_str(f, l);
            fprintf(f, " at graph %.4f, screen %.4f right font ',9' tc rgb '%s' front\n",
                    (lb.x1 - PA_X0) / PA_W, ypx[k] / p->b.height,
                    mix_color(str_of(ce[k], "mix", "")));
        }
    }
    p->nce = nce, p->nce_boxes = nce_boxes;
}

/* The roofs in the plot command: the DRAM roof at each thread count (cache-aware: every
 * level's at the highest), and the compute ceilings drawn. */
static void plot_roof_lines(picture *p) {
    FILE *f = p->b.f;
    const json_t *used = p->used;
    const char *prec = p->prec;
    const int *tc = p->tc;
    int nt = p->nt, tmax = p->tmax, cache_aware = p->cache_aware, nce = p->nce;
    const json_t *const *ce = p->ce;
    double ymax = p->ymax;
    const json_t *e;
    for (int t = nt - 1; t >= 0; t--) {
        if (cache_aware && tc[t] != tmax) continue;
        double cg = fma_roof(used, prec, tc[t]);
        for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
            if (!cache_aware && strcmp(levels[l], "DRAM")) continue;
            int suspect;
            const char *kern;
            double bw = bw_roof(used, levels[l], tc[t], &suspect, &kern);
            if (!(bw > 0)) continue;
            char g[32];
            fmt_gbps(bw, g, sizeof g);
            fprintf(f, "%smin(%.9g, %.9g*x) w l lw %d dt %d lc rgb '%s' title ", plot_sep(p),
                    cg > 0 ? cg : ymax * 3, bw, tc[t] == tmax ? 2 : 1, tc[t] == tmax ? 1 : 2,
                    level_color(levels[l]));
            char title[160];
            snprintf(title, sizeof title, "%s %s GB/s (%s), %d thr%s", levels[l], g, kern, tc[t],
                     suspect ? " (suspect)" : "");
            gp_str(f, title);
        }
        /* Compute ceilings: the FMA-only roof (black, thicker), and each other mix in its own
         * colour, so that no mixed ceiling is mistaken for the roof or for another mix; the
         * dash is the thread count's (solid: the highest, dashed: fewer), as the title says. */
        for (int k = 0; k < nce; k++) {
            e = ce[k];
            if (int_of(e, "threads") != tc[t]) continue;
            int roof = fma_roof_entry(e);
            const char *mix = str_of(e, "mix", "?");
            double g = ns_json_get_num(e, "gflops"), fq = ns_json_get_num(e, "freq_ghz");
            char fqs[32] = "", title[160];
            if (fq > 0) snprintf(fqs, sizeof fqs, " at %.2f GHz", fq);
            snprintf(title, sizeof title, "%s %s: %.4g GFLOP/s%s, %d thr%s", mix,
                     str_of(e, "isa", ""), g, fqs, tc[t],
                     json_is_true(json_object_get(e, "suspect")) ? " (suspect)" : "");
            fprintf(f, "%s%.9g w l lw %g dt %s lc rgb '%s' title ", plot_sep(p), g, roof ? 2 : 1.5,
                    tc[t] == tmax ? "1" : "2", mix_color(mix));
            gp_str(f, title);
        }
    }
}

/* Points at the highest thread count and at fewer; their numbers are set labels
 * (point_labels), placed apart. */
static void plot_points(picture *p) {
    FILE *f = p->b.f;
    const json_t *const *kept = p->kept;
    int np = p->np, tmax = p->tmax;
    if (np <= 0) return;
    /* Filled: the highest thread count; open: fewer threads (compared with their own
     * roofs, listed in results.json). Colour: the level the working set lives in. */
    for (int l = 0; l <= NLEVELS; l++)
        for (int filled = 1; filled >= 0; filled--) {
            fprintf(f, "%s", plot_sep(p));
            gp_str(f, p->pts);
            fprintf(f,
                    " u 1:(($3%s%d && $5==%d) ? $2 : 1/0) w p pt %d ps 1.4 lw 2 "
                    "lc rgb '%s' notitle",
                    filled ? "==" : "!=", tmax, l, filled ? 7 : 6,
                    level_color(l < NLEVELS ? levels[l] : NULL));
        }
    if (p->nmeasured) { /* the same kernels at their counter-measured AI */
        fprintf(f, "%s", plot_sep(p));
        gp_str(f, p->pts);
        fprintf(f, " u 6:2 w p pt 2 ps 1.2 lw 1.5 lc rgb '#444444' "
                   "title 'at measured AI (counters)'");
    }
    fprintf(f, "%sNaN w p pt 7 ps 1.4 lc rgb '#444444' title 'kernel, %d thr'", plot_sep(p), tmax);
    int fewer = 0;
    for (int k = 0; k < np; k++)
        fewer |= int_of(kept[k], "threads") != tmax;
    if (fewer)
        fprintf(f, "%sNaN w p pt 6 ps 1.4 lw 2 lc rgb '#444444' title 'kernel, fewer thr'",
                plot_sep(p));
    /* The key of the colours: one entry per level a point's working set lives in. */
    for (int l = 0; l <= NLEVELS; l++) {
        int any = 0;
        for (int k = 0; k < np && !any; k++)
            any = level_index(str_of(kept[k], "level", NULL)) == l;
        if (any)
            fprintf(f, "%sNaN w p pt 7 ps 1.4 lc rgb '%s' title '%s%s'", plot_sep(p),
                    level_color(l < NLEVELS ? levels[l] : NULL),
                    l < NLEVELS ? "working set in " : "level unknown",
                    l < NLEVELS ? levels[l] : "");
    }
}

/* One roofline picture of precision prec. cache_aware: one slanted roof per level at the
 * highest thread count; else the DRAM roof at every thread count and every compute mix. */
static int roofline_picture(plot_ctx *c, const json_t *sec, const char *prec, int cache_aware) {
    picture *p = calloc(1, sizeof *p);
    if (!p) return -1;
    p->c = c, p->sec = sec, p->prec = prec, p->cache_aware = cache_aware, p->first = 1;
    const json_t *used = p->used = json_object_get(sec, "ceilings_used");
    p->nt = roof_threads(used, p->tc, NS_ROOFLINE_DRAWN_THREAD_COUNTS);
    p->nmeasured = 0;
    p->np = write_points(c, json_object_get(sec, "points"), prec, p->pts, sizeof p->pts, p->kept,
                         MAX_POINTS, &p->nmeasured);
    int rc = -1;
    char name[64];
    snprintf(name, sizeof name, "roofline%s_%s", cache_aware ? "_cache_aware" : "", prec);
    if (p->np < 0) goto out;
    p->tmax = p->nt ? p->tc[p->nt - 1] : 1;
    p->cmax = 0;
    for (int t = 0; t < p->nt; t++)
        p->cmax = fmax(p->cmax, fma_roof(used, prec, p->tc[t]));
    if (p->np == 0 && !(p->cmax > 0)) { /* nothing of this precision */
        skip(c, name, "no compute ceiling and no kernel with a positive AI and GFLOP/s");
        rc = 0;
        goto out;
    }
    picture_axes(p);
    body_begin(&p->b);
    FILE *f = p->b.f;
    if (!f) goto out;
    picture_header(p);
    picture_legend(p);
    compute_roof_labels(p);
    point_labels(f, p->kept, p->np, p->tmax, p->xmin, p->xmax, p->ymin, p->ymax * 3, p->b.height,
                 p->avoid, p->nce_boxes);
    fprintf(f, "plot ");
    plot_roof_lines(p);
    plot_points(p);
    if (p->first) fprintf(f, "1/0 notitle");
    fprintf(f, "\n");
    rc = body_end(c, &p->b, name);
out:
    free(p);
    return rc;
}

/* A byte count as every output prints it (ns_format_bytes): "48 KiB", "1.17 GiB", "1008 KiB",
 * never an exponent. */
static void fmt_bytes(double b, char *buf, size_t len) {
    ns_format_bytes(buf, len, b);
}

/* A sweep point the picture can draw: positive working set and bandwidth, threads. */
static int sweep_point_ok(const json_t *x) {
    return ns_json_get_num(x, "working_set_bytes") > 0 && ns_json_get_num(x, "gbytes_per_s") > 0 &&
           isfinite(ns_json_get_num(x, "gbytes_per_s")) && int_of(x, "threads") > 0;
}

/* The curves of the sweep picture: one per (kernel, ISA, precision), numbered in the order of
 * their first valid point, the same in every panel; a curve and its ceiling bars share a colour. */
static const char *curve_colors[] = {"#9400d3", "#009e73", "#56b4e9", "#e69f00",
                                     "#0072b2", "#d55e00", "#cc79a7", "#000000"};
#define NCURVE_COLORS 8

static int same_curve(const json_t *a, const json_t *b) {
    return !strcmp(str_of(a, "kernel", "?"), str_of(b, "kernel", "?")) &&
           !strcmp(str_of(a, "isa", ""), str_of(b, "isa", "")) &&
           !strcmp(str_of(a, "precision", ""), str_of(b, "precision", ""));
}

/* 1 when sweep[i] is a drawable point (sweep_point_ok) at `threads` (at any count when threads is
 * 0) and no earlier such point is of its curve: each curve once, at its first point. */
static int first_point_of_curve(const json_t *sweep, size_t i, int threads) {
    const json_t *e = json_array_get(sweep, i), *x;
    if (!sweep_point_ok(e) || (threads && int_of(e, "threads") != threads)) return 0;
    size_t j;
    json_array_foreach(sweep, j, x) {
        if (j >= i) break;
        if ((!threads || int_of(x, "threads") == threads) && sweep_point_ok(x) && same_curve(x, e))
            return 0;
    }
    return 1;
}

/* The number of x's curve (kernel, ISA, precision) in the sweep; -1 when it has none. */
static int curve_of(const json_t *sweep, const json_t *x) {
    int n = 0;
    size_t i;
    json_t *e;
    json_array_foreach(sweep, i, e) {
        if (!first_point_of_curve(sweep, i, 0)) continue;
        if (same_curve(e, x)) return n;
        n++;
    }
    return -1;
}

static const char *curve_color(int k) {
    return k < 0 ? "#777777" : curve_colors[k % NCURVE_COLORS];
}

/* v on a log axis from lo to hi spanning span px: its px from the axis's start. */
static double axis_px(double v, double lo, double hi, double span) {
    return span * log(v / lo) / log(hi / lo);
}

/* A ceiling's label in a sweep panel: its text, where gnuplot anchors it, and its box in px
 * from the plot area's bottom left (LBL_CW a character, as point_labels sizes its labels). */
typedef struct {
    char text[160];
    char at[128];
    box b;
    const char *color;
} sweep_label;

#define SWEEP_LABELS 32   /* ceiling labels drawn per panel; more are named in a note */
#define SWEEP_LBL_H 14.0  /* px per line, font 10 */
#define SWEEP_LBL_LIFT 4  /* lines a label may move up to clear labels and points */
#define SWEEP_MARK_R 3.0  /* half a sweep point's marker (pt 7 ps 0.5), px */

/* Writes the ceilings' labels, lowest rate first, each moved up a line at a time (at most
 * SWEEP_LBL_LIFT, never out of the panel's height) while it meets a label written before it or
 * one of the sweep points' markers marks[0..nmarks): a DRAM label centred over a wide "last
 * points" bar was drawn across the L3 label beside it, an L1 label over another curve's points
 * (roofline_sweep_labels.sh). Where no place is clear, the lift that place_label scores lowest
 * (SWEEP_LABEL_ON_LABEL). */
static void sweep_labels_write(FILE *f, sweep_label *lb, int n, int *nl, const box *marks,
                               int nmarks, double height) {
    for (int i = 1; i < n; i++) /* insertion sort by height: a handful of labels */
        for (int j = i; j > 0 && lb[j].b.y0 < lb[j - 1].b.y0; j--) {
            sweep_label t = lb[j];
            lb[j] = lb[j - 1], lb[j - 1] = t;
        }
    box placed[SWEEP_LABELS];
    for (int i = 0; i < n; i++) {
        int best = 0, best_hits = INT_MAX;
        for (int lift = 0; lift <= SWEEP_LBL_LIFT && best_hits; lift++) {
            box b = lb[i].b;
            b.y0 += lift * SWEEP_LBL_H, b.y1 += lift * SWEEP_LBL_H;
            if (lift && b.y1 > height) break;
            int hits = place_label(b, placed, i, SWEEP_LABEL_ON_LABEL, marks, nmarks, -1);
            if (hits < best_hits) best = lift, best_hits = hits;
        }
        lb[i].b.y0 += best * SWEEP_LBL_H, lb[i].b.y1 += best * SWEEP_LBL_H;
        placed[i] = lb[i].b;
        fprintf(f, "set label %d ", ++*nl);
        gp_str(f, lb[i].text);
        /* The lift in graph units, as the boxes count it (a character unit is the terminal's
         * font's line: other in the SVG and the PNG). */
        fprintf(f, " %s offset graph 0,%.4f font ',10' tc rgb '%s' front\n", lb[i].at,
                (0.9 + best) * SWEEP_LBL_H / height, lb[i].color);
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The ranges every panel shares (x0..x1, y0..y1) and a panel's plot area across and up (px). */
typedef struct {
    double x0, x1, y0, y1, width, height;
} panel_axes;

/* The data of a sweep panel as boxes in px from the plot area's bottom left, computed as the
 * labels' boxes are: each point's marker at `threads`, and the line between a curve's
 * neighbouring points (gnuplot's `smooth unique` joins them in working-set order) as markers
 * every SWEEP_MARK_R px. Into *out (malloc'ed; free it); returns their number (0 when out of
 * memory). */
static int sweep_marks(const json_t *sweep, int threads, const panel_axes *ax, box **out) {
    size_t n = json_array_size(sweep), i, j, cap = n + 1, nm = 0;
    double *pt = malloc(2 * (n + 1) * sizeof *pt);
    box *m = malloc(cap * sizeof *m);
    const json_t *e, *x;
    json_array_foreach(sweep, i, e) {
        if (!pt || !m || !first_point_of_curve(sweep, i, threads)) continue;
        size_t np = 0;
        json_array_foreach(sweep, j, x) {
            if (int_of(x, "threads") != threads || !sweep_point_ok(x) || !same_curve(x, e))
                continue;
            pt[2 * np] =
                axis_px(ns_json_get_num(x, "working_set_bytes"), ax->x0, ax->x1, ax->width);
            pt[2 * np + 1] =
                axis_px(ns_json_get_num(x, "gbytes_per_s"), ax->y0, ax->y1, ax->height);
            np++;
        }
        qsort(pt, np, 2 * sizeof *pt, cmp_double); /* by x: pairs sort by their first double */
        for (size_t k = 0; k < np && m; k++) {
            double dx = k ? pt[2 * k] - pt[2 * k - 2] : 0,
                   dy = k ? pt[2 * k + 1] - pt[2 * k - 1] : 0;
            int steps = (int)ceil(sqrt(dx * dx + dy * dy) / SWEEP_MARK_R);
            if (steps < 1) steps = 1;
            if (nm + (size_t)steps >= cap) {
                cap = 2 * (nm + (size_t)steps);
                box *g = realloc(m, cap * sizeof *m);
                if (!g) free(m);
                m = g;
                if (!m) break;
            }
            for (int s = 0; s < steps; s++) { /* the marker, then the line back to the last */
                double px = pt[2 * k] - dx * s / steps, py = pt[2 * k + 1] - dy * s / steps;
                m[nm++] = (box){px - SWEEP_MARK_R, px + SWEEP_MARK_R, py - SWEEP_MARK_R,
                                py + SWEEP_MARK_R};
            }
        }
    }
    free(pt);
    *out = m;
    return m ? (int)nm : 0;
}

/* The aggregate cache capacities at `threads` as dashed verticals, each labelled at the top
 * beside (left of) its line, not on it (the bars and their labels are below, the key bottom
 * left), and 4x the last level's, where DRAM working sets begin. Labels from *nl + 1 on. */
static void capacity_lines(FILE *f, const json_t *sec, int threads, int *nl) {
    size_t i;
    json_t *e;
    double llc = NAN;
    json_array_foreach(json_object_get(sec, "cache_capacity"), i, e) {
        if (int_of(e, "threads") != threads) continue;
        double cap = ns_json_get_num(e, "aggregate_bytes");
        if (!(cap > 0)) continue;
        const char *lv = str_of(e, "level", "?");
        char sz[32], l[64];
        fmt_bytes(cap, sz, sizeof sz);
        snprintf(l, sizeof l, "%s %s", lv, sz);
        fprintf(f, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lc rgb '%s'\n", cap,
                cap, level_color(lv));
        fprintf(f, "set label %d ", ++*nl);
        gp_str(f, l);
        fprintf(f, " at %.9g, graph 0.985 rotate by 90 right offset -1.3,0 font ',9' tc rgb '%s'\n",
                cap, level_color(lv));
        llc = cap; /* levels come in increasing order */
    }
    if (llc > 0) {
        fprintf(f, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 3 lc rgb '#1f77b4'\n",
                4 * llc, 4 * llc);
        fprintf(f,
                "set label %d '4x LLC' at %.9g, graph 0.985 rotate by 90 right offset -1.3,0 "
                "font ',9' tc rgb '#1f77b4'\n",
                ++*nl, 4 * llc);
    }
}

/* The data files of a panel's ceiling bars: one per colour (NCURVE_COLORS: grey, a ceiling of no
 * curve) and kind (0: a detected plateau; 1: no plateau), and how many bars each holds. */
typedef struct {
    char path[NCURVE_COLORS + 1][2][4200];
    int n[NCURVE_COLORS + 1][2];
} bar_files;

/* The label of ceiling e (level lv, bw GB/s over lo..hi, of curve cv) into *l: centred over its
 * bar, but kept inside the plot area: a label that would cross an edge is anchored at that
 * edge. */
static void ceiling_label(sweep_label *l, const json_t *e, const char *lv, double lo, double hi,
                          double bw, int cv, const panel_axes *ax) {
    char g[32];
    fmt_gbps(bw, g, sizeof g);
    /* Short, to cover little: the bar's style says plateau or not (the key). */
    snprintf(l->text, sizeof l->text, "%s %s GB/s, %s%s", lv, g, str_of(e, "kernel", "?"),
             json_is_true(json_object_get(e, "suspect")) ? " (suspect)" : "");
    double len = LBL_CW * (double)strlen(l->text);
    double mid = axis_px(sqrt(lo * hi), ax->x0, ax->x1, ax->width);
    double left = mid - len / 2;
    if (left < 0.01 * ax->width) {
        left = 0.01 * ax->width;
        snprintf(l->at, sizeof l->at, "at graph 0.01, first %.9g left", bw);
    } else if (left + len > 0.99 * ax->width) {
        left = 0.99 * ax->width - len;
        snprintf(l->at, sizeof l->at, "at graph 0.99, first %.9g right", bw);
    } else {
        snprintf(l->at, sizeof l->at, "at %.9g, %.9g center", sqrt(lo * hi), bw);
    }
    double base = axis_px(bw, ax->y0, ax->y1, ax->height) + 0.4 * SWEEP_LBL_H;
    l->b = (box){left, left + len, base, base + SWEEP_LBL_H};
    l->color = curve_color(cv);
}

/* Bandwidth ceilings at `threads`: translucent bars in the colour of the curve they were taken
 * from, over the working sets they span, into the data files of *bars (kind 0: a detected
 * plateau; kind 1: no plateau, the median of the points inside the level or the last points: a
 * thin dashed bar); labelled with level, GB/s and kernel when they are the roof of their level
 * (at most SWEEP_LABELS, then a note says how many more), apart from each other and from the
 * curves' points. Labels from *nl + 1 on. 0, or -1 when a data file cannot be written. */
static int ceiling_bars_and_labels(plot_ctx *c, FILE *f, const json_t *root, int threads,
                                   const panel_axes *ax, bar_files *bars, int *nl) {
    const json_t *sec = json_object_get(root, "roofline");
    const json_t *sweep = json_object_get(root, "sweep");
    FILE *sf[NCURVE_COLORS + 1][2];
    memset(bars->n, 0, sizeof bars->n);
    for (int l = 0; l <= NCURVE_COLORS; l++)
        for (int k = 0; k < 2; k++)
            if (!(sf[l][k] = data_file(c, bars->path[l][k], sizeof bars->path[l][k]))) {
                for (int m = 0; m < 2 * l + k; m++)
                    fclose(sf[m / 2][m % 2]);
                return -1;
            }
    const json_t *used = json_object_get(json_object_get(sec, "ceilings_used"), "bandwidth");
    sweep_label lb[SWEEP_LABELS];
    int nlb = 0, ndropped = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(json_object_get(root, "ceilings"), "bandwidth"), i, e) {
        double lo = ns_json_get_num(e, "working_set_min_bytes");
        double hi = ns_json_get_num(e, "working_set_max_bytes");
        double bw = ns_json_get_num(e, "gbytes_per_s");
        if (int_of(e, "threads") != threads || !(lo > 0) || !(hi > 0) || !(bw > 0)) continue;
        if (lo == hi) lo /= 1.2, hi *= 1.2; /* one working set (source "kernel phase"): a tick */
        const char *lv = str_of(e, "level", "?");
        int cv = curve_of(sweep, e);
        int ci = cv >= 0 ? cv % NCURVE_COLORS : NCURVE_COLORS; /* one file per colour */
        int kind = strcmp(str_of(e, "source", "plateau"), "plateau") != 0;
        fprintf(sf[ci][kind], "%.9g %.9g\n%.9g %.9g\n\n", lo, bw, hi, bw);
        bars->n[ci][kind]++;
        size_t j;
        json_t *u;
        json_array_foreach(used, j, u) {
            if (int_of(u, "threads") == threads && !strcmp(str_of(u, "level", ""), lv) &&
                !strcmp(str_of(u, "kernel", ""), str_of(e, "kernel", "")) &&
                fabs(ns_json_get_num(u, "gbytes_per_s") - bw) <= 1e-9 * bw) {
                if (nlb < SWEEP_LABELS)
                    ceiling_label(&lb[nlb++], e, lv, lo, hi, bw, cv, ax);
                else
                    ndropped++;
            }
        }
    }
    for (int l = 0; l <= NCURVE_COLORS; l++)
        for (int k = 0; k < 2; k++)
            fclose(sf[l][k]);
    box *marks = NULL;
    int nmarks = sweep_marks(sweep, threads, ax, &marks);
    sweep_labels_write(f, lb, nlb, nl, marks, nmarks, ax->height);
    free(marks);
    if (ndropped)
        fprintf(f,
                "set label %d '... and %d more ceiling label%s, not drawn: see "
                "roofline.ceilings_used in results.json' at graph 0.01, graph 0.96 left "
                "font ',9' front\n",
                ++*nl, ndropped, ndropped == 1 ? "" : "s");
    return 0;
}

/* The plot command's curves: one data file per curve (kernel, ISA, precision) at `threads`.
 * *first: no plot element written yet (cleared when one is). 0, or -1 when a data file cannot
 * be written. */
static int curve_plots(plot_ctx *c, FILE *f, const json_t *sweep, int threads, int *first) {
    size_t i;
    json_t *e;
    json_array_foreach(sweep, i, e) {
        if (!first_point_of_curve(sweep, i, threads)) continue;
        char path[4200];
        FILE *df = data_file(c, path, sizeof path);
        if (!df) return -1;
        size_t j;
        json_t *x;
        json_array_foreach(sweep, j, x) {
            double ws = ns_json_get_num(x, "working_set_bytes");
            double bw = ns_json_get_num(x, "gbytes_per_s");
            if (int_of(x, "threads") == threads && same_curve(x, e) && sweep_point_ok(x))
                fprintf(df, "%.9g %.9g\n", ws, bw);
        }
        fclose(df);
        char title[128];
        snprintf(title, sizeof title, "%s %s %s", str_of(e, "kernel", "?"), str_of(e, "isa", ""),
                 str_of(e, "precision", ""));
        fprintf(f, "%s", *first ? "" : ", \\\n     ");
        *first = 0;
        gp_str(f, path);
        fprintf(f, " u 1:2 smooth unique w lp pt 7 ps 0.5 lw 1.5 lc rgb '%s' title ",
                curve_color(curve_of(sweep, e)));
        gp_str(f, title);
    }
    return 0;
}

/* The plot command's ceiling bars (the data files of bars) and, for each kind drawn, a key
 * entry saying which bar is which; ends the command (an empty plot when nothing was drawn).
 * first: no plot element written yet. */
static void bar_keys(FILE *f, const bar_files *bars, int first) {
    int kinds[2] = {0, 0};
    for (int l = 0; l <= NCURVE_COLORS; l++)
        for (int k = 0; k < 2; k++) {
            if (!bars->n[l][k]) continue;
            kinds[k] = 1;
            fprintf(f, "%s", first ? "" : ", \\\n     ");
            first = 0;
            gp_str(f, bars->path[l][k]);
            /* ARGB: 0x60 alpha keeps the curve visible under the bar. */
            fprintf(f, " u 1:2 w l %s lc rgb '#60%s' notitle", k ? "lw 4 dt (6,4)" : "lw 8",
                    curve_color(l < NCURVE_COLORS ? l : -1) + 1);
        }
    if (kinds[0])
        fprintf(f, "%sNaN w l lw 8 lc rgb '#60777777' title 'plateau found (colour: its curve)'",
                first ? "" : ", \\\n     ");
    if (kinds[1])
        fprintf(f,
                "%sNaN w l lw 4 dt (6,4) lc rgb '#60777777' title 'no plateau: median of the "
                "level (or last) points'",
                first && !kinds[0] ? "" : ", \\\n     ");
    if (kinds[0] || kinds[1]) first = 0;
    if (first) fprintf(f, "1/0 notitle");
    fprintf(f, "\n");
}

/* One panel of the sweep picture: every curve at `threads`, the bandwidth ceilings as thick
 * segments over their working-set range in their curve's colour, and the aggregate cache
 * capacities as vertical lines; ax: the ranges every panel shares and a panel's plot area (px),
 * to keep the labels inside it and apart. */
static int sweep_panel(plot_ctx *c, FILE *f, const json_t *root, int threads,
                       const panel_axes *ax) {
    fprintf(f, "unset label\nunset arrow\nset title '%d thread%s'\n", threads,
            threads == 1 ? "" : "s");
    int nl = 0, first = 1;
    capacity_lines(f, json_object_get(root, "roofline"), threads, &nl);
    bar_files *bars = malloc(sizeof *bars);
    if (!bars || ceiling_bars_and_labels(c, f, root, threads, ax, bars, &nl) != 0) {
        free(bars);
        return -1;
    }
    fprintf(f, "plot ");
    int rc = curve_plots(c, f, json_object_get(root, "sweep"), threads, &first);
    if (rc == 0) bar_keys(f, bars, first);
    free(bars);
    return rc;
}

static int sweep_picture(plot_ctx *c, const json_t *root) {
    const json_t *sweep = json_object_get(root, "sweep");
    int tc[NS_ROOFLINE_SWEEP_PANELS], nt = 0;
    /* Panels only for thread counts with a drawable point: gnuplot fails on a panel whose
     * data are all invalid, and the builder ignored those points too. */
    json_t *valid = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(sweep, i, e) {
        if (sweep_point_ok(e)) json_array_append(valid, e);
    }
    add_threads(valid, tc, &nt, NS_ROOFLINE_SWEEP_PANELS);
    json_decref(valid);
    if (nt == 0) {
        skip(c, "bandwidth_vs_working_set",
             json_array_size(sweep) ? "no sweep point with a working set and a finite positive "
                                      "bandwidth"
                                    : "no sweep in the results");
        return 0;
    }
    /* One x and one y range for every panel, so that panels side by side compare: the points,
     * the ceilings' bars and the 4x-LLC mark; room above for the capacity labels. */
    double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;
    json_array_foreach(sweep, i, e) {
        if (!sweep_point_ok(e)) continue;
        double ws = ns_json_get_num(e, "working_set_bytes"),
               bw = ns_json_get_num(e, "gbytes_per_s");
        x0 = fmin(x0, ws), x1 = fmax(x1, ws), y0 = fmin(y0, bw), y1 = fmax(y1, bw);
    }
    const json_t *sec = json_object_get(root, "roofline");
    json_array_foreach(json_object_get(json_object_get(root, "ceilings"), "bandwidth"), i, e) {
        double bw = ns_json_get_num(e, "gbytes_per_s");
        double lo = ns_json_get_num(e, "working_set_min_bytes");
        double hi = ns_json_get_num(e, "working_set_max_bytes");
        if (!(bw > 0) || !isfinite(bw) || !(lo > 0) || !(hi > 0)) continue;
        y0 = fmin(y0, bw), y1 = fmax(y1, bw), x0 = fmin(x0, lo / 1.2), x1 = fmax(x1, hi * 1.2);
    }
    json_array_foreach(json_object_get(sec, "cache_capacity"), i, e) {
        double cap = ns_json_get_num(e, "aggregate_bytes");
        if (cap > 0 && isfinite(cap)) x1 = fmax(x1, 4 * cap);
    }
    x0 /= 1.5, x1 *= 1.5, y0 /= 2, y1 *= 3.5;
    /* A panel's plot area across and up (px, below the multiplot title). */
    const panel_axes ax = {x0, x1, y0, y1, (double)PIC_W / nt - 110, PIC_H - PA_YGAP - 30};
    body b;
    body_begin(&b);
    if (!b.f) return -1;
    FILE *f = b.f;
    fprintf(f,
            "set logscale x 2\nset logscale y 10\nset xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n"
            "set format y '%%g'\nset xlabel 'working set'\nset ylabel 'GB/s (%s bytes)'\n"
            "set grid xtics ytics lc rgb '#e0e0e0'\nset key bottom left font ',9'\n"
            "set xtics ('1 KiB' 1024, '8 KiB' 8192, '64 KiB' 65536, '512 KiB' 524288, "
            "'4 MiB' 4194304, '32 MiB' 33554432, '256 MiB' 268435456, '2 GiB' 2147483648.0, "
            "'16 GiB' 17179869184.0, '128 GiB' 137438953472.0)\n"
            "set multiplot layout 1,%d title 'Bandwidth against working set. Dashed verticals: "
            "aggregate cache capacity; bars: ceilings, coloured as their curve (thick: plateau, "
            "dashed: no plateau found)' "
            "font ',11'\n",
            x0, x1, y0, y1, str_of(sec, "bytes_policy", "?"), nt);
    for (int t = 0; t < nt; t++)
        if (sweep_panel(c, f, root, tc[t], &ax) != 0) {
            fclose(b.f);
            free(b.buf);
            return -1;
        }
    fprintf(f, "unset multiplot\n");
    return body_end(c, &b, "bandwidth_vs_working_set");
}

/* Copies the file from to the new file to (replaced if present); 0, or -1 with errno set. */
static int copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (!in) return -1;
    FILE *out = fopen(to, "wb");
    if (!out) {
        int e = errno;
        fclose(in);
        errno = e;
        return -1;
    }
    char buf[65536];
    size_t n;
    int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (ferror(in)) rc = -1;
    fclose(in);
    if (fclose(out) != 0) rc = -1;
    if (rc != 0) {
        if (!errno) errno = EIO;
        unlink(to);
    }
    return rc;
}

/* Renames (keep) or removes each staged picture PATH.tmp; 0, or -1 with the first failure. */
int ns_roofline_plot_commit(const json_t *staged, int keep, char *err, size_t errlen) {
    int rc = 0;
    size_t i;
    json_t *e;
    json_array_foreach(staged, i, e) {
        const char *to = json_string_value(e);
        if (!to) continue;
        char from[4200];
        snprintf(from, sizeof from, "%s.tmp", to);
        if (!keep) {
            unlink(from);
        } else if (rename(from, to) != 0 && rc == 0) {
            snprintf(err, errlen, "cannot rename %s: %s", from, strerror(errno));
            rc = -1;
        }
    }
    return rc;
}

int ns_roofline_plot_stage(const json_t *results, const char *dir, json_t *staged, json_t *skipped,
                           char *err, size_t errlen) {
    const json_t *sec = json_object_get(results, "roofline");
    if (!json_is_object(sec)) {
        snprintf(err, errlen, "no roofline section: build the roofline first");
        return -1;
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(dir, W_OK) != 0) {
        snprintf(err, errlen, "%s: not a writable folder", dir);
        return -1;
    }
    /* A picture's path that does not fit is refused here, not by gnuplot late. */
    if (ns_outdir_names_fit(dir, ns_outdir_pictures, err, errlen)) return -1;
    plot_ctx c = {.dir = dir, .skipped = skipped};
    /* In TMPDIR, else (unset, or a folder that cannot be used) in /tmp. */
    const char *tmp = getenv("TMPDIR");
    snprintf(c.tmpdir, sizeof c.tmpdir, "%s/nodescale-roofline-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int made = mkdtemp(c.tmpdir) != NULL;
    if (!made) {
        snprintf(c.tmpdir, sizeof c.tmpdir, "/tmp/nodescale-roofline-XXXXXX");
        made = mkdtemp(c.tmpdir) != NULL;
    }
    if (!made) {
        snprintf(err, errlen, "cannot create a temporary folder: %s", strerror(errno));
        return -1;
    }
    char script[4200];
    snprintf(script, sizeof script, "%s/roofline.gp", c.tmpdir);
    int rc = -1, keep = 0;
    char head[4200] = ""; /* here, not below: a goto out before it read it uninitialised */
    c.script = fopen(script, "w");
    if (!c.script) {
        snprintf(err, errlen, "cannot write %s: %s", script, strerror(errno));
        goto out;
    }
    fprintf(c.script, "# nodescale roofline pictures, generated; run with gnuplot\n");
    const char *precs[2] = {"dp", "sp"};
    int bad = 0;
    for (int p = 0; p < 2; p++)
        for (int ca = 0; ca < 2; ca++)
            bad |= roofline_picture(&c, sec, precs[p], ca) != 0;
    bad |= sweep_picture(&c, results) != 0;
    if (fclose(c.script) != 0 || bad) {
        snprintf(err, errlen, "cannot write the gnuplot script (out of memory or disk)");
        goto out;
    }
    /* Nothing to draw: no gnuplot run, nothing staged, not an error (skipped says why). */
    /* A message that names the script keeps it, with its data, for the user to open and rerun
     * (it named a script already deleted: roofline_gnuplot_failed.sh). */
    if (c.npics > 0 && ns_gnuplot_run(NULL, script, err, errlen) != 0) {
        /* kept only when the message, whole, names the script and says so (a message cut
         * short left the folder behind unnamed) */
        static const char kept[] = "; the script and its data are kept";
        keep = strstr(err, script) != NULL && strlen(err) + strlen(kept) < errlen;
        if (keep) strcat(err, kept);
        goto out;
    }
    /* roofline.svg, the headline picture report.md embeds: a copy of roofline_dp.svg (not a
     * link, which a later redraw's rename of roofline_dp.svg would leave on the old picture). */
    for (int i = 0; i < c.npics; i++) {
        size_t len = strlen(c.pics[i]), sl = strlen("/roofline_dp");
        if (len < sl || strcmp(c.pics[i] + len - sl, "/roofline_dp")) continue;
        char from[4200];
        snprintf(from, sizeof from, "%s.svg.tmp", c.pics[i]);
        snprintf(head, sizeof head, "%s/roofline.svg.tmp", dir);
        if (copy_file(from, head) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", head, strerror(errno));
            head[0] = '\0';
            goto out;
        }
    }
    rc = 0;
    for (int i = 0; i < c.npics; i++) {
        const char *ext[2] = {"svg", "png"};
        for (int k = 0; k < 2; k++) {
            char to[4200];
            snprintf(to, sizeof to, "%s.%s", c.pics[i], ext[k]);
            if (staged) json_array_append_new(staged, json_string(to));
        }
    }
    if (head[0] && staged) {
        head[strlen(head) - strlen(".tmp")] = '\0';
        json_array_append_new(staged, json_string(head));
    }
out:
    if (head[0] && (rc != 0 || !staged)) unlink(head);
    for (int i = 0; i < c.npics; i++) {
        if (rc != 0 || !staged) { /* leftovers of a failed run */
            char p[4200];
            snprintf(p, sizeof p, "%s.svg.tmp", c.pics[i]);
            unlink(p);
            snprintf(p, sizeof p, "%s.png.tmp", c.pics[i]);
            unlink(p);
        }
        free(c.pics[i]);
    }
    /* NODESCALE_KEEP_PLOT_TMP=1 keeps the script and data, to rerun gnuplot by hand. */
    if (keep) {
        /* the failed script and its data stay where the error message names them */
    } else if (getenv("NODESCALE_KEEP_PLOT_TMP")) {
        fprintf(stderr, "nodescale roofline: gnuplot script kept in %s\n", script);
    } else {
        for (int i = 0; i < c.ndata; i++) {
            char p[4200];
            snprintf(p, sizeof p, "%s/d%d.dat", c.tmpdir, i);
            unlink(p);
        }
        unlink(script);
        rmdir(c.tmpdir);
    }
    return rc;
}

int ns_roofline_plot(const json_t *results, const char *dir, char *err, size_t errlen) {
    json_t *staged = json_array();
    int rc = ns_roofline_plot_stage(results, dir, staged, NULL, err, errlen);
    if (rc == 0) rc = ns_roofline_plot_commit(staged, 1, err, errlen);
    json_decref(staged);
    return rc;
}
