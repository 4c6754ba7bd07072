/* rt_unwcache.h — libunwind started at a given frame, with a per-thread cache
 * of the outer frames (rt_unwcache.c).  Hidden; not for signal handlers. */
#ifndef SCALANA_RT_UNWCACHE_H
#define SCALANA_RT_UNWCACHE_H

#include <stdint.h>

/** The path from the frame executing at return address ip with stack pointer
 *  sp and frame pointer bp (the values at the call that ip returns from):
 *  frames[0] = ip, then return addresses outwards, from a per-thread cache of
 *  libunwind (DWARF CFI) unwinds, valid when every return address and saved
 *  rbp the cached unwind read still holds the same value (rt_unwcache.c says
 *  why that is exact).  A key is unwound with unw_step (slow) on its second
 *  miss.  Returns the number of frames, or -1 when nothing is cached (the
 *  caller takes the path with unw_backtrace); *truncated when cap was reached. */
RT_HIDDEN int rt_unw_from(uintptr_t ip, uintptr_t sp, uintptr_t bp, void **frames, int cap,
                          int *truncated);
/** The calling thread's cache hits and slow fills so far. */
RT_HIDDEN void rt_unw_cache_counts(uint64_t *hits, uint64_t *fills);

#endif
