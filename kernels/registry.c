/* The kernel registry (see registry.h); the run-time ISA selection from cpuid is in isa.c.
 * Adding a kernel: define its descriptor in its own file and list it in kernel_table below. */
#include "kernels/registry.h"

#include <string.h>

#include "kernels/kernels.h"

static const ns_kernel *const kernel_table[] = {
    NS_KERNEL_LIST
};

const ns_kernel *const *ns_registry(size_t *count) {
    *count = sizeof kernel_table / sizeof kernel_table[0];
    while (*count > 0 && kernel_table[*count - 1] == NULL) --*count; /* list may end in NULL */
    return kernel_table;
}

static const ns_kernel *find_exact(const char *name, const char *isa) {
    size_t n;
    const ns_kernel *const *t = ns_registry(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i]->name, name) && !strcmp(t[i]->isa, isa) &&
            (!t[i]->supported || t[i]->supported()))
            return t[i];
    return NULL;
}

static int is_hand_tuned(const char *isa) {
    return !strcmp(isa, "avx512") || !strcmp(isa, "avx2") || !strcmp(isa, "scalar");
}

const ns_kernel *ns_registry_find(const char *name, const char *isa) {
    if (isa) return find_exact(name, isa);
    /* Hand-tuned: the selected ISA, else the next narrower one that has this kernel. */
    static const char *const order[] = {"avx512", "avx2", "scalar"};
    const char *want = ns_isa_selected();
    if (!want) return NULL;
    size_t o = 0;
    while (strcmp(order[o], want) != 0) o++;
    for (; o < 3; o++) {
        const ns_kernel *k = find_exact(name, order[o]);
        if (k) return k;
    }
    /* Only peers (blis, openblas) have this name: the first supported one. */
    size_t n;
    const ns_kernel *const *t = ns_registry(&n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i]->name, name) && !is_hand_tuned(t[i]->isa) &&
            (!t[i]->supported || t[i]->supported()))
            return t[i];
    return NULL;
}
