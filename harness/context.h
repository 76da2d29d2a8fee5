/* What a results file must say about where it was measured: the CPU (cpuid), its caches, cores
 * and NUMA nodes (hwloc), the affinity mask actually in effect, memory, OS, compiler and flags,
 * library versions, the OMP_/BLIS_/OPENBLAS_/MKL_ environment, virtualisation and the timer.
 * Also the thread-placement defaults applied before OpenMP starts. */
#ifndef NS_CONTEXT_H
#define NS_CONTEXT_H

#include <jansson.h>
#include <sched.h>
#include <stdint.h>

/* Entries of ns_topology.caches: one per level hwloc reports, L1 to L4 (the data or unified cache
 * of that level). */
#define NS_MAX_CACHES 4

typedef struct ns_cache_info {
    int level;             /* 1..4 */
    const char *type;      /* "data", "unified", "instruction" */
    int64_t size_bytes;    /* one instance */
    int count;             /* instances in the machine */
    int shared_by_cores;   /* cores under one instance */
} ns_cache_info;

typedef struct ns_topology {
    int cores, pus, sockets, numa_nodes;
    int ncaches;
    ns_cache_info caches[NS_MAX_CACHES];
    int cpus_in_mask;       /* CPUs its threads may use (ns_usable_cpus: the OpenMP places' union
                               when the runtime binds threads, else the affinity mask) */
    int cpus_in_start_mask; /* CPUs in the affinity mask this process started with (ns_start_cpus):
                               more threads than these would share CPUs whatever the placement */
    int64_t mem_total_bytes;
    /* What this process may allocate: the least of MemAvailable, RLIMIT_AS less the address
     * space in use (ulimit -v), and the cgroup's limit less its usage (v2 memory.max of this
     * cgroup and its ancestors, v1 memory.limit_in_bytes); mem_available_source names which. */
    int64_t mem_available_bytes;
    const char *mem_available_source;
    int64_t mem_meminfo_available_bytes; /* /proc/meminfo MemAvailable */
} ns_topology;

/* The share of the available memory one working set may take. run's sweep caps its largest
 * point at half: nodescale chose that size (4x the LLC), a smaller one measures DRAM as well, and
 * the unattended run leaves room to the page cache and other jobs. bench refuses only above 80%:
 * the user chose the size, and it is refused only where the allocation would likely fail or
 * swap. */
#define NS_SWEEP_MEM_SHARE 0.5
#define NS_BENCH_MEM_SHARE 0.8

/* What this process may allocate now (see ns_topology.mem_available_bytes, which holds the value
 * at start-up: the address space in use grows as libraries and threads start); *source, when
 * source is not NULL, names the limit that decided it. 0 when unknown. */
int64_t ns_memory_available(const char **source);

/* The memory cgroup's headroom in bytes: limit less usage, the least over the v2 cgroup and its
 * ancestors, or the v1 memory controller's; -1 when unlimited or unknown. *v2 is set to 1 or 0 by
 * the cgroup version that decided it. Usage counts the page cache, which the kernel reclaims on
 * demand: its inactive file pages (memory.stat "inactive_file", v1 "total_inactive_file") are
 * subtracted, as MemAvailable does for the whole machine (after a build, usage reads near the
 * limit while most of it is reclaimable). A v1 limit of mem_total bytes or more (v1 writes
 * "unlimited" as a page-rounded 2^63) is no limit; mem_total <= 0: unknown RAM, any v1 limit
 * counts. proc_cgroup: the /proc/self/cgroup file; root: where cgroupfs is mounted
 * (/sys/fs/cgroup; v1 controllers below it in memory/). Both are parameters for tests. */
int64_t ns_cgroup_headroom(const char *proc_cgroup, const char *root, int64_t mem_total,
                           int *v2);

/* Reads the topology once (hwloc) and caches it. Never NULL: missing parts are 0. */
const ns_topology *ns_topology_get(void);

/* Size of one instance of the data/unified cache at level (1..4); 0 when absent. */
int64_t ns_cache_size(int level);

/* Bytes of level-`level` cache that `threads` threads (placed one per core, close) reach
 * together: per-core caches count once per thread, a shared cache once per instance touched. */
int64_t ns_cache_aggregate(int level, int threads);

/* The last (largest) cache level present, 0 if none. */
int ns_llc_level(void);

/* Records the starting CPU mask in NODESCALE_START_CPUS. If neither OMP_PROC_BIND nor
 * OMP_PLACES is set, sets OMP_PROC_BIND=close, OMP_PLACES=cores (marked by
 * NODESCALE_AFFINITY_SET=defaults; an inherited marker counts only beside those two values)
 * and re-executes this program (the OpenMP runtime reads them only when it loads). Call first
 * in main; returns only when nothing had to be done or re-exec failed. */
void ns_affinity_defaults(char **argv);

/* Sets the calling thread's CPU mask to the one nodescale started with, before the OpenMP
 * runtime bound the initial thread to its first place (read before the runtime loads, and
 * recorded by ns_affinity_defaults in NODESCALE_START_CPUS whoever sets the placement; the CPUs
 * of the OpenMP places when neither is known: never wider than the starting mask), and
 * stores the previous mask in *saved when saved is not NULL. Call it in a child between fork and
 * exec, or around popen, so that a child process (likwid-bench, the builds `gate --ab` runs)
 * is not confined to the one CPU the parent's initial thread is bound to: likwid-bench would
 * otherwise place all its threads on that CPU. Returns 0, or -1 with errno set. */
int ns_affinity_release(cpu_set_t *saved);

/* The CPUs this process may use into *mask: the union of the OpenMP places (any size), or the
 * current affinity mask when there are none; returns their count. */
int ns_usable_cpus(cpu_set_t *mask);

/* The affinity mask this process started with (before the OpenMP runtime bound the initial
 * thread to its first place; see ns_affinity_release) into *mask; returns its count. OMP_PLACES
 * may cover fewer of its CPUs (a placement the user chose), never more. */
int ns_start_cpus(cpu_set_t *mask);

/* Default thread count of the measuring commands: OMP_NUM_THREADS (its first value, as the
 * OpenMP runtime reads it) when set, else the CPUs in the affinity mask (as the OpenMP places
 * see them). Returns 0, or -1 with a one-line reason in err when OMP_NUM_THREADS is not a
 * positive integer or asks for more threads than the CPUs of the affinity mask nodescale started
 * with (oversubscribed threads measure the scheduler, not the node; OMP_PLACES covering fewer
 * CPUs is a placement the user chose, and shared CPUs get a placement_warning). */
int ns_default_threads(int64_t *threads, char *err, size_t errlen);

/* 1 when the environment variable var ("NAME=value" or "NAME") is one whose value changes what
 * is measured and so is recorded (results.json's context.env, run.log's env lines): the OpenMP
 * runtimes' (OMP_, GOMP_, KMP_), the BLAS libraries' (BLIS_, OPENBLAS_, GOTO_, MKL_) and
 * nodescale's own (NODESCALE_). */
int ns_env_recorded(const char *var);

/* The name context.hypervisor records for a hypervisor: "KVM" for the cpuid 0x40000000
 * signature "KVMKVMKVM" (which files written before the names were introduced hold), likewise
 * for the other known signatures; any other string unchanged (NULL for NULL). */
const char *ns_hypervisor_name(const char *name);

/* The context object of results.json. threads = the all-thread count of this run. */
json_t *ns_context_json(int threads);

/* cpuid brand string, e.g. "Intel(R) Xeon(R) Processor". */
const char *ns_cpu_model(void);

#endif
