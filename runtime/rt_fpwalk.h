/* rt_fpwalk.h — call paths of MPI calls from frame pointers (rt_fpwalk.c),
 * and libunwind started at a given frame with a per-thread cache of the
 * outer frames (rt_unwcache.c).  Hidden; not for signal handlers. */
#ifndef SCALANA_RT_FPWALK_H
#define SCALANA_RT_FPWALK_H

#include <stdint.h>

/* Type of the "Scalana" ELF note that marks a module built with frame
 * pointers (runtime/scalana_fp_note.S; "FP" in ASCII). */
#define RT_FP_NOTE_TYPE 0x5046u

struct dl_phdr_info;
/** The first ELF note of a loaded object (dl_iterate_phdr's info) with this
 *  type and name (namesz counts the NUL, as the note header does),
 *  bounds-checked against its PT_NOTE segment: its descriptor and
 *  *descsz, or NULL (rt_modules.c). */
RT_HIDDEN const unsigned char *rt_find_note(const struct dl_phdr_info *info, uint32_t type, const char *name,
                                            uint32_t namesz, uint32_t *descsz);
/** Builds the table of marked modules (dl_iterate_phdr; the runtime counts
 *  as marked).  Called once, lazily; modules loaded later are not marked
 *  (their frames go through libunwind). */
RT_HIDDEN void rt_fp_init(void);
/** Number of marked modules (the runtime included); builds the table first. */
RT_HIDDEN int rt_fp_marked_modules(void);
/** 1 when a lies in the text of a marked module. */
RT_HIDDEN int rt_fp_marked(uintptr_t a);
/* ---- the thread's stack (rt_stack.c) ---- */
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
/** The caller's call path without the runtime's frames, as rt_capture_path:
 *  frame pointers through marked modules, then rt_unw_from.  Returns the
 *  number of frames, or -1 when the walk cannot start or a record fails a
 *  check (the caller then uses unw_backtrace). */
RT_HIDDEN int rt_fp_capture(void **frames, int cap, int *truncated);
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
/** Call-path method (SCALANA_CALLPATH): auto (frame pointers + cached
 *  libunwind, else unw_backtrace), libunwind (unw_backtrace on every call),
 *  nocache (frame pointers, else unw_backtrace; for measurements). */
enum rt_callpath_mode { RT_CALLPATH_AUTO = 0, RT_CALLPATH_UNWIND = 1, RT_CALLPATH_NOCACHE = 2 };
RT_HIDDEN extern int rt_callpath_mode;

/** SCALANA_DEBUG: one line with the calling thread's call paths by method. */
RT_HIDDEN void rt_callpath_debug(void);

#endif
