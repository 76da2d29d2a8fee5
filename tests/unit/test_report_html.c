/* Unit tests of report.html (reports/report_html.c) and results.csv, sweep.csv
 * (reports/report_csv.c): the tables and pictures are there, names from the machine or the
 * results cannot inject HTML, a null is an empty cell, a failed file leaves the others. (The CSV
 * read back with Python's csv module against results.json: tests/cli/run_html_csv.sh.) Run from
 * the repository root. */
#include <cmark-gfm-extension_api.h>
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/nstest.h"

#include "harness/json.h"
#include "reports/report.h"

#define FIXTURE "tests/fixtures/roofline/quick_1thread.json"
#define EXAMPLE "examples/providers/vm-2core-run1/results.json" /* a roofline and a cluster */

/* When set, libcmark-gfm has no "table" extension: this definition takes the place of the
 * library's (the executable's symbol comes first), so a rendering failure can be tested. */
static int no_table_extension;

cmark_syntax_extension *cmark_find_syntax_extension(const char *name) {
    if (no_table_extension) return NULL;
    cmark_syntax_extension *(*real)(const char *) = (cmark_syntax_extension * (*)(const char *))
        dlsym(RTLD_NEXT, "cmark_find_syntax_extension");
    return real ? real(name) : NULL;
}

static json_t *load(const char *path) {
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) fail_msg("%s: %s", path, je.text);
    return root;
}

/* A new empty folder under /tmp, in dir. */
static void make_dir(char *dir, size_t len) {
    snprintf(dir, len, "/tmp/ns_test_html_XXXXXX");
    assert_non_null(mkdtemp(dir));
}

/* Removes the folder and what the tests write in it. */
static void remove_dir(const char *dir) {
    static const char *const names[] = {"report.html", "results.csv", "sweep.csv", "roofline.svg",
                                        "cluster_scaling.svg"};
    char p[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
        rmdir(p);
    }
    rmdir(dir);
}

static void touch(const char *dir, const char *name) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n", f);
    fclose(f);
}

/* report.html of root written into dir, as a string (free it). */
static char *html(const json_t *root, const char *dir) {
    char p[512], err[256] = "";
    snprintf(p, sizeof p, "%s/report.html", dir);
    if (ns_report_html(root, p, err, sizeof err) != 0) fail_msg("report.html: %s", err);
    return ns_test_slurp(p);
}

static void assert_has(const char *hay, const char *needle) {
    if (!strstr(hay, needle)) fail_msg("lacks \"%s\":\n%s", needle, hay);
}

static void assert_lacks(const char *hay, const char *needle) {
    if (strstr(hay, needle)) fail_msg("has \"%s\":\n%s", needle, hay);
}

static size_t count(const char *hay, const char *needle) {
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Fails when "nan" (any case) stands as a word: a number printed from a NaN. */
static void assert_no_nan(const char *s) {
    for (const char *p = s; *p; p++)
        if (!strncasecmp(p, "nan", 3) && (p == s || !isalpha((unsigned char)p[-1])) &&
            !isalpha((unsigned char)p[3]))
            fail_msg("\"nan\" at: %.60s", p);
}

/* Every table of report.md is an HTML table with a header row and right-aligned numbers; the
 * pictures present are <img> links relative to the folder, those missing are named, the
 * cluster pictures shown when present. */
static void test_html_tables_and_pictures(void **state) {
    (void)state;
    json_t *root = load(EXAMPLE);
    char dir[64];
    make_dir(dir, sizeof dir);
    touch(dir, "roofline.svg");
    touch(dir, "cluster_scaling.svg");
    char *h = html(root, dir);
    const char *head = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">";
    assert_true(!strncmp(h, head, strlen(head)));
    assert_has(h, "<title>nodescale report: ");
    assert_has(h, "<style>");
    assert_has(h, "th,td{border:1px solid");
    assert_has(h, "<h1>nodescale report: ");
    assert_has(h, "<h2>Kernels</h2>");

    /* As many tables as report.md has delimiter rows, and no table left as text. */
    char *md = ns_report_markdown_text(root, NULL, NULL);
    assert_non_null(md);
    size_t tables = 0;
    for (const char *l = md; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, "|---", 4) || !strncmp(l, "|:--", 4)) tables++;
    assert_true(tables >= 4);
    assert_int_equal(count(h, "<table>"), tables);
    assert_int_equal(count(h, "</table>"), tables);
    assert_int_equal(count(h, "<thead>"), tables);
    assert_lacks(h, "|---");
    assert_lacks(h, "| |");
    assert_has(h, "<th>kernel</th>");
    assert_has(h, "<td style=\"text-align: right\">");
    assert_has(h, "<code>results.json</code>");

    assert_has(h, "<img src=\"roofline.svg\" alt=\"DP roofline\" />");
    assert_lacks(h, "<img src=\"roofline_sp.svg\"");
    assert_has(h, "SP roofline (roofline_sp.svg not drawn)");
    assert_has(h, "<img src=\"cluster_scaling.svg\"");
    assert_lacks(h, "<img src=\"cluster_breakdown.svg\"");
    assert_lacks(h, "raw HTML omitted");
    assert_no_nan(h);
    assert_true(!strcmp(h + strlen(h) - 16, "</body>\n</html>\n"));
    free(md);
    free(h);
    remove_dir(dir);
    json_decref(root);
}

