/* The fleet report (report.md), rendered from fleet.json alone so the report and the data can
 * never disagree: nodes and their status, stragglers with the benchmarks that flag them, the
 * per-benchmark spread across nodes, and the MPI collectives with the busbw convention and the
 * α–β fit of the all-reduce. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "harness/allreduce.h"
#include "harness/json.h"
#include "reports/report.h"

static const char *str(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void num(FILE *f, double v, const char *fmt) {
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fputs("—", f);
}

static void nodes_section(FILE *f, const json_t *fleet) {
    size_t i;
    json_t *n;
    fprintf(f, "## Nodes\n\n| node | host | rank | status | CPU | CPUs bound | results / reason |\n"
               "|---|---|---:|---|---|---|---|\n");
    json_array_foreach(json_object_get(fleet, "nodes"), i, n) {
        /* Names, models, paths and reasons come from the hosts and the inputs: escaped, so a
         * '|' cannot split a cell. */
        const char *res = str(n, "results"), *warn = str(n, "warning");
        fputs("| ", f);
        ns_md_cell(f, str(n, "name"));
        fputs(" | ", f);
        ns_md_cell(f, str(n, "host"));
        fprintf(f, " | %lld | ", json_integer_value(json_object_get(n, "rank")));
        ns_md_cell(f, str(n, "status"));
        fputs(" | ", f);
        ns_md_cell(f, str(n, "cpu_model"));
        /* --from-results: the CPUs recorded in the data, not the live rank's binding */
        json_t *rec = json_object_get(n, "cpus_recorded");
        if (json_is_integer(rec))
            fprintf(f, " | %lld (recorded) | ", json_integer_value(rec));
        else if (rec)
            fputs(" | n/a | ", f);
        else
            fprintf(f, " | %lld of %lld | ", json_integer_value(json_object_get(n, "cpus_allowed")),
                    json_integer_value(json_object_get(n, "cpus_online")));
        ns_md_cell(f, *res ? res : str(n, "reason"));
        if (*warn) {
            fputs("; **warning:** ", f);
            ns_md_cell(f, warn);
        }
        fputs(" |\n", f);
    }
    fputc('\n', f);
}

static void straggler_section(FILE *f, const json_t *fleet) {
    json_t *s = json_object_get(fleet, "stragglers");
    fprintf(f, "## Stragglers\n\n");
    if (!s) {
        fprintf(f, "Not analysed (no node results).\n\n");
        return;
    }
    fprintf(f, "Method: %s (threshold %.3g, MAD floor %.3g of the median).\n\n", str(s, "method"),
            ns_json_get_num(s, "threshold"), ns_json_get_num(s, "mad_floor"));
    json_t *flagged = json_object_get(s, "flagged");
    json_t *tested = json_object_get(s, "tested_benchmarks");
    if (json_is_integer(tested) && json_integer_value(tested) == 0 &&
        json_array_size(flagged) == 0) {
        fprintf(f,
                "**Not tested:** a straggler test needs a benchmark measured on at least 3 "
                "nodes; this fleet has %lld node(s) with results.\n\n",
                json_integer_value(json_object_get(s, "nodes")));
        return;
    }
    if (json_array_size(flagged) == 0) {
        fprintf(f, "**No straggler** among %lld node(s).\n\n",
                json_integer_value(json_object_get(s, "nodes")));
        return;
    }
    size_t i, j;
    json_t *n, *b;
    fprintf(f, "**%zu straggler node(s):** ", json_array_size(flagged));
    json_array_foreach(flagged, i, n) {
        size_t nb = json_array_size(json_object_get(n, "benchmarks"));
        fprintf(f, "%s%s (%zu benchmark%s)", i ? ", " : "", str(n, "name"), nb, nb == 1 ? "" : "s");
    }
    fprintf(f, "\n\n");
    /* A flagged node's warning beside the flag (an injected slowdown is no real straggler). */
    json_array_foreach(flagged, i, n) {
        size_t k;
        json_t *m;
        json_array_foreach(json_object_get(fleet, "nodes"), k, m) {
            if (strcmp(str(m, "name"), str(n, "name")) != 0 || !*str(m, "warning")) continue;
            fprintf(f, "- **warning** for %s: ", str(n, "name"));
            ns_md_cell(f, str(m, "warning"));
            fputs("\n", f);
        }
    }
    fprintf(f, "\n| node | benchmark | value | fleet median | deficit | z |\n"
               "|---|---|---:|---:|---:|---:|\n");
    json_array_foreach(flagged, i, n) {
        json_array_foreach(json_object_get(n, "benchmarks"), j, b) {
            fputs("| ", f);
            ns_md_cell(f, str(n, "name"));
            fputs(" | ", f);
            ns_md_code(f, str(b, "id"), 1);
            fputs(" | ", f);
            if (*str(b, "status")) { /* a failed or invalid result: no rate to compare */
                ns_md_cell(f, str(b, "status"));
                fputs(" | — | — | — |\n", f);
                continue;
            }
            num(f, ns_json_get_num(b, "value"), "%.4g");
            fprintf(f, " %s | ", str(b, "unit"));
            num(f, ns_json_get_num(b, "median"), "%.4g");
            fprintf(f, " %s | ", str(b, "unit"));
            num(f, 100.0 * ns_json_get_num(b, "deficit"), "%.1f%%");
            fprintf(f, " | ");
            num(f, ns_json_get_num(b, "z"), "%.2f");
            fprintf(f, " |\n");
        }
    }
    fputc('\n', f);
}

