/* The measurement context (see context.h): hwloc for topology and caches, cpuid for the ISA and
 * the hypervisor, sched_getaffinity for the mask actually in effect, /proc for memory and OS. */
#include "harness/context.h"

#include <cpuid.h>
#include <errno.h>
#include <hwloc.h>
#include <jansson.h>
#include <omp.h>
#include <papi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "harness/json.h"
#include "harness/timer.h"
#include "kernels/registry.h"

#ifndef NODESCALE_CFLAGS
#define NODESCALE_CFLAGS "unknown"
#endif
#ifndef NODESCALE_CC
#define NODESCALE_CC "cc"
#endif

static ns_topology topo;
static int topo_done;

static int64_t meminfo_bytes(const char *key) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    long long kb = 0;
    size_t len = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, len) && line[len] == ':') {
            sscanf(line + len + 1, "%lld", &kb);
            break;
        }
    fclose(f);
    return (int64_t)kb * 1024;
}

/* With OMP_PROC_BIND set the OpenMP runtime has already bound the initial thread to its first
 * place, so the thread's own mask shows one place only: take the union of the OpenMP places
 * instead (built from the process mask at start-up). omp_get_place_proc_ids writes every id of
 * the place and takes no length, so the buffer is sized from omp_get_place_num_procs. */
int ns_usable_cpus(cpu_set_t *mask) {
    CPU_ZERO(mask);
    int places = omp_get_num_places();
    for (int p = 0; p < places; p++) {
        int n = omp_get_place_num_procs(p);
        int *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
        if (!ids) continue;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE) CPU_SET(ids[i], mask);
        free(ids);
    }
    if (places == 0 && sched_getaffinity(0, sizeof *mask, mask) != 0) CPU_ZERO(mask);
    return CPU_COUNT(mask);
}

/* A number in a /sys or /proc file; -1 when missing or not a number ("max"). */
static int64_t file_int(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long long v;
    int ok = fscanf(f, "%lld", &v) == 1 && v >= 0;
    fclose(f);
    return ok ? (int64_t)v : -1;
}

/* The value of `key` in a memory.stat file (v1 "total_inactive_file", v2 "inactive_file"), 0
 * when missing. */
static int64_t stat_key(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char k[128];
    long long v, found = 0;
    while (fscanf(f, "%127s %lld", k, &v) == 2)
        if (!strcmp(k, key)) {
            found = v > 0 ? v : 0;
            break;
        }
    fclose(f);
    return (int64_t)found;
}

/* A cgroup folder's memory limit (file `limit`, -1 when none) and, in *use, its usage (file
 * `usage`) less the inactive file pages (`inactive` in memory.stat). */
static int64_t cgroup_limit_use(const char *dir, const char *limit, const char *usage,
                                const char *inactive, int64_t *use) {
    char p[1400];
    snprintf(p, sizeof p, "%s/%s", dir, usage);
    *use = file_int(p);
    snprintf(p, sizeof p, "%s/memory.stat", dir);
    *use -= stat_key(p, inactive);
    snprintf(p, sizeof p, "%s/%s", dir, limit);
    return file_int(p);
}

int64_t ns_cgroup_headroom(const char *proc_cgroup, const char *root, int64_t mem_total,
                           int *v2) {
    FILE *f = fopen(proc_cgroup, "r");
    if (!f) return -1;
    char line[1024], v2path[1024] = "", v1path[1024] = "";
    int have_v2 = 0, have_v1 = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "0::", 3)) {
            snprintf(v2path, sizeof v2path, "%s", line + 3);
            have_v2 = 1;
        } else {
            char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;
            if (!path) continue;
            *path = 0;
            for (char *c = strtok(ctl + 1, ","); c; c = strtok(NULL, ","))
                if (!strcmp(c, "memory")) {
                    snprintf(v1path, sizeof v1path, "%s", path + 1);
                    have_v1 = 1;
                }
        }
    }
    fclose(f);
    int64_t best = 0;
    int limited = 0;
    char p[2400];
    if (have_v1) {
        snprintf(p, sizeof p, "%s/memory%s", root, v1path);
        int64_t use, lim = cgroup_limit_use(p, "memory.limit_in_bytes", "memory.usage_in_bytes",
                                            "total_inactive_file", &use);
        /* "Unlimited" reads as a page-rounded 2^63: anything above the RAM is no limit. */
        if (lim > 0 && (mem_total <= 0 || lim < mem_total)) {
            best = lim - (use > 0 ? use : 0);
            limited = 1, *v2 = 0;
        }
    }
    for (char *end = v2path + strlen(v2path); have_v2;) {
        *end = 0;
        snprintf(p, sizeof p, "%s%s", root, v2path);
        int64_t use, lim =
            cgroup_limit_use(p, "memory.max", "memory.current", "inactive_file", &use);
        if (lim >= 0) {
            int64_t room = lim - (use > 0 ? use : 0);
            if (!limited || room < best) best = room, limited = 1, *v2 = 1;
        }
        end = strrchr(v2path, '/');
        if (!end || end == v2path) break; /* the root cgroup has no memory.max */
    }
    /* usage can exceed the limit for a moment (the kernel reclaims after the fact): no room */
    return !limited ? -1 : best < 0 ? 0 : best;
}

