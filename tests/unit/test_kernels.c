/* Every kernel of the registry, on every ISA variant this CPU runs, against its plain-C
 * reference through its own check(): odd sizes (not multiples of the vector width or of the
 * per-thread chunk), one element, and 1, 2 and 3 threads. Also the registry's ISA selection and
 * the timing loop's invariants (>= 9 samples, none zero, repetitions grown to the minimum time). */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/nstest.h"
#include "harness/measure.h"
#include "harness/result.h"
#include "harness/run.h"
#include "harness/timer.h"
#include "kernels/gemm/gemm_kernels.h"
#include "kernels/peak/peak_kernels.h"
#include "kernels/registry.h"

static void run_and_check(const ns_kernel *k, ns_params p) {
    void *st = k->create(&p);
    assert_non_null(st);
    if (k->run_model == NS_RUN_SELF) {
        k->run(st, 0, p.threads);
    } else {
#pragma omp parallel num_threads(p.threads)
        k->run(st, omp_get_thread_num(), omp_get_num_threads());
    }
    ns_check c = {0};
    k->check(st, &c);
    if (!c.ok)
        fail_msg("%s/%s n=%lld m=%lld k=%lld threads=%d: %s", k->name, k->isa, (long long)p.n,
                 (long long)p.m, (long long)p.k, p.threads, c.why);
    assert_true(c.bound >= 0 && isfinite(c.bound)); /* 0: exact (e.g. an index) */
    k->destroy(st);
}

static void every_kernel_matches_its_reference(void **state) {
    size_t n;
    const ns_kernel *const *all = ns_registry(&n);
    assert_true(n > 0);
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        const ns_kernel *k = all[i];
        if (k->supported && !k->supported()) continue;
        for (int threads = 1; threads <= 3; threads++) {
            if (!strcmp(k->family, "gemm")) {
                const int64_t shapes[][3] = {{13, 7, 5}, {1, 1, 1}, {17, 17, 17}, {64, 33, 70}};
                for (size_t s = 0; s < 4; s++)
                    run_and_check(k, (ns_params){.m = shapes[s][0], .n = shapes[s][1],
                                                 .k = shapes[s][2], .threads = threads});
            } else if (!strcmp(k->family, "peak")) {
                run_and_check(k, (ns_params){.n = 1000, .threads = threads});
            } else {
                const int64_t sizes[] = {1, 31, 1000, 4099, 65536 + 7};
                for (size_t s = 0; s < 5; s++)
                    run_and_check(k, (ns_params){.n = sizes[s], .threads = threads});
            }
        }
        ran++;
    }
    assert_true(ran >= 10);
}

static void descriptors_are_complete(void **state) {
    size_t n;
    const ns_kernel *const *all = ns_registry(&n);
    for (size_t i = 0; i < n; i++) {
        const ns_kernel *k = all[i];
        assert_non_null(k->name);
        assert_non_null(k->family);
        assert_non_null(k->isa);
        assert_non_null(k->bytes_policy);
        assert_non_null(k->flops);
        assert_non_null(k->bytes);
        assert_non_null(k->create);
        assert_non_null(k->run);
        assert_non_null(k->check);
        assert_non_null(k->destroy);
        ns_params p = {.m = 64, .n = 64, .k = 64, .threads = 2};
        assert_true(k->flops(&p) >= 0 && isfinite(k->flops(&p)));
        assert_true(k->bytes(&p) >= 0 && isfinite(k->bytes(&p)));
        for (size_t j = 0; j < i; j++) /* (name, isa) unique */
            assert_false(!strcmp(all[j]->name, k->name) && !strcmp(all[j]->isa, k->isa));
    }
}

