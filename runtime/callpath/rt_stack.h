/* rt_stack.h — the calling thread's stack bounds (rt_stack.c), against which
 * the frame-pointer walk and the unwind cache check every frame. */
#ifndef SCALANA_RT_STACK_H
#define SCALANA_RT_STACK_H

#include <stdint.h>

/** Per thread: the stack [lo, hi) and whether it is known (0 not read yet,
 *  1 known, -1 unavailable). */
RT_HIDDEN extern __thread __attribute__((tls_model("initial-exec"))) uintptr_t rt_stack_lo, rt_stack_hi;
RT_HIDDEN extern __thread __attribute__((tls_model("initial-exec"))) int rt_stack_state;
/** Reads the calling thread's bounds (pthread_getattr_np) into the above;
 *  returns whether they are known. */
RT_HIDDEN int rt_stack_fill(void);
/** The calling thread's stack [lo, hi), read once per thread; 0 when
 *  unknown.  Inline: called at every frame-pointer walk. */
static inline int rt_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
    if (__builtin_expect(rt_stack_state == 0, 0))
        rt_stack_fill();
    *lo = rt_stack_lo;
    *hi = rt_stack_hi;
    return rt_stack_state == 1;
}

#endif
