/* rt_warn.c — warnings: conditions where the runtime keeps working but its
 * numbers may be incomplete (another PMPI tool in front of it, a phase left
 * open at MPI_Finalize, an invalid option value).  Each distinct warning is
 * printed once per process ("scalana: warning: ...", by world rank 0 once
 * the runtime is on) and kept for run.json's "warnings". */
#include "rt_core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RT_WARN_MAX 8
static char rt_warns[RT_WARN_MAX][256];
static uint32_t rt_nwarn;
static const char *rt_warn_ptrs[RT_WARN_MAX];
static volatile int rt_warn_spin;

void rt_warn(int all_ranks, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rt_spin_lock(&rt_warn_spin);
    for (uint32_t i = 0; i < rt_nwarn; i++)
        if (strcmp(rt_warns[i], msg) == 0) {
            rt_spin_unlock(&rt_warn_spin);
            return;
        }
    if (rt_nwarn < RT_WARN_MAX) {
        snprintf(rt_warns[rt_nwarn], sizeof rt_warns[0], "%s", msg);
        rt_warn_ptrs[rt_nwarn] = rt_warns[rt_nwarn];
        rt_nwarn++;
    }
    rt_spin_unlock(&rt_warn_spin);
    if (all_ranks || rt_g.world_rank == 0)
        rt_log("warning: %s", msg);
}

const char *const *rt_warnings(uint32_t *count)
{
    *count = rt_nwarn;
    return rt_warn_ptrs;
}
