/* `nodescale roofline RESULTS.json [--out DIR] [--no-plot]`: rebuild the roofline section of a
 * results file and redraw its pictures without measuring anything.
 *
 * Without --out the input file is left untouched (it is the record of a run) and the pictures
 * are redrawn next to it, in the report folder they belong to. With --out DIR, DIR (created if
 * missing) receives the updated results.json, written atomically, and the pictures. Either way
 * a summary of the ceilings and of every kernel's roof is printed on stdout. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/json.h"
#include "roofline/roofline.h"

static const char *usage_text =
    "usage: nodescale roofline RESULTS.json [--out DIR] [--no-plot]\n"
    "\n"
    "Rebuilds the roofline (bandwidth ceilings from the working-set sweep, compute roofs,\n"
    "ridge points, each kernel's attainable bound and fraction of it) from a results file and\n"
    "redraws roofline_{dp,sp}, roofline_cache_aware_{dp,sp} and bandwidth_vs_working_set\n"
    "(SVG and PNG). Nothing is measured.\n"
    "\n"
    "  --out DIR   write DIR/results.json with the rebuilt roofline (atomically) and the\n"
    "              pictures into DIR (created if missing). Without it, RESULTS.json is not\n"
    "              modified and the pictures are redrawn in its folder.\n"
    "  --no-plot   do not draw (no gnuplot needed)\n"
    "\n"
    "Exit status: 0 done, 1 gnuplot or writing failed, 2 usage or input error.\n";

static void print_summary(const json_t *root) {
    const json_t *sec = json_object_get(root, "roofline");
    const json_t *used = json_object_get(sec, "ceilings_used");
    printf("roofline (%s bytes): %s\n", json_string_value(json_object_get(sec, "bytes_policy")),
           json_string_value(json_object_get(sec, "status")));
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(used, "compute"), i, e) {
        printf("  compute  %-3s %-8s %-7s %3d thr  %10.1f GFLOP/s%s\n",
               json_string_value(json_object_get(e, "precision")),
               json_string_value(json_object_get(e, "mix")),
               json_string_value(json_object_get(e, "isa"))
                   ? json_string_value(json_object_get(e, "isa"))
                   : "",
               (int)ns_json_get_num(e, "threads"), ns_json_get_num(e, "gflops"),
               json_is_true(json_object_get(e, "roof")) ? "  (roof)" : "");
    }
    json_array_foreach(json_object_get(used, "bandwidth"), i, e) {
        printf("  memory   %-4s %3d thr  %10.1f GB/s  (%s)%s\n",
               json_string_value(json_object_get(e, "level")), (int)ns_json_get_num(e, "threads"),
               ns_json_get_num(e, "gbytes_per_s"), json_string_value(json_object_get(e, "kernel")),
               json_is_true(json_object_get(e, "suspect")) ? "  SUSPECT" : "");
    }
    json_array_foreach(json_object_get(sec, "ridge_points"), i, e) {
        printf("  ridge    %-4s %-3s %3d thr  %10.3g FLOP/byte\n",
               json_string_value(json_object_get(e, "level")),
               json_string_value(json_object_get(e, "precision")),
               (int)ns_json_get_num(e, "threads"), ns_json_get_num(e, "ridge_flop_per_byte"));
    }
    json_array_foreach(json_object_get(sec, "points"), i, e) {
        double fr = ns_json_get_num(e, "fraction_of_roof");
        const char *lim = json_string_value(json_object_get(e, "roof_limit"));
        char frs[32];
        if (isfinite(fr))
            snprintf(frs, sizeof frs, "%5.1f%%", 100 * fr);
        else
            snprintf(frs, sizeof frs, "    -");
        printf("  point    %-40s %s of roof  %s\n", json_string_value(json_object_get(e, "id")),
               frs, lim ? lim : json_string_value(json_object_get(e, "status")));
    }
    json_array_foreach(json_object_get(sec, "notes"), i, e)
        printf("  note: %s\n", json_string_value(e));
}

int ns_cmd_roofline(int argc, char **argv) {
    const char *cmd = "roofline", *in = NULL, *out = NULL;
    int plot = 1;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return NS_EXIT_OK;
        } else if ((m = ns_opt_value(argc, argv, &i, "--out", &v)) != 0) {
            if (m < 0 || !*v) return ns_usage_error(cmd, "--out needs a folder");
            out = v;
        } else if (!strcmp(argv[i], "--no-plot")) {
            plot = 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return ns_usage_error(cmd, "unknown option '%s' (try --help)", argv[i]);
        } else if (in) {
            return ns_usage_error(cmd, "one results file only ('%s' is extra)", argv[i]);
        } else {
            in = argv[i];
        }
    }
    if (!in) return ns_usage_error(cmd, "a results file is required (try --help)");

    char err[512];
    json_t *root = ns_json_load_results(in, err, sizeof err);
    if (!root) return ns_usage_error(cmd, "%s", err);
    if (ns_roofline_build(root, err, sizeof err) != 0) {
        json_decref(root);
        return ns_usage_error(cmd, "%s: %s", in, err);
    }

    int rc = NS_EXIT_OK;
    char dir[4096];
    if (out) {
        if (mkdir(out, 0755) != 0 && errno != EEXIST) {
            json_decref(root);
            return ns_usage_error(cmd, "cannot create %s: %s", out, strerror(errno));
        }
        snprintf(dir, sizeof dir, "%s", out);
        char path[4200];
        snprintf(path, sizeof path, "%s/results.json", out);
        if (ns_json_write_atomic(root, path, err, sizeof err) != 0) {
            fprintf(stderr, "nodescale %s: error: %s\n", cmd, err);
            json_decref(root);
            return NS_EXIT_FAIL;
        }
        fprintf(stderr, "nodescale %s: wrote %s\n", cmd, path);
    } else {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", in);
        snprintf(dir, sizeof dir, "%s", dirname(tmp));
    }
    print_summary(root);
    if (plot) {
        if (ns_roofline_plot(root, dir, err, sizeof err) != 0) {
            fprintf(stderr, "nodescale %s: error: %s\n", cmd, err);
            rc = NS_EXIT_FAIL;
        } else {
            fprintf(stderr, "nodescale %s: pictures in %s\n", cmd, dir);
        }
    }
    json_decref(root);
    return rc;
}
