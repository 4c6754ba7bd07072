/* rt_path.c — capturing the current call path with libunwind, without the
 * runtime's own frames, and hashing it (the key of an MPI calling context). */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "rt_core.h"

int rt_capture_path(void **frames, int cap, int *truncated)
{
    void *buf[RT_MAX_DEPTH + 8];
    int want = cap + 8 > (int)(sizeof buf / sizeof buf[0]) ? (int)(sizeof buf / sizeof buf[0]) : cap + 8;
    int n = unw_backtrace(buf, want);
    int k = 0;
    while (k < n && (uintptr_t)buf[k] >= rt_g.self_lo && (uintptr_t)buf[k] < rt_g.self_hi)
        k++;
    int m = n - k;
    if (m > cap)
        m = cap;
    for (int i = 0; i < m; i++)
        frames[i] = buf[k + i];
    *truncated = n == want && m == cap;
    return m;
}

uint64_t rt_path_hash(void *const *frames, int n)
{
    /* Shift-add combining (no multiply chain); the result is mixed again
     * by the context table. */
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++)
        h ^= (uint64_t)(uintptr_t)frames[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}
