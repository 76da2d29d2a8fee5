/* Building a bounded string piece by piece: the one printf-append helper of the harness, the
 * roofline and the reports (status texts, reasons, warning lines). */
#ifndef NS_STRBUF_H
#define NS_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Appends printf-style text to buf, which holds len bytes, truncating (always NUL-terminated when
 * len > 0). With n, the text goes at buf + *n and *n grows by its full length, stopping at len on
 * truncation (so a run of calls needs no strlen, and *n == len says the text was cut); n NULL:
 * at the end of the string already in buf. */
static inline void ns_appendf(char *buf, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void ns_appendf(char *buf, size_t len, size_t *n, const char *fmt, ...) {
    size_t at = n ? *n : strnlen(buf, len);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + at, at < len ? len - at : 0, fmt, ap);
    va_end(ap);
    if (!n) return;
    *n += k > 0 ? (size_t)k : 0;
    if (*n > len) *n = len;
}

#endif
