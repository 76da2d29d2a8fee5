/* `nodescale roofline RESULTS.json [--out DIR] [--no-plot]`: rebuild the roofline section of a
 * results file and redraw its pictures without measuring anything.
 *
 * Without --out the input file is left untouched (it is the record of a run) and the pictures
 * are redrawn next to it, in the report folder they belong to. With --out DIR, DIR (created with
 * its parents if missing, and holding no other run's or fleet's files) receives the updated
 * results.json, written atomically, and the pictures. Either way
 * a summary of the ceilings and of every kernel's roof is printed on stdout. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/commands.h"
#include "harness/json.h"
#include "harness/outdir.h"
#include "roofline/roofline.h"

static const char *usage_text =
    "usage: nodescale roofline RESULTS.json [--out DIR] [--no-plot]\n"
    "\n"
    "Rebuilds the roofline (bandwidth ceilings from the working-set sweep, compute roofs,\n"
    "ridge points, each kernel's attainable bound and fraction of it) from a results file and\n"
    "redraws roofline_{dp,sp}, roofline_cache_aware_{dp,sp} and bandwidth_vs_working_set\n"
    "(SVG and PNG), and roofline.svg (a copy of roofline_dp.svg). Nothing is measured.\n"
    "\n"
    "  --out DIR   write DIR/results.json with the rebuilt roofline (atomically) and the\n"
    "              pictures into DIR (created with its parents if missing; refused when it\n"
    "              holds another run's or fleet's report.md, run.log, ...). Without it,\n"
    "              RESULTS.json is not modified and the pictures are redrawn in its folder.\n"
    "  --no-plot   do not draw (no gnuplot needed)\n"
    "\n"
    "Outputs are all or nothing; a picture without valid data is skipped (and named).\n"
    "\n"
    "Exit status: 0 done, 1 gnuplot or writing failed (nothing written), 2 usage or input\n"
    "error (a fleet file, or a file with nothing to draw).\n";

static void print_summary(const json_t *root) {
    const json_t *sec = json_object_get(root, "roofline");
    const json_t *used = json_object_get(sec, "ceilings_used");
    printf("roofline (%s bytes): %s\n", json_string_value(json_object_get(sec, "bytes_policy")),
           json_string_value(json_object_get(sec, "status")));
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(used, "compute"), i, e) {
        printf("  compute  %-3s %-8s %-7s %3d thr  %10.1f GFLOP/s%s%s\n",
               json_string_value(json_object_get(e, "precision")),
               json_string_value(json_object_get(e, "mix")),
               json_string_value(json_object_get(e, "isa"))
                   ? json_string_value(json_object_get(e, "isa"))
                   : "",
               (int)ns_json_get_num(e, "threads"), ns_json_get_num(e, "gflops"),
               json_is_true(json_object_get(e, "roof")) ? "  (roof)" : "",
               json_is_true(json_object_get(e, "suspect")) ? "  SUSPECT" : "");
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

/* 1 when o[key] is a non-empty array. */
static int has_entries(const json_t *o, const char *key) {
    const json_t *a = json_object_get(o, key);
    return json_is_array(a) && json_array_size(a) > 0;
}

