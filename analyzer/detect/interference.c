/* interference.c — waits that another job caused: a culprit process that
 * computed slower in wall time than its CPU time says (it waited for a core
 * that something outside the job held), while the others did not, made the
 * others wait without any code of its being at fault.  Judged per cause on
 * the culprits' contention (an_rank_contention: wall time outside MPI over
 * CPU time there) against the job's own processes per core on their host,
 * and where the runtime measured it on their run delay (time runnable
 * without a core), which tells waiting for a core from sleep and I/O. */
#include "core/types.h"
#include "core/warn.h"
#include "detect/category.h"
#include "detect/judge.h"
#include "ppg/ppg.h"
#include "ppg/run_source.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rank's contention beyond what the job's own processes (and their
 * threads: the largest team or thread count of the run) per core on its host
 * explain (>= 1), NAN when unknown. */
static double beyond_own(const struct an_run *r, uint32_t i)
{
    double q = an_rank_contention(r, i);
    double threads = r->threads_per_process > 1 ? r->threads_per_process : 1;
    double own = r->usable_cores[i] ? (double)r->ranks_on_host[i] * threads / r->usable_cores[i] : 1;
    return isfinite(q) ? fmax(1, q / fmax(1, own)) : NAN;
}

/* A load imbalance of CPU time that only a contended run shows, in a build
 * without a work measure: a process given more work and one whose CPU time
 * the machine inflated (cache and memory bandwidth shared with other
 * processes, a busy sibling hyperthread: miniFE's memory-bound matvec spent
 * 1.44x the CPU time on one of 8 processes beside two CPU hogs, with equal
 * rows everywhere) look alike.  Below contended_imbalance times the others'
 * CPU time, and when no run with a core per process (P >= 2) can confirm it,
 * the cause is undecided.  Returns 1 when it judged c so. */
static int contended_speed(struct an_analysis *a, const struct an_run *r, struct an_cause *c, double ratio)
{
    const struct an_thresholds *th = &a->opt->th;
    if (c->cat != AN_CAT_LOAD_IMBALANCE || r->nwork || !(r->contention > th->contention_max) ||
        !(ratio < th->contended_imbalance))
        return 0;
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_run *o = a->scales[s].rep;
        if (o && o->P >= 2 && o->contention <= th->contention_max) return 0;
    }
    size_t used = strlen(c->evidence);
    snprintf(c->evidence + used, sizeof c->evidence - used,
             "; its culprits' CPU time is %.2gx the others' on a run %.2gx contended, with no work measure "
             "(a build without scalana-cc) and no run with a core per process to confirm it",
             ratio, r->contention);
    c->undecided = "without loop counts (a build without scalana-cc) a CPU-time excess this small on a "
                   "contended run may be the machine's (shared caches and cores inflate CPU time): rebuild "
                   "with scalana-cc or rerun with a core per process";
    return 1;
}

int an_interference_judge_cause(struct an_analysis *a, const struct an_run *r, struct an_cause *c)
{
    if (!c->nprocs || c->nprocs >= r->present_count) return 0;
    /* A computation cause whose culprits spent more CPU time there than the
     * others is the code's, whatever else delayed them (a CI machine's other
     * jobs gave a real 3x load imbalance 1.6x wall over CPU on its culprit). */
    if (c->vertex < r->nvr && a->g.v[c->vertex].kind != PSG_MPI && an_vr_has(r, c->vertex, AN_HAS_ICPU)) {
        const float *icpu = an_vr(r, c->vertex)->icpu;
        double hc = 0, ho = 0;
        uint32_t nh = 0, nl = 0;
        for (uint32_t i = 0; i < r->P; i++) {
            if (!r->present[i]) continue;
            int cul = 0;
            for (uint32_t k = 0; k < c->nprocs && !cul; k++) cul = c->procs[k] == i;
            if (cul) hc += icpu[i], nh++;
            else ho += icpu[i], nl++;
        }
        double ratio = nh && nl && ho > 0 ? (hc / nh) / (ho / nl) : INFINITY;
        if (contended_speed(a, r, c, ratio)) return 1;
        if (nh && nl && ratio >= a->opt->th.imbalance) return 0;
    }
    uint8_t *culprit = sc_xcalloc((size_t)r->P + 1, 1);
    for (uint32_t k = 0; k < c->nprocs; k++)
        if (c->procs[k] < r->P) culprit[c->procs[k]] = 1;
    double qc = 0, qo = 0;
    uint32_t nc = 0, no = 0;
    for (uint32_t i = 0; i < r->P; i++) {
        double q = r->present[i] ? beyond_own(r, i) : NAN;
        if (!isfinite(q)) continue;
        if (culprit[i]) qc += q, nc++;
        else qo += q, no++;
    }
    if (!nc || !no) {
        free(culprit);
        return 0;
    }
    qc /= nc, qo /= no;
    /* Where the runtime measured the scheduler's run delay, the culprits'
     * wall-over-CPU gap is interference only as far as they waited for a
     * core: a process that slept, read a file or blocked computed "slower"
     * too, and that is its code's (the wait it causes stays a cause: wait at
     * collective, message wait).  Half: the rest of the gap is page faults,
     * start-up outside MPI and the like. */
    double gap = 0, delay = 0;
    int measured = 1;
    for (uint32_t i = 0; i < r->P; i++) {
        double wout, cout;
        if (!culprit[i] || an_rank_outside_mpi(r, i, &wout, &cout) != 0) continue;
        gap += fmax(0, wout - cout);
        if (isfinite(r->run_delay[i])) delay += r->run_delay[i];
        else measured = 0;
    }
    free(culprit);
    if (measured && gap > 0 && delay < 0.5 * gap) return 0;
    /* The culprits lost at least a quarter of their computing time waiting
     * for a core beyond the job's own sharing, and 1.3x what the others lost:
     * another job (or the OS) ran on their cores.  1.3: equal processes on a
     * quiet machine differ by a few per cent; a CPU hog on one core makes
     * its process 2x. */
    if (!(qc >= 1.3 && qc >= 1.3 * qo)) return 0;
    char procs[160];
    an_cause_procs_text(c, procs, sizeof procs);
    const struct an_vertex *x = &a->g.v[c->vertex];
    const char *file = x->file ? strrchr(x->file, '/') : NULL;
    file = file ? file + 1 : (x->file ? x->file : "?");
    char waited[96] = "";
    if (measured && gap > 0)
        snprintf(waited, sizeof waited, ", and waited %.3g s for a core (the scheduler's run delay)", delay);
    an_warn(a, "interference: at %u processes, process%s [%s] computed %.2gx slower in wall time than "
               "in CPU time beyond the job's own processes per core (the others %.2gx)%s: another job or "
               "the system ran on their cores; the %s at %s %s:%u they caused is not the code's",
            r->P, c->nprocs > 1 ? "es" : "", procs, qc, qo, waited, an_category_label(c->cat),
            x->name ? x->name : "code", file, x->line);
    size_t used = strlen(c->evidence);
    snprintf(c->evidence + used, sizeof c->evidence - used,
             "; its culprits waited for a core: %.2gx wall over CPU time against %.2gx on the others", qc, qo);
    c->undecided = "its culprits waited for their cores (another job or the system ran on them): the delay "
                   "is interference, not the code";
    return 1;
}