int64_t ns_memory_available(const char **source) {
    int64_t avail = meminfo_bytes("MemAvailable");
    const char *src = "MemAvailable";
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        int64_t room = (int64_t)rl.rlim_cur;
        FILE *f = fopen("/proc/self/status", "r");
        char line[256];
        long long kb = 0;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "VmSize: %lld", &kb) == 1) break;
        if (f) fclose(f);
        room -= (int64_t)kb * 1024;
        if (room < 0) room = 0;
        if (avail <= 0 || room < avail)
            avail = room, src = "RLIMIT_AS (ulimit -v) less the address space in use";
    }
    int v2 = 0;
    int64_t cg =
        ns_cgroup_headroom("/proc/self/cgroup", "/sys/fs/cgroup", meminfo_bytes("MemTotal"), &v2);
    if (cg >= 0 && (avail <= 0 || cg < avail))
        avail = cg > 0 ? cg : 1 /* no room, which 0 ("unknown") would not say */, src = v2 ? "cgroup memory.max less memory.current"
                             : "cgroup memory.limit_in_bytes less memory.usage_in_bytes";
    if (source) *source = src;
    return avail;
}

static void read_topology(void) {
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) return;
    if (hwloc_topology_load(t) == 0) {
        topo.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        topo.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
        topo.sockets = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
        topo.numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
        static const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                                 HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE};
        for (size_t i = 0; i < sizeof types / sizeof types[0] && topo.ncaches < NS_MAX_CACHES;
             i++) {
            int n = hwloc_get_nbobjs_by_type(t, types[i]);
            if (n <= 0) continue;
            hwloc_obj_t o = hwloc_get_obj_by_type(t, types[i], 0);
            /* A cache of unknown size (0) gives no capacity to label by, and a results file
             * listing one is refused (ns_results_check): not recorded. */
            if (!o->attr->cache.size) continue;
            ns_cache_info *c = &topo.caches[topo.ncaches++];
            c->level = (int)o->attr->cache.depth;
            c->type = o->attr->cache.type == HWLOC_OBJ_CACHE_DATA      ? "data"
                      : o->attr->cache.type == HWLOC_OBJ_CACHE_UNIFIED ? "unified"
                                                                       : "instruction";
            c->size_bytes = (int64_t)o->attr->cache.size;
            c->count = n;
            c->shared_by_cores =
                hwloc_get_nbobjs_inside_cpuset_by_type(t, o->cpuset, HWLOC_OBJ_CORE);
            if (c->shared_by_cores < 1) c->shared_by_cores = 1;
        }
    }
    hwloc_topology_destroy(t);

    cpu_set_t start;
    topo.cpus_in_mask = ns_usable_cpus(&start);
    topo.cpus_in_start_mask = ns_start_cpus(&start);
    if (topo.cpus_in_start_mask < topo.cpus_in_mask) topo.cpus_in_start_mask = topo.cpus_in_mask;
    if (topo.cores <= 0) topo.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    topo.mem_total_bytes = meminfo_bytes("MemTotal");
    topo.mem_meminfo_available_bytes = meminfo_bytes("MemAvailable");
    topo.mem_available_bytes = ns_memory_available(&topo.mem_available_source);
}

const ns_topology *ns_topology_get(void) {
    if (!topo_done) {
        read_topology();
        topo_done = 1;
    }
    return &topo;
}

