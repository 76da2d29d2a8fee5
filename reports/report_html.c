/* report.html: report.md rendered by libcmark (see report.h). libcmark is the CommonMark
 * reference library, which has no tables: a top-level paragraph whose source lines are a GFM
 * pipe table (a row, then a delimiter row) is written as an HTML table here, each cell split at
 * its unescaped '|' and its inline Markdown rendered by libcmark. Raw HTML in the Markdown is
 * never passed through (libcmark's default, without CMARK_OPT_UNSAFE). */
#include "reports/report.h"

#include <cmark.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/json.h"

#define CMARK_OPTS CMARK_OPT_VALIDATE_UTF8

static const char style[] =
    "body{font-family:sans-serif;max-width:72em;margin:1em auto;padding:0 1em;line-height:1.4;"
    "color:#222}\n"
    "table{border-collapse:collapse;margin:.5em 0 1em}\n"
    "th,td{border:1px solid #999;padding:.2em .5em;vertical-align:top}\n"
    "th{background:#eee}\n"
    "code{background:#f4f4f4;padding:0 .2em}\n"
    "img{max-width:100%;height:auto}\n";

/* The SVG pictures report.md does not show: drawn by the cluster model, shown when present. */
static const char *const extra_pictures[][2] = {
    {"cluster_breakdown.svg", "cluster step-time breakdown"},
    {"cluster_scaling.svg", "MFU against chip count"},
};

/* 1 when the file name (relative to dir) exists. */
static int present(const char *dir, const char *name) {
    char p[4200];
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p) return 0;
    return access(p, F_OK) == 0;
}

/* Replaces every image of doc whose relative target is not in dir with the text "ALT (NAME not
 * drawn)": a report folder without gnuplot shows no broken pictures. */
static void drop_missing_images(cmark_node *doc, const char *dir) {
    cmark_node *missing[64];
    size_t n = 0;
    cmark_iter *it = cmark_iter_new(doc);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *node = cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_IMAGE) continue;
        const char *url = cmark_node_get_url(node);
        if (url && !strchr(url, ':') && url[0] != '/' && !present(dir, url) && n < 64)
            missing[n++] = node;
    }
    cmark_iter_free(it);
    for (size_t i = 0; i < n; i++) {
        cmark_node *text = cmark_node_new(CMARK_NODE_TEXT);
        const char *alt = "";
        cmark_node *c = cmark_node_first_child(missing[i]);
        if (c && cmark_node_get_type(c) == CMARK_NODE_TEXT) alt = cmark_node_get_literal(c);
        const char *url = cmark_node_get_url(missing[i]);
        size_t len = strlen(alt) + strlen(url) + 32;
        char *s = malloc(len);
        if (s) {
            snprintf(s, len, "%s (%s not drawn)", alt, url);
            cmark_node_set_literal(text, s);
            free(s);
        }
        cmark_node_insert_before(missing[i], text);
        cmark_node_free(missing[i]);
    }
}

/* A line of the Markdown source: its start and length (without the newline). */
typedef struct {
    const char *s;
    size_t n;
} line_t;

/* s[0..n) without leading and trailing spaces and tabs. */
static void trim(const char **s, size_t *n) {
    while (*n && (**s == ' ' || **s == '\t'))
        (*s)++, (*n)--;
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* 1 when l is a GFM delimiter row: only '|', '-', ':' and spaces, with a '-'. */
static int delimiter_row(line_t l) {
    int dash = 0;
    if (!l.n || l.s[0] != '|') return 0;
    for (size_t i = 0; i < l.n; i++) {
        if (l.s[i] == '-')
            dash = 1;
        else if (!strchr("|: \t", l.s[i]))
            return 0;
    }
    return dash;
}

/* The cells of a table row, split at each '|' not escaped by a backslash, the outer pipes
 * dropped; "\|" in a cell is '|' (GFM: even in a code span or after another backslash, so
 * ns_md_cell's "\\\|" keeps "\\|" for libcmark). Other backslashes stay for the cell's
 * inline Markdown. Each cell is a new string in cells[] (at most max); returns their number. */
static size_t split_row(line_t l, char **cells, size_t max) {
    const char *s = l.s;
    size_t n = l.n, count = 0;
    trim(&s, &n);
    if (n && s[0] == '|') s++, n--;
    if (n && s[n - 1] == '|' && !(n >= 2 && s[n - 2] == '\\')) n--;
    char *buf = malloc(n + 1);
    if (!buf) return 0;
    size_t o = 0;
    for (size_t i = 0; i <= n && count < max; i++) {
        if (i == n || s[i] == '|') {
            const char *c = buf;
            size_t cn = o;
            trim(&c, &cn);
            cells[count] = strndup(c, cn);
            if (cells[count]) count++;
            o = 0;
        } else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '|') {
            buf[o++] = s[++i];
        } else {
            buf[o++] = s[i];
        }
    }
    free(buf);
    return count;
}

/* Writes a cell's inline Markdown as HTML: libcmark's rendering of it as a paragraph, without
 * the <p>; text that would parse as a block (a list marker, a heading) is written as text. */
