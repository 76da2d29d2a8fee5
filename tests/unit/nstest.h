/* Shared helpers of the cmocka tests: cmocka's headers in the order it needs, a
 * double-precision closeness assertion (cmocka 1.1 compares floats only) and a whole-file read. */
#ifndef NS_TEST_H
#define NS_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

/* Fails unless |a - b| <= tol (NaN never passes). */
#define assert_double_equal(a, b, tol)                                                             \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol)))                                                             \
            fail_msg("%s = %.17g, want %.17g (tolerance %g)", #a, a_, b_, (double)(tol));         \
    } while (0)

/* The whole file at path as a NUL-terminated string (malloc'd: free it); fails the test when it
 * cannot be read. */
static inline char *ns_test_slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

#endif
