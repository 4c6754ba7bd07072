/* omp.c — the names OpenMP compilers and runtimes give code: the outlined
 * bodies of parallel regions (gcc `main._omp_fn.0`, clang `main.omp_outlined`,
 * `main.omp_outlined_debug__`, `.omp_outlined.`, flang `_QQmain..omp_par`),
 * the runtimes' fork entries and their other frames.  Attribution reads an
 * outlined body as code of the function that holds the pragma, reached from
 * the fork call at the pragma's line (docs/analyzer.md "OpenMP"). */
#include "read/omp.h"
#include "sc_alloc.h"
#include "scalana/profile_format.h"

#include <stdio.h>
#include <string.h>

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

int an_omp_runtime_function(const char *name)
{
    if (!name || !*name) return 0;
    static const char *const pre[] = {"GOMP_", "gomp_", "__kmpc_", "__kmp", "kmp_", "omp_",
                                      "ompt_", "__ompt_", "_INTERNAL"};
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (starts(name, pre[i])) return 1;
    return 0;
}

/* The file name of rank d's module m (its path without the directories). */
static const char *module_base(const struct prf_rank_data *d, uint32_t m)
{
    const char *path = prf_string(d, d->modules[m].path), *base = path ? strrchr(path, '/') : NULL;
    return base ? base + 1 : path;
}

uint8_t *an_omp_runtime_modules(const struct prf_rank_data *d)
{
    uint8_t *is = sc_xcalloc((size_t)d->module_count + 1, 1);
    static const char *const lib[] = {"libgomp.so", "libomp.so", "libiomp5.so"};
    for (uint32_t m = 0; m < d->module_count; m++) {
        const char *base = module_base(d, m);
        for (size_t i = 0; base && i < sizeof lib / sizeof lib[0]; i++)
            if (starts(base, lib[i])) is[m] = 1;
    }
    return is;
}

/* Libraries the OpenMP runtimes call to wait (futex, sched_yield,
 * pthread_cond_wait, nanosleep): a frame there belongs to its caller. */
static int pass_through(const char *base)
{
    static const char *const lib[] = {"libc.so", "libpthread.so", "librt.so", "ld-linux", "linux-vdso"};
    for (size_t i = 0; base && i < sizeof lib / sizeof lib[0]; i++)
        if (starts(base, lib[i])) return 1;
    return 0;
}

uint8_t *an_omp_runtime_nodes(const struct prf_rank_data *d)
{
    uint8_t *omp = an_omp_runtime_modules(d), *via = sc_xcalloc((size_t)d->module_count + 1, 1);
    for (uint32_t m = 0; m < d->module_count; m++) via[m] = pass_through(module_base(d, m));
    /* 0 not known yet, 1 no, 2 yes; a chain of pass-through frames takes the
     * answer of the first frame above it that is not one */
    uint8_t *st = sc_xcalloc((size_t)d->cct_count + 1, 1);
    uint32_t *chain = sc_xmalloc(((size_t)d->cct_count + 1) * sizeof *chain);
    for (uint32_t k = 0; k < d->cct_count; k++) {
        uint32_t n = 0, u = k;
        uint8_t ans = 1;
        while (u < d->cct_count && n <= d->cct_count) {
            if (st[u]) {
                ans = st[u];
                break;
            }
            uint32_t m = d->cct[u].module;
            if (m < d->module_count && omp[m]) {
                ans = 2;
                st[u] = 2;
                break;
            }
            if (m >= d->module_count || !via[m]) {
                st[u] = 1;
                break;
            }
            chain[n++] = u;
            u = d->cct[u].parent;
        }
        for (uint32_t i = 0; i < n; i++) st[chain[i]] = ans;
        if (!st[k]) st[k] = ans;
    }
    for (uint32_t k = 0; k < d->cct_count; k++) st[k] = st[k] == 2;
    free(chain), free(via), free(omp);
    return st;
}

int an_omp_fork_entry(const char *name)
{
    if (!name) return 0;
    return starts(name, "GOMP_parallel") || starts(name, "GOMP_teams") || !strcmp(name, "__kmpc_fork_call") ||
           !strcmp(name, "__kmpc_fork_teams") || !strcmp(name, "__kmpc_fork_call_if");
}

const char *an_omp_outlined_parent(const char *name, char *buf, size_t buflen)
{
    if (!name || !*name) return NULL;
    static const char *const mark[] = {"._omp_fn.", ".omp_outlined", "..omp_par", "._omp_cpyfn."};
    for (size_t i = 0; i < sizeof mark / sizeof mark[0]; i++) {
        const char *m = strstr(name, mark[i]);
        if (!m) continue;
        if (m == name) return ""; /* clang's C `.omp_outlined.`: the parent is not in the name */
        size_t n = (size_t)(m - name);
        if (n + 1 > buflen) return NULL;
        memcpy(buf, name, n);
        buf[n] = 0;
        return buf;
    }
    return NULL;
}
