/* BLIS and OpenBLAS as peers of the own GEMM, loaded into this same process. Both export
 * cblas_dgemm, so each is dlopen'ed with RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND: its own symbols
 * bind inside it and neither leaks into the global namespace. The OpenMP builds are preferred,
 * so that the peers, the own GEMM and the harness share one libgomp thread pool and nothing
 * oversubscribes (a pthreads OpenBLAS spinning beside an OpenMP pool ran 10x
 * slower). If only the pthreads OpenBLAS exists it is used, its thread count is set on every
 * call, and `threading` says so. Versions come from bli_info_get_version_str / bli_arch_string
 * and openblas_get_config. Sizes are passed as the peers' 32-bit int (LP64 builds).
 *
 * Each peer gets its best kernels for the ISA the own kernels run (ns_isa_dispatch(), which
 * NODESCALE_ISA may narrow), or the comparison is unfair: OpenBLAS 0.3.21's DYNAMIC_ARCH does
 * not know Sapphire/Emerald Rapids and falls back to its SSE3 "Prescott" kernels, so when
 * OPENBLAS_CORETYPE is unset it is set for the dlopen (OpenBLAS reads it in its constructor) and
 * removed again: "SkylakeX" for avx512; when NODESCALE_ISA selects a narrower ISA than the CPU's
 * widest, "Haswell" for avx2 and "Prescott" (SSE3, the narrowest OpenBLAS has) for scalar. A
 * user's OPENBLAS_CORETYPE is kept. `note` records what was set and by whom.
 * Debian's BLIS 0.9.0 is built without its skx configuration and runs its haswell (AVX2)
 * kernels on this CPU; nothing can change that at run time, and `version` shows the config.
 * `isa` records the ISA each peer's kernels use (from OpenBLAS's core name and BLIS's
 * configuration), so that a peer wider than the run's ceilings is not judged against them. */
#include <dlfcn.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kernels/gemm/gemm_kernels.h"

typedef void (*cblas_dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                               const double *, int, double, double *, int);
typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                               const float *, int, float, float *, int);
typedef void (*set_threads_fn)(int);

typedef struct peer {
    ns_gemm_peer_info info;
    void *handle;
    cblas_dgemm_fn dgemm;
    cblas_sgemm_fn sgemm;
    set_threads_fn set_threads;
    pthread_mutex_t lock; /* thread count + call are one step: another caller may set another */
} peer;

static peer peers[2] = {{.lock = PTHREAD_MUTEX_INITIALIZER}, {.lock = PTHREAD_MUTEX_INITIALIZER}};
static pthread_once_t peers_once = PTHREAD_ONCE_INIT;

static void *open_lib(const char *path, peer *p) {
#if defined(__SANITIZE_ADDRESS__)
    /* The ASan runtime aborts on RTLD_DEEPBIND (google/sanitizers#611), and without it the two
     * cblas_dgemm would collide: in a sanitizer build the peers are simply unavailable. */
    snprintf(p->info.status, sizeof p->info.status,
             "not loaded: RTLD_DEEPBIND is incompatible with AddressSanitizer (sanitizer build)");
    (void)path;
    return NULL;
#endif
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        const char *e = dlerror();
        snprintf(p->info.status, sizeof p->info.status, "dlopen %s: %s", path, e ? e : "failed");
    }
    return h;
}