/* A host, a CPU model and a result id holding < & " and '|' are text in report.html: no element,
 * no attribute, no raw HTML dropped, the table's cells unchanged. */
static void test_html_escapes(void **state) {
    (void)state;
    json_t *root = load(FIXTURE);
    json_t *ctx = json_object_get(root, "context");
    json_object_set_new(ctx, "host", json_string("<script>alert(\"h\")</script>&"));
    json_object_set_new(json_object_get(ctx, "cpu"), "model",
                        json_string("Xeon<b>\"x\"</b> & Co | y"));
    json_t *r = json_array_get(json_object_get(root, "results"), 9); /* a stream kernel */
    json_object_set_new(r, "id", json_string("<img src=x onerror=\"z\">|k&amp;"));
    char dir[64];
    make_dir(dir, sizeof dir);
    char *h = html(root, dir);
    assert_lacks(h, "<script");
    assert_lacks(h, "<b>");
    assert_lacks(h, "<img src=x");
    assert_lacks(h, "raw HTML omitted");
    assert_has(h, "<title>nodescale report: &lt;script&gt;alert(&quot;h&quot;)&lt;/script&gt;"
                  "&amp;</title>");
    assert_has(h, "<h1>nodescale report: &lt;script&gt;alert(&quot;h&quot;)&lt;/script&gt;&amp;"
                  "</h1>");
    assert_has(h, "<td>Xeon&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; Co | y (");
    assert_has(h, "<td>&lt;img src=x onerror=&quot;z&quot;&gt;|k&amp;amp;</td>");
    assert_no_nan(h);
    free(h);
    remove_dir(dir);
    json_decref(root);
}

/* Cells of a GFM table row: the '|' not preceded by a backslash, less one (the outer pipes). */
static size_t gfm_cells(const char *row, size_t n) {
    size_t pipes = 0;
    for (size_t i = 0; i < n; i++)
        pipes += row[i] == '|' && !(i && row[i - 1] == '\\');
    return pipes ? pipes - 1 : 0;
}

