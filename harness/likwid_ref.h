/* likwid-bench as a reference: run one of its kernels as a subprocess at a given working set
 * and thread count and read its rates, so benchmarks can put nodescale's figures beside
 * likwid-bench's measured in the same run (Treibig, Hager, Wellein, "likwid-bench: An
 * Extensible Microbenchmarking Platform for x86 Multicore Compute Nodes", 2012).
 * likwid-bench counts bytes without write-allocate, as nodescale's "minimal" policy does.
 *
 * The iteration count is always given explicitly (-i): in KVM guests likwid-bench's own -s
 * runtime estimate can settle on 10 iterations, microseconds of work and a meaningless rate.
 * ns_likwid_calibrate finds the count for a target duration once; runs then reuse it. */
#ifndef NS_LIKWID_REF_H
#define NS_LIKWID_REF_H

#include <stddef.h>

typedef struct ns_likwid_result {
    double mflops_per_s; /* "MFlops/s" line */
    double mbytes_per_s; /* "MByte/s" line (1 MB = 1e6 B) */
    double size_bytes;   /* "Size (Byte)": the working set it actually used */
    double time_s;       /* "Time" line */
} ns_likwid_result;

/* Runs `likwid-bench -t TEST -W N:<kB>kB:<threads> -i ITERS`. test must be a likwid-bench kernel
 * name (letters, digits, '_'). Returns 0, or -1 with a one-line reason in err (likwid-bench
 * missing, failed, or printed no rate). */
int ns_likwid_bench(const char *test, double working_set_bytes, int threads, double iters,
                    ns_likwid_result *out, char *err, size_t errlen);

/* The iteration count that makes one run of test last about target_s seconds, from short
 * calibration runs. Returns the count (>= 10), or -1 with a reason in err. */
double ns_likwid_calibrate(const char *test, double working_set_bytes, int threads,
                           double target_s, char *err, size_t errlen);

#endif
