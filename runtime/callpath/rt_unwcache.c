/* rt_unwcache.c — libunwind started at a given frame, with a per-thread
 * cache of the frames it found.
 *
 * Used for the part of an MPI call's path that frame pointers cannot walk
 * (code built elsewhere; for a program we did not build, the whole path).
 * An unwind from (ip, sp, bp) is a function of ip, sp, bp and of the stack
 * words it reads: frame k's canonical frame address (CFA) follows from
 * frame k-1's ip and its sp or rbp; frame k's ip is read from a stack slot
 * (the return address), its rbp either stays in the register or is read
 * from a stack slot where frame k-1 saved it.  libunwind reports those
 * slots (unw_get_save_loc).  So an entry keyed by (ip, sp, bp) that also
 * records, for each frame, the return-address slot and the rbp slot with the
 * values read there reproduces the unwind exactly when those slots still
 * hold the same values: by induction, each frame then has the same ip, the
 * same rbp and hence the same CFA.  The check is a few loads per frame; all
 * slots lie in the thread's stack above sp, in live frames of the callers.
 * Not covered: a CFA rule that uses a register other than rsp or rbp (none
 * in compiler-generated x86-64 code we know of); an unwind that read such a
 * register is not detectable here, and the synthetic context we start from
 * holds only rip, rsp and rbp anyway (so libunwind alone would be equally
 * wrong there).  SCALANA_CALLPATH=libunwind turns all of this off. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "core/rt_core.h"
#include "rt_stack.h"
#include "rt_unwcache.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#define RT_UC_SETS 8u      /* per thread: sets of RT_UC_WAYS entries */
#define RT_UC_WAYS 4u      /* one key may hold several ways (same innermost frame, other callers) */
#define RT_UC_ENTRIES (RT_UC_SETS * RT_UC_WAYS)
#define RT_UC_FRAMES 40    /* longer outer paths are not cached */

struct rt_uc_frame { uintptr_t ip, ip_slot, bp_slot, bp; };
struct rt_uc_entry {
    uintptr_t ip, sp, bp;   /* key; ip == 0: empty */
    int n;                  /* frames, frames[0].ip == ip; 0: a candidate (seen once) */
    uint64_t used;          /* last use, for replacement */
    struct rt_uc_frame f[RT_UC_FRAMES];
};

/* One cache per thread for MPI calls' paths, one for samples' (their keys
 * are the interrupted leaf's caller: many more of them, which would evict
 * the MPI call sites and spend the fill budget below).  Both tables are
 * mapped together outside any signal handler (rt_unw_prepare), so the
 * handler only ever reads the state. */
struct rt_uc_cache {
    struct rt_uc_entry *table;
    uint64_t hits, fills, clock;
};
static RT_TLS struct rt_uc_cache rt_uc_caches[RT_UC_NCACHES];
static RT_TLS int rt_uc_state; /* 0 unknown, 1 tables mapped, -1 no cache */
static pthread_key_t rt_uc_key;
static pthread_once_t rt_uc_once = PTHREAD_ONCE_INIT;

#define RT_UC_MAP_BYTES (RT_UC_NCACHES * RT_UC_ENTRIES * sizeof(struct rt_uc_entry))

static void rt_uc_free(void *p)
{
    if (p)
        munmap(p, RT_UC_MAP_BYTES);
}

static void rt_uc_key_init(void) { (void)pthread_key_create(&rt_uc_key, rt_uc_free); }

int rt_unw_prepare(void)
{
    if (RT_LIKELY(rt_uc_state == 1))
        return 1;
    if (rt_uc_state < 0)
        return 0;
    rt_uc_state = -1;
    uintptr_t lo, hi;
    if (!rt_stack_bounds(&lo, &hi))
        return 0;
    pthread_once(&rt_uc_once, rt_uc_key_init);
    void *p = mmap(NULL, RT_UC_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    if (pthread_setspecific(rt_uc_key, p) != 0) {
        munmap(p, RT_UC_MAP_BYTES);
        return 0;
    }
    for (int c = 0; c < RT_UC_NCACHES; c++)
        rt_uc_caches[c] = (struct rt_uc_cache){(struct rt_uc_entry *)p + c * RT_UC_ENTRIES, 0, 0, 0};
    rt_uc_state = 1;
    return 1;
}

static inline uint32_t rt_uc_index(uintptr_t ip, uintptr_t sp)
{
    uint64_t h = (uint64_t)ip ^ ((uint64_t)sp << 17 | (uint64_t)sp >> 47); /* splitmix64 finalizer */
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)(h ^ (h >> 31)) & (RT_UC_SETS - 1);
}

