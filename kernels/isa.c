/* Run-time ISA selection from cpuid (registry.h: ns_cpu_has_*, ns_isa_selected,
 * ns_isa_dispatch). A file of its own, apart from the registry, so that libnodescale is built
 * from what its public functions need (Makefile, NS_LIB_SRC). */
#include "kernels/registry.h"

#include <cpuid.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static unsigned long long xgetbv0(void) {
    unsigned int eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

/* OSXSAVE set and the OS saves the YMM (and for AVX-512, opmask/ZMM) state. */
static int os_saves(unsigned long long mask) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
    return (xgetbv0() & mask) == mask;
}

/* The probes below read cpuid once per process. cpuid traps to the hypervisor in a VM (each
 * one costs microseconds, ~16 us for the 7 instructions of both probes on this project's KVM
 * guests), and the public entry points ask on every call. */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int has_avx2_fma, has_avx512;
static unsigned probe_count;

static void probe(void) {
    unsigned int a, b, c, d;
    probe_count++;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_FMA) || !(c & bit_AVX)) return;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2)) return;
    if (!os_saves(0x6)) return;
    has_avx2_fma = 1;
    unsigned int need = bit_AVX512F | bit_AVX512DQ | bit_AVX512BW | bit_AVX512VL;
    has_avx512 = (b & need) == need && os_saves(0xe6);
}

int ns_cpu_has_avx2_fma(void) {
    pthread_once(&probe_once, probe);
    return has_avx2_fma;
}

int ns_cpu_has_avx512(void) {
    pthread_once(&probe_once, probe);
    return has_avx512;
}

unsigned ns_cpu_probe_count(void) {
    return probe_count;
}

static int isa_runnable(const char *isa) {
    if (!strcmp(isa, "avx512")) return ns_cpu_has_avx512();
    if (!strcmp(isa, "avx2")) return ns_cpu_has_avx2_fma();
    return !strcmp(isa, "scalar");
}

const char *ns_isa_selected(void) {
    const char *forced = getenv("NODESCALE_ISA");
    if (forced && *forced) {
        static const char *const known[] = {"avx512", "avx2", "scalar"};
        for (size_t i = 0; i < 3; i++)
            if (!strcasecmp(forced, known[i])) return isa_runnable(known[i]) ? known[i] : NULL;
        return NULL;
    }
    if (ns_cpu_has_avx512()) return "avx512";
    if (ns_cpu_has_avx2_fma()) return "avx2";
    return "scalar";
}

static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;
static const char *dispatch_isa = "scalar";

/* NODESCALE_ISA read once (the cpuid probes are cached too). */
static void dispatch_init(void) {
    const char *sel = ns_isa_selected();
    if (!sel) {
        fprintf(stderr, "nodescale: warning: NODESCALE_ISA=%s is unknown or not runnable here; "
                        "using the widest ISA cpuid reports\n", getenv("NODESCALE_ISA"));
        sel = ns_cpu_has_avx512() ? "avx512" : ns_cpu_has_avx2_fma() ? "avx2" : "scalar";
    }
    dispatch_isa = sel;
}

const char *ns_isa_dispatch(void) {
    pthread_once(&dispatch_once, dispatch_init);
    return dispatch_isa;
}