static void stream_flops_and_bytes(void **state) {
    ns_params p = {.n = 1000000, .threads = 1};
    const ns_kernel *triad = ns_registry_find("stream_triad", "scalar");
    const ns_kernel *copy = ns_registry_find("stream_copy", "scalar");
    const ns_kernel *sum = ns_registry_find("stream_sum", "scalar");
    assert_true(triad->flops(&p) == 2e6 && triad->bytes(&p) == 24e6);
    ns_params tiny = {.n = 1000, .threads = 1}; /* 33 passes of 1000 elements */
    assert_true(triad->bytes(&tiny) == 24.0 * 1000 * 33 && triad->working_set(&tiny) == 24e3);
    assert_true(triad->working_set(&p) == 24e6);
    assert_true(copy->flops(&p) == 0 && copy->bytes(&p) == 16e6);
    assert_true(sum->flops(&p) == 1e6 && sum->bytes(&p) == 8e6);
    /* The read ceiling counts no FLOPs (its FMAs only consume the loads; stream.c flops_per_el). */
    const ns_kernel *load = ns_registry_find("stream_load", "scalar");
    assert_true(load->flops(&p) == 0 && load->bytes(&p) == 8e6);
    assert_string_equal(triad->bytes_policy, "minimal");
}

/* Every STREAM kernel allocated and first-touched a, b and c, 3x the working set of
 * stream_load (the figure bench's memory check and run's sweep cap use). Arrays of 64 MiB are
 * mmap'ed by glibc whatever its threshold, so mallinfo2's hblkhd counts them: a kernel's
 * allocation must be its working set (within the 2 MiB alignment of each array), and its
 * checked output still right. */
static void stream_allocates_its_working_set(void **state) {
#ifdef __SANITIZE_ADDRESS__
    skip(); /* its allocator is not glibc's: mallinfo2 does not see it */
#endif
    const char *names[] = {"stream_load", "stream_sum",   "stream_copy",    "stream_scale",
                           "stream_add",  "stream_triad", "stream_triad_nt"};
    ns_params p = {.n = 8 << 20, .threads = 2};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const ns_kernel *k = ns_registry_find(names[i], NULL);
        if (!k) continue; /* triad_nt: no scalar variant */
        size_t before = mallinfo2().hblkhd;
        void *st = k->create(&p);
        assert_non_null(st);
        double got = (double)(mallinfo2().hblkhd - before), ws = k->working_set(&p);
        if (!(got >= ws && got <= ws + 3 * (4 << 20)))
            fail_msg("%s/%s: allocated %.0f MiB for a working set of %.0f MiB", k->name, k->isa,
                     got / (1 << 20), ws / (1 << 20));
        k->run(st, 0, 1);
        ns_check c;
        k->check(st, &c);
        if (!c.ok) fail_msg("%s: %s", k->name, c.why);
        k->destroy(st);
    }
}

/* The sweep rounds each 1.25x step down to 64 elements per thread; at 64 threads
 * stream_triad's first 18 steps were all n = 4096 and at 128 threads 21 steps n = 8192, each
 * measured again. The sizes of 64- and 128-thread sweeps (triad 24 B, load 8 B per element, up
 * to 4x a 300 MiB LLC) are distinct, ascending, whole chunks per thread, and cover every step. */
static void sweep_sizes_are_distinct(void **state) {
    double ws[128];
    int64_t n[128];
    int nws = ns_sweep_points(1.25, 4 * 300.0 * (1 << 20), ws, 128);
    assert_true(nws > 50);
    const int threads[] = {64, 128, 2, 1};
    const double per_el[] = {24, 8, 16};
    for (int t = 0; t < 4; t++)
        for (int e = 0; e < 3; e++) {
            int64_t chunk = 64 * (int64_t)threads[t];
            int count = ns_sweep_sizes(ws, nws, per_el[e], threads[t], n);
            assert_true(count >= 1 && count <= nws);
            if (threads[t] >= 64) assert_true(n[0] == chunk); /* 4 KiB: under one per thread */
            for (int i = 0; i < count; i++) {
                assert_true(n[i] % chunk == 0);
                if (i > 0 && n[i] <= n[i - 1])
                    fail_msg("%d threads, %.0f B/element: size %d (%lld) repeats or falls below "
                             "size %d (%lld)",
                             threads[t], per_el[e], i, (long long)n[i], i - 1,
                             (long long)n[i - 1]);
            }
            for (int w = 0; w < nws; w++) { /* every step's rounded size is measured */
                int64_t want = (int64_t)(ws[w] / per_el[e]) / chunk * chunk, found = 0;
                for (int i = 0; i < count; i++) found |= n[i] == (want < chunk ? chunk : want);
                assert_true(found);
            }
            if (threads[t] >= 64) assert_true(count < nws); /* the repeats were dropped */
        }
    /* The trial's count: 64 threads of triad, 18 steps at n = 4096, now one. */
    int count = ns_sweep_sizes(ws, nws, 24, 64, n);
    assert_true(n[0] == 4096 && n[1] > 4096);
    assert_true(nws - count >= 17);
}

