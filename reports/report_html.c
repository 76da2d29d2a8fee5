/* report.html: report.md rendered by libcmark-gfm (see report.h), GitHub's CommonMark library,
 * with its "table" extension for the pipe tables. Raw HTML in the Markdown is never passed
 * through (libcmark-gfm's default since 0.29, without CMARK_OPT_UNSAFE). */
#include "reports/report.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/json.h"
#include "harness/outdir.h"

/* Alignments as style="text-align: ..." (HTML5 has no align attribute). */
#define CMARK_OPTS (CMARK_OPT_VALIDATE_UTF8 | CMARK_OPT_TABLE_PREFER_STYLE_ATTRIBUTES)

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
    char p[NS_PATH_MAX];
    if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p) return 0;
    return access(p, F_OK) == 0;
}

/* Replaces every image of doc whose relative target is not in dir with the text "ALT (NAME not
 * drawn)": a report folder without gnuplot shows no broken pictures. Every such image, however
 * many. Returns 0, or -1 when out of memory. */
static int drop_missing_images(cmark_node *doc, const char *dir) {
    cmark_node **missing = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    cmark_iter *it = cmark_iter_new(doc);
    if (!it) return -1;
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *node = cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_IMAGE) continue;
        const char *url = cmark_node_get_url(node);
        if (!url || strchr(url, ':') || url[0] == '/' || present(dir, url)) continue;
        if (n == cap) {
            cmark_node **m = realloc(missing, (cap = cap ? 2 * cap : 16) * sizeof *m);
            if (!m) {
                rc = -1;
                break;
            }
            missing = m;
        }
        missing[n++] = node;
    }
    cmark_iter_free(it);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *alt = "";
        cmark_node *c = cmark_node_first_child(missing[i]);
        if (c && cmark_node_get_type(c) == CMARK_NODE_TEXT) alt = cmark_node_get_literal(c);
        const char *url = cmark_node_get_url(missing[i]);
        size_t len = strlen(alt) + strlen(url) + 32;
        char *s = malloc(len);
        cmark_node *text = s ? cmark_node_new(CMARK_NODE_TEXT) : NULL;
        if (!text) {
            free(s);
            rc = -1;
            break;
        }
        snprintf(s, len, "%s (%s not drawn)", alt, url);
        cmark_node_set_literal(text, s);
        free(s);
        cmark_node_insert_before(missing[i], text);
        cmark_node_free(missing[i]);
    }
    free(missing);
    return rc;
}

int ns_html_from_markdown(FILE *f, const char *md, const char *dir, char *err, size_t errlen) {
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *parser = cmark_parser_new(CMARK_OPTS);
    cmark_syntax_extension *table = cmark_find_syntax_extension("table");
    int rc = -1;
    if (parser && table && cmark_parser_attach_syntax_extension(parser, table)) {
        cmark_parser_feed(parser, md, strlen(md));
        cmark_node *doc = cmark_parser_finish(parser);
        if (doc && drop_missing_images(doc, dir) == 0) {
            char *h =
                cmark_render_html(doc, CMARK_OPTS, cmark_parser_get_syntax_extensions(parser));
            if (h) fputs(h, f), rc = 0;
            free(h);
        }
        if (doc) cmark_node_free(doc);
    }
    if (parser) cmark_parser_free(parser);
    if (rc) {
        snprintf(err, errlen, "cannot render report.md as HTML (libcmark-gfm: %s)",
                 !parser  ? "no parser, out of memory"
                 : !table ? "no \"table\" extension"
                          : "the table extension, parsing or rendering failed");
        return -1;
    }
    for (size_t i = 0; i < sizeof extra_pictures / sizeof extra_pictures[0]; i++)
        if (present(dir, extra_pictures[i][0]))
            fprintf(f, "<p><img src=\"%s\" alt=\"%s\" /></p>\n", extra_pictures[i][0],
                    extra_pictures[i][1]);
    return 0;
}

int ns_report_html(const json_t *root, const char *path, char *err, size_t errlen) {
    char dir[NS_PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, sizeof dir, ".");
    } else if ((size_t)snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path),
                                path) >= sizeof dir) {
        ns_path_error(err, errlen, "cannot write", path, strerror(ENAMETOOLONG));
        return -1;
    }
    char *md = ns_report_markdown_text(root, dir, "report.html");
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
    char why[200];
    if (ns_html_from_markdown(f, md, dir, why, sizeof why) != 0) {
        /* nothing written: a report.html with its head and no report is no report */
        if (ns_close_memstream(f, &text) == 0) free(text);
        free(md);
        snprintf(err, errlen, "cannot write %s: %s", path, why);
        return -1;
    }
    fputs("</body>\n</html>\n", f);
    free(md);
    return ns_write_memstream(f, &text, &len, path, err, errlen);
}
