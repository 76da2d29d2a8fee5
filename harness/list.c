/* `nodescale list`: the kernels of the registry (name, family, ISA variants and which this CPU
 * runs, precision, mix, byte-counting policy), what each peak variant executes, the ISA
 * selection and why, and the counter backends with their status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "harness/counters.h"
#include "harness/commands.h"
#include "harness/context.h"
#include "kernels/registry.h"


int ns_cmd_list(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: nodescale list\n  kernels, ISAs available on this CPU, counter "
                   "backends and why any is unavailable\n");
            return NS_EXIT_OK;
        }
        return ns_usage_error("list", "unknown argument '%s'", argv[i]);
    }
    const char *forced = getenv("NODESCALE_ISA");
    const char *sel = ns_isa_selected();
    printf("CPU: %s; %d CPUs usable; AVX2+FMA %s, AVX-512 %s\n", ns_cpu_model(),
           ns_topology_get()->cpus_in_mask, ns_cpu_has_avx2_fma() ? "yes" : "no",
           ns_cpu_has_avx512() ? "yes" : "no");
    if (!sel)
        printf("ISA: NODESCALE_ISA=%s is unknown or not runnable here (want avx512, avx2 or "
               "scalar)\n", forced);
    else
        printf("ISA for hand-tuned kernels: %s (%s)\n", sel,
               forced && *forced ? "forced by NODESCALE_ISA" : "widest this CPU supports");

    size_t n;
    const ns_kernel *const *all = ns_registry(&n);
    printf("\n%-20s %-7s %-4s %-10s %-20s %s\n", "kernel", "family", "prec", "mix",
           "bytes counted", "variants (* = runs here, > = selected)");
    for (size_t i = 0; i < n; i++) {
        int first = 1;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(all[j]->name, all[i]->name)) first = 0;
        if (!first) continue;
        const ns_kernel *chosen = ns_registry_find(all[i]->name, NULL);
        printf("%-20s %-7s %-4s %-10s %-20s", all[i]->name, all[i]->family,
               ns_prec_name(all[i]->precision), all[i]->mix ? all[i]->mix : "-",
               all[i]->bytes_policy);
        for (size_t j = i; j < n; j++)
            if (!strcmp(all[j]->name, all[i]->name)) {
                int ok = !all[j]->supported || all[j]->supported();
                printf(" %s%s%s", all[j] == chosen ? ">" : "", all[j]->isa, ok ? "*" : "");
            }
        printf("\n");
    }
    /* What each peak variant executes: isa and mix alone do not say it (the scalar ISA's fma
     * mix is packed SSE2 multiply then add). */
    printf("\npeak kernels, what each variant executes (ISA `scalar` is baseline x86-64, not "
           "scalar instructions; mix is the recurrence's operation):\n");
    for (size_t i = 0; i < n; i++) {
        char id[64];
        if (!all[i]->executes) continue;
        snprintf(id, sizeof id, "%s/%s", all[i]->name, all[i]->isa);
        printf("  %-26s %-10s %s\n", id, all[i]->mix ? all[i]->mix : "-", all[i]->executes);
    }
    printf("\n");
    ns_counters_print_status(stdout);
    ns_counters_finish();
    return NS_EXIT_OK;
}