static void peak_flops(void **state) {
    ns_params p = {.n = 1000, .threads = 2};
    const ns_kernel *k = ns_registry_find("peak_dp_fma", "avx2");
    if (!k) skip();
    /* 2 threads x 1000 iterations x 12 chains x 4 lanes x 2 flops */
    assert_true(k->flops(&p) == 2.0 * 1000 * 12 * 4 * 2);
    k = ns_registry_find("peak_sp_add", "avx2");
    assert_true(k->flops(&p) == 2.0 * 1000 * 12 * 8 * 1);
}

/* The baseline ("scalar") peak is packed SSE2: 2 DP / 4 SP lanes per chain. */
static void peak_scalar_is_packed_sse2(void **state) {
    ns_params p = {.n = 1000, .threads = 1};
    assert_true(ns_registry_find("peak_dp_fma", "scalar")->flops(&p) == 1000.0 * 12 * 2 * 2);
    assert_true(ns_registry_find("peak_sp_fma", "scalar")->flops(&p) == 1000.0 * 12 * 4 * 2);
}

/* Every peak descriptor, its numbers pinned (as peak_flops does): FLOPs per iteration and thread
 * (chains x lanes x FLOPs per lane of its mix, written out), the tile its executes text ends with
 * (formatted from the CHAINS and LANES it is built with), and the instruction words of that text:
 * the scalar ISA's fma mix is packed SSE2 multiply then add, no FMA, and the scalar_fma mix
 * scalar FMA instructions. A change of NS_PEAK_CHAINS_* or of a tile changes this table. */
static void peak_descriptors_pinned(void **state) {
    static const struct {
        const char *name, *isa;
        double flops; /* per iteration and thread */
        const char *tile;
    } want[] = {
        {"peak_dp_fma", "avx512", 16 * 8 * 2, ", 16 chains x 8 DP lanes"},
        {"peak_dp_fma", "avx2", 12 * 4 * 2, ", 12 chains x 4 DP lanes"},
        {"peak_dp_fma", "scalar", 12 * 2 * 2, ", 12 chains x 2 DP lanes"},
        {"peak_dp_fma_add", "avx512", 16 * 8 * 1.5, ", 16 chains x 8 DP lanes"},
        {"peak_dp_fma_add", "avx2", 12 * 4 * 1.5, ", 12 chains x 4 DP lanes"},
        {"peak_dp_add", "avx512", 16 * 8 * 1, ", 16 chains x 8 DP lanes"},
        {"peak_dp_add", "avx2", 12 * 4 * 1, ", 12 chains x 4 DP lanes"},
        {"peak_dp_scalar_fma", "avx2", 12 * 1 * 2, ", 12 chains"},
        {"peak_sp_fma", "avx512", 16 * 16 * 2, ", 16 chains x 16 SP lanes"},
        {"peak_sp_fma", "avx2", 12 * 8 * 2, ", 12 chains x 8 SP lanes"},
        {"peak_sp_fma", "scalar", 12 * 4 * 2, ", 12 chains x 4 SP lanes"},
        {"peak_sp_fma_add", "avx512", 16 * 16 * 1.5, ", 16 chains x 16 SP lanes"},
        {"peak_sp_fma_add", "avx2", 12 * 8 * 1.5, ", 12 chains x 8 SP lanes"},
        {"peak_sp_add", "avx512", 16 * 16 * 1, ", 16 chains x 16 SP lanes"},
        {"peak_sp_add", "avx2", 12 * 8 * 1, ", 12 chains x 8 SP lanes"},
        {"peak_sp_scalar_fma", "avx2", 12 * 1 * 2, ", 12 chains"},
    };
    const size_t nwant = sizeof want / sizeof want[0];
    size_t n;
    const ns_kernel *const *all = ns_registry(&n);
    ns_params p = {.n = 1, .threads = 1};
    size_t peaks = 0;
    for (size_t i = 0; i < n; i++) {
        const ns_kernel *k = all[i];
        if (strcmp(k->family, "peak")) {
            assert_null(k->executes);
            continue;
        }
        peaks++;
        size_t w = 0;
        while (w < nwant && (strcmp(want[w].name, k->name) || strcmp(want[w].isa, k->isa)))
            w++;
        if (w == nwant) fail_msg("%s/%s: not in the pinned table", k->name, k->isa);
        if (k->flops(&p) != want[w].flops)
            fail_msg("%s/%s: flops() counts %g per iteration, want %g", k->name, k->isa,
                     k->flops(&p), want[w].flops);
        assert_non_null(k->executes);
        size_t le = strlen(k->executes), lt = strlen(want[w].tile);
        if (le < lt || strcmp(k->executes + le - lt, want[w].tile))
            fail_msg("%s/%s: executes \"%s\" does not end with \"%s\"", k->name, k->isa,
                     k->executes, want[w].tile);
        const char *pd = k->precision == NS_PREC_DP ? "pd" : "ps";
        if (!strcmp(k->isa, "scalar")) {
            assert_non_null(strstr(k->executes, "no FMA"));
            assert_non_null(strstr(k->executes, "SSE2"));
            assert_non_null(strstr(k->executes, pd));
        } else if (!strcmp(k->mix, "scalar_fma")) {
            assert_non_null(strstr(k->executes, "scalar FMA"));
            assert_non_null(strstr(k->executes, k->precision == NS_PREC_DP ? "sd" : "ss"));
        } else {
            assert_null(strstr(k->executes, "no FMA"));
            assert_non_null(strstr(k->executes, !strcmp(k->isa, "avx512") ? "zmm" : "ymm"));
            assert_non_null(strstr(k->executes, pd));
        }
    }
    assert_int_equal(peaks, nwant);
}

