/* rt_unwcache.h — libunwind started at a given frame, with a per-thread cache
 * of the outer frames (rt_unwcache.c).  Hidden.  The sample cache may be read
 * from the sampling signal's handler once rt_unw_prepare ran on the thread. */
#ifndef SCALANA_RT_UNWCACHE_H
#define SCALANA_RT_UNWCACHE_H

#include <stdint.h>

enum { RT_UC_MPI, RT_UC_SAMPLES, RT_UC_NCACHES }; /* which cache */

/** Maps the calling thread's caches and reads its stack bounds (allocates:
 *  never from a signal handler).  Returns 1 when the caches can be used, 0
 *  when not (no stack bounds, no memory: then every lookup says -1).  The
 *  sampler calls it when it starts sampling a thread; MPI paths map lazily. */
RT_HIDDEN int rt_unw_prepare(void);
/** The path from the frame executing at return address ip with stack pointer
 *  sp and frame pointer bp (the values at the call that ip returns from):
 *  frames[0] = ip, then return addresses outwards, from a per-thread cache of
 *  libunwind (DWARF CFI) unwinds, valid when every return address and saved
 *  rbp the cached unwind read still holds the same value (rt_unwcache.c says
 *  why that is exact).  which: RT_UC_MPI (MPI calls' paths; maps the caches
 *  on first use) or RT_UC_SAMPLES (samples, keyed by the interrupted
 *  function's caller; only once rt_unw_prepare ran, so safe in the sampling
 *  signal's handler as long as the thread is not inside this cache already,
 *  which the runtime's in_rt flag ensures).  A key is unwound with unw_step
 *  (slow) on its second miss.  Returns the number of frames, or -1 when
 *  nothing is cached (the caller takes the path another way); *truncated
 *  when cap was reached. */
RT_HIDDEN int rt_unw_from_cache(int which, uintptr_t ip, uintptr_t sp, uintptr_t bp, void **frames,
                                int cap, int *truncated);
/** rt_unw_from_cache for an MPI call's path. */
static inline int rt_unw_from(uintptr_t ip, uintptr_t sp, uintptr_t bp, void **frames, int cap,
                              int *truncated)
{
    return rt_unw_from_cache(RT_UC_MPI, ip, sp, bp, frames, cap, truncated);
}
/** The calling thread's hits and slow fills so far of cache which. */
RT_HIDDEN void rt_unw_cache_counts(int which, uint64_t *hits, uint64_t *fills);

#endif
