/* JSON helpers for results files (see json.h). */
#include "harness/json.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ns_json_set_num(json_t *obj, const char *key, double v, const char *status) {
    if (isfinite(v)) {
        json_object_set_new(obj, key, json_real(v));
        return 0;
    }
    json_object_set_new(obj, key, json_null());
    if (status && !json_object_get(obj, "status"))
        json_object_set_new(obj, "status", json_string(status));
    return 1;
}

void ns_json_set_int(json_t *obj, const char *key, long long v) {
    json_object_set_new(obj, key, json_integer(v));
}

void ns_json_set_str(json_t *obj, const char *key, const char *s) {
    json_object_set_new(obj, key, s ? json_string(s) : json_null());
}

void ns_path_error(char *err, size_t errlen, const char *what, const char *path,
                   const char *reason) {
    if (!errlen) return;
    size_t plen = strlen(path);
    if ((size_t)snprintf(err, errlen, "%s %s: %s", what, path, reason) < errlen) return;
    char mark[64];
    /* Room for the path's two ends: what is left after the words, the mark and the reason. */
    size_t fixed = strlen(what) + strlen(reason) + 3 + sizeof mark, keep;
    if (errlen <= fixed + 16) {
        snprintf(err, errlen, "%s (a path of %zu characters): %s", what, plen, reason);
        return;
    }
    keep = errlen - 1 - fixed;
    size_t head = keep / 2, tail = plen - (keep - head);
    while (head > 0 && ((unsigned char)path[head] & 0xC0) == 0x80) /* never half a character */
        head--;
    while (tail < plen && ((unsigned char)path[tail] & 0xC0) == 0x80)
        tail++;
    snprintf(mark, sizeof mark, "…[%zu characters cut]…", tail - head);
    snprintf(err, errlen, "%s %.*s%s%s: %s", what, (int)head, path, mark, path + tail, reason);
}

/* Creates a unique temporary file beside path. Returns its descriptor and *tmp_out (free it),
 * or -1 with a one-line reason in err. */
static int temp_beside(const char *path, char **tmp_out, char *err, size_t errlen) {
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ns_path_error(err, errlen, "cannot write", path, strerror(errno));
        free(tmp);
        return -1;
    }
    *tmp_out = tmp;
    return fd;
}

int ns_path_write_in_place(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (S_ISLNK(st.st_mode)) return stat(path, &st) != 0 || !S_ISDIR(st.st_mode);
    return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Writes all len bytes of buf to fd; 0, or -1 with errno set. */
static int write_all(int fd, const char *buf, size_t len) {
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

int ns_write_file(const char *path, const char *buf, size_t len, char *err, size_t errlen) {
    if (!*path) {
        snprintf(err, errlen, "cannot write a file with an empty name");
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a folder, want a file name", path);
        return -1;
    }
    if (ns_path_write_in_place(path)) {
        /* A device, a pipe or a link (/dev/full, /dev/stdout): written in place, every write
         * checked. Never renamed over: a rename replaces the link, as root the device node. */
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write_all(fd, buf, len) != 0) {
            ns_path_error(err, errlen, "cannot write", path, strerror(errno));
            if (fd >= 0) close(fd);
            return -1;
        }
        if (close(fd) != 0) {
            ns_path_error(err, errlen, "cannot write", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    char *tmp = NULL;
    int fd = temp_beside(path, &tmp, err, errlen), rc = -1;
    if (fd < 0) return -1;
    fchmod(fd, 0644);
    errno = 0;
    if (write_all(fd, buf, len) != 0 || fsync(fd) != 0) {
        ns_path_error(err, errlen, "cannot write", path, strerror(errno ? errno : EIO));
        close(fd);
    } else if (close(fd) != 0) {
        ns_path_error(err, errlen, "cannot write", path, strerror(errno));
    } else if (rename(tmp, path) != 0) {
        ns_path_error(err, errlen, "cannot rename to", path, strerror(errno));
    } else {
        rc = 0;
    }
    if (rc != 0) unlink(tmp);
    free(tmp);
    return rc;
}

int ns_write_output(const char *path, const char *buf, size_t len, char *err, size_t errlen) {
    if (strcmp(path, "-")) return ns_write_file(path, buf, len, err, errlen);
    errno = 0;
    if (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout)) {
        snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

int ns_close_memstream(FILE *f, char **buf) {
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(*buf);
        *buf = NULL;
        return -1;
    }
    return 0;
}

int ns_write_memstream(FILE *f, char **buf, size_t *len, const char *path, char *err,
                       size_t errlen) {
    if (ns_close_memstream(f, buf) != 0) {
        snprintf(err, errlen, "cannot write %s: out of memory", path);
        return -1;
    }
    int rc = ns_write_output(path, *buf, *len, err, errlen);
    free(*buf);
    *buf = NULL;
    return rc;
}

int ns_write_text_atomic(const char *path, const char *text, char *err, size_t errlen) {
    return ns_write_file(path, text, strlen(text), err, errlen);
}

int ns_json_write_atomic(const json_t *root, const char *path, char *err, size_t errlen) {
    char *text = json_dumps(root, NS_JSON_DUMP_FLAGS);
    size_t n = text ? strlen(text) : 0;
    char *t = text ? realloc(text, n + 2) : NULL;
    if (!t) {
        free(text);
        snprintf(err, errlen, "cannot write %s: out of memory", path);
        return -1;
    }
    t[n] = '\n', t[n + 1] = 0;
    int rc = ns_write_file(path, t, n + 1, err, errlen);
    free(t);
    return rc;
}

int ns_json_check_writable(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (!*path) {
        snprintf(err, errlen, "cannot write a file with an empty name");
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: it is a folder", path);
        return -1;
    }
    if (ns_path_write_in_place(path)) { /* written in place: no temporary file beside it */
        if (stat(path, &st) == 0 && access(path, W_OK) != 0) {
            ns_path_error(err, errlen, "cannot write", path, strerror(errno));
            return -1;
        }
        if (stat(path, &st) == 0) return 0; /* a dangling link is checked below, as a new file */
    }
    char *tmp = NULL;
    int fd = temp_beside(path, &tmp, err, errlen);
    if (fd < 0) return -1;
    close(fd);
    unlink(tmp);
    free(tmp);
    return 0;
}

json_t *ns_json_load_results(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a folder, not a results file", path);
        return NULL;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (access(path, R_OK) != 0)
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        else
            snprintf(err, errlen, "%s: not valid JSON at line %d: %s", path, je.line, je.text);
        return NULL;
    }
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (!json_is_object(root) || !schema || strcmp(schema, NS_SCHEMA) != 0) {
        snprintf(err, errlen, "%s: not a nodescale results file (schema is %s%s%s, want \"%s\")",
                 path, schema ? "\"" : "", schema ? schema : "missing", schema ? "\"" : "",
                 NS_SCHEMA);
        json_decref(root);
        return NULL;
    }
    if (ns_results_check(root, path, err, errlen)) {
        json_decref(root);
        return NULL;
    }
    return root;
}

void ns_format_bytes(char *buf, size_t len, double bytes) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (!isfinite(bytes) || bytes < 0) {
        snprintf(buf, len, "—");
        return;
    }
    int u = 0; /* a size that would print as 1024 of a unit is the next unit's 1 */
    for (; bytes >= 1023.5 && u < 4; u++)
        bytes /= 1024;
    snprintf(buf, len, bytes >= 100 ? "%.0f %s" : "%.3g %s", bytes, unit[u]);
}

double ns_json_get_num(const json_t *obj, const char *key) {
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}
