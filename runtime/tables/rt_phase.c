/* rt_phase.c — user phases: scalana_phase_begin/end (C and Fortran) and
 * MPI_Pcontrol levels, aggregated per name (count and time). */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "rt_tables.h"
#include "scalana/phase.h" /* the public declarations (installed) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RT_PHASE_MAX 256   /* distinct phase names */
#define RT_PHASE_STACK 32  /* nesting depth per thread */

static struct rt_phase_rec rt_phases[RT_PHASE_MAX];
static uint32_t rt_nphase;
static volatile int rt_phase_spin;

struct rt_phase_open { uint32_t rec; uint64_t t0; };
/* Each thread's stack of open phases, listed so that the profile write can
 * close the phases still open then (rt_phase_close_all). */
struct rt_phase_thread {
    struct rt_phase_open stack[RT_PHASE_STACK];
    int depth;
    struct rt_phase_thread *next;
};
static RT_TLS struct rt_phase_thread *rt_pt;
static struct rt_phase_thread *rt_pt_list;
#define rt_phase_stack (rt_pt->stack)
#define rt_phase_depth (rt_pt->depth)

static int rt_phase_thread_ready(void)
{
    if (RT_LIKELY(rt_pt != NULL))
        return 1;
    struct rt_phase_thread *p = calloc(1, sizeof *p);
    if (!p)
        return 0;
    rt_spin_lock(&rt_phase_spin);
    p->next = rt_pt_list;
    rt_pt_list = p;
    rt_spin_unlock(&rt_phase_spin);
    rt_pt = p;
    return 1;
}

struct rt_phase_rec *rt_phase_array(uint32_t *count) { *count = rt_nphase; return rt_phases; }

static uint32_t rt_phase_find(const char *name, uint32_t thread, uint32_t node)
{
    for (uint32_t i = 0; i < rt_nphase; i++)
        if (strcmp(rt_phases[i].name, name) == 0)
            return i;
    if (rt_nphase >= RT_PHASE_MAX)
        return UINT32_MAX;
    struct rt_phase_rec *p = &rt_phases[rt_nphase];
    strncpy(p->name, name, sizeof p->name - 1);
    p->thread = thread;
    p->node = node;
    return rt_nphase++;
}

void rt_phase_event(const char *name, int begin)
{
    struct rt_thread *t = rt_thread_get();
    if (!t || !name || !rt_phase_thread_ready())
        return;
    uint64_t now = rt_now_ns();
    if (begin) {
        uint32_t node = PRF_NONE;
        t->in_rt = 1;
        void *frames[RT_MAX_DEPTH];
        int truncated = 0;
        int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
        if (n > 0)
            node = rt_cct_insert(&t->cct, frames, n, PRF_CCT_CALLSITE, truncated);
        t->in_rt = 0;
        rt_spin_lock(&rt_phase_spin);
        uint32_t rec = rt_phase_find(name, t->index, node);
        rt_spin_unlock(&rt_phase_spin);
        if (rt_phase_depth < RT_PHASE_STACK) {
            rt_phase_stack[rt_phase_depth].rec = rec;
            rt_phase_stack[rt_phase_depth].t0 = now;
        }
        rt_phase_depth++;
        return;
    }
    /* End: close the innermost open phase of that name. */
    int d = rt_phase_depth < RT_PHASE_STACK ? rt_phase_depth : RT_PHASE_STACK;
    for (int i = d - 1; i >= 0; i--) {
        uint32_t rec = rt_phase_stack[i].rec;
        if (rec != UINT32_MAX && strcmp(rt_phases[rec].name, name) != 0)
            continue;
        if (rec != UINT32_MAX) {
            rt_spin_lock(&rt_phase_spin);
            rt_phases[rec].count++;
            rt_phases[rec].time_ns += now - rt_phase_stack[i].t0;
            rt_spin_unlock(&rt_phase_spin);
        }
        for (int j = i; j + 1 < d; j++)
            rt_phase_stack[j] = rt_phase_stack[j + 1];
        rt_phase_depth--;
        return;
    }
}

void rt_phase_close_all(const char *at)
{
    uint64_t now = rt_now_ns();
    unsigned closed = 0;
    const char *first = NULL;
    rt_spin_lock(&rt_phase_spin);
    for (struct rt_phase_thread *p = rt_pt_list; p; p = p->next) {
        int d = p->depth < RT_PHASE_STACK ? p->depth : RT_PHASE_STACK;
        for (int i = d - 1; i >= 0; i--) {
            uint32_t rec = p->stack[i].rec;
            if (rec == UINT32_MAX)
                continue;
            rt_phases[rec].count++;
            rt_phases[rec].time_ns += now - p->stack[i].t0;
            /* The level set by the last MPI_Pcontrol lasts to the end by design. */
            if (strncmp(rt_phases[rec].name, "MPI_Pcontrol(", 13) != 0) {
                closed++;
                if (!first)
                    first = rt_phases[rec].name;
            }
        }
        p->depth = 0;
    }
    char name[64];
    snprintf(name, sizeof name, "%s", first ? first : "");
    rt_spin_unlock(&rt_phase_spin);
    if (closed)
        rt_warn(0, "%u phase(s) still open at %s (e.g. \"%s\"): closed and counted there", closed, at, name);
}

/** Marks the beginning of a phase named name (e.g. "iteration") on the
 *  calling thread.  Phases nest; time is wall time in nanoseconds. */
RT_EXPORT void scalana_phase_begin(const char *name)
{
    if (rt_g.state == RT_ON)
        rt_phase_event(name, 1);
}

/** Ends the innermost open phase named name. */
RT_EXPORT void scalana_phase_end(const char *name)
{
    if (rt_g.state == RT_ON)
        rt_phase_event(name, 0);
}

/* Fortran: call scalana_phase_begin('name') — the hidden length argument. */
static void rt_phase_fortran(const char *name, long len, int begin)
{
    char buf[64];
    if (len < 0)
        len = 0;
    while (len > 0 && name[len - 1] == ' ')
        len--;
    if (len > (long)sizeof buf - 1)
        len = (long)sizeof buf - 1;
    memcpy(buf, name, (size_t)len);
    buf[len] = '\0';
    if (rt_g.state == RT_ON)
        rt_phase_event(buf, begin);
}
RT_EXPORT void scalana_phase_begin_(const char *name, long len) { rt_phase_fortran(name, len, 1); }
RT_EXPORT void scalana_phase_end_(const char *name, long len) { rt_phase_fortran(name, len, 0); }
RT_EXPORT void scalana_phase_begin__(const char *name, long len) { rt_phase_fortran(name, len, 1); }
RT_EXPORT void scalana_phase_end__(const char *name, long len) { rt_phase_fortran(name, len, 0); }
RT_EXPORT void SCALANA_PHASE_BEGIN(const char *name, long len) { rt_phase_fortran(name, len, 1); }
RT_EXPORT void SCALANA_PHASE_END(const char *name, long len) { rt_phase_fortran(name, len, 0); }
