/* rt_path.c — capturing call paths: the current one without the runtime's
 * own frames (MPI calls, collectors: frame pointers where the code keeps
 * them, rt_fpwalk.c, else libunwind), the interrupted one from a signal's
 * context (samples: libunwind), and the path hash (key of an MPI context). */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "core/rt_core.h"
#include "rt_callpath.h"
#include "rt_fpwalk.h"
#include "rt_unwcache.h"

#include <stdlib.h>

/* unw_backtrace on every call: the method before frame pointers, and the
 * fallback when a frame-pointer walk cannot start or fails a check. */
static int rt_capture_unwind(void **frames, int cap, int *truncated)
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

static RT_TLS uint64_t rt_paths_fp, rt_paths_unwind; /* this thread's paths by method */
static RT_TLS uint64_t rt_samples_cached; /* samples whose outer path came from the cache */

int rt_capture_path(void **frames, int cap, int *truncated)
{
    if (RT_LIKELY(rt_callpath_mode != RT_CALLPATH_UNWIND)) {
        int n = rt_fp_capture(frames, cap, truncated);
        if (RT_LIKELY(n >= 0)) {
            rt_paths_fp++;
            return n;
        }
    }
    rt_paths_unwind++;
    return rt_capture_unwind(frames, cap, truncated);
}

int rt_capture_path_at(const void *record, const void *ra, void **frames, int cap, int *truncated)
{
    if (rt_callpath_mode == RT_CALLPATH_UNWIND || !record)
        return -1;
    int n = rt_fp_capture_at(record, ra, frames, cap, truncated);
    if (n >= 0)
        rt_paths_fp++;
    return n;
}

void rt_callpath_debug(void)
{
    if (!getenv("SCALANA_DEBUG"))
        return;
    uint64_t hits = 0, fills = 0, shits = 0, sfills = 0;
    rt_unw_cache_counts(RT_UC_MPI, &hits, &fills);
    rt_unw_cache_counts(RT_UC_SAMPLES, &shits, &sfills);
    rt_log("debug: rank %u call paths on this thread: %llu by frame pointers (%llu of them with "
           "cached libunwind frames, %llu cache fills), %llu by unw_backtrace; %d marked modules; "
           "samples: %llu with a cached outer path (%llu cache fills)",
           rt_g.world_rank, (unsigned long long)rt_paths_fp, (unsigned long long)hits,
           (unsigned long long)fills, (unsigned long long)rt_paths_unwind, rt_fp_marked_modules(),
           (unsigned long long)rt_samples_cached, (unsigned long long)sfills);
}

int rt_unwind_signal_context(void *ucontext, void **frames, int cap, int *truncated)
{
    /* Start at the interrupted instruction: the kernel's ucontext is an
     * unw_context_t on x86-64 Linux, and UNW_INIT_SIGNAL_FRAME makes the
     * first frame's lookup use its exact PC (not PC - 1 as for a return
     * address), so a leaf interrupted at its entry or in its epilogue keeps
     * its caller.  No handler or trampoline frames are walked. */
    unw_cursor_t cur;
    *truncated = 0;
    if (!ucontext || cap <= 0 || unw_init_local2(&cur, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) != 0)
        return 0;
    int n = 0;
    for (;;) {
        unw_word_t ip = 0;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || ip == 0)
            break;
        frames[n++] = (void *)(uintptr_t)ip;
        int r = unw_step(&cur);
        if (r <= 0)
            break;
        if (n == cap) {
            *truncated = 1;
            break;
        }
        if (n == 1) {
            /* The caller's frame is a return address with its sp and rbp,
             * the key of an MPI call's cached outer path: the same cache
             * (a table of its own) serves the rest of the path.  unw_step
             * costs 1-2 us a frame here (35 us of a sample's 70 in
             * bench/overhead sample_cost, 14 frames deep); a hit is a few
             * loads a frame. */
            unw_word_t cip = 0, csp = 0, cbp = 0;
            if (unw_get_reg(&cur, UNW_REG_IP, &cip) == 0 && cip &&
                unw_get_reg(&cur, UNW_REG_SP, &csp) == 0 && unw_get_reg(&cur, UNW_X86_64_RBP, &cbp) == 0) {
                int tr = 0;
                int k = rt_unw_from_cache(RT_UC_SAMPLES, cip, csp, cbp, frames + 1, cap - 1, &tr);
                if (k > 0) {
                    rt_samples_cached++;
                    *truncated = tr;
                    return 1 + k;
                }
            }
        }
    }
    return n;
}

int rt_unwind_prepare_thread(void) { return rt_unw_prepare(); }

uint64_t rt_path_hash(void *const *frames, int n)
{
    /* Shift-add combining (no multiply chain); the result is mixed again
     * by the context table. */
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++)
        h ^= (uint64_t)(uintptr_t)frames[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}
