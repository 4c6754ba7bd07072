/* work_judge.c — a computation cause confronted with the loop work counters
 * (ppg/work.c): culprits that spent more time in a loop *with the same
 * iterations* as the others ran slower, they were not given more work.  That
 * is interference (another job on its core, a slower node), a finding about
 * the run, not a cause in the code (docs/analyzer.md, "Work and speed"). */
#include "detect/judge.h"
#include "detect/category.h"
#include "core/warn.h"
#include "ppg/work.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* "loop load_imbalance.c:20-23 in relax_cells" for a warning. */
static void vertex_text(const struct an_graph *g, uint32_t v, char *buf, size_t n)
{
    const struct an_vertex *x = &g->v[v];
    const char *file = x->file ? strrchr(x->file, '/') : NULL;
    file = file ? file + 1 : (x->file ? x->file : "?");
    const char *what = x->kind == PSG_LOOP ? "loop" : x->kind == PSG_FUNCTION ? "function" : "code";
    if (x->last_line > x->line)
        snprintf(buf, n, "%s %s:%u-%u in %s", what, file, x->line, x->last_line, x->function ? x->function : "?");
    else
        snprintf(buf, n, "%s %s:%u in %s", what, file, x->line, x->function ? x->function : "?");
}

enum an_work_verdict an_work_judge_cause(struct an_analysis *a, const struct an_run *r, struct an_cause *c)
{
    if (!c->nprocs || c->vertex >= a->g.n || a->g.v[c->vertex].kind == PSG_MPI) return AN_WORK_UNKNOWN;
    double wr, tr;
    enum an_work_verdict v = an_work_compare(&a->g, r, c->vertex, c->procs, c->nprocs, &wr, &tr);
    if (v == AN_WORK_UNKNOWN) return v;
    size_t used = strlen(c->evidence);
    /* Equal iterations, but far more CPU time than a slower core makes of
     * the same work (CPU time does not grow while another job holds the
     * core): the work is inside the iterations, where no counter sees it */
    if (v == AN_WORK_SAME && tr > a->opt->th.speed_max) {
        if (isfinite(tr))
            snprintf(c->evidence + used, sizeof c->evidence - used,
                     "; its culprits ran the others' loop iterations (%.2fx) in %.3gx the CPU time, more than a "
                     "slower core makes of the same work: the work inside the iterations differs (a library "
                     "call such as memcpy, straight-line code), which the loop counters do not see",
                     wr, tr);
        else
            snprintf(c->evidence + used, sizeof c->evidence - used,
                     "; its culprits ran the others' loop iterations (%.2fx), the others with no CPU time "
                     "sampled there: the work inside the iterations differs (a library call such as memcpy, "
                     "straight-line code), which the loop counters do not see",
                     wr);
        return AN_WORK_UNKNOWN;
    }
    if (v == AN_WORK_MORE) {
        if (isfinite(wr))
            snprintf(c->evidence + used, sizeof c->evidence - used,
                     "; its culprits ran %.2fx the others' loop iterations there", wr);
        else
            snprintf(c->evidence + used, sizeof c->evidence - used,
                     "; only its culprits ran loop iterations there");
        return v;
    }
    char where[512], procs[160];
    vertex_text(&a->g, c->vertex, where, sizeof where);
    an_cause_procs_text(c, procs, sizeof procs);
    /* tr is infinite when the others had no CPU sampled there */
    char more[640];
    if (isfinite(tr))
        snprintf(more, sizeof more, "%.0f %% more CPU time in %s than the others", 100 * (tr - 1), where);
    else
        snprintf(more, sizeof more, "CPU time in %s, the others none sampled there,", where);
    an_warn(a, "speed, not work: at %u processes, process%s [%s] spent %s with the same loop iterations "
               "(%+.1f %%): they ran slower (another job on their cores, a slower core or node), which no "
               "change to the code fixes; not reported as a %s",
            r->P, c->nprocs > 1 ? "es" : "", procs, more, 100 * (wr - 1), an_category_label(c->cat));
    if (isfinite(tr))
        snprintf(c->evidence + used, sizeof c->evidence - used,
                 "; its culprits ran the others' loop iterations (%.2fx) %.2fx slower: speed, not work", wr, tr);
    else
        snprintf(c->evidence + used, sizeof c->evidence - used,
                 "; its culprits ran the others' loop iterations (%.2fx), the others with no CPU time sampled "
                 "there: speed, not work", wr);
    c->undecided = "its culprits ran the same loop iterations as the others, only slower (interference: "
                   "another job on their cores, a slower core or node), so the code is not the cause";
    return v;
}
