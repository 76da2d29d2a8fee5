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
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
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

int ns_json_write_atomic(const json_t *root, const char *path, char *err, size_t errlen) {
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
        char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        int dfd = text ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
        int ok = dfd >= 0;
        size_t len = ok ? strlen(text) : 0, done = 0;
        errno = 0;
        while (ok && done < len) {
            ssize_t w = write(dfd, text + done, len - done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) ok = 0;
            else done += (size_t)w;
        }
        if (ok && write(dfd, "\n", 1) != 1) ok = 0;
        int saved = errno ? errno : EIO;
        if (dfd >= 0 && close(dfd) != 0 && ok) ok = 0, saved = errno;
        free(text);
        if (!ok) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
            return -1;
        }
        return 0;
    }
    char *tmp = NULL;
    int fd = temp_beside(path, &tmp, err, errlen);
    if (fd < 0) return -1;
    int rc = -1;
    FILE *f = NULL;
    fchmod(fd, 0644);
    f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        goto out_unlink;
    }
    if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) != 0 ||
        fputc('\n', f) == EOF || fflush(f) != 0 || fsync(fileno(f)) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        fclose(f);
        goto out_unlink;
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out_unlink;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename to %s: %s", path, strerror(errno));
        goto out_unlink;
    }
    rc = 0;
    goto out;
out_unlink:
    unlink(tmp);
out:
    free(tmp);
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
    return root;
}

double ns_json_get_num(const json_t *obj, const char *key) {
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}