static double rel(double got, double want) {
    return fabs(got - want) / fabs(want);
}

/* The peak check replays the recurrence in the kernel's precision (the SP check
 * compared with the closed form in double, and its bound, growing with n, passed 1 at n ~ 4.2M).
 * A wrong iteration count or a value off by 1e-3 must fail at any n; every peak kernel must pass
 * at 10M iterations; the bound must not grow with n. */
static void peak_check_replays_in_kernel_precision(void **state) {
    const double bsp = ns_peak_bound(NS_PREC_SP, 4, 12), bdp = ns_peak_bound(NS_PREC_DP, 2, 12);
    assert_true(bsp < 1e-5 && bdp < 1e-14);
    const ns_peak_mix mixes[] = {NS_MIX_FMA, NS_MIX_FMA_ADD, NS_MIX_ADD};
    const int64_t ns[] = {4096, 20000, 10000000};
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < 3; i++) {
            int64_t n = ns[i];
            double sp = ns_peak_sp_plain(mixes[m], n), dp = ns_peak_dp_plain(mixes[m], n);
            double wsp = ns_peak_expected(NS_PREC_SP, mixes[m], 0, 4, 12, n);
            double wdp = ns_peak_expected(NS_PREC_DP, mixes[m], 0, 2, 12, n);
            if (!(rel(sp, wsp) <= bsp && rel(dp, wdp) <= bdp))
                fail_msg("mix %d n %lld: SP %.3e DP %.3e", m, (long long)n, rel(sp, wsp),
                         rel(dp, wdp));
            assert_true(rel(sp * (1 + 1e-3), wsp) > bsp && rel(dp * (1 + 1e-3), wdp) > bdp);
            if (i == 0) { /* default n, mid-way to the fixed point: one step fewer is seen */
                assert_true(rel(ns_peak_sp_plain(mixes[m], n - 1), wsp) > bsp);
                assert_true(rel(ns_peak_dp_plain(mixes[m], n - 1), wdp) > bdp);
            }
            if (ns_cpu_has_avx2_fma()) { /* fused: one rounding per step */
                float f = ns_peak_sp_scalar_fma(mixes[m], n);
                assert_true(rel(f, ns_peak_expected(NS_PREC_SP, mixes[m], 1, 1, 12, n)) <=
                            ns_peak_bound(NS_PREC_SP, 1, 12));
            }
        }
    /* Through the descriptors, every peak kernel this CPU runs, at 10M iterations. */
    size_t count;
    const ns_kernel *const *all = ns_registry(&count);
    for (size_t i = 0; i < count; i++)
        if (!strcmp(all[i]->family, "peak") && all[i]->supported())
            run_and_check(all[i], (ns_params){.n = 10000000, .threads = 1});
}

