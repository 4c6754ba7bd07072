/* rt_shadow.c — detects MPI entry points that do not reach the runtime: an
 * earlier object in the global symbol scope (another PMPI tool first in
 * LD_PRELOAD, or one linked into the executable) defines them, so the
 * application's calls go there and on to the MPI library's PMPI_ entries,
 * never through our wrappers.  The dynamic loader's own lookup
 * (dlsym(RTLD_DEFAULT)) says where each name resolves; dladdr names the
 * object.  Nothing is changed: the numbers are marked incomplete with one
 * warning. */
#include "core/rt_core.h"
#include "rt_mpi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts the entry points that resolve outside this library; the first
 * object and up to four names are reported.  Returns the count. */
static unsigned rt_shadow_scan(char *obj, size_t objn, char *names, size_t namesn)
{
    Dl_info self;
    if (!dladdr((void *)rt_shadow_scan, &self))
        return 0;
    unsigned n = 0;
    obj[0] = names[0] = '\0';
    for (unsigned i = 0; i < rt_wrapped_count; i++) {
        void *p = dlsym(RTLD_DEFAULT, rt_wrapped_names[i]);
        Dl_info di;
        if (!p || !dladdr(p, &di) || di.dli_fbase == self.dli_fbase)
            continue;
        if (n == 0)
            snprintf(obj, objn, "%s", di.dli_fname && *di.dli_fname ? di.dli_fname : "the executable");
        if (n < 4) {
            size_t l = strlen(names);
            snprintf(names + l, namesn - l, "%s%s", n ? ", " : "", rt_wrapped_names[i]);
        }
        n++;
    }
    return n;
}

static int rt_shadow_done;

static void rt_shadow_report(int all_ranks, const char *when)
{
    char obj[256], names[160];
    unsigned n = rt_shadow_scan(obj, sizeof obj, names, sizeof names);
    if (n)
        rt_warn(all_ranks, "%u MPI entry points (%s%s) resolve to %s, loaded before the runtime: calls "
                "through them are not recorded%s (put the runtime first in LD_PRELOAD)",
                n, names, n > 4 ? ", ..." : "", obj, when);
}

void rt_shadow_check(void)
{
    if (__atomic_exchange_n(&rt_shadow_done, 1, __ATOMIC_ACQ_REL))
        return;
    rt_shadow_report(0, "");
}

/* A process whose MPI_Init never reached us (the other tool wraps it, and
 * every call we would have seen) leaves without a profile: say why, once
 * per job (the launcher's rank 0, or a singleton). */
__attribute__((destructor)) static void rt_shadow_at_exit(void)
{
    if (rt_g.state != RT_INERT || rt_shadow_done)
        return;
    int init = 0;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || !init)
        return;
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && strcmp(v, "0") != 0)
            return;
    }
    rt_shadow_done = 1;
    rt_shadow_report(1, ": no MPI call reached the runtime, no profile was written");
}