/* The line of text holding needle, as a new string. */
static char *line_of(const char *text, const char *needle) {
    const char *p = strstr(text, needle);
    if (!p) fail_msg("lacks \"%s\":\n%s", needle, text);
    while (p > text && p[-1] != '\n')
        p--;
    const char *e = strchr(p, '\n');
    return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

/* The HTML table row (from "<tr>" to "</tr>") holding needle, as a new string. */
static char *row_of(const char *html, const char *needle) {
    const char *p = strstr(html, needle);
    if (!p) fail_msg("lacks \"%s\":\n%s", needle, html);
    while (p > html && strncmp(p, "<tr>", 4))
        p--;
    const char *e = strstr(p, "</tr>");
    if (!e) fail_msg("no </tr> after \"%s\"", needle);
    return strndup(p, (size_t)(e + 5 - p));
}

/* A host and a result id holding a backslash before '|', Markdown's inline punctuation and a
 * link are literal text in report.md and report.html: every row keeps its cells (the status
 * cell too), nothing becomes emphasis, code or a link. */
static void test_markdown_punctuation(void **state) {
    (void)state;
    const char *id = "a\\|b|c `x|y` *e* <i>i</i> [l](javascript:alert(1))";
    const char *host = "h<script>|x\\|y*em*_u_";
    json_t *root = load(FIXTURE);
    json_t *ctx = json_object_get(root, "context");
    json_object_set_new(ctx, "host", json_string(host));
    json_t *r = json_array_get(json_object_get(root, "results"), 9); /* a stream kernel */
    json_object_set_new(r, "id", json_string(id));

    char *md = ns_report_markdown_text(root, NULL, NULL);
    assert_non_null(md);
    const char *md_id = "a\\\\\\|b\\|c \\`x\\|y\\` \\*e\\* &lt;i&gt;i&lt;/i&gt; "
                        "\\[l\\](javascript:alert(1))";
    const char *md_host = "h&lt;script&gt;\\|x\\\\\\|y\\*em\\*\\_u\\_";
    char *row = line_of(md, md_id), *hdr = line_of(md, "| id | GFLOP/s (median) |");
    assert_true(!strncmp(row, "| ", 2));
    assert_int_equal(gfm_cells(row, strlen(row)), 10);
    assert_int_equal(gfm_cells(hdr, strlen(hdr)), 10);
    free(row);
    row = line_of(md, "| host | ");
    assert_int_equal(gfm_cells(row, strlen(row)), 2);
    assert_has(row, md_host);
    free(row);
    free(hdr);

    char dir[64];
    make_dir(dir, sizeof dir);
    char *h = html(root, dir);
    const char *html_id = "a\\|b|c `x|y` *e* &lt;i&gt;i&lt;/i&gt; [l](javascript:alert(1))";
    const char *html_host = "h&lt;script&gt;|x\\|y*em*_u_";
    row = row_of(h, html_id);
    char want[256];
    snprintf(want, sizeof want, "<tr>\n<td>%s</td>\n<td style=\"text-align: right\">", html_id);
    assert_has(row, want);
    assert_int_equal(count(row, "<td"), 10);
    assert_has(row, "</td>\n<td>ok</td>\n<td>ok; "); /* the check and status cells */
    free(row);
    snprintf(want, sizeof want, "<h1>nodescale report: %s</h1>", html_host);
    assert_has(h, want);
    snprintf(want, sizeof want, "<tr>\n<td>host</td>\n<td>%s</td>\n</tr>", html_host);
    assert_has(h, want);
    assert_lacks(h, "<em>");
    assert_lacks(h, "<a href");
    assert_lacks(h, "<code>x");
    assert_lacks(h, "<script");
    free(h);
    free(md);
    remove_dir(dir);
    json_decref(root);
}

/* The table rendering on Markdown of its own (libcmark-gfm's "table" extension): a table right
 * after a paragraph's line, '|' escaped in a cell, in a code span and after a backslash, the
 * alignments, cells that would parse as a list, missing cells (empty) and extra ones (dropped),
 * raw HTML in a cell (dropped, never passed through); an unescaped '|' in a code span splits the
 * cell (GFM: why ns_md_code escapes it in tables), a missing picture in a cell is named, a
 * delimiter row with fewer cells than the header makes no table. */
static void test_markdown_tables(void **state) {
    (void)state;
    const char *md =
        "Intro line\n| a | b \\| c | `x\\|y` |\n|:--|:-:|--:|\n"
        "| 1. | - | <i>z</i> & |\n| **bold** |\n| p\\\\|q | r | s | extra |\n\n"
        "after\n\n| `u|v` | ![pic](gone.svg) |\n|---|---|---|\n\n| one | two |\n|---|\n";
    const char *want =
        "<p>Intro line</p>\n<table>\n<thead>\n<tr>\n<th style=\"text-align: left\">a</th>\n"
        "<th style=\"text-align: center\">b | c</th>\n"
        "<th style=\"text-align: right\"><code>x|y</code></th>\n</tr>\n</thead>\n<tbody>\n"
        "<tr>\n<td style=\"text-align: left\">1.</td>\n<td style=\"text-align: center\">-</td>\n"
        "<td style=\"text-align: right\"><!-- raw HTML omitted -->z<!-- raw HTML omitted --> "
        "&amp;</td>\n</tr>\n"
        "<tr>\n<td style=\"text-align: left\"><strong>bold</strong></td>\n"
        "<td style=\"text-align: center\"></td>\n<td style=\"text-align: right\"></td>\n</tr>\n"
        /* GFM: a '|' after a backslash is escaped even when another backslash comes before
         * that one: the Markdown p\\|q is one cell. */
        "<tr>\n<td style=\"text-align: left\">p|q</td>\n<td style=\"text-align: center\">r</td>\n"
        "<td style=\"text-align: right\">s</td>\n</tr>\n</tbody>\n</table>\n<p>after</p>\n"
        "<table>\n<thead>\n<tr>\n<th>`u</th>\n<th>v`</th>\n<th>pic (gone.svg not drawn)</th>\n"
        "</tr>\n</thead>\n</table>\n<p>| one | two |\n|---|</p>\n";
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    char err[200];
    assert_int_equal(ns_html_from_markdown(f, md, "/nonexistent-ns", err, sizeof err), 0);
    fclose(f);
    assert_string_equal(out, want);
    free(out);
}

/* results.csv: the header, one row per result, a null as an empty cell, strings quoted as
 * RFC 4180 wants (a comma, a quote, a line break); sweep.csv one row per sweep point, "ok" as
 * the status of a good one. */
static void test_csv(void **state) {
    (void)state;
    json_t *root = load(FIXTURE);
    json_t *res = json_object_get(root, "results");
    json_object_set_new(json_array_get(res, 1), "id", json_string("a,\"b\"\nc"));
    char dir[64], p[512], err[256] = "";
    make_dir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/results.csv", dir);
    if (ns_report_csv(root, p, err, sizeof err) != 0) fail_msg("results.csv: %s", err);
    char *c = ns_test_slurp(p);
    const char *hdr = "id,name,family,isa,precision,mix,threads,m,n,k,working_set_bytes,flops,"
                      "bytes,time_median_s,time_min_s,time_max_s,cv,gflops,gbytes_per_s,"
                      "ai_flop_per_byte,roof_gflops,roof_gbytes_per_s,fraction_of_roof,"
                      "fraction_of_roof_fastest,roof_limit,roof_status,level,status\r\n";
    assert_true(!strncmp(c, hdr, strlen(hdr)));
    assert_int_equal(count(c, "\r\n"), 1 + json_array_size(res));
    /* peak_dp_fma: no m or k, gbytes_per_s, ai and level null. */
    assert_has(c, "\r\n\"peak_dp_fma/avx512/dp/t1/n=4096\",\"peak_dp_fma\",\"peak\",\"avx512\","
                  "\"dp\",\"fma\",1,,4096,,0,1048576,0,1.3107836059999999e-05,"
                  "1.2791052449999999e-05,1.3388685250000001e-05,0.0157170238,79.996117979999994,"
                  ",,81.97730439,,0.97583250119999998,,\"compute\",\"ok; register-resident: "
                  "compute roof only\",,\"ok\"\r\n");
    /* A bandwidth-only row: roof_gflops empty, the roof its fraction is of in
     * roof_gbytes_per_s. */
    assert_has(c, "\r\n\"stream_load/avx512/dp/t1/n=131072\",");
    assert_has(c, ",,106.1235674,");
    /* Each number reads back as results.json's double, bit for bit (17 significant digits). */
    const json_t *r0 = json_array_get(res, 0), *t0 = json_object_get(r0, "time_s");
    const double want[] = {
        json_real_value(json_object_get(t0, "median")), json_real_value(json_object_get(t0, "min")),
        json_real_value(json_object_get(t0, "max")), json_real_value(json_object_get(t0, "cv")),
        json_real_value(json_object_get(r0, "gflops"))};
    /* The cells from time_median_s on, found by the header's column of that name. */
    int col = 0;
    for (const char *h = c; strncmp(h, "time_median_s,", 14); h = strchr(h, ',') + 1, col++)
        assert_true(strchr(h, ',') && strchr(h, ',') < strchr(c, '\n'));
    const char *cells = strchr(c, '\n') + 1;
    for (int i = 0; i < col; i++)
        cells = strchr(cells, ',') + 1;
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        char *end;
        assert_true(strtod(cells, &end) == want[k]);
        assert_true(*end == ',');
        cells = end + 1;
    }
    assert_has(c, "\r\n\"a,\"\"b\"\"\nc\",\"peak_dp_fma_add\",");
    assert_has(c, ",256,256,256,1572864,33554432,2097152,"); /* dgemm m, n, k */
    assert_no_nan(c);
    free(c);

    snprintf(p, sizeof p, "%s/sweep.csv", dir);
    if (ns_report_sweep_csv(root, p, err, sizeof err) != 0) fail_msg("sweep.csv: %s", err);
    c = ns_test_slurp(p);
    const char *head = "working_set_bytes,kernel,isa,precision,threads,n,gbytes_per_s,"
                       "gbytes_per_s_median,status\r\n4096,\"stream_load\",\"avx512\",\"dp\",1,"
                       "512,239.65018570000001,238.61878830000001,\"ok\"\r\n";
    assert_true(!strncmp(c, head, strlen(head)));
    assert_int_equal(count(c, "\r\n"), 1 + json_array_size(json_object_get(root, "sweep")));
    free(c);
    remove_dir(dir);
    json_decref(root);
}