/* Where libunwind found register reg of the cursor's frame: a stack slot
 * (returned), 0 when it is still the starting context's register (inside
 * uc), 1 when it is neither (not cacheable). */
static uintptr_t rt_uc_slot(unw_cursor_t *cur, int reg, const void *uc, size_t ucn, uintptr_t lo,
                            uintptr_t hi)
{
    unw_save_loc_t loc;
    if (unw_get_save_loc(cur, reg, &loc) != 0)
        return 1;
    if (loc.type == UNW_SLT_MEMORY) {
        uintptr_t a = (uintptr_t)loc.u.addr;
        if (a >= (uintptr_t)uc && a < (uintptr_t)uc + ucn)
            return 0;
        if (a >= lo && a + 8 <= hi && !(a & 7))
            return a;
        return 1;
    }
    return 1;
}

/* Slow fills (unw_step, 10-35 us here against about 0.12 us for
 * unw_backtrace: it parses CFI without unw_backtrace's per-address trace
 * cache) are spent only on keys that come back: a key fills on its second
 * miss, and a thread whose fills do not pay off (fewer than 8 hits per fill
 * after 64 fills: its stacks never repeat) stops filling (each cache on its
 * own). */

/* Unwinds from (ip, sp, bp) with libunwind into frames (at most cap;
 * *truncated when more remained) and fills entry e with the unwind when
 * every slot it used is a stack slot below hi (else e stays empty).
 * Returns the number of frames, or -1 when libunwind cannot start. */
static int rt_uc_fill(struct rt_uc_entry *e, uintptr_t ip, uintptr_t sp, uintptr_t bp, uintptr_t hi,
                      void **frames, int cap, int *truncated)
{
    ucontext_t uc;
    memset(&uc.uc_mcontext, 0, sizeof uc.uc_mcontext);
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
    uc.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    uc.uc_mcontext.gregs[REG_RBP] = (greg_t)bp;
    unw_cursor_t cur;
    e->ip = ip, e->sp = sp, e->bp = bp, e->n = 0;
    if (unw_init_local2(&cur, (unw_context_t *)&uc, 0) != 0)
        return -1;
    int cacheable = 1, n = 0;
    frames[n++] = (void *)ip;
    e->f[0] = (struct rt_uc_frame){ip, 0, 0, bp};
    for (;;) {
        int r = unw_step(&cur);
        if (r <= 0)
            break;
        unw_word_t nip = 0, nbp = 0;
        if (unw_get_reg(&cur, UNW_REG_IP, &nip) != 0 || nip == 0)
            break;
        if (n == cap) {
            *truncated = 1;
            cacheable = 0;
            break;
        }
        frames[n] = (void *)(uintptr_t)nip;
        if (cacheable) {
            if (n >= RT_UC_FRAMES) {
                cacheable = 0;
            } else {
                uintptr_t ips = rt_uc_slot(&cur, UNW_X86_64_RIP, &uc, sizeof uc, sp, hi);
                uintptr_t bps = rt_uc_slot(&cur, UNW_X86_64_RBP, &uc, sizeof uc, sp, hi);
                unw_get_reg(&cur, UNW_X86_64_RBP, &nbp);
                if (ips <= 1 || bps == 1 || (bps == 0 && nbp != bp))
                    cacheable = 0;
                else
                    e->f[n] = (struct rt_uc_frame){(uintptr_t)nip, ips, bps, (uintptr_t)nbp};
            }
        }
        n++;
    }
    if (cacheable)
        e->n = n;
    return n;
}