static void bench_section(FILE *f, const json_t *fleet) {
    json_t *arr = json_object_get(fleet, "benchmarks");
    if (json_array_size(arr) == 0) return;
    fprintf(f, "## Benchmarks across nodes\n\nnoise = 1.4826·MAD/median (robust node-to-node "
               "CV; n/a below 3 nodes); min and max over the nodes.\n\n"
               "| benchmark | class | unit | nodes | median | min | max | noise | flagged |\n"
               "|---|---|---|---:|---:|---:|---:|---:|---|\n");
    size_t i, k;
    json_t *b, *e;
    json_array_foreach(arr, i, b) {
        double lo = INFINITY, hi = -INFINITY;
        const char *key;
        json_object_foreach(json_object_get(b, "values"), key, e) {
            double v = json_number_value(e);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        fprintf(f, "| `%s` | %s | %s | %lld | ", str(b, "id"), str(b, "class"), str(b, "unit"),
                json_integer_value(json_object_get(b, "nodes_measured")));
        num(f, ns_json_get_num(b, "median"), "%.4g");
        fprintf(f, " | ");
        num(f, lo, "%.4g");
        fprintf(f, " | ");
        num(f, hi, "%.4g");
        fprintf(f, " | ");
        if (json_integer_value(json_object_get(b, "nodes_measured")) < 3)
            fputs("n/a", f);
        else
            num(f, 100.0 * ns_json_get_num(b, "noise"), "%.1f%%");
        fprintf(f, " | ");
        json_array_foreach(json_object_get(b, "flagged"), k, e)
            fprintf(f, "%s%s", k ? ", " : "", json_string_value(e));
        const char *key2;
        k = json_array_size(json_object_get(b, "flagged"));
        json_object_foreach(json_object_get(b, "failed"), key2, e) {
            fprintf(f, "%s%s (", k++ ? ", " : "", key2);
            ns_md_cell(f, json_string_value(e));
            fputc(')', f);
        }
        fprintf(f, " |\n");
    }
    fputc('\n', f);
}

static void coll_table(FILE *f, const char *title, const json_t *rows) {
    size_t i;
    json_t *r;
    fprintf(f,
            "### %s\n\n| bytes | count | time min (µs) | avg (µs) | max (µs) | algbw (GB/s) "
            "| busbw (GB/s) | validated |\n|---:|---:|---:|---:|---:|---:|---:|---|\n",
            title);
    json_array_foreach(rows, i, r) {
        json_t *t = json_object_get(r, "time_s");
        fprintf(f, "| %.0f | %lld | ", ns_json_get_num(r, "bytes"),
                json_integer_value(json_object_get(r, "count")));
        num(f, 1e6 * ns_json_get_num(t, "min"), "%.2f");
        fprintf(f, " | ");
        num(f, 1e6 * ns_json_get_num(t, "avg"), "%.2f");
        fprintf(f, " | ");
        num(f, 1e6 * ns_json_get_num(t, "max"), "%.2f");
        fprintf(f, " | ");
        num(f, ns_json_get_num(r, "algbw_gbytes_per_s"), "%.3f");
        fprintf(f, " | ");
        num(f, ns_json_get_num(r, "busbw_gbytes_per_s"), "%.3f");
        fprintf(f, " | %s |\n", json_is_true(json_object_get(r, "validated")) ? "yes" : "NO");
    }
    fputc('\n', f);
}

static void coll_section(FILE *f, const json_t *fleet) {
    json_t *c = json_object_get(fleet, "collectives");
    json_t *fit = json_object_get(json_object_get(fleet, "allreduce"), "fit");
    fprintf(f, "## MPI collectives\n\n");
    if (!c) {
        fprintf(f, "Not measured: %s.\n\n",
                fit && *str(fit, "status") ? str(fit, "status")
                                           : str(json_object_get(fleet, "allreduce"), "status"));
        return;
    }
    fprintf(f, "%lld ranks, %s. Convention: %s.\n\n",
            json_integer_value(json_object_get(c, "ranks")), str(c, "datatype"),
            str(c, "busbw_convention"));
    if (*str(c, "status")) {
        size_t i;
        json_t *h;
        fprintf(f, "**%s.** The tables keep the sizes that finished.", str(c, "status"));
        json_array_foreach(json_object_get(c, "hung_ranks"), i, h)
            fprintf(f, "%s rank %lld (%s): %s",
                    i ? ";" : " Hung:", json_integer_value(json_object_get(h, "rank")),
                    str(h, "name"), str(h, "reason"));
        fprintf(f, "\n\n");
    }
    double a = ns_json_get_num(fit, "alpha_s"), b = ns_json_get_num(fit, "beta_s_per_byte");
    if (isfinite(a) && isfinite(b)) {
        /* A fleet.json written before the fit carried the poor-fit status gets it here. */
        char pf[200];
        const char *poor =
            !ns_allreduce_fit_is_poor(fit) ? NULL
            : *str(fit, "status")
                ? str(fit, "status")
                : ns_allreduce_poor_fit(ns_allreduce_fit_residual(fit), pf, sizeof pf);
        fprintf(f, "**All-reduce α–β fit:** t(bytes) = %.3g s + %.3g s/B · bytes", a, b);
        if (b > 0) fprintf(f, " (1/β = %.3g GB/s)", 1e-9 / b);
        fprintf(f,
                "; %lld sizes, worst relative residual %.0f%%. Written as "
                "`allreduce.fit {alpha_s, beta_s_per_byte}` for `nodescale cluster "
                "--allreduce fleet.json`%s.\n\n",
                json_integer_value(json_object_get(fit, "points")),
                100.0 * ns_allreduce_fit_residual(fit),
                poor ? ", which refuses it without --allreduce-accept-poor-fit" : "");
        if (poor) fprintf(f, "**%s.**\n\n", poor);
    } else {
        fprintf(f, "All-reduce α–β fit: none (%s).\n\n", str(fit, "status"));
    }
    coll_table(f, "All-reduce (MPI_Allreduce)", json_object_get(c, "allreduce"));
    coll_table(f, "Reduce-scatter (MPI_Reduce_scatter_block)",
               json_object_get(c, "reduce_scatter"));
    coll_table(f, "All-gather (MPI_Allgather)", json_object_get(c, "allgather"));
}

int ns_fleet_fit_line(const json_t *allreduce, char *buf, size_t len) {
    json_t *fit = json_object_get(allreduce, "fit");
    double a = ns_json_get_num(fit, "alpha_s"), b = ns_json_get_num(fit, "beta_s_per_byte");
    if (len) buf[0] = '\0';
    if (!isfinite(a) || !isfinite(b)) return -1;
    char pf[200];
    const char *fst = *str(fit, "status") ? str(fit, "status")
                      : ns_allreduce_fit_is_poor(fit)
                          ? ns_allreduce_poor_fit(ns_allreduce_fit_residual(fit), pf, sizeof pf)
                          : "",
               *ast = str(allreduce, "status");
    snprintf(buf, len, "all-reduce fit over %lld ranks: alpha = %.3g s, beta = %.3g s/B%s%s%s%s%s",
             json_integer_value(json_object_get(allreduce, "ranks")), a, b,
             *fst || *ast ? " (" : "", fst, *fst && *ast ? "; " : "", ast, *fst || *ast ? ")" : "");
    return 0;
}

char *ns_fleet_report_md(const json_t *fleet) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    json_t *ctx = json_object_get(fleet, "context"), *mpi = json_object_get(ctx, "mpi");
    json_t *cnt = json_object_get(fleet, "node_counts");
    fprintf(f, "# nodescale fleet report\n\n");
    fprintf(f, "- date: %s; rank 0 on %s; nodescale %s; status: **%s**\n", str(ctx, "date"),
            str(ctx, "host"), str(ctx, "nodescale_version"), str(fleet, "status"));
    fprintf(f, "- MPI: %s; %lld ranks, --ranks-per-node %lld\n", str(mpi, "library_version"),
            json_integer_value(json_object_get(mpi, "world_size")),
            json_integer_value(json_object_get(mpi, "ranks_per_node")));
    /* --from-results: the node data were measured with their own settings. */
    if (strstr(str(ctx, "settings"), "from_results=yes"))
        fprintf(f,
                "- settings of this command (identical on every measuring rank; the node data were "
                "measured with their own: see each results.json's context): `%s`\n",
                str(ctx, "settings"));
    else
        fprintf(f, "- settings (identical on every measuring rank): `%s`\n", str(ctx, "settings"));
    size_t wi;
    json_t *w;
    json_array_foreach(json_object_get(fleet, "warnings"), wi, w) {
        fputs("- **warning:** ", f);
        ns_md_cell(f, json_string_value(w));
        fputc('\n', f);
    }
    fprintf(f, "- nodes: %lld ok, %lld missing, %lld refused, %lld failed, %lld idle\n\n",
            json_integer_value(json_object_get(cnt, "ok")),
            json_integer_value(json_object_get(cnt, "missing")),
            json_integer_value(json_object_get(cnt, "refused")),
            json_integer_value(json_object_get(cnt, "failed")),
            json_integer_value(json_object_get(cnt, "idle")));
    nodes_section(f, fleet);
    straggler_section(f, fleet);
    coll_section(f, fleet);
    bench_section(f, fleet);
    fclose(f);
    return buf;
}
