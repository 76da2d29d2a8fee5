/* The memory cgroup headroom (ns_cgroup_headroom, harness/context.c) on fake cgroup trees under a
 * temporary folder: v2 with a tighter ancestor, the page cache's inactive file pages subtracted,
 * "max" as no limit, usage above the limit, v1 with a real limit and v1's "unlimited" 2^63. Also
 * the usable CPUs (ns_usable_cpus) of an OpenMP place larger than any fixed buffer, and a
 * context.env value that is not UTF-8 (ns_context_json). */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/nstest.h"

#include "harness/context.h"

static char root[256];

/* The OpenMP place queries, replaced for this program (the executable's definitions take
 * precedence over libgomp's): one place of fake_place_cpus CPUs, 0..fake_place_cpus - 1, which
 * libgomp would not build on a machine of fewer CPUs. */
static int fake_place_cpus;
int omp_get_num_places(void) {
    return fake_place_cpus > 0;
}
int omp_get_place_num_procs(int place) {
    return place == 0 ? fake_place_cpus : 0;
}
void omp_get_place_proc_ids(int place, int *ids) {
    for (int i = 0; place == 0 && i < fake_place_cpus; i++)
        ids[i] = i;
}

static void put(const char *rel, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(p, 0700);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int64_t headroom(int64_t mem_total, int *v2) {
    char proc[300];
    snprintf(proc, sizeof proc, "%s/proc_self_cgroup", root);
    *v2 = -1;
    return ns_cgroup_headroom(proc, root, mem_total, v2);
}

static int setup(void **state) {
    (void)state;
    snprintf(root, sizeof root, "/tmp/ns-test-cgroup-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* v2: the least room over the cgroup and its ancestors; inactive_file is reclaimable. */
static void v2_tightest_ancestor_less_page_cache(void **state) {
    (void)state;
    const int64_t G = 1 << 30;
    char buf[64];
    put("proc_self_cgroup", "0::/a/b\n");
    snprintf(buf, sizeof buf, "%lld\n", (long long)(4 * G));
    put("a/b/memory.max", buf); /* 4 GiB limit, 3 GiB used of which 2 GiB inactive page cache */
    snprintf(buf, sizeof buf, "%lld\n", (long long)(3 * G));
    put("a/b/memory.current", buf);
    snprintf(buf, sizeof buf, "anon 100\ninactive_file %lld\nactive_file 5\n", (long long)(2 * G));
    put("a/b/memory.stat", buf);
    put("a/memory.max", "max\n"); /* no limit on the parent */
    put("a/memory.current", "0\n");
    int v2;
    assert_int_equal(headroom(64 * G, &v2), 3 * G); /* 4 - (3 - 2) */
    assert_int_equal(v2, 1);
    /* a parent with less room wins */
    snprintf(buf, sizeof buf, "%lld\n", (long long)(2 * G));
    put("a/memory.max", buf);
    snprintf(buf, sizeof buf, "%lld\n", (long long)(G + G / 2));
    put("a/memory.current", buf);
    assert_int_equal(headroom(64 * G, &v2), G / 2);
    /* usage above the limit: no room, which is not "unlimited" */
    snprintf(buf, sizeof buf, "%lld\n", (long long)(3 * G));
    put("a/memory.current", buf);
    assert_int_equal(headroom(64 * G, &v2), 0);
}

static void v2_without_limits_is_unlimited(void **state) {
    (void)state;
    put("proc_self_cgroup", "0::/c\n");
    put("c/memory.max", "max\n");
    put("c/memory.current", "12345\n");
    int v2;
    assert_int_equal(headroom(1LL << 36, &v2), -1);
    put("proc_self_cgroup", "0::/\n"); /* the root cgroup has no memory.max */
    assert_int_equal(headroom(1LL << 36, &v2), -1);
}

static void v1_limit_and_unlimited(void **state) {
    (void)state;
    put("proc_self_cgroup", "12:cpu,cpuacct:/x\n11:memory:/job\n0::/\n");
    put("memory/job/memory.limit_in_bytes", "1073741824\n");
    put("memory/job/memory.usage_in_bytes", "805306368\n"); /* 768 MiB, 512 MiB inactive */
    put("memory/job/memory.stat", "cache 1\ntotal_inactive_file 536870912\n");
    int v2;
    assert_int_equal(headroom(1LL << 36, &v2), 1073741824LL - 268435456LL);
    assert_int_equal(v2, 0);
    put("memory/job/memory.limit_in_bytes", "9223372036854771712\n"); /* "unlimited" */
    assert_int_equal(headroom(1LL << 36, &v2), -1);
}

static void missing_proc_file_is_unknown(void **state) {
    (void)state;
    int v2 = 7;
    assert_int_equal(ns_cgroup_headroom("/nonexistent/cgroup", root, 1LL << 36, &v2), -1);
}

/* A place of 384 CPUs: every one counts. The ids went into a 256-int stack buffer, and
 * omp_get_place_proc_ids writes all of them (it takes no length). */
static void usable_cpus_of_a_large_place(void **state) {
    (void)state;
    cpu_set_t mask;
    fake_place_cpus = 384;
    int n = ns_usable_cpus(&mask);
    fake_place_cpus = 0;
    assert_int_equal(n, 384);
    assert_true(CPU_ISSET(0, &mask) && CPU_ISSET(383, &mask) && !CPU_ISSET(384, &mask));
}

/* A recorded variable whose value is not UTF-8 is kept, its stray bytes as \xHH; valid UTF-8
 * around them stays as it is. It vanished from context.env (json_string gave NULL: trial 19a
 * #12). */
static void env_value_not_utf8_recorded_escaped(void **state) {
    (void)state;
    setenv("BLIS_X",
           "a\xff\xfe\xc3\xa9"
           "b\xc3",
           1);
    setenv("OPENBLAS_Y", "q\"\n<x>", 1);
    json_t *ctx = ns_context_json(1);
    unsetenv("BLIS_X");
    unsetenv("OPENBLAS_Y");
    const json_t *env = json_object_get(ctx, "env");
    assert_string_equal(json_string_value(json_object_get(env, "BLIS_X")), "a\\xFF\\xFE\xc3\xa9"
                                                                           "b\\xC3");
    assert_string_equal(json_string_value(json_object_get(env, "OPENBLAS_Y")), "q\"\n<x>");
    json_decref(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(env_value_not_utf8_recorded_escaped),
        cmocka_unit_test(v2_tightest_ancestor_less_page_cache),
        cmocka_unit_test(v2_without_limits_is_unlimited),
        cmocka_unit_test(v1_limit_and_unlimited),
        cmocka_unit_test(missing_proc_file_is_unknown),
        cmocka_unit_test(usable_cpus_of_a_large_place),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