int64_t ns_cache_size(int level) {
    const ns_topology *t = ns_topology_get();
    for (int i = 0; i < t->ncaches; i++)
        if (t->caches[i].level == level && strcmp(t->caches[i].type, "instruction") != 0)
            return t->caches[i].size_bytes;
    return 0;
}

int64_t ns_cache_aggregate(int level, int threads) {
    const ns_topology *t = ns_topology_get();
    for (int i = 0; i < t->ncaches; i++) {
        const ns_cache_info *c = &t->caches[i];
        if (c->level != level || !strcmp(c->type, "instruction")) continue;
        /* Threads placed close, one per core: they fill ceil(threads / shared) instances. */
        int instances = (threads + c->shared_by_cores - 1) / c->shared_by_cores;
        if (instances > c->count) instances = c->count;
        return c->size_bytes * instances;
    }
    return 0;
}

int ns_llc_level(void) {
    for (int l = 4; l >= 1; l--)
        if (ns_cache_size(l) > 0) return l;
    return 0;
}

/* The CPU mask this process started with. Read from .preinit_array, which the dynamic loader
 * runs before any shared library's initialiser: libgomp's binds the initial thread to its first
 * place when OMP_PROC_BIND or OMP_PLACES is set, after which sched_getaffinity shows that place
 * only (taskset's mask is lost). */
static cpu_set_t start_mask;
static int start_mask_known;

static void record_start_mask(void) {
    start_mask_known =
        sched_getaffinity(0, sizeof start_mask, &start_mask) == 0 && CPU_COUNT(&start_mask) > 0;
}
__attribute__((section(".preinit_array"), used)) static void (*const record_start_mask_at)(void) =
    record_start_mask;

/* The starting mask: the one recorded before libgomp loaded; else NODESCALE_START_CPUS; else the
 * CPUs of the OpenMP places (a subset of the starting mask) or the current mask. */
static void start_cpu_set(cpu_set_t *m) {
    if (start_mask_known) {
        *m = start_mask;
        return;
    }
    CPU_ZERO(m);
    const char *list = getenv("NODESCALE_START_CPUS");
    for (const char *p = list; p && *p;) {
        char *end;
        long c = strtol(p, &end, 10);
        if (end == p) break;
        if (c >= 0 && c < CPU_SETSIZE) CPU_SET((int)c, m);
        p = *end == ',' ? end + 1 : end;
    }
    if (CPU_COUNT(m) == 0) ns_usable_cpus(m);
}

/* OMP_NUM_THREADS as a thread count: 0 when unset or empty, -1 when not a positive integer
 * (libgomp complains about it and ignores it), else the count in *t. */
static int omp_num_threads(long long *t) {
    const char *v = getenv("OMP_NUM_THREADS");
    if (!v || !*v) return 0;
    char *end;
    errno = 0;
    *t = strtoll(v, &end, 10);
    if (errno || end == v || (*end && *end != ',') || *t < 1) return -1;
    return 1;
}

/* NODESCALE_AFFINITY_SET when it describes the placement in effect, else NULL. "defaults" holds
 * only with OMP_PROC_BIND=close and OMP_PLACES=cores, as nodescale sets them; another value (the
 * exec failed) only with neither set. A marker inherited from a parent nodescale, or replayed
 * from run.log's env lines, without those variables describes nothing here. */
static const char *affinity_marker(void) {
    const char *how = getenv("NODESCALE_AFFINITY_SET");
    const char *bind = getenv("OMP_PROC_BIND"), *places = getenv("OMP_PLACES");
    if (!how) return NULL;
    if (!strcmp(how, "defaults"))
        return bind && places && !strcmp(bind, "close") && !strcmp(places, "cores") ? how : NULL;
    return bind || places ? NULL : how;
}

