/* Shared output helpers of the reports: running the writers of report.html, results.csv and
 * sweep.csv into a run's folder (ns_report_html_csv), checking that stdout was really written,
 * and escaping text for Markdown tables, XML and terminals. Files are written with ns_write_file
 * and ns_write_memstream (harness/json.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/report.h"

#include "harness/json.h"
#include "harness/outdir.h"

int ns_report_check_stdout(char *err, size_t errlen) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

void ns_md_cell(FILE *f, const char *s) {
    for (const char *start = s; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        /* '_' between two letters or digits opens and closes no emphasis (CommonMark), so ids
         * such as stream_triad stay readable in report.md. */
        if (ch == '_' && s > start && isalnum((unsigned char)s[-1]) &&
            isalnum((unsigned char)s[1])) {
            fputc(ch, f);
            continue;
        }
        switch (ch) {
        case '\\':
        case '|':
        case '*':
        case '_':
        case '[':
        case ']':
        case '`':
        case '~': /* GFM's strikethrough */
            fputc('\\', f);
            fputc(ch, f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        default:
            if (ch < 0x20 || ch == 0x7f)
                fprintf(f, "\\x%02X", ch);
            else
                fputc(ch, f);
        }
    }
}

void ns_md_code(FILE *f, const char *s, int in_table) {
    size_t run = 0, longest = 0;
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    /* A space pads a span that begins or ends with a backtick (CommonMark strips one each side). */
    size_t n = strlen(s);
    int pad = n && (s[0] == '`' || s[n - 1] == '`');
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    if (pad) fputc(' ', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '|' && in_table)
            fputs("\\|", f); /* GFM tables split cells at '|' even inside code spans */
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(f, "\\x%02X", ch);
        else
            fputc(ch, f);
    }
    if (pad) fputc(' ', f);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
}

void ns_xml_text(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                fputc(' ', f); /* control characters are not allowed in XML 1.0 */
            else
                fputc(*s, f);
        }
    }
}

const char *ns_text_safe(const char *s, char *buf, size_t len) {
    size_t o = 0;
    for (; *s && o + 5 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20 || ch == 0x7f)
            o += (size_t)snprintf(buf + o, len - o, "\\x%02X", ch);
        else
            buf[o++] = (char)ch;
    }
    buf[o] = 0;
    return buf;
}

int ns_report_html_csv(const json_t *root, const char *dir, FILE *log) {
    static const struct {
        const char *name;
        int (*write)(const json_t *, const char *, char *, size_t);
    } files[] = {{"results.csv", ns_report_csv},
                 {"sweep.csv", ns_report_sweep_csv},
                 {"report.html", ns_report_html}}; /* last: it names the files in dir */
    int failed = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[NS_PATH_MAX], err[512];
        if (ns_path_join(path, sizeof path, dir, files[i].name, err, sizeof err) != 0 ||
            files[i].write(root, path, err, sizeof err) != 0) {
            fprintf(log, "%s: %s\n", files[i].name, err);
            failed++;
        }
    }
    return failed;
}
