/* Shared helpers of the cmocka tests: cmocka's headers in the order it needs, and a
 * double-precision closeness assertion (cmocka 1.1 compares floats only). */
#ifndef NS_TEST_H
#define NS_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Fails unless |a - b| <= tol (NaN never passes). */
#define assert_double_equal(a, b, tol)                                                             \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol)))                                                             \
            fail_msg("%s = %.17g, want %.17g (tolerance %g)", #a, a_, b_, (double)(tol));         \
    } while (0)

#endif