static void isa_selection_honours_environment(void **state) {
    setenv("NODESCALE_ISA", "scalar", 1);
    assert_string_equal(ns_isa_selected(), "scalar");
    assert_string_equal(ns_registry_find("stream_triad", NULL)->isa, "scalar");
    /* peak_dp_scalar_fma exists for avx2 only: forcing scalar finds nothing narrower. */
    assert_null(ns_registry_find("peak_dp_scalar_fma", NULL));
    setenv("NODESCALE_ISA", "sse9", 1);
    assert_null(ns_isa_selected());
    assert_null(ns_registry_find("stream_triad", NULL));
    unsetenv("NODESCALE_ISA");
    assert_non_null(ns_isa_selected());
    assert_null(ns_registry_find("no_such_kernel", NULL));
    if (ns_cpu_has_avx512()) assert_string_equal(ns_isa_selected(), "avx512");
}

static void timing_loop_invariants(void **state) {
    const ns_kernel *k = ns_registry_find("stream_sum", NULL);
    ns_params p = {.n = 4096, .threads = 2};
    void *st = k->create(&p);
    ns_measure_opts o = ns_measure_defaults(1);
    o.min_sample_s = 0.002;
    ns_measurement m;
    /* On a loaded machine a thread of the team can wait for a CPU through most of a sample:
     * the result is then invalid (no rate) with its samples taken, which the invariants below
     * still hold for. Any other failure is one. */
    if (ns_measure(k, st, &p, &o, &m) != 0 && strncmp(m.status, "invalid: samples lasted ", 24))
        fail_msg("ns_measure: %s", m.status);
    if (m.status[0] != 'o') print_message("on a busy machine: %s\n", m.status);
    assert_true(m.nsamples >= 9);
    assert_true(m.reps >= 1);
    for (int i = 0; i < m.nsamples; i++) assert_true(m.samples_s[i] > 0);
    assert_true(m.stats.min <= m.stats.median && m.stats.median <= m.stats.max);
    assert_true(m.cpu_of_thread[0] >= 0 && m.cpu_of_thread[1] >= 0);
    /* Each thread read at the start and end of every timed sample; bound to a
     * one-CPU place only where the OpenMP runtime binds threads. */
    assert_int_equal(m.cpu_readings, 2 * m.nsamples);
    for (int t = 0; t < 2; t++) {
        assert_true(m.cpu_held[t] <= NS_CPU_BOUND);
        if (omp_get_proc_bind() == omp_proc_bind_false) assert_true(m.cpu_held[t] != NS_CPU_BOUND);
    }
    k->destroy(st);
}

/* A kernel of its own threads whose CPUs are scripted: thread 0 stays on CPU 3; thread 1 too,
 * or (fake_moves) alternates between CPUs 3 and 2 from one sample to the next. */
static int fake_moves, fake_calls;
static double fake_one(const ns_params *p) {
    return 1;
}
static void *fake_create(const ns_params *p) {
    return &fake_calls;
}
static void fake_run(void *st, int tid, int nth) {
    for (volatile int i = 0; i < 100; i++) {
    }
}
static int fake_cpus(void *st, int *cpu, int max) {
    fake_calls++;
    cpu[0] = 3, cpu[1] = fake_moves && fake_calls % 2 ? 2 : 3;
    return 2;
}

/* A fake kernel of one FLOP and one byte whose repetition is run. */
static ns_kernel fake_peak(const char *name, ns_run_model model, void (*run)(void *, int, int)) {
    return (ns_kernel){.name = name,
                       .family = "peak",
                       .isa = "scalar",
                       .run_model = model,
                       .flops = fake_one,
                       .bytes = fake_one,
                       .create = fake_create,
                       .run = run};
}

/* A thread's CPU counts as held only when every reading over the timed samples
 * agreed (one reading, or one that moved, proves nothing). */