/* A file that cannot be written is one line of the log; the others are written, nothing else
 * removed. */
static void test_failure_leaves_others(void **state) {
    (void)state;
    json_t *root = load(FIXTURE);
    char dir[64], p[512];
    make_dir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/report.html", dir);
    assert_int_equal(mkdir(p, 0755), 0); /* report.html is a folder: cannot be written */
    char *log = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&log, &len);
    assert_non_null(f);
    assert_int_equal(ns_report_html_csv(root, dir, f), 1);
    fclose(f);
    assert_int_equal(count(log, "\n"), 1);
    assert_true(!strncmp(log, "report.html: ", 13));
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    snprintf(p, sizeof p, "%s/results.csv", dir);
    assert_int_equal(stat(p, &st), 0);
    snprintf(p, sizeof p, "%s/sweep.csv", dir);
    assert_int_equal(stat(p, &st), 0);

    /* A folder that does not exist: a reason, nothing written. */
    char err[256] = "";
    assert_int_equal(ns_report_csv(root, "/nonexistent-ns/results.csv", err, sizeof err), -1);
    assert_has(err, "/nonexistent-ns/results.csv");
    assert_int_equal(ns_report_html(root, "/nonexistent-ns/report.html", err, sizeof err), -1);
    assert_has(err, "/nonexistent-ns/report.html");
    free(log);
    remove_dir(dir);
    json_decref(root);
}