/* The widest ISA the kernels of a BLIS configuration or an OpenBLAS core use; "" unknown. */
static const char *isa_of_core(const char *core) {
    /* clang-format off */
    static const struct {
        const char *core, *isa;
    } map[] = {
        /* BLIS configurations (bli_arch_string) */
        {"skx", "avx512"}, {"knl", "avx512"}, {"zen4", "avx512"}, {"haswell", "avx2"},
        {"zen", "avx2"}, {"zen2", "avx2"}, {"zen3", "avx2"}, {"sandybridge", "avx"},
        {"bulldozer", "avx"}, {"piledriver", "avx"}, {"steamroller", "avx"}, {"excavator", "avx"},
        {"penryn", "sse"}, {"generic", "scalar"},
        /* OpenBLAS DYNAMIC_ARCH cores (openblas_get_corename), x86_64 */
        {"SkylakeX", "avx512"}, {"Cooperlake", "avx512"}, {"SapphireRapids", "avx512"},
        {"Haswell", "avx2"}, {"Zen", "avx2"}, {"Sandybridge", "avx"}, {"Bulldozer", "avx"},
        {"Piledriver", "avx"}, {"Steamroller", "avx"}, {"Excavator", "avx"}, {"Prescott", "sse"},
        {"Core2", "sse"}, {"Penryn", "sse"}, {"Dunnington", "sse"}, {"Nehalem", "sse"},
        {"Atom", "sse"}, {"Opteron", "sse"}, {"Opteron(SSE3)", "sse"}, {"Barcelona", "sse"},
        {"Nano", "sse"}, {"Athlon", "sse"}, {"Katmai", "sse"}, {"Coppermine", "sse"},
        {"Northwood", "sse"}, {"Banias", "sse"}};
    /* clang-format on */
    for (size_t i = 0; core && i < sizeof map / sizeof *map; i++)
        if (!strcasecmp(core, map[i].core)) return map[i].isa;
    return "";
}

/* 1 when NODESCALE_ISA narrows the own kernels below the widest ISA cpuid reports. */
static int isa_narrowed(void) {
    const char *widest = ns_cpu_has_avx512() ? "avx512" : ns_cpu_has_avx2_fma() ? "avx2" : "scalar";
    return strcmp(ns_isa_dispatch(), widest) != 0;
}

/* The OPENBLAS_CORETYPE nodescale sets for the own kernels' ISA (see the top), or NULL. */
static const char *openblas_coretype(void) {
    const char *isa = ns_isa_dispatch();
    if (!strcmp(isa, "avx512")) return "SkylakeX";
    if (!isa_narrowed()) return NULL; /* OpenBLAS's own choice */
    return !strcmp(isa, "avx2") ? "Haswell" : "Prescott";
}

static void load_blis(peer *p) {
    static const char path[] = "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4";
    p->info.name = "blis";
    snprintf(p->info.path, sizeof p->info.path, "%s", path);
    p->handle = open_lib(path, p);
    if (!p->handle) return;
    p->dgemm = (cblas_dgemm_fn)dlsym(p->handle, "cblas_dgemm");
    p->sgemm = (cblas_sgemm_fn)dlsym(p->handle, "cblas_sgemm");
    p->set_threads = (set_threads_fn)dlsym(p->handle, "bli_thread_set_num_threads");
    const char *(*ver)(void) = (const char *(*)(void))dlsym(p->handle, "bli_info_get_version_str");
    int (*arch_id)(void) = (int (*)(void))dlsym(p->handle, "bli_arch_query_id");
    const char *(*arch_str)(int) = (const char *(*)(int))dlsym(p->handle, "bli_arch_string");
    int (*omp)(void) = (int (*)(void))dlsym(p->handle, "bli_info_get_enable_openmp");
    if (!p->dgemm || !p->sgemm || !p->set_threads) {
        snprintf(p->info.status, sizeof p->info.status, "%s lacks cblas_?gemm or "
                 "bli_thread_set_num_threads", path);
        return;
    }
    snprintf(p->info.version, sizeof p->info.version, "BLIS %s (config %s)",
             ver ? ver() : "?", arch_id && arch_str ? arch_str(arch_id()) : "?");
    snprintf(p->info.threading, sizeof p->info.threading, "%s",
             omp && omp() ? "openmp" : "not openmp (as built)");
    snprintf(p->info.isa, sizeof p->info.isa, "%s",
             arch_id && arch_str ? isa_of_core(arch_str(arch_id())) : "");
    if (arch_id && arch_str && strcmp(arch_str(arch_id()), "skx") && ns_cpu_has_avx512())
        snprintf(p->info.note, sizeof p->info.note,
                 "this BLIS build has no skx configuration; it runs its %s kernels on this "
                 "AVX-512 CPU", arch_str(arch_id()));
    const char *own = ns_isa_dispatch();
    if (*p->info.isa && strcmp(p->info.isa, own) && isa_narrowed()) {
        size_t used = strlen(p->info.note);
        snprintf(p->info.note + used, sizeof p->info.note - used,
                 "%sit stays %s under NODESCALE_ISA=%s (its configuration is fixed when built)",
                 used ? "; " : "", p->info.isa, own);
    }
    p->info.available = 1;
    snprintf(p->info.status, sizeof p->info.status, "ok");
}