void ns_affinity_defaults(char **argv) {
    /* Recorded whoever sets the placement, for ns_affinity_release in this process and its
     * re-exec, and for the context. */
    cpu_set_t start;
    start_cpu_set(&start);
    if (CPU_COUNT(&start) > 0) {
        char list[4096];
        size_t len = 0;
        list[0] = 0;
        for (int c = 0; c < CPU_SETSIZE && len + 8 < sizeof list; c++)
            if (CPU_ISSET(c, &start))
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? "," : "", c);
        setenv("NODESCALE_START_CPUS", list, 1);
    }
    /* A marker this process did not set: trusted only for the placement nodescale set (a
     * parent's, in effect here too); any other is dropped and this start is a fresh one (an
     * inherited "exec failed" is retried). */
    const char *how = affinity_marker();
    if (how && strcmp(how, "defaults")) how = NULL;
    if (!how) unsetenv("NODESCALE_AFFINITY_SET");
    if (getenv("OMP_PROC_BIND") || getenv("OMP_PLACES") || how) return;
    /* A bad OMP_NUM_THREADS is refused by every command that runs threads: no re-exec, which
     * would only make libgomp print its "Invalid value" line once more. */
    long long t;
    if (omp_num_threads(&t) < 0) return;
    setenv("OMP_PROC_BIND", "close", 1);
    setenv("OMP_PLACES", "cores", 1);
    setenv("NODESCALE_AFFINITY_SET", "defaults", 1);
    execv("/proc/self/exe", argv);
    /* exec failed: carry on unpinned; context says so. */
    unsetenv("OMP_PROC_BIND");
    unsetenv("OMP_PLACES");
    setenv("NODESCALE_AFFINITY_SET", "exec failed: threads not pinned", 1);
}

int ns_default_threads(int64_t *threads, char *err, size_t errlen) {
    int cpus = ns_topology_get()->cpus_in_mask;
    if (cpus < 1) cpus = 1;
    *threads = cpus;
    long long t;
    int got = omp_num_threads(&t);
    if (got == 0) return 0;
    if (got < 0) {
        snprintf(err, errlen, "OMP_NUM_THREADS='%.40s' is not a positive integer",
                 getenv("OMP_NUM_THREADS"));
        return -1;
    }
    int limit = ns_topology_get()->cpus_in_start_mask;
    if (limit < cpus) limit = cpus;
    if (t > limit) {
        snprintf(err, errlen,
                 "OMP_NUM_THREADS=%lld is more than the %d CPUs of this process's "
                 "affinity mask",
                 t, limit);
        return -1;
    }
    *threads = t;
    return 0;
}

int ns_affinity_release(cpu_set_t *saved) {
    if (saved && sched_getaffinity(0, sizeof *saved, saved) != 0) return -1;
    cpu_set_t m;
    start_cpu_set(&m); /* never wider than the mask nodescale was started with */
    if (CPU_COUNT(&m) == 0) return 0;
    return sched_setaffinity(0, sizeof m, &m);
}

const char *ns_cpu_model(void) {
    static char brand[49];
    if (brand[0]) return brand;
    unsigned int r[12];
    if (__get_cpuid_max(0x80000000, NULL) >= 0x80000004) {
        for (unsigned int i = 0; i < 3; i++)
            __get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
        memcpy(brand, r, 48);
        brand[48] = 0;
        char *s = brand; /* trim leading blanks */
        while (*s == ' ')
            s++;
        memmove(brand, s, strlen(s) + 1);
    } else {
        snprintf(brand, sizeof brand, "unknown");
    }
    return brand;
}

static const char *cpu_vendor(void) {
    static char v[13];
    unsigned int a, b, c, d;
    if (!v[0] && __get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(v, &b, 4), memcpy(v + 4, &d, 4), memcpy(v + 8, &c, 4);
    }
    return v;
}

const char *ns_hypervisor_name(const char *name) {
    /* The 12-byte vendor signatures of cpuid 0x40000000 (each hypervisor's documentation). */
    static const char *const known[][2] = {
        {"KVMKVMKVM", "KVM"},          {"Microsoft Hv", "Hyper-V"},   {"VMwareVMware", "VMware"},
        {"XenVMMXenVMM", "Xen"},       {"TCGTCGTCGTCG", "QEMU TCG"},  {"ACRNACRNACRN", "ACRN"},
        {"bhyve bhyve ", "bhyve"},     {" lrpepyh  vr", "Parallels"}, {"QNXQVMBSQG", "QNX"},
        {"VBoxVBoxVBox", "VirtualBox"}};
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(name, known[i][0])) return known[i][1];
    return name;
}

/* cpuid leaf 1 ECX bit 31: running under a hypervisor; leaf 0x40000000 names it. */
static json_t *virtualization_json(void) {
    unsigned int a, b, c, d;
    json_t *o = json_object();
    int hv = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31));
    json_object_set_new(o, "virtualized", json_boolean(hv));
    if (hv) {
        char name[13] = {0};
        __cpuid(0x40000000, a, b, c, d);
        memcpy(name, &b, 4), memcpy(name + 4, &c, 4), memcpy(name + 8, &d, 4);
        json_object_set_new(o, "hypervisor", json_string(ns_hypervisor_name(name)));
        json_object_set_new(o, "hypervisor_signature", json_string(name));
    }
    return o;
}