int ns_cmd_roofline(int argc, char **argv) {
    const char *cmd = "roofline", *in = NULL, *out = NULL;
    int plot = 1;
    if (ns_refuse_repeated(cmd, argc, argv, NULL, 0)) return NS_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return NS_EXIT_OK;
        } else if ((m = ns_opt_value(argc, argv, &i, "--out", &v)) != 0) {
            if (m < 0 || !*v) return ns_usage_error(cmd, "--out needs a folder");
            char perr[1024];
            if (ns_path_check_name("--out", v, perr, sizeof perr))
                return ns_usage_error(cmd, "%s", perr);
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
    /* Redrawn in place, the pictures go beside the input: its folder is an output path. */
    char perr[1024];
    if (!out && plot &&
        ns_path_check_name("RESULTS.json (redrawn in place)", in, perr, sizeof perr))
        return ns_usage_error(cmd, "%s", perr);

    char err[512];
    json_t *root = ns_json_load_results(in, err, sizeof err);
    if (!root) return ns_usage_error(cmd, "%s", err);
    const char *kind = json_string_value(json_object_get(root, "kind"));
    if (kind && !strcmp(kind, "fleet")) {
        json_decref(root);
        return ns_usage_error(cmd,
                              "%s is a fleet file: run roofline on a node's results.json under "
                              "nodes/",
                              in);
    }
    if (!has_entries(root, "results") && !has_entries(root, "sweep") &&
        !has_entries(json_object_get(root, "ceilings"), "compute")) {
        json_decref(root);
        return ns_usage_error(cmd, "%s: nothing to draw: no results, no sweep, no compute ceilings",
                              in);
    }
    if (ns_roofline_build(root, err, sizeof err) != 0) {
        json_decref(root);
        return ns_usage_error(cmd, "%s: %s", in, err);
    }

    /* All or nothing: the pictures are drawn under temporary names first, results.json is
     * written next, and only then are the pictures renamed into place. */
    char dir[4096];
    size_t created = 0; /* the folders mkdir -p made for --out (ns_outdir_remove) */
    if (out) {
        /* --out DIR holds this command's files alone: no report, log or fleet of another run
         * (a run folder is redrawn in place: roofline DIR/results.json). */
        const char *keep[32] = {"results.json"};
        for (size_t k = 0; plot && ns_outdir_pictures[k] && k + 2 < 32; k++)
            keep[k + 1] = ns_outdir_pictures[k];
        const char *old = ns_outdir_foreign(out, keep);
        int pic = 0;
        for (size_t k = 0; old && ns_outdir_pictures[k]; k++)
            pic |= !strcmp(old, ns_outdir_pictures[k]);
        if (old && pic) { /* only with --no-plot */
            json_decref(root);
            return ns_usage_error(cmd,
                                  "--out '%s' holds %s, which --no-plot would leave beside the new "
                                  "results.json; choose a new folder or draw the pictures",
                                  out, old);
        }
        if (old) {
            /* The hint to redraw in place only where there is a run to redraw (it named
             * DIR/results.json of a compare or fleet folder: roofline_out.sh). */
            char run[4200], in_place[4400] = "";
            struct stat st;
            snprintf(run, sizeof run, "%s/results.json", out);
            if (stat(run, &st) == 0 && S_ISREG(st.st_mode))
                snprintf(in_place, sizeof in_place,
                         " (a run's folder is redrawn in place: nodescale roofline %s)", run);
            json_decref(root);
            return ns_usage_error(cmd,
                                  "--out '%s' holds %s of another run, fleet or compare, which "
                                  "roofline would not rewrite; choose a new folder%s",
                                  out, old, in_place);
        }
        /* Every file it may write must fit NS_PATH_MAX, checked before anything is done (a
         * picture's path too long failed late, in gnuplot). */
        static const char *const json_only[] = {"results.json", NULL};
        if (ns_outdir_names_fit(out, plot ? ns_outdir_pictures : json_only, err, sizeof err) ||
            ns_outdir_names_fit(out, json_only, err, sizeof err)) {
            json_decref(root);
            return ns_usage_error(cmd, "--out: %s", err);
        }
        created = ns_outdir_first_missing(out);
        if (ns_outdir_mkdir_p(out) != 0) {
            int e = errno;
            ns_outdir_remove(out, created);
            json_decref(root);
            return ns_usage_error(cmd, "cannot create %s: %s", out, strerror(e));
        }
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", in);
        snprintf(dir, sizeof dir, "%s", dirname(tmp));
        if (plot && ns_outdir_names_fit(dir, ns_outdir_pictures, err, sizeof err)) {
            json_decref(root);
            return ns_usage_error(cmd, "%s", err);
        }
    }
    json_t *staged = json_array(), *skipped = json_array();
    int rc = NS_EXIT_OK;
    if (plot && ns_roofline_plot_stage(root, dir, staged, skipped, err, sizeof err) != 0) {
        /* Without --out, --no-plot writes nothing at all: the hint there is another folder
         * (it once offered --no-plot for an unwritable run folder). */
        fprintf(stderr, "nodescale %s: error: %s; nothing written (%s)\n", cmd, err,
                out ? "--no-plot writes results.json without pictures"
                    : "--out DIR draws into another folder");
        rc = NS_EXIT_FAIL;
        goto done;
    }
    /* The summary first: when standard output cannot take it, the command fails with nothing
     * written (the staged pictures are dropped; a run's folder keeps its results.json). */
    print_summary(root);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        char ignore[8];
        ns_roofline_plot_commit(staged, 0, ignore, sizeof ignore);
        fprintf(stderr,
                "nodescale %s: error: cannot write to standard output: %s; nothing written\n", cmd,
                errno ? strerror(errno) : "write error");
        rc = NS_EXIT_FAIL;
        goto done;
    }
    char path[4200];
    if (out) {
        snprintf(path, sizeof path, "%s/results.json", out);
        if (ns_json_write_atomic(root, path, err, sizeof err) != 0) {
            char ignore[8];
            ns_roofline_plot_commit(staged, 0, ignore, sizeof ignore);
            fprintf(stderr, "nodescale %s: error: %s; nothing written\n", cmd, err);
            rc = NS_EXIT_FAIL;
            goto done;
        }
    }
    if (ns_roofline_plot_commit(staged, 1, err, sizeof err) != 0) {
        fprintf(stderr, "nodescale %s: error: %s\n", cmd, err);
        rc = NS_EXIT_FAIL;
    }
    /* In --out, a picture of an earlier `roofline --out` that this one did not draw would not
     * match the new results.json: it goes. */
    for (size_t k = 0; out && rc == NS_EXIT_OK && ns_outdir_pictures[k]; k++) {
        char pic[4200];
        int drawn = 0;
        size_t j;
        json_t *s;
        snprintf(pic, sizeof pic, "%s/%s", out, ns_outdir_pictures[k]);
        json_array_foreach(staged, j, s) drawn |= !strcmp(json_string_value(s), pic);
        if (!drawn) unlink(pic);
    }
    /* The files actually written, and the pictures not drawn, with the reason. */
    if (out) fprintf(stderr, "nodescale %s: wrote %s\n", cmd, path);
    size_t i;
    json_t *e;
    json_array_foreach(staged, i, e) {
        if (access(json_string_value(e), F_OK) == 0)
            fprintf(stderr, "nodescale %s: wrote %s\n", cmd, json_string_value(e));
    }
    json_array_foreach(skipped, i, e)
        fprintf(stderr, "nodescale %s: no picture %s\n", cmd, json_string_value(e));
    if (!out && json_array_size(staged) == 0)
        fprintf(stderr, "nodescale %s: nothing written\n", cmd);
done:
    if (rc != NS_EXIT_OK && out) ns_outdir_remove_dirs(out, created); /* nothing written */
    json_decref(staged);
    json_decref(skipped);
    json_decref(root);
    return rc;
}