/* OpenBLAS reserves a BUFFER_SIZE (128 MiB on x86_64, OpenBLAS common_x86_64.h) buffer per
 * thread in its constructor (blas_thread_init), and 0.3.21 retries a failed mmap forever: under
 * an address-space limit (ulimit -v) without that much room left, dlopen never returns (a
 * `bench dgemm --n 3000` under ulimit -v 300000 spun 9 minutes in it). The threads it counts
 * (OpenBLAS's blas_cpu_number): OPENBLAS_NUM_THREADS, else OMP_NUM_THREADS (its first value),
 * else the CPUs online; the OpenMP build also follows this process's omp_get_max_threads(), so
 * the larger is taken; at most its MAX_THREADS (64 in Debian 12's build, openblas_get_config).
 * The load itself maps ~40 MiB more (the library, libgfortran: measured 167 MiB of address space
 * for 1 thread, 295 MiB for 2), hence OPENBLAS_MARGIN, and the first call reserves one more
 * buffer for the calling thread (a 1-thread cblas_dgemm hung in blas_memory_alloc with 258 MiB
 * left), hence threads + 1. Returns 0 when loading is safe, else -1
 * with the reason in why. */
#define OPENBLAS_BUFFER ((int64_t)128 << 20)
#define OPENBLAS_MARGIN ((int64_t)64 << 20)
#define OPENBLAS_MAX_THREADS 64
static int openblas_fits(char *why, size_t len) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 0;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("OPENBLAS_NUM_THREADS");
    if (!env || atol(env) < 1) env = getenv("OMP_NUM_THREADS");
    if (env && atol(env) >= 1) threads = atol(env); /* atol stops at OMP's ',' */
    if (omp_get_max_threads() > threads) threads = omp_get_max_threads();
    if (threads < 1) threads = 1;
    if (threads > OPENBLAS_MAX_THREADS) threads = OPENBLAS_MAX_THREADS;
    int64_t need = (threads + 1) * OPENBLAS_BUFFER + OPENBLAS_MARGIN;
    int64_t used = 0;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kb;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %lld", &kb) == 1) used = (int64_t)kb << 10;
    if (f) fclose(f);
    int64_t room = (int64_t)rl.rlim_cur - used;
    if (room >= need) return 0;
    snprintf(why, len,
             "not loaded: its start-up reserves 128 MiB per thread (%lld MiB with its code "
             "here) and the address-space limit (ulimit -v) leaves %lld MiB; OpenBLAS would "
             "retry forever",
             (long long)(need >> 20), (long long)(room > 0 ? room >> 20 : 0));
    return -1;
}