static json_t *isa_json(void) {
    unsigned int a = 0, b = 0, c = 0, d = 0;
    json_t *arr = json_array();
    __get_cpuid(1, &a, &b, &c, &d);
    if (d & bit_SSE2) json_array_append_new(arr, json_string("sse2"));
    if (c & bit_AVX) json_array_append_new(arr, json_string("avx"));
    if (c & bit_FMA) json_array_append_new(arr, json_string("fma"));
    __get_cpuid_count(7, 0, &a, &b, &c, &d);
    static const struct {
        unsigned int bit;
        const char *name;
    } ebx7[] = {
        {bit_AVX2, "avx2"},         {bit_AVX512F, "avx512f"},   {bit_AVX512DQ, "avx512dq"},
        {bit_AVX512CD, "avx512cd"}, {bit_AVX512BW, "avx512bw"}, {bit_AVX512VL, "avx512vl"},
    };
    for (size_t i = 0; i < sizeof ebx7 / sizeof ebx7[0]; i++)
        if (b & ebx7[i].bit) json_array_append_new(arr, json_string(ebx7[i].name));
    if (d & (1u << 24)) json_array_append_new(arr, json_string("amx_tile"));
    if (!ns_cpu_has_avx512() && (b & bit_AVX512F))
        json_array_append_new(arr, json_string("note: avx512 state not enabled by the OS"));
    return arr;
}

/* The caches hwloc reports, each kept only if every reader accepts it: ns_cache_entry_check and
 * ns_cache_grows, the rules of ns_results_check, so a file nodescale writes is never refused by
 * its own readers (a VM may report an L3 smaller than its L2). Each cache left out goes to
 * *dropped as {level, size_bytes, reason}, with one warning on stderr per process. */
static json_t *caches_json(json_t **dropped) {
    static int warned;
    const ns_topology *t = ns_topology_get();
    json_t *arr = json_array();
    *dropped = json_array();
    int prev_level = 0;
    double prev_size = 0;
    for (int i = 0; i < t->ncaches; i++) {
        json_t *c = json_object();
        ns_json_set_int(c, "level", t->caches[i].level);
        ns_json_set_str(c, "type", t->caches[i].type);
        ns_json_set_int(c, "size_bytes", t->caches[i].size_bytes);
        ns_json_set_int(c, "count", t->caches[i].count);
        ns_json_set_int(c, "shared_by_cores", t->caches[i].shared_by_cores);
        char why[200];
        int instr = t->caches[i].type && !strcmp(t->caches[i].type, "instruction");
        double size = (double)t->caches[i].size_bytes;
        if (ns_cache_entry_check(c, why, sizeof why) == 0 &&
            (instr || ns_cache_grows(t->caches[i].level, size, prev_level, prev_size, why,
                                     sizeof why) == 0)) {
            if (!instr) prev_level = t->caches[i].level, prev_size = size;
            json_array_append_new(arr, c);
            continue;
        }
        json_decref(c);
        json_t *d = json_object();
        ns_json_set_int(d, "level", t->caches[i].level);
        ns_json_set_int(d, "size_bytes", t->caches[i].size_bytes);
        ns_json_set_str(d, "reason", why);
        json_array_append_new(*dropped, d);
        if (!warned) /* the first cache left out; the others are in caches_dropped */
            fprintf(stderr,
                    "nodescale: warning: L%d cache (%lld bytes) left out of context.cpu.caches "
                    "(listed in context.cpu.caches_dropped, with any other): %s\n",
                    t->caches[i].level, (long long)t->caches[i].size_bytes, why);
        warned = 1;
    }
    return arr;
}

