/* rt_fpwalk.c — the call path of an MPI call from frame pointers.
 *
 * Code built by scalana-cc/cxx/fc keeps frame pointers (also in leaf
 * functions) and carries a marker note (runtime/callpath/scalana_fp_note.S, linked in
 * by the wrapper): in such a module every function's frame record
 * [saved rbp, return address] sits at its rbp, so the path is a chain of
 * loads.  The walk starts in the runtime (compiled with frame pointers too),
 * skips its frames, and follows records while the return address lies in the
 * text of a marked module.  At the first frame that is not ours (a library
 * or program built elsewhere, code loaded after activation, a return address
 * outside any known text) the rest of the path comes from a per-thread cache
 * of libunwind results keyed by that frame (rt_unwcache.c); when it has
 * none, the whole path is taken again with unw_backtrace.
 *
 * Safety: each record address is checked before it is read: 8-byte aligned,
 * strictly above the previous one (stacks grow down), inside the calling
 * thread's stack (pthread_getattr_np bounds, read once per thread).  A check
 * that fails ends the frame-pointer walk; the caller falls back to
 * unw_backtrace for the whole path.  Never called from a signal handler
 * (samples interrupt prologues, where rbp is not yet set up: they use
 * libunwind on the signal's context). */
#include "core/rt_core.h"
#include "rt_callpath.h"
#include "rt_fpwalk.h"
#include "rt_stack.h"
#include "rt_unwcache.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#define RT_FP_MAX_MODS 64
struct rt_fp_range { uintptr_t lo, hi; };
static struct rt_fp_range rt_fp_mods[RT_FP_MAX_MODS]; /* text of marked modules */
static int rt_fp_nmods;
static int rt_fp_ready;          /* 0 unknown, 1 table built */
static volatile int rt_fp_lock;


/* The marker: an ELF note named "Scalana" of type RT_FP_NOTE_TYPE. */
static int rt_fp_has_marker(const struct dl_phdr_info *info)
{
    uint32_t n;
    return rt_find_note(info, RT_FP_NOTE_TYPE, "Scalana", 8, &n) != NULL;
}

static int rt_fp_mod_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size; (void)data;
    uintptr_t me = (uintptr_t)&rt_fp_mod_cb;
    int marked = rt_fp_has_marker(info);
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        int self = me >= lo && me < hi; /* the runtime is built with frame pointers */
        if ((marked || self) && rt_fp_nmods < RT_FP_MAX_MODS)
            rt_fp_mods[rt_fp_nmods++] = (struct rt_fp_range){lo, hi};
    }
    return 0;
}

void rt_fp_init(void)
{
    rt_spin_lock(&rt_fp_lock);
    if (!rt_fp_ready) {
        rt_fp_nmods = 0;
        dl_iterate_phdr(rt_fp_mod_cb, NULL);
        __atomic_store_n(&rt_fp_ready, 1, __ATOMIC_RELEASE);
    }
    rt_spin_unlock(&rt_fp_lock);
}

int rt_fp_marked(uintptr_t a)
{
    for (int i = 0; i < rt_fp_nmods; i++)
        if (a >= rt_fp_mods[i].lo && a < rt_fp_mods[i].hi)
            return 1;
    return 0;
}

int rt_fp_marked_modules(void)
{
    if (!__atomic_load_n(&rt_fp_ready, __ATOMIC_ACQUIRE))
        rt_fp_init();
    return rt_fp_nmods;
}


static int rt_fp_walk(const uintptr_t *fp, uintptr_t hi, void **frames, int cap, int *truncated);

__attribute__((noinline)) int rt_fp_capture(void **frames, int cap, int *truncated)
{
    if (RT_UNLIKELY(!__atomic_load_n(&rt_fp_ready, __ATOMIC_ACQUIRE)))
        rt_fp_init();
    uintptr_t lo, hi;
    if (!rt_stack_bounds(&lo, &hi))
        return -1;
    const uintptr_t *fp = __builtin_frame_address(0);
    uintptr_t here = (uintptr_t)fp;
    if (here < lo || here >= hi)
        return -1; /* another stack (a coroutine, an alternate signal stack) */
    lo = here;
    *truncated = 0;
    /* The runtime's own frames (this function, the capture, the wrapper). */
    for (;;) {
        uintptr_t a = (uintptr_t)fp;
        if ((a & 7) || a < lo || a + 16 > hi)
            return -1;
        uintptr_t ra = fp[1];
        if (ra < rt_g.self_lo || ra >= rt_g.self_hi)
            break;
        const uintptr_t *next = (const uintptr_t *)fp[0];
        if ((uintptr_t)next <= a)
            return -1;
        fp = next;
    }
    /* fp is the record of the outermost runtime frame: fp[1] returns into
     * the application's call site. */
    return rt_fp_walk(fp, hi, frames, cap, truncated);
}

int rt_fp_capture_at(const void *record, const void *ra, void **frames, int cap, int *truncated)
{
    if (RT_UNLIKELY(!__atomic_load_n(&rt_fp_ready, __ATOMIC_ACQUIRE)))
        rt_fp_init();
    uintptr_t lo, hi, a = (uintptr_t)record;
    if (!rt_stack_bounds(&lo, &hi))
        return -1;
    /* above this function's own frame (a record of a caller still live),
     * inside the thread's stack: rt_fp_walk checks the records above it */
    if ((a & 7) || a <= (uintptr_t)__builtin_frame_address(0) || a < lo || a + 16 > hi ||
        ((const void *const *)record)[1] != ra)
        return -1;
    *truncated = 0;
    return rt_fp_walk((const uintptr_t *)record, hi, frames, cap, truncated);
}

/* The path from the frame record fp on (fp[1] the innermost return address
 * kept), up to the stack's top hi; -1 as rt_fp_capture. */
static int rt_fp_walk(const uintptr_t *fp, uintptr_t hi, void **frames, int cap, int *truncated)
{
    int n = 0;
    for (;;) {
        uintptr_t a = (uintptr_t)fp;
        uintptr_t ra = fp[1];
        uintptr_t nextv = fp[0];
        if (ra == 0)
            break;
        if (n == cap) {
            *truncated = 1;
            break;
        }
        if (!rt_fp_marked(ra)) {
            /* The function holding ra may not keep rbp: libunwind from its
             * frame (sp just above this record, rbp as it was saved here). */
            int k = rt_unw_from(ra, a + 16, nextv, frames + n, cap - n, truncated);
            if (k <= 0)
                return -1; /* not cached: unw_backtrace for the whole path */
            n += k;
            break;
        }
        frames[n++] = (void *)ra;
        if (nextv == 0)
            break; /* the outermost frame (its caller cleared rbp) */
        if ((nextv & 7) || nextv <= a || nextv + 16 > hi) {
            /* A marked function whose rbp is not a record (hand-written
             * assembly, an object compiled elsewhere): libunwind from the
             * frame of ra, exactly as above. */
            n--;
            int k = rt_unw_from(ra, a + 16, nextv, frames + n, cap - n, truncated);
            if (k <= 0)
                return -1;
            n += k;
            break;
        }
        fp = (const uintptr_t *)nextv;
    }
    return n;
}