static void cpu_held_needs_agreeing_readings(void **state) {
    ns_kernel k = fake_peak("fake_self", NS_RUN_SELF, fake_run);
    k.family = "gemm", k.cpus = fake_cpus;
    ns_params p = {.n = 1, .m = 1, .k = 1, .threads = 2};
    ns_measure_opts o = ns_measure_defaults(1);
    o.min_sample_s = 0.0005, o.min_samples = 4, o.max_samples = 4;
    static ns_measurement m; /* large: not on the stack */
    for (fake_moves = 0; fake_moves < 2; fake_moves++) {
        assert_int_equal(ns_measure(&k, &fake_calls, &p, &o, &m), 0);
        assert_int_equal(m.cpu_threads, 2);
        assert_int_equal(m.cpu_readings, 4);
        assert_int_equal(m.cpu_held[0], NS_CPU_READ);
        assert_int_equal(m.cpu_held[1], fake_moves ? NS_CPU_MAY_MOVE : NS_CPU_READ);
    }
    /* One timed sample: one reading each, no evidence. */
    fake_moves = 0, o.min_samples = 1, o.max_samples = 1;
    assert_int_equal(ns_measure(&k, &fake_calls, &p, &o, &m), 0);
    assert_int_equal(m.cpu_readings, 1);
    assert_int_equal(m.cpu_held[0], NS_CPU_MAY_MOVE);
    assert_int_equal(m.cpu_held[1], NS_CPU_MAY_MOVE);
}

/* A kernel whose create() fails with errno create_errno. */
static int create_errno;
static void *failing_create(const ns_params *p) {
    errno = create_errno;
    return NULL;
}

/* A create() that fails for another reason than memory (a reduction whose ISA this CPU cannot
 * run) is not reported as "cannot allocate inputs": the roofline reads that status as a sweep's
 * memory limit, and the errno text says what happened. */
static void create_failure_status(void **state) {
    ns_kernel k = fake_peak("fake_create_fails", NS_RUN_TEAM, fake_run);
    k.create = failing_create;
    ns_params p = {.n = 1, .m = 1, .k = 1, .threads = 1};
    ns_measure_opts o = ns_measure_defaults(1);
    static const struct {
        int e;
        const char *status;
    } cases[] = {{ENOMEM, "not measured: cannot allocate inputs (Cannot allocate memory)"},
                 {EINVAL, "not measured: cannot set up the kernel (Invalid argument)"},
                 {ENOTSUP, "not measured: cannot set up the kernel (Operation not supported)"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        create_errno = cases[i].e;
        json_t *r = ns_measure_kernel(&k, &p, &o, 0, 0, NULL);
        assert_string_equal(json_string_value(json_object_get(r, "status")), cases[i].status);
        json_decref(r);
    }
}

/* A team kernel whose every call costs each thread SHARED_WORK_S of its own CPU time, on the
 * CPU shared_cpu (each thread pins itself there at its first call). */
#define SHARED_WORK_S 200e-6
static int shared_cpu;
static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static void pin_self(const cpu_set_t *set) { /* on team threads too: no cmocka assert */
    if (sched_setaffinity(0, sizeof *set, set) != 0) abort();
}
static void shared_run(void *st, int tid, int nth) {
    static _Thread_local int pinned;
    if (!pinned) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(shared_cpu, &one);
        pin_self(&one);
        pinned = 1;
    }
    double t0 = thread_cpu_s();
    while (thread_cpu_s() - t0 < SHARED_WORK_S) {
    }
}

/* Two threads on one CPU run one after the other, so a sample (from the first
 * thread's start to the last one's end) lasts at least both threads' CPU time. Timing each
 * thread from its own start counted the one that waited for the CPU as running in parallel. */
