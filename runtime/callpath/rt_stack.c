/* rt_stack.c — the calling thread's stack bounds, read once per thread
 * (pthread_getattr_np), for the frame-pointer walk (rt_fpwalk.c) and the
 * unwind cache (rt_unwcache.c), which check every frame against them. */
#include "core/rt_core.h"
#include "rt_stack.h"

#include <pthread.h>

RT_TLS uintptr_t rt_stack_lo, rt_stack_hi;
RT_TLS int rt_stack_state;

int rt_stack_fill(void)
{
    pthread_attr_t at;
    void *addr = NULL;
    size_t sz = 0;
    rt_stack_state = -1;
    if (pthread_getattr_np(pthread_self(), &at) == 0) {
        if (pthread_attr_getstack(&at, &addr, &sz) == 0 && addr && sz) {
            rt_stack_lo = (uintptr_t)addr;
            rt_stack_hi = (uintptr_t)addr + sz;
            rt_stack_state = 1;
        }
        pthread_attr_destroy(&at);
    }
    return rt_stack_state == 1;
}