static void load_openblas(peer *p) {
    static const char omp_path[] = "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0";
    static const char pth_path[] = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0";
    p->info.name = "openblas";
    if (openblas_fits(p->info.status, sizeof p->info.status) != 0) return;
    const char *path = omp_path;
    const char *user = getenv("OPENBLAS_CORETYPE");
    const char *core = user && *user ? NULL : openblas_coretype();
    if (core) setenv("OPENBLAS_CORETYPE", core, 1);
    p->handle = open_lib(omp_path, p);
    if (!p->handle) {
        path = pth_path;
        p->handle = open_lib(pth_path, p);
    }
    if (core) unsetenv("OPENBLAS_CORETYPE");
    const char *isa = ns_isa_dispatch();
    if (user && *user)
        snprintf(p->info.note, sizeof p->info.note,
                 "OPENBLAS_CORETYPE=%.40s set by the user (kept)", user);
    else if (core && !strcmp(core, "SkylakeX"))
        snprintf(p->info.note, sizeof p->info.note,
                 "OPENBLAS_CORETYPE=SkylakeX set for loading (DYNAMIC_ARCH falls back to "
                 "Prescott on CPUs newer than it knows)");
    else if (core)
        snprintf(p->info.note, sizeof p->info.note,
                 "OPENBLAS_CORETYPE=%s set for loading: the own kernels run %s (NODESCALE_ISA)%s",
                 core, isa,
                 strcmp(core, "Prescott") ? ""
                                          : "; Prescott (SSE3) is OpenBLAS's narrowest, as wide "
                                            "as the own SSE2 baseline");
    if (!p->handle) return;
    snprintf(p->info.path, sizeof p->info.path, "%s", path);
    p->dgemm = (cblas_dgemm_fn)dlsym(p->handle, "cblas_dgemm");
    p->sgemm = (cblas_sgemm_fn)dlsym(p->handle, "cblas_sgemm");
    p->set_threads = (set_threads_fn)dlsym(p->handle, "openblas_set_num_threads");
    char *(*cfg)(void) = (char *(*)(void))dlsym(p->handle, "openblas_get_config");
    int (*par)(void) = (int (*)(void))dlsym(p->handle, "openblas_get_parallel");
    if (!p->dgemm || !p->sgemm || !p->set_threads) {
        snprintf(p->info.status, sizeof p->info.status, "%s lacks cblas_?gemm or "
                 "openblas_set_num_threads", path);
        return;
    }
    char *(*corename)(void) = (char *(*)(void))dlsym(p->handle, "openblas_get_corename");
    snprintf(p->info.version, sizeof p->info.version, "%s", cfg ? cfg() : "?");
    snprintf(p->info.isa, sizeof p->info.isa, "%s", corename ? isa_of_core(corename()) : "");
    /* openblas_get_parallel: 0 sequential, 1 pthreads, 2 OpenMP. */
    int kind = par ? par() : -1;
    snprintf(p->info.threading, sizeof p->info.threading, "%s",
             kind == 2   ? "openmp"
             : kind == 1 ? (path == omp_path ? "pthreads" : "pthreads (OpenMP build not found)")
             : kind == 0 ? "sequential"
                         : "unknown");
    p->info.available = 1;
    snprintf(p->info.status, sizeof p->info.status, "ok");
}

static void peers_init(void) {
    load_blis(&peers[0]);
    load_openblas(&peers[1]);
}

int ns_gemm_peer_info_get(int which, ns_gemm_peer_info *out) {
    if (which < 0 || which > 1) return -1;
    pthread_once(&peers_once, peers_init);
    pthread_mutex_lock(&peers[which].lock);
    *out = peers[which].info;
    pthread_mutex_unlock(&peers[which].lock);
    return 0;
}

static int fits_int(int64_t x) {
    return x >= 0 && x <= INT_MAX;
}

/* CBLAS enum values: CblasColMajor 102, CblasNoTrans 111, CblasTrans 112. */
static peer *peer_ready(int which, int threads, int64_t m, int64_t n, int64_t k, int64_t lda,
                        int64_t ldb, int64_t ldc) {
    if (which < 0 || which > 1) return NULL;
    pthread_once(&peers_once, peers_init);
    peer *p = &peers[which];
    if (!p->info.available) return NULL;
    if (!fits_int(m) || !fits_int(n) || !fits_int(k) || !fits_int(lda) || !fits_int(ldb) ||
        !fits_int(ldc))
        return NULL;
    pthread_mutex_lock(&p->lock);
    if (threads < 1) threads = 1;
    p->set_threads(threads);
    p->info.threads = threads;
    return p;
}

int ns_gemm_peer_dgemm(int which, int threads, int transa, int transb, int64_t m, int64_t n,
                       int64_t k, double alpha, const double *a, int64_t lda, const double *b,
                       int64_t ldb, double beta, double *c, int64_t ldc) {
    peer *p = peer_ready(which, threads, m, n, k, lda, ldb, ldc);
    if (!p) return -1;
    p->dgemm(102, transa ? 112 : 111, transb ? 112 : 111, (int)m, (int)n, (int)k, alpha, a,
             (int)lda, b, (int)ldb, beta, c, (int)ldc);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

int ns_gemm_peer_sgemm(int which, int threads, int transa, int transb, int64_t m, int64_t n,
                       int64_t k, float alpha, const float *a, int64_t lda, const float *b,
                       int64_t ldb, float beta, float *c, int64_t ldc) {
    peer *p = peer_ready(which, threads, m, n, k, lda, ldb, ldc);
    if (!p) return -1;
    p->sgemm(102, transa ? 112 : 111, transb ? 112 : 111, (int)m, (int)n, (int)k, alpha, a,
             (int)lda, b, (int)ldb, beta, c, (int)ldc);
    pthread_mutex_unlock(&p->lock);
    return 0;
}
