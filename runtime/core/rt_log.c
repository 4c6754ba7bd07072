/* rt_log.c — the runtime's one-line messages and the record of parts that
 * failed and disabled themselves (written as PRF_REC_ERRORS). */
#include "rt_core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct rt_error rt_errors[16];
unsigned rt_error_count;
static volatile int rt_error_lock;

void rt_log(const char *fmt, ...)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "scalana: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    n += m;
    if ((size_t)n > sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    ssize_t w = write(2, buf, (size_t)n);
    (void)w;
}

void rt_info(const char *fmt, ...)
{
    if (rt_g.world_rank != 0 || rt_opt.quiet)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rt_log("%s", msg);
}

static int rt_fail_add(const char *part, const char *msg)
{
    rt_spin_lock(&rt_error_lock);
    for (unsigned i = 0; i < rt_error_count; i++)
        if (strcmp(rt_errors[i].part, part) == 0) {
            rt_spin_unlock(&rt_error_lock);
            return 0; /* once per part */
        }
    if (rt_error_count < sizeof rt_errors / sizeof rt_errors[0]) {
        struct rt_error *e = &rt_errors[rt_error_count++];
        snprintf(e->part, sizeof e->part, "%s", part);
        snprintf(e->message, sizeof e->message, "%s", msg);
    }
    rt_spin_unlock(&rt_error_lock);
    return 1;
}

int rt_failed(const char *part)
{
    rt_spin_lock(&rt_error_lock);
    int found = 0;
    for (unsigned i = 0; i < rt_error_count && !found; i++)
        found = strcmp(rt_errors[i].part, part) == 0;
    rt_spin_unlock(&rt_error_lock);
    return found;
}

volatile int rt_fail_quiet;

void rt_fail(const char *part, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (strcmp(part, "sampler") == 0)
        rt_g.flags |= PRF_RANK_SAMPLING_DISABLED;
    else if (strcmp(part, "mpi") == 0)
        rt_g.flags |= PRF_RANK_MPI_DISABLED;
    if (rt_fail_add(part, msg) && !rt_fail_quiet)
        rt_log("%s disabled: %s", part, msg);
}

void rt_fail_record(const char *part, const char *message)
{
    rt_fail_add(part, message);
}

struct rt_global rt_g;
/* Defined beside the state (not in rt_options.c, which fills it) so that the
 * log, which reads rt_opt.quiet, does not depend on the option parser. */
struct rt_options rt_opt;

void rt_spin_lock(volatile int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
}

void rt_spin_unlock(volatile int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}