static void team_sample_spans_threads_sharing_a_cpu(void **state) {
    cpu_set_t all;
    assert_int_equal(sched_getaffinity(0, sizeof all, &all), 0);
    shared_cpu = sched_getcpu();
    ns_kernel k = fake_peak("fake_shared", NS_RUN_TEAM, shared_run);
    ns_params p = {.n = 1, .threads = 2};
    ns_measure_opts o = ns_measure_defaults(1);
    /* Samples of 20 ms of work per thread: far longer than libgomp's default spin holds the
     * shared CPU, so the team works more than it waits (shorter ones may not). */
    o.min_sample_s = 0.02, o.min_samples = 9, o.max_samples = 9;
    static ns_measurement m;
    assert_int_equal(ns_measure(&k, &fake_calls, &p, &o, &m), 0);
    assert_string_equal(m.status, "ok");
    assert_true(m.wait_ratio <= NS_TEAM_WAIT_MAX);
    assert_int_equal(m.cpu_of_thread[0], shared_cpu);
    assert_int_equal(m.cpu_of_thread[1], shared_cpu);
    for (int i = 0; i < m.nsamples; i++)
        if (m.samples_s[i] < 2 * SHARED_WORK_S)
            fail_msg("sample %d: %.1f us per repetition, below the %.0f us both threads ran on "
                     "CPU %d",
                     i, 1e6 * m.samples_s[i], 2e6 * SHARED_WORK_S, shared_cpu);
#pragma omp parallel num_threads(2)
    pin_self(&all); /* the pool's threads back on every CPU */
}

/* A team whose threads share a CPU with a spinning wait measured the scheduler
 * (0.17 GFLOP/s for 30 GFLOP/s of work, reported ok). Synthetic per-thread readings: side by
 * side, taking turns (passive waiting), and the trial's sample (15 us of work each, the second
 * thread starting 12.3 ms late); the median over the samples decides, not one disturbed one. */
static void team_wait_from_thread_times(void **state) {
    double span, work;
    const double side_t0[] = {0, 1e-6}, side_t1[] = {10e-3, 10e-3 + 1e-6};
    assert_float_equal(ns_team_sample(side_t0, side_t1, 2, &span, &work), 0.5, 1e-3);
    assert_float_equal(span, 10.001e-3, 1e-12);
    assert_float_equal(work, 10e-3, 1e-12);
    const double turn_t0[] = {0, 10e-3}, turn_t1[] = {10e-3, 20e-3};
    assert_float_equal(ns_team_sample(turn_t0, turn_t1, 2, &span, &work), 1.0, 1e-12);
    assert_float_equal(work, 10e-3, 1e-12);
    const double wait_t0[] = {0, 12.3e-3}, wait_t1[] = {15e-6, 12.315e-3};
    double ratio = ns_team_sample(wait_t0, wait_t1, 2, &span, &work);
    assert_float_equal(ratio, 12.315e-3 / 30e-6, 1e-6);
    assert_float_equal(work, 15e-6, 1e-12); /* reps are sized on this, not on the 12 ms span */
    assert_true(ns_reps_grow(1, work, 2e-3, 1e-9) >= 160);
    /* A thread that did not run (NAN readings) is skipped; none at all: no ratio. */
    const double part_t0[] = {0, NAN}, part_t1[] = {10e-3, NAN};
    assert_float_equal(ns_team_sample(part_t0, part_t1, 2, &span, &work), 1.0, 1e-12);
    assert_true(isnan(ns_team_sample(part_t0 + 1, part_t1 + 1, 1, &span, &work)));

    double r[9], med;
    for (int i = 0; i < 9; i++) r[i] = i < 4 ? 410 : 0.6; /* 4 disturbed samples of 9 */
    assert_int_equal(ns_team_waited(r, 9, &med), 0);
    assert_float_equal(med, 0.6, 1e-12);
    r[4] = 410; /* the median sample waited */
    assert_int_equal(ns_team_waited(r, 9, &med), 1);
    assert_float_equal(med, 410, 1e-12);
    for (int i = 0; i < 9; i++) r[i] = NS_TEAM_WAIT_MAX; /* at the bound: not "far longer" */
    assert_int_equal(ns_team_waited(r, 9, NULL), 0);
    for (int i = 0; i < 9; i++) r[i] = NAN; /* NS_RUN_SELF kernels: nothing known */
    assert_int_equal(ns_team_waited(r, 9, &med), 0);
    assert_true(isnan(med));
}

/* Reps sized on a disturbed (slow) sizing sample left every timed sample short of
 * min_time. A kernel whose first call takes 5 ms (the disturbance) and every later one 50 us of
 * the clock: the timed samples must still last min_sample_s each. Each call waits for the
 * clock, so a loaded machine only makes it longer. */