static void cell_html(FILE *f, const char *cell) {
    if (!*cell) return;
    cmark_node *doc = cmark_parse_document(cell, strlen(cell), CMARK_OPTS);
    cmark_node *p = doc ? cmark_node_first_child(doc) : NULL;
    if (p && !cmark_node_next(p) && cmark_node_get_type(p) == CMARK_NODE_PARAGRAPH) {
        char *h = cmark_render_html(p, CMARK_OPTS);
        size_t hn = h ? strlen(h) : 0;
        if (hn >= 8 && !strncmp(h, "<p>", 3) && !strcmp(h + hn - 5, "</p>\n"))
            fwrite(h + 3, 1, hn - 8, f);
        else
            ns_xml_text(f, cell);
        free(h);
    } else {
        ns_xml_text(f, cell);
    }
    cmark_node_free(doc);
}

#define MAX_COLS 64

/* Writes lines[0..n) (a header row, a delimiter row, body rows) as an HTML table. */
static void table_html(FILE *f, const line_t *lines, size_t n) {
    char *cells[MAX_COLS];
    const char *align[MAX_COLS];
    size_t ncols = split_row(lines[0], cells, MAX_COLS);
    for (size_t c = 0; c < ncols; c++)
        free(cells[c]);
    size_t nd = split_row(lines[1], cells, MAX_COLS);
    for (size_t c = 0; c < ncols; c++) {
        align[c] = "";
        if (c < nd) {
            size_t len = strlen(cells[c]);
            int left = len && cells[c][0] == ':', right = len && cells[c][len - 1] == ':';
            align[c] = left && right ? " style=\"text-align:center\""
                       : right       ? " style=\"text-align:right\""
                       : left        ? " style=\"text-align:left\""
                                     : "";
        }
    }
    for (size_t c = 0; c < nd; c++)
        free(cells[c]);
    fputs("<table>\n<thead>\n", f);
    for (size_t r = 0; r < n; r++) {
        if (r == 1) {
            fputs("</thead>\n<tbody>\n", f);
            continue;
        }
        size_t k = split_row(lines[r], cells, MAX_COLS);
        const char *tag = r == 0 ? "th" : "td";
        fputs("<tr>", f);
        for (size_t c = 0; c < ncols; c++) { /* GFM: missing cells are empty, extra ones go */
            fprintf(f, "<%s%s>", tag, align[c]);
            if (c < k) cell_html(f, cells[c]);
            fprintf(f, "</%s>", tag);
        }
        fputs("</tr>\n", f);
        for (size_t c = 0; c < k; c++)
            free(cells[c]);
    }
    fputs("</tbody>\n</table>\n", f);
}

void ns_html_from_markdown(FILE *f, const char *md, const char *dir) {
    size_t nlines = 1;
    for (const char *p = md; *p; p++)
        nlines += *p == '\n';
    line_t *lines = calloc(nlines, sizeof *lines);
    if (!lines) return;
    size_t k = 0;
    for (const char *p = md; k < nlines; k++) {
        const char *e = strchr(p, '\n');
        lines[k].s = p;
        lines[k].n = e ? (size_t)(e - p) : strlen(p);
        if (!e) break;
        p = e + 1;
    }
    cmark_node *doc = cmark_parse_document(md, strlen(md), CMARK_OPTS);
    drop_missing_images(doc, dir);
    for (cmark_node *b = cmark_node_first_child(doc); b; b = cmark_node_next(b)) {
        int first = cmark_node_get_start_line(b), last = cmark_node_get_end_line(b);
        /* A table is a paragraph's lines from a row followed by a delimiter row to its end;
         * lines before it (no blank line between) are a paragraph of their own. */
        int table = 0;
        if (cmark_node_get_type(b) == CMARK_NODE_PARAGRAPH && first >= 1 && (size_t)last <= nlines)
            for (int t = first; t < last && !table; t++) {
                line_t head = lines[t - 1], delim = lines[t];
                trim(&head.s, &head.n);
                trim(&delim.s, &delim.n);
                if (!head.n || head.s[0] != '|' || !delimiter_row(delim)) continue;
                if (t > first) {
                    const char *from = lines[first - 1].s;
                    size_t n = (size_t)(lines[t - 1].s - from);
                    char *h = cmark_markdown_to_html(from, n, CMARK_OPTS);
                    if (h) fputs(h, f);
                    free(h);
                }
                table_html(f, lines + t - 1, (size_t)(last - t + 1));
                table = 1;
            }
        if (table) continue;
        char *h = cmark_render_html(b, CMARK_OPTS);
        if (h) fputs(h, f);
        free(h);
    }
    cmark_node_free(doc);
    free(lines);
    for (size_t i = 0; i < sizeof extra_pictures / sizeof extra_pictures[0]; i++)
        if (present(dir, extra_pictures[i][0]))
            fprintf(f, "<p><img src=\"%s\" alt=\"%s\" /></p>\n", extra_pictures[i][0],
                    extra_pictures[i][1]);
}

int ns_report_html(const json_t *root, const char *path, char *err, size_t errlen) {
    char dir[4200];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    char *md = ns_report_markdown_text(root);
    char *text = NULL;
    size_t len = 0;
    FILE *f = md ? open_memstream(&text, &len) : NULL;
    if (!f) {
        snprintf(err, errlen, "cannot write %s: out of memory", path);
        free(md);
        return -1;
    }
    const char *host = json_string_value(json_object_get(json_object_get(root, "context"), "host"));
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
    fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
    fputs("<title>nodescale report: ", f);
    ns_xml_text(f, host ? host : "unknown host");
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
    ns_html_from_markdown(f, md, dir);
    fputs("</body>\n</html>\n", f);
    free(md);
    return ns_report_write_memstream(f, &text, &len, path, err, errlen);
}