/* A report.md that cannot be rendered (libcmark-gfm without its table extension) is an error:
 * ns_report_html returns -1 with "cannot render report.md", writes no report.html, and
 * ns_report_html_csv logs it as one line and counts it. */
static void test_render_failure_is_an_error(void **state) {
    (void)state;
    json_t *root = load(FIXTURE);
    char dir[64], p[512], err[512] = "";
    make_dir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/report.html", dir);
    no_table_extension = 1;
    assert_int_equal(ns_report_html(root, p, err, sizeof err), -1);
    assert_has(err, "cannot render report.md");
    assert_int_equal(access(p, F_OK), -1);
    char *log = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&log, &len);
    assert_non_null(f);
    assert_int_equal(ns_report_html_csv(root, dir, f), 1);
    fclose(f);
    no_table_extension = 0;
    assert_int_equal(count(log, "\n"), 1);
    assert_true(!strncmp(log, "report.html: ", 13));
    assert_has(log, "cannot render report.md");
    assert_int_equal(access(p, F_OK), -1);
    free(log);
    remove_dir(dir);
    json_decref(root);
}

/* Every missing picture is named, not only the first 64: 100 of them leave no <img. */
static void test_many_missing_pictures(void **state) {
    (void)state;
    char md[100 * 32] = "", *w = md;
    for (int i = 0; i < 100; i++)
        w += sprintf(w, "![p%d](gone%d.svg)\n\n", i, i);
    char *out = NULL, err[200];
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(ns_html_from_markdown(f, md, "/nonexistent-ns", err, sizeof err), 0);
    fclose(f);
    assert_lacks(out, "<img");
    assert_has(out, "p0 (gone0.svg not drawn)");
    assert_has(out, "p99 (gone99.svg not drawn)");
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_html_tables_and_pictures),
        cmocka_unit_test(test_html_escapes),
        cmocka_unit_test(test_markdown_punctuation),
        cmocka_unit_test(test_markdown_tables),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_failure_leaves_others),
        cmocka_unit_test(test_render_failure_is_an_error),
        cmocka_unit_test(test_many_missing_pictures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
