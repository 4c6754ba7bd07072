/* rt_callpath.h — the call-path room's interface (runtime/callpath/): the
 * per-thread calling-context trees, capturing and unwinding call paths, and
 * the loaded modules those paths are in.  Uses the core room only. */
#ifndef SCALANA_RT_CALLPATH_H
#define SCALANA_RT_CALLPATH_H

#include "core/rt_core.h"

/* ---- calling-context tree (rt_cct.c) --------------------------------------
 * One tree per thread, in memory mapped at thread registration (the signal
 * handler never allocates).  Node 0 is the thread's ROOT.  Addresses are
 * absolute here; rt_profile.c makes them module-relative when writing. */
struct rt_cct_node {
    uint64_t address;
    uint32_t parent;
    uint32_t kind;            /* enum prf_cct_kind */
    uint64_t samples, weight; /* samples that ended here (not in MPI) */
    uint64_t mpi_samples, mpi_weight; /* samples inside the MPI call of this call site */
};
struct rt_cct {
    struct rt_cct_node *nodes;
    uint32_t *slots;          /* open addressing: node index + 1, 0 = empty */
    uint32_t count, cap, slot_mask;
    uint32_t cap_max;         /* the pool and index grow (doubling) up to this many nodes */
    uint32_t overflow_node;   /* PRF_NONE until first needed */
    uint64_t overflow;        /* frames charged to the overflow node */
};
/** A tree holding up to cap nodes (SCALANA_CCT_NODES) before the overflow
 *  node: mapped small (at most RT_CCT_INITIAL nodes) and doubled on demand,
 *  by whichever inserter finds it full (a wrapper or the sampling handler of
 *  the owning thread: in_rt keeps them apart).  0, or -1 without memory. */
#define RT_CCT_INITIAL 65536u
RT_HIDDEN int rt_cct_init(struct rt_cct *c, uint32_t cap, uint32_t thread_index);
/** Inserts the path frames[n-1] (outermost) .. frames[0] (leaf) below the
 *  root; the leaf gets leaf_kind, the others PRF_CCT_CALLSITE.  truncated:
 *  the outermost frames were cut (an OVERFLOW node goes first).  Returns the
 *  leaf node.  Async-signal-safe; never allocates. */
RT_HIDDEN uint32_t rt_cct_insert(struct rt_cct *c, void *const *frames, int n, uint32_t leaf_kind,
                                 int truncated);

/* ---- call paths (rt_path.c) ------------------------------------------------ */
/** Captures the calling thread's call path without the runtime's own frames
 *  (frames[0] is the innermost frame outside the runtime, a return address).
 *  Returns the number of frames; *truncated set when the cap was reached. */
RT_HIDDEN int rt_capture_path(void **frames, int cap, int *truncated);
/** The calling thread's call path from a caller's frame record on (an OpenMP
 *  runtime's entry frame: record[0] the saved rbp, record[1] the return
 *  address ra into the code that called the runtime, which is frames[0]),
 *  by frame pointers without walking the frames below the record.  Returns
 *  the number of frames, or -1 when it cannot (SCALANA_CALLPATH=libunwind,
 *  a record outside the thread's stack or that does not hold ra, a walk
 *  that fails a check): the caller then takes the whole path with
 *  rt_capture_path. */
RT_HIDDEN int rt_capture_path_at(const void *record, const void *ra, void **frames, int cap, int *truncated);
/** Unwinds the path interrupted by a signal from the handler's ucontext
 *  (frames[0] = the interrupted PC, then return addresses outwards; no
 *  handler or trampoline frames).  Async-signal-safe (libunwind local
 *  unwinding, no malloc).  Past the first frame the path comes from a
 *  per-thread cache of unwinds keyed by the caller's frame (rt_unwcache.c)
 *  once rt_unwind_prepare_thread ran on the thread.  Returns the number of frames (0 when the context
 *  cannot be unwound); *truncated set when more than cap frames remained. */
RT_HIDDEN int rt_unwind_signal_context(void *ucontext, void **frames, int cap, int *truncated);
/** Prepares the calling thread for rt_unwind_signal_context's cache of
 *  outer paths (maps it, reads the stack bounds; allocates, so never from a
 *  handler: the sampler calls it when it starts a thread).  Without it the
 *  handler unwinds every frame with unw_step.  Returns 1 when ready. */
RT_HIDDEN int rt_unwind_prepare_thread(void);
RT_HIDDEN uint64_t rt_path_hash(void *const *frames, int n);
struct dl_phdr_info;
/** The first ELF note of a loaded object (dl_iterate_phdr's info) with this
 *  type and name (namesz counts the NUL, as the note header does),
 *  bounds-checked against its PT_NOTE segment: its descriptor and
 *  *descsz, or NULL (rt_modules.c). */
RT_HIDDEN const unsigned char *rt_find_note(const struct dl_phdr_info *info, uint32_t type, const char *name,
                                            uint32_t namesz, uint32_t *descsz);
/** SCALANA_DEBUG (rt_path.c): one line with the calling thread's call paths by method. */
RT_HIDDEN void rt_callpath_debug(void);

/* ---- modules (rt_modules.c) ------------------------------------------------ */
RT_HIDDEN void rt_modules_find_self(void);
struct rt_module { uintptr_t lo, hi, base; char path[512]; char build_id[41]; int used; uint32_t index; };
/** Snapshot of the loaded objects' executable segments (not async-signal-safe). */
RT_HIDDEN int rt_modules_load(struct rt_module **mods, uint32_t *count);
RT_HIDDEN const struct rt_module *rt_module_find(struct rt_module *mods, uint32_t count, uintptr_t a);
/** The running executable's build-id as hex into out (n bytes; "" when it
 *  has none). */
RT_HIDDEN void rt_build_id_of_self_exe(char *out, size_t n);
/** The executable's path, read at start-up (before the file can be removed)
 *  and without the kernel's " (deleted)" suffix. */
RT_HIDDEN void rt_exe_path(char *out, size_t n);
/** 1 when the executable file was removed or replaced while the process ran. */
RT_HIDDEN int rt_exe_deleted(void);

#endif