static int disturbed_calls;
static void disturbed_run(void *st, int tid, int nth) {
    double d = disturbed_calls++ == 0 ? 5e-3 : 50e-6, t0 = ns_now();
    while (ns_now() - t0 < d) {
    }
}
static void short_samples_resize(void **state) {
    ns_kernel k = fake_peak("fake_disturbed", NS_RUN_SELF, disturbed_run);
    ns_params p = {.n = 1, .threads = 1};
    ns_measure_opts o = ns_measure_defaults(1);
    o.warmup_reps = 0, o.min_sample_s = 4e-3, o.min_samples = 9, o.max_samples = 9;
    static ns_measurement m;
    disturbed_calls = 0;
    assert_int_equal(ns_measure(&k, &fake_calls, &p, &o, &m), 0);
    assert_string_equal(m.status, "ok");
    assert_int_equal(m.nsamples, 9);
    assert_true(m.resized >= 1);
    for (int i = 0; i < m.nsamples; i++)
        if (m.samples_s[i] * (double)m.reps < o.min_sample_s)
            fail_msg("sample %d: %lld reps of %.1f us, %.2f ms < %.0f ms", i, (long long)m.reps,
                     1e6 * m.samples_s[i], 1e3 * m.samples_s[i] * (double)m.reps,
                     1e3 * o.min_sample_s);
}

/* GEMM opens its own parallel region: the CPU of each of its threads is recorded, not only the
 * caller's (one entry per thread the call ran on, each a CPU of this machine). */
static void gemm_records_each_thread_cpu(void **state) {
    const char *names[] = {"dgemm", "sgemm"}, *isas[] = {"avx512", "avx2", "scalar", "blis",
                                                           "openblas"};
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    int tried = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 5; j++) {
            const ns_kernel *k = ns_registry_find(names[i], isas[j]);
            if (!k) continue;
            ns_params p = {.m = 256, .n = 256, .k = 256, .threads = 2}; /* 33 MFLOP: 2 threads */
            void *st = k->create(&p);
            assert_non_null(st);
            ns_measure_opts o = ns_measure_defaults(1);
            o.min_sample_s = 0.001, o.min_samples = 2, o.max_samples = 2;
            ns_measurement m;
            assert_int_equal(ns_measure(k, st, &p, &o, &m), 0);
            int pthreads_peer = 0;
            if (j >= 3) {
                ns_gemm_peer_info pi;
                assert_int_equal(ns_gemm_peer_info_get(j - 3, &pi), 0);
                pthreads_peer = strncmp(pi.threading, "openmp", 6) != 0;
            }
            if (pthreads_peer) { /* its threads cannot be asked: the caller's CPU alone */
                assert_int_equal(m.cpu_threads, 1);
            } else {
                if (m.cpu_threads != 2)
                    fail_msg("%s/%s: %d CPUs recorded for 2 threads", k->name, k->isa,
                             m.cpu_threads);
                tried++;
            }
            for (int t = 0; t < m.cpu_threads; t++)
                if (m.cpu_of_thread[t] < 0 || m.cpu_of_thread[t] >= ncpu)
                    fail_msg("%s/%s: thread %d on CPU %d", k->name, k->isa, t,
                             m.cpu_of_thread[t]);
            k->destroy(st);
        }
    assert_true(tried >= 2); /* the own dgemm and sgemm at least */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptors_are_complete),
        cmocka_unit_test(every_kernel_matches_its_reference),
        cmocka_unit_test(stream_flops_and_bytes),
        cmocka_unit_test(stream_allocates_its_working_set),
        cmocka_unit_test(sweep_sizes_are_distinct),
        cmocka_unit_test(peak_flops),
        cmocka_unit_test(peak_scalar_is_packed_sse2),
        cmocka_unit_test(peak_descriptors_pinned),
        cmocka_unit_test(peak_check_replays_in_kernel_precision),
        cmocka_unit_test(isa_selection_honours_environment),
        cmocka_unit_test(timing_loop_invariants),
        cmocka_unit_test(cpu_held_needs_agreeing_readings),
        cmocka_unit_test(create_failure_status),
        cmocka_unit_test(team_sample_spans_threads_sharing_a_cpu),
        cmocka_unit_test(team_wait_from_thread_times),
        cmocka_unit_test(short_samples_resize),
        cmocka_unit_test(gemm_records_each_thread_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
