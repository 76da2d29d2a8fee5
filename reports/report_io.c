/* Shared output helpers of the reports: writing a whole file (atomically for regular files,
 * directly for a device or pipe such as /dev/stdout or /dev/full, which a rename would replace),
 * checking that stdout was really written, and escaping text for Markdown tables and terminals. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/report.h"

#include "harness/json.h"

/* Writes all len bytes of buf to fd; 0, or -1 with errno set. */
static int write_all(int fd, const char *buf, size_t len) {
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, buf + off, len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

int ns_report_is_special(const char *path) {
    return ns_path_write_in_place(path);
}

int ns_report_write_file(const char *path, const char *buf, size_t len, char *err, size_t errlen) {
    if (!*path) {
        snprintf(err, errlen, "cannot write a file with an empty name");
        return -1;
    }
    if (ns_report_is_special(path)) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || write_all(fd, buf, len) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            if (fd >= 0) close(fd);
            return -1;
        }
        if (close(fd) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp), rc = -1;
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    fchmod(fd, 0644);
    errno = 0;
    if (write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        close(fd);
    } else if (close(fd) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    } else if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename to %s: %s", path, strerror(errno));
    } else {
        rc = 0;
    }
    if (rc != 0) unlink(tmp);
    free(tmp);
    return rc;
}

int ns_report_write_json(const json_t *root, const char *path, char *err, size_t errlen) {
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    t[n] = '\n';
    t[n + 1] = 0;
    int rc = ns_report_write_file(path, t, n + 1, err, errlen);
    free(t);
    return rc;
}

int ns_report_check_stdout(char *err, size_t errlen) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

void ns_md_cell(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '|':
            fputs("\\|", f);
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
