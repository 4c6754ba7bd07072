/* whatif.c — what if the first k root causes were fixed: the exact
 * computation intervals between MPI calls of the largest run replayed with a
 * core per process, each collective closing a round that lasts as long as
 * its slowest process's computation since the previous collective, with the
 * causes' excess removed from their culprits cumulatively (cause 1, causes
 * 1-2, ...).  Fixing one cause moves the wait to the next slowest process,
 * so the replay's saving of several causes is less than their costs' sum.
 * report.json "what_if"; docs/analyzer.md, "What if". */
#include "report/whatif.h"
#include "core/mpi_table.h"
#include "core/types.h"
#include "metrics/metrics.h"
#include "ppg/run_source.h"
#include "ppg/vtime.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WHATIF_MAX_CAUSES 5 /* the causes the terminal shows */
#define SEGMENT_STEPS 64    /* successor chain followed to reach a collective */

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Whether MPI vertex v closes a round: a collective (every process of its
 * communicator reaches it before any leaves). */
static int closes_round(const struct an_analysis *a, uint32_t v)
{
    if (v == AN_NONE || v >= a->g.n || !a->g.v[v].op) return 0;
    return an_mpi_role(a->g.v[v].op) == AN_MPI_COLLECTIVE;
}

/* The replay state: per segment (a collective, or the end of the run) and
 * rank, the CPU seconds of computation between the previous collective and
 * it. */
struct replay {
    uint32_t P, nseg;
    uint32_t *seg_vertex; /* [nseg] the collective closing it; AN_NONE: the run's end */
    double *work;         /* [nseg * P] */
};

static uint32_t seg_index(struct replay *rp, uint32_t v)
{
    for (uint32_t s = 0; s < rp->nseg; s++)
        if (rp->seg_vertex[s] == v) return s;
    rp->seg_vertex[rp->nseg] = v;
    return rp->nseg++;
}

/* The collective that the computation ending at MPI vertex v leads to: v
 * itself when it closes a round, else along the most frequent successor
 * (the interval from v with the most occurrences), AN_NONE at the run's end. */
static uint32_t round_of(const struct an_analysis *a, const struct an_run *r, uint32_t v)
{
    for (int step = 0; step < SEGMENT_STEPS && v != AN_NONE; step++) {
        if (closes_round(a, v)) return v;
        uint32_t next = AN_NONE;
        double best = -1;
        for (uint32_t k = 0; k < r->nintervals; k++) {
            const struct an_interval *x = &r->intervals[k];
            if (x->prev_vertex != v || !x->count) continue;
            double n = 0;
            for (uint32_t i = 0; i < r->P; i++) n += x->count[i];
            if (n > best) best = n, next = x->next_vertex;
        }
        v = next;
    }
    return AN_NONE;
}

/* The replayed run time: the sum over segments of the slowest process's
 * computation (a core per process). */
static double replay_time(const struct replay *rp)
{
    double t = 0;
    for (uint32_t s = 0; s < rp->nseg; s++) {
        double mx = 0;
        for (uint32_t i = 0; i < rp->P; i++) mx = fmax(mx, rp->work[(size_t)s * rp->P + i]);
        t += mx;
    }
    return t;
}

/* Per rank, the CPU seconds of the cause's location (inclusive) in run r. */
static void location_cpu(const struct an_run *r, uint32_t v, double *out)
{
    const struct an_vrun *x = an_vr(r, v);
    for (uint32_t i = 0; i < r->P; i++)
        out[i] = x->icpu ? x->icpu[i] : x->incl ? x->incl[i] : an_vtime(x, i);
}

static int is_computation(enum an_category c)
{
    return c == AN_CAT_LOAD_IMBALANCE || c == AN_CAT_SERIAL || c == AN_CAT_NON_SCALABLE ||
           c == AN_CAT_LATE_SENDER || c == AN_CAT_LATE_RECEIVER;
}

/* Applies the fix of cause c to the replay: its location's time on each rank
 * brought to what the cost rule's fix leaves (culprits down to the others'
 * mean; spread evenly over every process; every process's time above the
 * ideal removed), in the segment that holds it: its symptom's round, else
 * the round where its culprits compute most.  Returns 1 when replayed, 0
 * when the cause is no computation (its cost is then taken as it is). */
static int apply_fix(const struct an_analysis *a, const struct an_run *r, const struct an_cause *c,
                     struct replay *rp, double *loc, double *target)
{
    if (!is_computation(c->cat) || c->vertex >= a->g.n) return 0;
    uint32_t P = r->P;
    location_cpu(r, c->vertex, loc);
    uint8_t *culprit = calloc(P + 1, 1);
    if (!culprit) abort();
    for (uint32_t k = 0; k < c->nprocs; k++)
        if (c->procs[k] < P) culprit[c->procs[k]] = 1;
    double others = 0, all = 0;
    uint32_t nothers = 0, npresent = 0;
    for (uint32_t i = 0; i < P; i++) {
        if (!r->present[i]) continue;
        all += loc[i], npresent++;
        if (!culprit[i]) others += loc[i], nothers++;
    }
    int spread = c->cost_rule && strstr(c->cost_rule, "spread evenly") != NULL;
    for (uint32_t i = 0; i < P; i++) {
        if (c->cat == AN_CAT_NON_SCALABLE && !spread) target[i] = fmax(0, loc[i] - a->loss[c->vertex]);
        else if (spread || c->cat == AN_CAT_SERIAL || !nothers) target[i] = npresent ? all / npresent : loc[i];
        else target[i] = culprit[i] ? others / nothers : loc[i];
    }
    /* the round: the symptom's, else the one where the culprits compute most */
    uint32_t seg = UINT32_MAX;
    if (c->symptom != AN_NONE) {
        uint32_t v = round_of(a, r, c->symptom);
        for (uint32_t s = 0; s < rp->nseg && seg == UINT32_MAX; s++)
            if (rp->seg_vertex[s] == v) seg = s;
    }
    if (seg == UINT32_MAX) {
        double best = -1;
        for (uint32_t s = 0; s < rp->nseg; s++) {
            double w = 0;
            for (uint32_t i = 0; i < P; i++)
                if (culprit[i] || !c->nprocs) w += rp->work[(size_t)s * P + i];
            if (w > best) best = w, seg = s;
        }
    }
    free(culprit);
    if (seg == UINT32_MAX) return 0;
    for (uint32_t i = 0; i < P; i++) {
        double *w = &rp->work[(size_t)seg * P + i];
        *w = fmax(0, *w - (loc[i] - target[i]));
    }
    return 1;
}