int ns_env_recorded(const char *var) {
    static const char *const prefixes[] = {"OMP_",      "GOMP_", "KMP_",       "BLIS_",
                                           "OPENBLAS_", "MKL_",  "NODESCALE_", "GOTO_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(var, prefixes[i], strlen(prefixes[i]))) return 1;
    return 0;
}

/* s[0..len) as a JSON string, each byte that is not part of a valid UTF-8 sequence written as
 * the four characters \xHH (JSON strings hold only UTF-8: json_string gave NULL and the variable
 * vanished from the record). NULL only when out of memory. */
static json_t *json_string_escaped(const char *s, size_t len) {
    json_t *j = json_stringn(s, len);
    if (j) return j;
    char *buf = malloc(4 * len + 1);
    if (!buf) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        size_t n = c < 0x80             ? 1
                   : (c & 0xe0) == 0xc0 ? 2
                   : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4
                                        : 0;
        json_t *one = n && i + n <= len ? json_stringn(s + i, n) : NULL;
        if (one) {
            json_decref(one);
            memcpy(buf + k, s + i, n);
            k += n;
            i += n;
        } else {
            k += (size_t)sprintf(buf + k, "\\x%02X", c);
            i++;
        }
    }
    j = json_stringn(buf, k);
    free(buf);
    return j;
}

static json_t *env_json(void) {
    extern char **environ;
    json_t *o = json_object();
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || !ns_env_recorded(*e)) continue;
        json_t *k = json_string_escaped(*e, (size_t)(eq - *e));
        if (k)
            json_object_set_new(o, json_string_value(k),
                                json_string_escaped(eq + 1, strlen(eq + 1)));
        json_decref(k);
    }
    return o;
}

int ns_start_cpus(cpu_set_t *mask) {
    start_cpu_set(mask);
    return CPU_COUNT(mask);
}

static const char *proc_bind_name(omp_proc_bind_t b) {
    switch (b) {
    case omp_proc_bind_false:
        return "false";
    case omp_proc_bind_true:
        return "true";
    case omp_proc_bind_master:
        return "primary";
    case omp_proc_bind_close:
        return "close";
    case omp_proc_bind_spread:
        return "spread";
    }
    return "unknown";
}

static json_t *cpu_list_json(const cpu_set_t *mask) {
    json_t *cpus = json_array();
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, mask)) json_array_append_new(cpus, json_integer(c));
    return cpus;
}

static json_t *affinity_json(void) {
    json_t *o = json_object();
    cpu_set_t mask;
    ns_usable_cpus(&mask);
    json_object_set_new(o, "mask_cpus", cpu_list_json(&mask));
    start_cpu_set(&mask);
    json_object_set_new(o, "start_cpus", cpu_list_json(&mask));
    const char *how = affinity_marker();
    const char *bind = getenv("OMP_PROC_BIND"), *places = getenv("OMP_PLACES");
    ns_json_set_str(o, "omp_proc_bind", bind);
    ns_json_set_str(o, "omp_places", places);
    /* What the OpenMP runtime made of them: it ignores a value it cannot parse (or places with
     * no CPU of the mask) after printing "Invalid value". */
    omp_proc_bind_t eff = omp_get_proc_bind();
    int nplaces = omp_get_num_places();
    ns_json_set_str(o, "proc_bind_in_effect", proc_bind_name(eff));
    ns_json_set_int(o, "places_in_effect", nplaces);
    char ignored[512] = "";
    size_t len = 0;
    if (bind && *bind && eff == omp_proc_bind_false && strncasecmp(bind, "false", 5) != 0)
        len += (size_t)snprintf(ignored, sizeof ignored, "OMP_PROC_BIND='%.100s'", bind);
    if (places && *places && nplaces == 0 && len < sizeof ignored)
        snprintf(ignored + len, sizeof ignored - len, "%sOMP_PLACES='%.100s'", len ? " and " : "",
                 places);
    char user[700];
    if (ignored[0])
        snprintf(user, sizeof user,
                 "from the user's environment, but the OpenMP runtime ignored %s: threads %s",
                 ignored, eff == omp_proc_bind_false ? "not bound" : "bound to its default places");
    else
        snprintf(user, sizeof user, "from the user's environment");
    ns_json_set_str(o, "placement",
                    how ? (strcmp(how, "defaults")
                               ? how
                               : "nodescale defaults (OMP_PROC_BIND=close, OMP_PLACES=cores)")
                        : user);
    ns_json_set_str(o, "numa_policy", "first touch by the thread that uses each chunk");
    return o;
}

static json_t *libraries_json(void) {
    json_t *o = json_object();
    ns_json_set_str(o, "jansson", JANSSON_VERSION);
    unsigned v = hwloc_get_api_version();
    char buf[64];
    snprintf(buf, sizeof buf, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    ns_json_set_str(o, "hwloc", buf);
    snprintf(buf, sizeof buf, "%d.%d.%d", PAPI_VERSION_MAJOR(PAPI_VERSION),
             PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION));
    ns_json_set_str(o, "papi", buf);
    return o;
}