/* Looks (ip, sp, bp) up in its set: the frames of a cached unwind whose
 * saved slots still hold what they held (a hit: their number), else -1
 * with *seen set when the key is in the set, *cand its entry waiting to be
 * filled, *victim the least recently used entry. */
static int rt_uc_lookup(struct rt_uc_cache *c, struct rt_uc_entry *set, uintptr_t ip, uintptr_t sp, uintptr_t bp, uintptr_t hi,
                        void **frames, int cap, int *truncated, int *seen, struct rt_uc_entry **cand,
                        struct rt_uc_entry **victim)
{
    /* An rbp value (the starting one, or one a frame saved) must match only
     * when it was a stack address when cached.  An unwind whose CFA used an
     * rbp outside the stack would have found its slots outside the stack
     * too, and such unwinds are not cached; so in a cached unwind a frame
     * whose rbp was not a stack address has a CFA rule (fixed by its ip)
     * that does not use rbp, and any other rbp there gives the same CFA.
     * Code without frame pointers keeps integers in rbp, which change from
     * call to call. */
    for (unsigned w = 0; w < RT_UC_WAYS; w++) {
        struct rt_uc_entry *x = &set[w];
        if (x->used < (*victim)->used)
            *victim = x;
        if (x->ip != ip || x->sp != sp || (x->bp != bp && x->bp >= sp && x->bp < hi))
            continue;
        *seen = 1;
        if (x->n <= 0) {
            *cand = x; /* a candidate of this key: fill it */
            continue;
        }
        int ok = 1;
        for (int k = 1; k < x->n && ok; k++) {
            const struct rt_uc_frame *f = &x->f[k];
            ok = *(const uintptr_t *)f->ip_slot == f->ip &&
                 (!f->bp_slot || f->bp < sp || f->bp >= hi || *(const uintptr_t *)f->bp_slot == f->bp);
        }
        if (ok) {
            c->hits++;
            x->used = c->clock;
            int m = x->n < cap ? x->n : cap;
            for (int k = 0; k < m; k++)
                frames[k] = (void *)x->f[k].ip;
            *truncated = x->n > cap;
            return m;
        }
    }
    return -1;
}

int rt_unw_from_cache(int which, uintptr_t ip, uintptr_t sp, uintptr_t bp, void **frames, int cap,
                      int *truncated)
{
    *truncated = 0;
    if (cap <= 0 || rt_callpath_mode != RT_CALLPATH_AUTO || which < 0 || which >= RT_UC_NCACHES)
        return -1;
    if (RT_UNLIKELY(rt_uc_state != 1) && (which == RT_UC_SAMPLES || !rt_unw_prepare()))
        return -1; /* never mapped from a signal handler */
    uintptr_t lo = rt_stack_lo, hi = rt_stack_hi;
    if (sp < lo || sp >= hi)
        return -1;
    struct rt_uc_cache *c = &rt_uc_caches[which];
    struct rt_uc_entry *set = &c->table[rt_uc_index(ip, sp) * RT_UC_WAYS], *e = NULL, *victim = set,
                       *cand = NULL;
    int seen = 0;
    c->clock++;
    int hit = rt_uc_lookup(c, set, ip, sp, bp, hi, frames, cap, truncated, &seen, &cand, &victim);
    if (hit >= 0)
        return hit;
    e = cand ? cand : victim;
    e->used = c->clock;
    if (!seen) {
        e->ip = ip, e->sp = sp, e->bp = bp, e->n = 0; /* candidate: fills on its next miss */
        return -1;
    }
    if (c->fills >= 64 && c->hits < 8 * c->fills)
        return -1;
    c->fills++;
    /* Unwind and fill the entry when every slot is a stack slot. */
    return rt_uc_fill(e, ip, sp, bp, hi, frames, cap, truncated);
}

void rt_unw_cache_counts(int which, uint64_t *hits, uint64_t *fills)
{
    *hits = which >= 0 && which < RT_UC_NCACHES ? rt_uc_caches[which].hits : 0;
    *fills = which >= 0 && which < RT_UC_NCACHES ? rt_uc_caches[which].fills : 0;
}