/* The replay of run r before any fix; 0 when r has no intervals. */
static int replay_init(const struct an_analysis *a, const struct an_run *r, struct replay *rp)
{
    memset(rp, 0, sizeof *rp);
    if (!r->has_intervals || !an_run_holds_ranks(r) || !r->nintervals) return 0;
    rp->P = r->P;
    rp->seg_vertex = calloc(r->nintervals + 1, sizeof *rp->seg_vertex);
    rp->work = calloc(((size_t)r->nintervals + 1) * r->P, sizeof *rp->work);
    if (!rp->seg_vertex || !rp->work) abort();
    for (uint32_t k = 0; k < r->nintervals; k++) {
        const struct an_interval *x = &r->intervals[k];
        if (!x->cpu) continue;
        uint32_t s = seg_index(rp, round_of(a, r, x->next_vertex));
        for (uint32_t i = 0; i < r->P; i++) rp->work[(size_t)s * r->P + i] += x->cpu[i];
    }
    return 1;
}

static void replay_copy(struct replay *to, const struct replay *from)
{
    *to = *from;
    to->seg_vertex = malloc((from->nseg + 1) * sizeof *to->seg_vertex);
    to->work = malloc(((size_t)from->nseg + 1) * from->P * sizeof *to->work);
    if (!to->seg_vertex || !to->work) abort();
    memcpy(to->seg_vertex, from->seg_vertex, from->nseg * sizeof *to->seg_vertex);
    memcpy(to->work, from->work, (size_t)from->nseg * from->P * sizeof *to->work);
}

static void replay_free(struct replay *rp) { free(rp->seg_vertex), free(rp->work); }

void *an_whatif_json(const struct an_analysis *a)
{
    if (!a->nscales || !a->ncauses) return NULL;
    const struct an_scale *sc = &a->scales[a->nscales - 1];
    const struct an_run *r = sc->rep;
    struct replay base;
    if (!replay_init(a, r, &base)) return NULL;
    double *loc = malloc((r->P + 1) * sizeof *loc), *target = malloc((r->P + 1) * sizeof *target);
    if (!loc || !target) abort();
    double measured = an_base_seconds(a), r0 = replay_time(&base);
    uint32_t K = a->ncauses < WHATIF_MAX_CAUSES ? a->ncauses : WHATIF_MAX_CAUSES;
    json_t *o = json_object(), *steps = json_array(), *alone = json_array();
    json_object_set_new(o, "processes", json_integer(sc->P));
    json_object_set_new(o, "wall_seconds", num(sc->wall));
    json_object_set_new(o, "base_seconds", num(measured));
    json_object_set_new(o, "replayed_seconds", num(r0));
    json_object_set_new(o, "rounds", json_integer(base.nseg));
    struct replay cum;
    replay_copy(&cum, &base);
    double costs = 0, unreplayed = 0;
    for (uint32_t k = 0; k < K; k++) {
        const struct an_cause *c = &a->causes[k];
        costs += c->cost;
        if (!apply_fix(a, r, c, &cum, loc, target)) unreplayed += c->cost;
        double saving = r0 - replay_time(&cum) + unreplayed;
        json_t *st = json_object(), *ranks = json_array();
        for (uint32_t j = 0; j <= k; j++) json_array_append_new(ranks, json_integer(j + 1));
        json_object_set_new(st, "causes", ranks);
        json_object_set_new(st, "saving_seconds", num(saving));
        json_object_set_new(st, "predicted_seconds", num(fmax(0, measured - saving)));
        json_object_set_new(st, "sum_of_costs_seconds", num(costs));
        json_array_append_new(steps, st);
        /* the cause alone */
        struct replay one;
        replay_copy(&one, &base);
        int replayed = apply_fix(a, r, c, &one, loc, target);
        double s1 = replayed ? r0 - replay_time(&one) : c->cost;
        replay_free(&one);
        json_t *al = json_object();
        json_object_set_new(al, "rank", json_integer(k + 1));
        json_object_set_new(al, "cost_seconds", num(c->cost));
        json_object_set_new(al, "replayed_saving_seconds", num(s1));
        json_object_set_new(al, "replayed", json_boolean(replayed));
        json_array_append_new(alone, al);
    }
    json_object_set_new(o, "steps", steps);
    json_object_set_new(o, "alone", alone);
    json_object_set_new(o, "method",
                        json_string("the largest run's exact computation intervals replayed with a core per "
                                    "process: each collective closes a round as long as its slowest process's CPU "
                                    "time since the previous one; a fix brings the cause's location on each process "
                                    "to what its cost rule leaves; predicted = base_seconds - replayed saving; causes "
                                    "that are no computation count with their cost"));
    replay_free(&cum);
    replay_free(&base);
    free(loc), free(target);
    return o;
}