json_t *ns_context_json(int threads) {
    const ns_topology *t = ns_topology_get();
    json_t *ctx = json_object();
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    ns_json_set_str(ctx, "host", host);
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    ns_json_set_str(ctx, "date", date);
    ns_json_set_str(ctx, "nodescale_version", NODESCALE_VERSION);

    json_t *cpu = json_object();
    ns_json_set_str(cpu, "vendor", cpu_vendor());
    ns_json_set_str(cpu, "model", ns_cpu_model());
    json_object_set_new(cpu, "isa", isa_json());
    ns_json_set_str(cpu, "isa_selected", ns_isa_selected());
    ns_json_set_int(cpu, "cores", t->cores);
    ns_json_set_int(cpu, "pus", t->pus);
    ns_json_set_int(cpu, "sockets", t->sockets);
    ns_json_set_int(cpu, "numa_nodes", t->numa_nodes);
    ns_json_set_int(cpu, "cpus_in_affinity_mask", t->cpus_in_mask);
    json_t *dropped;
    json_object_set_new(cpu, "caches", caches_json(&dropped));
    if (json_array_size(dropped))
        json_object_set_new(cpu, "caches_dropped", dropped);
    else
        json_decref(dropped);
    json_object_set_new(cpu, "freq_measured_hz", json_null()); /* filled by the run */
    json_object_set_new(ctx, "cpu", cpu);

    json_t *mem = json_object();
    ns_json_set_int(mem, "total_bytes", t->mem_total_bytes);
    ns_json_set_int(mem, "available_bytes", t->mem_available_bytes);
    ns_json_set_str(mem, "available_limited_by", t->mem_available_source);
    ns_json_set_int(mem, "meminfo_available_bytes", t->mem_meminfo_available_bytes);
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128] = "";
    if (thp) {
        if (!fgets(line, sizeof line, thp)) line[0] = 0;
        fclose(thp);
        line[strcspn(line, "\n")] = 0;
    }
    ns_json_set_str(mem, "transparent_hugepages", line[0] ? line : NULL);
    ns_json_set_str(mem, "arrays", "2 MiB aligned and madvise(MADV_HUGEPAGE) when >= 2 MiB");
    json_object_set_new(ctx, "memory", mem);

    struct utsname u;
    if (uname(&u) == 0) {
        char os[512];
        snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
        ns_json_set_str(ctx, "os", os);
    }
    /* The 1-, 5- and 15-minute load averages when the run starts (getloadavg, as Google
     * Benchmark's context records them); [] when the system does not say. */
    json_t *load = json_array();
    double la[3];
    if (getloadavg(la, 3) == 3)
        for (int i = 0; i < 3; i++)
            json_array_append_new(load, json_real(la[i]));
    json_object_set_new(ctx, "load_avg", load);
    char compiler[256];
    snprintf(compiler, sizeof compiler, "%s %s", NODESCALE_CC, __VERSION__);
    ns_json_set_str(ctx, "compiler", compiler);
    ns_json_set_str(ctx, "cflags", NODESCALE_CFLAGS);
    json_object_set_new(ctx, "libraries", libraries_json());
    json_object_set_new(ctx, "env", env_json());
    json_object_set_new(ctx, "affinity", affinity_json());
    ns_json_set_int(ctx, "threads", threads);
    json_t *virt = virtualization_json();
    json_object_set(ctx, "virtualized", json_object_get(virt, "virtualized"));
    json_object_set(ctx, "hypervisor", json_object_get(virt, "hypervisor"));
    if (json_object_get(virt, "hypervisor_signature"))
        json_object_set(ctx, "hypervisor_signature", json_object_get(virt, "hypervisor_signature"));
    json_decref(virt);

    json_t *timer = json_object();
    ns_json_set_str(timer, "source", "clock_gettime(CLOCK_MONOTONIC)");
    ns_json_set_num(timer, "resolution_s", ns_timer_resolution_measured(), NULL);
    ns_json_set_num(timer, "reported_resolution_s", ns_timer_resolution_reported(), NULL);
    ns_json_set_num(timer, "cputime_reported_resolution_s", ns_cputime_resolution_reported(), NULL);
    json_object_set_new(ctx, "timer", timer);
    return ctx;
}
