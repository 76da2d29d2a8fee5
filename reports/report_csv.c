/* results.csv and sweep.csv from a results.json document (see report.h): one row per result or
 * sweep point, for spreadsheets. Strings are quoted by libcsv (RFC 4180); a null or absent
 * value is an empty cell, never "nan" or 0. */
#include "reports/report.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/json.h"

/* Where a column's value lives: a string or a number of the row object, of its "params" or of
 * its "time_s"; COL_STATUS: the row's string, "ok" when it has none (a sweep point carries a
 * status only when it failed: the column was empty in every good row). */
enum col_kind { COL_STR, COL_NUM, COL_PARAM, COL_TIME, COL_STATUS };

typedef struct {
    const char *header, *key;
    enum col_kind kind;
} csv_col;

static const csv_col result_cols[] = {
    {"id", "id", COL_STR},
    {"name", "name", COL_STR},
    {"family", "family", COL_STR},
    {"isa", "isa", COL_STR},
    {"precision", "precision", COL_STR},
    {"mix", "mix", COL_STR},
    {"threads", "threads", COL_NUM},
    {"m", "m", COL_PARAM},
    {"n", "n", COL_PARAM},
    {"k", "k", COL_PARAM},
    {"working_set_bytes", "working_set_bytes", COL_NUM},
    {"flops", "flops", COL_NUM},
    {"bytes", "bytes", COL_NUM},
    {"time_median_s", "median", COL_TIME},
    {"time_min_s", "min", COL_TIME},
    {"time_max_s", "max", COL_TIME},
    {"cv", "cv", COL_TIME},
    {"gflops", "gflops", COL_NUM},
    {"gbytes_per_s", "gbytes_per_s", COL_NUM},
    {"ai_flop_per_byte", "ai_flop_per_byte", COL_NUM},
    {"roof_gflops", "roof_gflops", COL_NUM},
    {"roof_gbytes_per_s", "roof_gbytes_per_s", COL_NUM}, /* a bandwidth-only row's roof */
    {"fraction_of_roof", "fraction_of_roof", COL_NUM},
    {"fraction_of_roof_fastest", "fraction_of_roof_fastest", COL_NUM},
    {"roof_limit", "roof_limit", COL_STR},
    {"roof_status", "roof_status", COL_STR},
    {"level", "level", COL_STR},
    {"status", "status", COL_STR},
};

static const csv_col sweep_cols[] = {
    {"working_set_bytes", "working_set_bytes", COL_NUM},
    {"kernel", "kernel", COL_STR},
    {"isa", "isa", COL_STR},
    {"precision", "precision", COL_STR},
    {"threads", "threads", COL_NUM},
    {"n", "n", COL_NUM},
    {"gbytes_per_s", "gbytes_per_s", COL_NUM},
    {"gbytes_per_s_median", "gbytes_per_s_median", COL_NUM},
    {"status", "status", COL_STATUS},
};

/* One cell: a string quoted by libcsv, an integer as such, a real with %.17g (it reads back as
 * the very double of results.json); nothing for null, absent or a value of the wrong type. */
static void cell(FILE *f, const json_t *row, const csv_col *c) {
    const json_t *o = c->kind == COL_PARAM  ? json_object_get(row, "params")
                      : c->kind == COL_TIME ? json_object_get(row, "time_s")
                                            : row;
    const json_t *v = json_object_get(o, c->key);
    if (c->kind == COL_STATUS && !json_is_string(v)) {
        csv_fwrite(f, "ok", 2);
    } else if (c->kind == COL_STR || c->kind == COL_STATUS) {
        if (json_is_string(v)) csv_fwrite(f, json_string_value(v), json_string_length(v));
    } else if (json_is_integer(v)) {
        fprintf(f, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        fprintf(f, "%.17g", json_real_value(v)); /* finite: jansson holds no NaN or Inf */
    }
}

/* Writes the header and one row per element of rows[] to path, atomically. */
static int write_csv(const json_t *rows, const csv_col *cols, size_t ncols, const char *path,
                     char *err, size_t errlen) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    for (size_t c = 0; c < ncols; c++)
        fprintf(f, "%s%s", c ? "," : "", cols[c].header);
    fputs("\r\n", f); /* RFC 4180 records end in CRLF */
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row) {
        for (size_t c = 0; c < ncols; c++) {
            if (c) fputc(',', f);
            cell(f, row, &cols[c]);
        }
        fputs("\r\n", f);
    }
    return ns_write_memstream(f, &text, &len, path, err, errlen);
}

int ns_report_csv(const json_t *root, const char *path, char *err, size_t errlen) {
    return write_csv(json_object_get(root, "results"), result_cols,
                     sizeof result_cols / sizeof result_cols[0], path, err, errlen);
}

int ns_report_sweep_csv(const json_t *root, const char *path, char *err, size_t errlen) {
    return write_csv(json_object_get(root, "sweep"), sweep_cols,
                     sizeof sweep_cols / sizeof sweep_cols[0], path, err, errlen);
}
