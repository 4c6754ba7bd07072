/* gpu_idle.c — detector "gpu_idle": host code or MPI during which the GPUs
 * of a GPU program had nothing to do (the rule is in the comment of find). */
#include "core/mpi_table.h"
#include "core/types.h"
#include "detect/detect.h"
#include "ppg/run_source.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

/* GPU idle: in a program whose processes use the GPU, but whose GPUs were busy
 * less than gpu_busy_share of the run, the host code during which the GPU had
 * nothing to do.  Candidates are the host parts of GPU-driving code: an
 * application vertex that launches no GPU work itself, next to code that does
 * (its parent's subtree launches), i.e. the host computation or the MPI
 * operation between the launches.  Per GPU process i, with W_i its wall time
 * (less MPI_Init/Finalize), B_i its GPU device time and S_i its host time
 * blocked on the GPU (during which the device is busy), the device idled
 * W_i - B_i, and at most B_i - S_i of device work could have run
 * asynchronously under host code.  So at least
 *     idle_i(c) = min(T_i(c), W_i - B_i) - max(0, B_i - S_i)
 * of c's host time T_i(c) (inclusive CPU seconds; for MPI its wall seconds
 * divided by the contention) left the GPU idle.  The cost is the mean of
 * idle_i(c) over the GPU processes.  Host computation needs a significant
 * sample count; MPI operations count only from uncontended runs (contention
 * <= contention_max, as unexplained waits) and only when no cause explains their waits;
 * vertices already blamed (or found from) are skipped.  A candidate is refined
 * into the child that holds more than location_share of its CPU time. */
static void find(struct an_detect *b)
{
    struct an_analysis *a = b->a;
    const struct an_run *r = b->r;
    const struct an_graph *g = &a->g;
    const struct an_thresholds *th = &a->opt->th;
    uint32_t ngpu = 0, npresent = 0;
    double busy = 0, wall = 0;
    for (uint32_t i = 0; i < b->P; i++) {
        if (!r->present[i]) continue;
        npresent++;
        if (r->gpu_busy[i] <= 0) continue;
        ngpu++;
        busy += r->gpu_busy[i];
        wall += fmax(0, r->wall[i] - (r->startup ? r->startup[i] : 0));
    }
    if (!ngpu || 2 * ngpu < npresent || wall <= 0 || busy / wall >= th->gpu_busy_share) return;
    double *idle = sc_xmalloc((b->P + 1) * sizeof *idle), *async = sc_xmalloc((b->P + 1) * sizeof *async);
    for (uint32_t i = 0; i < b->P; i++) {
        idle[i] = async[i] = 0;
        if (!r->present[i] || r->gpu_busy[i] <= 0) continue;
        idle[i] = fmax(0, r->wall[i] - (r->startup ? r->startup[i] : 0) - r->gpu_busy[i]);
        async[i] = fmax(0, r->gpu_busy[i] - r->gpu_sync[i]);
    }
    double f = fmax(1, r->contention);
    char ev[768];
    for (uint32_t v = 0; v < b->N && v < r->nvr; v++) {
        const struct an_vertex *vx = &g->v[v];
        uint32_t par = vx->parent;
        if (par == AN_NONE || an_launches_gpu(r, v) || !an_launches_gpu(r, par)) continue;
        if (vx->kind == PSG_GPU || (vx->flags & AN_V_LIBRARY) || !*vx->file) continue;
        int mpi = vx->kind == PSG_MPI;
        if (mpi && (r->contention > th->contention_max || an_mpi_is_init(vx->op))) continue;
        /* refine host computation into the child holding most of it */
        uint32_t c = v;
        for (int depth = 0; !mpi && depth < 64; depth++) {
            const struct an_vrun *x = an_vr(r, c);
            double tot = 0, bt = 0;
            uint32_t bc = AN_NONE;
            if (!x->icpu) break;
            for (uint32_t i = 0; i < b->P; i++) tot += r->present[i] ? x->icpu[i] : 0;
            for (uint32_t ch = g->v[c].first_child; ch != AN_NONE; ch = g->v[ch].next_sibling) {
                if (!an_vr_has(r, ch, AN_HAS_ICPU) || (g->v[ch].flags & AN_V_LIBRARY) || !*g->v[ch].file) continue;
                const float *icpu = an_vr(r, ch)->icpu;
                double t = 0;
                for (uint32_t i = 0; i < b->P; i++) t += r->present[i] ? icpu[i] : 0;
                if (t > bt) bt = t, bc = ch;
            }
            if (bc == AN_NONE || !(bt > th->location_share * tot)) break;
            c = bc;
        }
        const struct an_vrun *x = an_vr(r, c);
        if (mpi ? !x->mpi : !x->icpu) continue;
        if (!mpi && x->signals + x->signals_incl < th->min_samples) continue;
        if (an_covered_by_cause(a, c)) continue;
        double sum = 0, host = 0, asum = 0;
        for (uint32_t i = 0; i < b->P; i++) {
            if (!r->present[i] || r->gpu_busy[i] <= 0) continue;
            double t = mpi ? x->mpi[i] / f : x->icpu[i];
            host += t, asum += async[i];
            double e = fmin(t, idle[i]) - async[i];
            sum += e > 0 ? e : 0;
        }
        double cost = sum / ngpu;
        if (cost < b->min_cost) continue;
        struct an_cause *cause = an_cause_get(a, c);
        if (cause->merged) continue;
        cause->cat = AN_CAT_GPU_IDLE;
        cause->cost = cost;
        uint32_t *procs = sc_xmalloc((b->P + 1) * sizeof *procs), np = 0;
        for (uint32_t i = 0; i < b->P; i++)
            if (r->present[i] && r->gpu_busy[i] > 0) procs[np++] = i;
        an_cause_procs(cause, procs, np);
        an_cause_root_path(cause, np ? cause->procs[0] : 0);
        cause->cost_rule = "mean over the GPU processes of the host time during which the GPU idled, less the "
                           "device work that could have run asynchronously (a lower bound)";
        snprintf(ev, sizeof ev,
                 "the GPUs were busy %.0f%% of the run (%.3g of %.3g s per process); %s here takes %.3g s per "
                 "GPU process while no GPU work is launched from it, at least %.3g s of it with the GPU idle "
                 "(beyond the %.3g s of device work that could run asynchronously)",
                 100 * busy / wall, busy / ngpu, wall / ngpu, mpi ? "MPI (wall / contention)" : "host computation",
                 host / ngpu, cost, asum / ngpu);
        an_cause_evidence(cause, "%s", ev);
        a->vflags[cause->vertex] |= AN_F_ROOT_CAUSE;
    }
    free(idle), free(async);
}

const struct an_detector an_detector_gpu_idle = {
    "gpu_idle",
    "a program whose processes launch GPU work but whose GPUs were busy less than gpu_busy_share of "
    "the run: the host code between launches during which the GPU idled",
    NULL, find};
