/* report.c — report.json (docs/report.schema.json) from the analysis: runs,
 * ranked root causes with their paths, every vertex with metrics per process
 * count and its model, the communication matrix, thresholds, data quality. */
#include "report/report.h"
#include "core/graph.h"
#include "core/mpi_table.h"
#include "core/options.h"
#include "core/types.h"
#include "detect/category.h"
#include "metrics/metrics.h"
#include "models/model.h"
#include "ppg/ppg.h"
#include "ppg/run_source.h"
#include "ppg/vtime.h"
#include "ppg/work.h"
#include "read/demangle.h"
#include "read/ompt.h"
#include "sc_alloc.h"
#include "scalana/psg_format.h"
#include "scalana/mpi_ops.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#ifndef SCALANA_VERSION_STRING
#define SCALANA_VERSION_STRING "0.1.0"
#endif

static json_t *num(double x) { return json_real(isfinite(x) ? x : 0.0); }
/* A count (bytes, messages): an integer when it is one, since the report's
 * reals keep 6 digits (main.c) and a matrix cell of 2147483656 bytes must
 * read back exact. */
static json_t *count_json(double x)
{
    if (isfinite(x) && x == floor(x) && fabs(x) < 9.0e18)
        return json_integer((json_int_t)x);
    return num(x);
}

static json_t *model_json(const struct an_model_out *m)
{
    if (!m->valid) return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "formula", json_string(m->formula));
    json_object_set_new(o, "c0", num(m->c0));
    json_object_set_new(o, "c1", num(m->c1));
    json_object_set_new(o, "i", num(m->i));
    json_object_set_new(o, "j", json_integer(m->j));
    json_object_set_new(o, "smape", num(m->smape));
    json_object_set_new(o, "quality", json_string(scalana_model_quality_name(m->quality)));
    json_object_set_new(o, "loglog_slope", m->has_slope && isfinite(m->loglog_slope) ? json_real(m->loglog_slope) : json_null());
    json_object_set_new(o, "metric", json_string(m->metric ? m->metric : "inclusive_mean_seconds"));
    return o;
}

static json_t *runs_json(const struct an_analysis *a)
{
    json_t *arr = json_array();
    const struct an_scale *s0 = a->nscales ? &a->scales[0] : NULL;
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_scale *sc = &a->scales[s];
        const struct an_run *r = sc->rep;
        json_t *o = json_object();
        json_object_set_new(o, "processes", json_integer(sc->P));
        json_t *dirs = json_array();
        for (uint32_t k = 0; k < sc->nreps; k++) json_array_append_new(dirs, json_string(sc->reps[k]->dir));
        json_object_set_new(o, "directories", dirs);
        json_object_set_new(o, "wall_seconds", num(sc->wall));
        json_object_set_new(o, "wall_seconds_spread", num(sc->wall_spread));
        json_object_set_new(o, "cpu_seconds_mean", num(r->cpu_mean));
        json_object_set_new(o, "mpi_seconds_mean", num(r->mpi_mean));
        double eff = 1;
        if (s0 && sc->wall > 0) {
            eff = a->opt->weak ? s0->wall / sc->wall : s0->wall * s0->P / (sc->wall * sc->P);
        }
        json_object_set_new(o, "parallel_efficiency", num(eff));
        json_object_set_new(o, "oversubscription", num(r->oversub));
        json_object_set_new(o, "contention", num(r->contention));
        json_object_set_new(o, "other_load_share", num(an_other_load_share(r)));
        json_object_set_new(o, "base_seconds", num(an_run_base_seconds(a, s)));
        double dmean = 0, dmax = 0;
        uint32_t dat = 0, dn = an_run_delay_stats(r, &dmean, &dmax, &dat);
        json_object_set_new(o, "run_delay_seconds_mean", dn ? num(dmean) : json_null());
        json_object_set_new(o, "run_delay_seconds_max", dn ? num(dmax) : json_null());
        json_object_set_new(o, "run_delay_max_process", dn ? json_integer(dat) : json_null());
        json_object_set_new(o, "involuntary_switches_per_second",
                            num(r->wall_max > 0 && r->present_count
                                    ? (double)r->invol_switches / r->present_count / r->wall_max : 0));
        if (r->sampler[0]) json_object_set_new(o, "sampler", json_string(r->sampler));
        json_object_set_new(o, "work_measure", json_string(an_work_measure(r)));
        json_object_set_new(o, "omp_runtime_cpu_percent", num(100 * an_omp_runtime_share(r, NULL)));
        json_object_set_new(o, "threads_per_process", json_integer(r->threads_per_process));
        json_object_set_new(o, "threads_per_core", num(r->threads_per_core));
        json_object_set_new(o, "openmp_measure", json_string(r->omp_ranks ? "ompt" : "none"));
        if (r->omp_ranks) json_object_set_new(o, "openmp_regions", an_ompt_regions_json(r, &a->g));
        json_object_set_new(o, "sample_period_seconds", num(r->period_s));
        /* the rate asked for and the rate obtained (per thread): a CPU-time timer
         * fires at kernel ticks, whatever SCALANA_FREQ asks */
        json_object_set_new(o, "sample_rate_asked_hz", num(r->asked_hz));
        json_object_set_new(o, "sample_rate_effective_hz", num(r->effective_hz));
        json_object_set_new(o, "sample_rate_obtained_hz", num(r->obtained_hz));
        json_object_set_new(o, "sampler_resolution_seconds", num(r->resolution_s));
        json_object_set_new(o, "sample_rate_capped", json_boolean(an_rate_capped(r)));
        json_object_set_new(o, "signals", json_integer((json_int_t)r->signals));
        json_object_set_new(o, "signal_seconds", num(an_signal_s(r)));
        if (r->info.mpi_library) json_object_set_new(o, "mpi_library", json_string(r->info.mpi_library));
        json_object_set_new(o, "missing_ranks", json_integer(r->nmissing));
        json_object_set_new(o, "unreadable_ranks", json_integer(r->nunreadable));
        /* partial: some ranks' profiles were not written or could not be read */
        json_object_set_new(o, "partial", json_boolean(r->nmissing > 0));
        json_array_append_new(arr, o);
    }
    return arr;
}

void an_report_set_peaks(void *report, const struct an_analysis *a)
{
    json_t *tool = json_object_get((json_t *)report, "tool");
    if (!tool) return;
    json_t *rss = json_array();
    for (uint32_t k = 0; a->peak_rss && k < a->nprocs; k++) json_array_append_new(rss, json_integer((json_int_t)a->peak_rss[k]));
    json_object_set_new(tool, "analyzer_peak_rss_bytes", rss);
}

static json_t *metrics_json(const struct an_analysis *a, uint32_t v, uint32_t *const *outliers)
{
    json_t *arr = json_array();
    uint32_t N = a->g.n;
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_vmetrics *m = &a->vm[(size_t)s * N + v];
        if (!m->present) continue;
        const struct an_run *r = a->scales[s].rep;
        json_t *o = json_object();
        json_object_set_new(o, "processes", json_integer(a->scales[s].P));
        json_object_set_new(o, "time_mean_seconds", num(m->mean));
        json_object_set_new(o, "time_max_seconds", num(m->max));
        json_object_set_new(o, "time_min_seconds", num(m->min));
        json_object_set_new(o, "inclusive_mean_seconds", num(m->incl_mean));
        json_object_set_new(o, "inclusive_max_seconds", num(m->incl_max));
        json_object_set_new(o, "cpu_mean_seconds", num(m->cpu_mean));
        json_object_set_new(o, "mpi_mean_seconds", num(m->mpi_mean));
        if (m->gpu_mean > 0) json_object_set_new(o, "gpu_device_mean_seconds", num(m->gpu_mean));
        json_object_set_new(o, "samples", num(m->samples));
        json_object_set_new(o, "mpi_calls", num(m->calls));
        json_object_set_new(o, "bytes", num(m->bytes));
        json_object_set_new(o, "imbalance", num(m->imbalance));
        if (a->scales[s].nreps > 1) json_object_set_new(o, "repetition_spread_seconds", num(m->spread));
        /* exact computation right before this MPI call (runtime intervals): mean and max over processes */
        if (a->g.v[v].kind == PSG_MPI && r->has_intervals && r->present_count) {
            double *w = malloc((r->P + 1) * 2 * sizeof *w), sw = 0, sc = 0, mx = 0;
            if (w && an_interval_before(r, v, 0, w) && an_interval_before(r, v, 1, w + r->P + 1)) {
                for (uint32_t i = 0; i < r->P; i++) sw += w[i], sc += w[r->P + 1 + i], mx = w[i] > mx ? w[i] : mx;
                json_object_set_new(o, "interval_before_mean_seconds", num(sw / r->present_count));
                json_object_set_new(o, "interval_before_max_seconds", num(mx));
                json_object_set_new(o, "interval_before_cpu_mean_seconds", num(sc / r->present_count));
            }
            free(w);
        }
        /* outliers of the inclusive time (robust z-score) and per-process time */
        if (an_vr_has(r, v, AN_HAS_INCL)) {
            const uint32_t *ol_v = outliers[s] + (size_t)v * 17;
            json_t *ol = json_array();
            for (uint32_t k = 0; k < ol_v[0] && k < 16; k++) json_array_append_new(ol, json_integer((json_int_t)ol_v[1 + k]));
            json_object_set_new(o, "outliers", ol);
            /* per process: small runs always, larger ones for flagged vertices */
            if (r->P <= 256 || (r->P <= 4096 && a->vflags[v])) {
                const struct an_vrun *x = an_vr(r, v);
                json_t *pp = json_array();
                for (uint32_t i = 0; i < r->P; i++) json_array_append_new(pp, num(an_vtime(x, i)));
                json_object_set_new(o, "per_process_seconds", pp);
            }
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

/* ---- where a cause is: the vertex, its function and the call chain ---------- */

static int is_function_vertex(const struct an_vertex *v)
{
    return v->kind == PSG_FUNCTION || (v->kind == AN_KIND_DYNAMIC && !(v->flags & (AN_V_CALLSITE | AN_V_ROOT)));
}

static int is_call_vertex(const struct an_vertex *v)
{
    return v->kind == PSG_CALL || v->kind == PSG_CALL_INDIRECT || v->kind == PSG_CALL_RECURSIVE ||
           (v->flags & AN_V_CALLSITE);
}

/** The call chain of vertex v from the outermost function (main, or a
 *  thread's root) to the function holding v: one entry per call site on the
 *  way, {function (the caller, demangled), linkage_name, file, line, inlined}.
 *  A function entered with no call vertex above it (a thread root, a call
 *  the PSG matched to no call site) gives an entry at its parent's line.
 *  inlined: every time the call was entered, it was through a DWARF inline
 *  chain (no frame of its own). */
static json_t *call_chain_json(const struct an_analysis *a, uint32_t v)
{
    const struct an_graph *g = &a->g;
    uint32_t sites[256];
    uint8_t region[256];
    uint32_t n = 0;
    for (uint32_t x = v; x != AN_NONE && n < 256; x = g->v[x].parent) {
        if (!is_function_vertex(&g->v[x])) continue;
        uint32_t p = g->v[x].parent;
        if (p == AN_NONE) break;
        /* flang's generated C main only calls the program: the program is
         * where a person's chain starts */
        if (g->v[x].linkage && strcmp(g->v[x].linkage, "_QQmain") == 0) break;
        /* an OpenMP outlined body is entered at the fork call on the
         * pragma's line; clang's wrapper calling its _debug__ body is one
         * region, not a call a person wrote */
        int reg = (g->v[x].flags & AN_V_OMP_REGION) != 0;
        if (reg && n && region[n - 1]) { /* the last entry's site lies in x, the same region */
            sites[n - 1] = p;
            continue;
        }
        region[n] = (uint8_t)reg;
        sites[n++] = p; /* the call vertex, or whatever the function hangs under */
    }
    json_t *arr = json_array();
    while (n--) {
        const struct an_vertex *c = &g->v[sites[n]];
        json_t *o = json_object();
        json_object_set_new(o, "function", json_string(c->function ? c->function : ""));
        if (c->linkage && *c->linkage && strcmp(c->linkage, c->function ? c->function : "") != 0)
            json_object_set_new(o, "linkage_name", json_string(c->linkage));
        json_object_set_new(o, "file", json_string(c->file ? c->file : ""));
        json_object_set_new(o, "line", json_integer(c->line));
        if (c->column) json_object_set_new(o, "column", json_integer(c->column));
        json_object_set_new(o, "inlined", json_boolean(is_call_vertex(c) && (c->flags & AN_V_CALL_INLINED) &&
                                                       !(c->flags & AN_V_CALL_OUTOFLINE)));
        if (region[n]) json_object_set_new(o, "parallel_region", json_true());
        json_array_append_new(arr, o);
    }
    return arr;
}

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : (p ? p : "");
}

/** One line a person reads: "loop relax.c:12-15 in relax_block, inlined into
 *  main at relax.c:33" (innermost first; "called from" for real calls). */
static json_t *location_text(const struct an_analysis *a, uint32_t v, json_t *chain)
{
    struct an_strpool *pool = (struct an_strpool *)&a->g.strings;
    const struct an_vertex *x = &a->g.v[v];
    const char *what;
    char buf[4096];
    switch (x->kind) {
    case PSG_LOOP: what = "loop"; break;
    case PSG_BRANCH: what = "branch"; break;
    case PSG_COMPUTE: what = "code"; break;
    case PSG_FUNCTION: what = "function"; break;
    case PSG_MPI: what = an_mpi_name(x->op); break;
    case PSG_GPU: what = "GPU call"; break;
    case PSG_CALL: case PSG_CALL_INDIRECT: case PSG_CALL_RECURSIVE: what = "call"; break;
    default: what = (x->flags & AN_V_CALLSITE) ? "call" : "function"; break;
    }
    size_t k = 0;
    uint32_t last = x->last_line > x->line ? x->last_line : x->line;
    if (x->file && *x->file && x->line) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s %s:%u", what, base_name(x->file), x->line);
        if (last > x->line) k += (size_t)snprintf(buf + k, sizeof buf - k, "-%u", last);
    } else if (!strcmp(what, "function") && x->function && *x->function) {
        /* a build without -g: the function by its symbol, and nothing finer */
        k += (size_t)snprintf(buf + k, sizeof buf - k, "function %s (no source line)",
                              an_short_function(pool, x->function));
    } else {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s (no source line)", what);
    }
    if (x->function && *x->function && !(!(x->file && *x->file && x->line) && !strcmp(what, "function")))
        k += (size_t)snprintf(buf + k, sizeof buf - k, " in %s", an_short_function(pool, x->function));
    for (size_t i = json_array_size(chain); i-- > 0 && k < sizeof buf - 1;) {
        const json_t *e = json_array_get(chain, i);
        const char *fn = json_string_value(json_object_get(e, "function"));
        const char *file = json_string_value(json_object_get(e, "file"));
        long long line = (long long)json_integer_value(json_object_get(e, "line"));
        if (json_is_true(json_object_get(e, "parallel_region"))) {
            /* the region's body is code of the function holding the pragma */
            if (file && *file && line)
                k += (size_t)snprintf(buf + k, sizeof buf - k, " (parallel region at %s:%lld)", base_name(file), line);
            else
                k += (size_t)snprintf(buf + k, sizeof buf - k, " (parallel region)");
            continue;
        }
        if (!file || !*file || !line) { /* no lines (no -g): the caller alone */
            k += (size_t)snprintf(buf + k, sizeof buf - k, ", %s %s",
                                  json_is_true(json_object_get(e, "inlined")) ? "inlined into" : "called from",
                                  an_short_function(pool, fn ? fn : ""));
            continue;
        }
        k += (size_t)snprintf(buf + k, sizeof buf - k, ", %s %s at %s:%lld",
                              json_is_true(json_object_get(e, "inlined")) ? "inlined into" : "called from",
                              an_short_function(pool, fn ? fn : ""), base_name(file),
                              (long long)json_integer_value(json_object_get(e, "line")));
    }
    return json_string(buf);
}

static json_t *vertices_json(const struct an_analysis *a, uint32_t *index_of, uint32_t *const *outliers)
{
    json_t *arr = json_array();
    uint32_t id = 0;
    const struct an_run *big = a->nscales ? a->scales[a->nscales - 1].rep : NULL;
    double wall = a->nscales ? a->scales[a->nscales - 1].wall : 0;
    for (uint32_t v = 0; v < a->g.n; v++) {
        int any = 0;
        for (uint32_t s = 0; s < a->nscales && !any; s++) any = a->vm[(size_t)s * a->g.n + v].present;
        index_of[v] = any ? id++ : AN_NONE;
    }
    (void)big;
    for (uint32_t v = 0; v < a->g.n; v++) {
        if (index_of[v] == AN_NONE) continue;
        const struct an_vertex *x = &a->g.v[v];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(index_of[v]));
        uint32_t p = x->parent;
        while (p != AN_NONE && index_of[p] == AN_NONE) p = a->g.v[p].parent;
        json_object_set_new(o, "parent", p == AN_NONE ? json_null() : json_integer(index_of[p]));
        json_object_set_new(o, "kind", json_string(x->kind == AN_KIND_DYNAMIC ? "DYNAMIC" : an_kind_name(x->kind)));
        json_object_set_new(o, "name", json_string(x->name));
        json_object_set_new(o, "function", json_string(x->function));
        if (x->linkage && *x->linkage && strcmp(x->linkage, x->function) != 0)
            json_object_set_new(o, "linkage_name", json_string(x->linkage));
        if (is_call_vertex(x) && (x->flags & (AN_V_CALL_INLINED | AN_V_CALL_OUTOFLINE)))
            json_object_set_new(o, "inlined", json_boolean((x->flags & AN_V_CALL_INLINED) &&
                                                           !(x->flags & AN_V_CALL_OUTOFLINE)));
        if (x->flags & AN_V_ATTRIB_ONLY) json_object_set_new(o, "attribution_only", json_true());
        json_object_set_new(o, "file", json_string(x->file));
        json_object_set_new(o, "line", json_integer(x->line));
        json_object_set_new(o, "last_line", json_integer(x->last_line >= x->line ? x->last_line : x->line));
        json_object_set_new(o, "column", json_integer(x->column));
        if (x->kind == PSG_MPI) json_object_set_new(o, "operation", json_string(an_mpi_name(x->op)));
        if (!(x->flags & AN_V_DYNAMIC)) {
            char hex[32];
            snprintf(hex, sizeof hex, "%016llx", (unsigned long long)x->psg_stable_id);
            json_object_set_new(o, "psg_stable_id", json_string(hex));
        } else {
            json_object_set_new(o, "dynamic", json_true());
        }
        json_object_set_new(o, "metrics", metrics_json(a, v, outliers));
        json_object_set_new(o, "model", model_json(&a->model[v]));
        json_object_set_new(o, "model_max", model_json(&a->model_max[v]));
        json_object_set_new(o, "scaling_loss_seconds", num(a->loss[v]));
        json_object_set_new(o, "scaling_loss_percent", num(wall > 0 ? a->loss[v] / wall * 100 : 0));
        json_t *fl = json_array();
        if (a->vflags[v] & AN_F_NON_SCALABLE) json_array_append_new(fl, json_string("non_scalable"));
        if (a->vflags[v] & AN_F_IMBALANCED) json_array_append_new(fl, json_string("imbalanced"));
        if (a->vflags[v] & AN_F_WAITING) json_array_append_new(fl, json_string("waiting"));
        if (a->vflags[v] & AN_F_ROOT_CAUSE) json_array_append_new(fl, json_string("root_cause"));
        json_object_set_new(o, "flags", fl);
        json_array_append_new(arr, o);
    }
    return arr;
}

/* The base of cost_percent and of the minimum cost (an_base_seconds). */
static double uncontended_wall(const struct an_analysis *a) { return an_base_seconds(a); }

static json_t *causes_json(const struct an_analysis *a, const uint32_t *index_of, const struct an_cause *list,
                           uint32_t count)
{
    json_t *arr = json_array();
    double wall = a->nscales ? a->scales[a->nscales - 1].wall : 0, base = uncontended_wall(a);
    /* the percentage people read is of the measured wall time of the largest
     * run (the runs table's number), and the shown percentages of one list
     * never add up to more than 100: where costs overlap (a cause and the
     * wait it explains elsewhere), the later cause shows what is left */
    double shown = 0;
    for (uint32_t k = 0; k < count; k++) {
        const struct an_cause *c = &list[k];
        const struct an_vertex *x = &a->g.v[c->vertex];
        if (index_of[c->vertex] == AN_NONE) continue;
        json_t *o = json_object();
        json_object_set_new(o, "rank", json_integer(json_array_size(arr) + 1));
        json_object_set_new(o, "category", json_string(an_category_name(c->cat)));
        json_object_set_new(o, "file", json_string(x->file));
        json_object_set_new(o, "line", json_integer(x->line));
        json_object_set_new(o, "last_line", json_integer(x->last_line >= x->line ? x->last_line : x->line));
        json_object_set_new(o, "function", json_string(x->function));
        if (x->linkage && *x->linkage && strcmp(x->linkage, x->function) != 0)
            json_object_set_new(o, "linkage_name", json_string(x->linkage));
        json_t *chain = call_chain_json(a, c->vertex);
        json_object_set_new(o, "location", location_text(a, c->vertex, chain));
        json_object_set_new(o, "call_chain", chain);
        json_object_set_new(o, "vertex", json_integer(index_of[c->vertex]));
        json_object_set_new(o, "cost_seconds", num(c->cost));
        double pct = wall > 0 ? fmax(0, fmin(100 - shown, c->cost / wall * 100)) : 0;
        shown += pct;
        json_object_set_new(o, "cost_percent", num(pct));
        json_object_set_new(o, "cost_percent_of_base", num(base > 0 ? fmin(100, c->cost / base * 100) : 0));
        json_object_set_new(o, "cost_noise_seconds", num(c->cost_noise));
        if (c->cost_rule) json_object_set_new(o, "cost_rule", json_string(c->cost_rule));
        if (c->undecided) json_object_set_new(o, "undecided", json_string(c->undecided));
        json_object_set_new(o, "remedy", json_string(c->remedy ? c->remedy : an_category_remedy(c->cat)));
        json_t *pr = json_array();
        for (uint32_t i = 0; i < c->nprocs && i < 1024; i++) json_array_append_new(pr, json_integer(c->procs[i]));
        json_object_set_new(o, "processes", pr);
        if (c->nprocs > 1024) json_object_set_new(o, "processes_total", json_integer(c->nprocs));
        json_t *wp = json_array();
        for (uint32_t i = 0; i < c->nwaiting && i < 1024; i++) json_array_append_new(wp, json_integer(c->waiting[i]));
        json_object_set_new(o, "waiting_processes", wp);
        if (c->nthreads) {
            json_t *th = json_array();
            for (uint32_t i = 0; i < c->nthreads; i++)
                json_array_append_new(th, c->threads[i] == AN_NONE ? json_null() : json_integer(c->threads[i]));
            json_object_set_new(o, "threads", th);
        }
        json_object_set_new(o, "model", model_json(&a->model[c->vertex]));
        json_object_set_new(o, "evidence", json_string(c->evidence));
        if (x->kind == PSG_LOOP || x->kind == PSG_COMPUTE || x->kind == PSG_BRANCH)
            json_object_set_new(o, "name", json_string(x->name));
        if (c->symptom != AN_NONE && index_of[c->symptom] != AN_NONE) {
            const struct an_vertex *s = &a->g.v[c->symptom];
            json_t *so = json_object();
            json_object_set_new(so, "vertex", json_integer(index_of[c->symptom]));
            json_object_set_new(so, "file", json_string(s->file));
            json_object_set_new(so, "line", json_integer(s->line));
            json_object_set_new(so, "operation", json_string(s->kind == PSG_MPI ? an_mpi_name(s->op) : s->name));
            json_object_set_new(o, "symptom", so);
        }
        json_t *path = json_array();
        for (uint32_t i = 0; i < c->npath; i++) {
            const struct an_step *st = &c->path[i];
            uint32_t vv = st->vertex;
            while (vv != AN_NONE && index_of[vv] == AN_NONE) vv = a->g.v[vv].parent;
            if (vv == AN_NONE) continue;
            const struct an_vertex *sx = &a->g.v[vv];
            json_t *so = json_object();
            json_object_set_new(so, "vertex", json_integer(index_of[vv]));
            json_object_set_new(so, "process", json_integer(st->process));
            json_object_set_new(so, "edge", json_string(st->edge));
            json_object_set_new(so, "file", json_string(sx->file));
            json_object_set_new(so, "line", json_integer(sx->line));
            json_object_set_new(so, "label", json_string(sx->name));
            if (st->wait > 0) json_object_set_new(so, "wait_seconds", num(st->wait));
            json_array_append_new(path, so);
        }
        json_object_set_new(o, "path", path);
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *communication_json(const struct an_analysis *a, const uint32_t *index_of)
{
    if (!a->nscales) return NULL;
    const struct an_run *r = a->scales[a->nscales - 1].rep;
    json_t *o = json_object();
    json_object_set_new(o, "processes", json_integer(r->P));
    if (r->P <= a->opt->th.matrix_max) {
        double *bytes, *msgs;
        if (an_run_matrix(r, &bytes, &msgs) == 0) {
            json_t *b = json_array(), *m = json_array();
            for (uint32_t i = 0; i < r->P; i++) {
                json_t *rb = json_array(), *rm = json_array();
                for (uint32_t j = 0; j < r->P; j++) {
                    json_array_append_new(rb, count_json(bytes[(size_t)i * r->P + j]));
                    json_array_append_new(rm, count_json(msgs[(size_t)i * r->P + j]));
                }
                json_array_append_new(b, rb), json_array_append_new(m, rm);
            }
            json_object_set_new(o, "bytes", b);
            json_object_set_new(o, "messages", m);
            free(bytes), free(msgs);
        }
    }
    json_t *edges = json_array();
    for (size_t k = 0; k < r->nedges; k++) {
        const struct an_edge *e = &r->edges[k];
        if (index_of[e->send_vertex] == AN_NONE || index_of[e->recv_vertex] == AN_NONE) continue;
        json_t *eo = json_object();
        json_object_set_new(eo, "send_vertex", json_integer(index_of[e->send_vertex]));
        json_object_set_new(eo, "recv_vertex", json_integer(index_of[e->recv_vertex]));
        json_object_set_new(eo, "messages", json_integer((json_int_t)e->messages));
        json_object_set_new(eo, "bytes", json_integer((json_int_t)e->bytes));
        json_object_set_new(eo, "rank_pairs", json_integer(e->pairs));
        json_array_append_new(edges, eo);
    }
    json_object_set_new(o, "edges", edges);
    return o;
}

static json_t *quality_json(const struct an_analysis *a)
{
    json_t *o = json_object();
    double samples = 0, dropped = 0, overruns = 0, unresolved = 0, unmatched = 0, over = 0;
    json_t *missing = json_array();
    for (uint32_t s = 0; s < a->nscales; s++)
        for (uint32_t k = 0; k < a->scales[s].nreps; k++) {
            const struct an_run *r = a->scales[s].reps[k];
            samples += (double)r->samples, dropped += (double)r->dropped, overruns += (double)r->overruns;
            unresolved += (double)r->unresolved, unmatched += (double)r->unmatched;
            if (r->oversub > over) over = r->oversub;
            for (uint32_t i = 0; i < r->nmissing && i < 1024; i++) {
                json_t *m = json_object();
                json_object_set_new(m, "processes", json_integer(r->P));
                json_object_set_new(m, "rank", json_integer(r->missing[i]));
                json_object_set_new(m, "directory", json_string(r->dir));
                json_object_set_new(m, "reason", json_string(r->unreadable && r->unreadable[r->missing[i]]
                                                                 ? "unreadable" : "not_written"));
                json_array_append_new(missing, m);
            }
        }
    json_object_set_new(o, "samples", json_real(samples));
    json_object_set_new(o, "dropped", json_real(dropped));
    json_object_set_new(o, "overruns", json_real(overruns));
    json_object_set_new(o, "unresolved_frames", json_real(unresolved));
    json_object_set_new(o, "unmatched_messages", json_real(unmatched));
    json_object_set_new(o, "oversubscription", json_real(over));
    json_object_set_new(o, "missing_ranks", missing);
    json_t *w = json_array();
    for (uint32_t i = 0; i < a->nwarnings; i++) json_array_append_new(w, json_string(a->warnings[i]));
    json_object_set_new(o, "warnings", w);
    return o;
}

static int by_seconds_desc(const void *x, const void *y)
{
    const double *a = x, *b = y; /* rows of 3: seconds, vertex, contexts */
    if (a[0] != b[0]) return a[0] > b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* 1 for the MPI calls that start and stop MPI (MPI_Init, MPI_Init_thread,
 * MPI_Finalize): their time is start-up and shut-down, not where the program's
 * work goes, so the time summary lists them on a line of their own. */
static int startup_shutdown_op(unsigned op)
{
    return op == SCALANA_MPI_OP_Init || op == SCALANA_MPI_OP_Init_thread || op == SCALANA_MPI_OP_Finalize;
}

/* Seconds as the time summary's sentences print them: 3 significant digits,
 * whole seconds from 100 s (never an exponent there). */
static void short_seconds(char *buf, size_t n, double s)
{
    if (s >= 100) snprintf(buf, n, "%.0f", s);
    else snprintf(buf, n, "%.3g", s);
}

/* time_summary.startup_shutdown: the start-up and shut-down calls (rows of
 * seconds, op, contexts, summed over their call sites), their total and the
 * line "start-up and shut-down: MPI_Init 1.2 s, MPI_Finalize 0.01 s (mean per
 * process)"; text is "" when no such call was measured. */
static json_t *startup_shutdown_json(const double (*su)[3], uint32_t nsu, double wall)
{
    json_t *o = json_object(), *calls = json_array();
    char text[512] = "";
    int len = 0;
    double total = 0;
    for (uint32_t k = 0; k < nsu; k++) {
        json_t *e = json_object();
        json_object_set_new(e, "label", json_string(an_mpi_name((unsigned)su[k][1])));
        json_object_set_new(e, "seconds_mean", num(su[k][0]));
        json_object_set_new(e, "percent", num(wall > 0 ? fmin(100, su[k][0] / wall * 100) : 0));
        json_object_set_new(e, "calling_contexts", json_integer((json_int_t)su[k][2]));
        json_array_append_new(calls, e);
        total += su[k][0];
        char sec[32];
        short_seconds(sec, sizeof sec, su[k][0]);
        if (len >= 0 && (size_t)len < sizeof text)
            len += snprintf(text + len, sizeof text - len, "%s%s %s s", k ? ", " : "start-up and shut-down: ",
                            an_mpi_name((unsigned)su[k][1]), sec);
    }
    if (nsu && len >= 0 && (size_t)len < sizeof text)
        snprintf(text + len, sizeof text - len, " (mean per process)");
    json_object_set_new(o, "seconds_mean", num(total));
    json_object_set_new(o, "percent", num(wall > 0 ? fmin(100, total / wall * 100) : 0));
    json_object_set_new(o, "calls", calls);
    json_object_set_new(o, "text", json_string(text));
    return o;
}

/* The computation and the sites of the largest run for the time summary:
 * returns the mean computation seconds; top[*nt] the vertices with time
 * (seconds, vertex, contexts; one row per MPI call site, its contexts
 * summed), su[*nsu] start-up and shut-down (seconds, op, contexts; one row
 * per op, at most 3). */
static double time_summary_sites(const struct an_analysis *a, const uint32_t *index_of, double (*top)[3],
                                 uint32_t *nt_out, double (*su)[3], uint32_t *nsu_out)
{
    uint32_t S = a->nscales, N = a->g.n, nt = 0, nsu = 0;
    double comp = 0;
    for (uint32_t v = 0; v < N; v++) {
        const struct an_vmetrics *m = &a->vm[(size_t)(S - 1) * N + v];
        if (!m->present || index_of[v] == AN_NONE) continue;
        if (a->g.v[v].kind != PSG_MPI) comp += m->mean;
        if (m->mean <= 0) continue;
        const struct an_vertex *x = &a->g.v[v];
        /* the MPI library's own frames below MPI_Init (a library vertex named
         * after the entry point: CPU sampled inside it) are start-up too */
        unsigned lib_op = x->kind != PSG_MPI && ((x->flags & AN_V_LIBRARY) || !x->file || !*x->file) && x->name
                              ? scalana_mpi_op_from_name(x->name)
                              : 0;
        if ((x->kind == PSG_MPI && startup_shutdown_op(x->op)) || (lib_op && startup_shutdown_op(lib_op))) {
            unsigned op = x->kind == PSG_MPI ? x->op : lib_op;
            uint32_t j = 0;
            while (j < nsu && (unsigned)su[j][1] != op) j++;
            if (j == nsu) su[nsu][0] = 0, su[nsu][1] = op, su[nsu][2] = 0, nsu++;
            su[j][0] += m->mean, su[j][2] += 1;
            continue;
        }
        uint32_t j = nt;
        if (x->kind == PSG_MPI)
            for (j = 0; j < nt; j++) {
                const struct an_vertex *y = &a->g.v[(uint32_t)top[j][1]];
                if (y->kind == PSG_MPI && y->op == x->op && y->line == x->line && y->column == x->column &&
                    (y->file == x->file || (y->file && x->file && !strcmp(y->file, x->file))))
                    break;
            }
        if (j < nt) {
            top[j][0] += m->mean, top[j][2] += 1;
            continue;
        }
        top[nt][0] = m->mean, top[nt][1] = v, top[nt][2] = 1, nt++;
    }
    *nt_out = nt, *nsu_out = nsu;
    return comp;
}

/* time_summary.top_vertices: the first five of top[nt] (sorted), the first
 * three also appended to the sentence text[size] (*len its length so far). */
static json_t *time_summary_top(const struct an_analysis *a, const uint32_t *index_of, double (*top)[3],
                                uint32_t nt, double wall, char *text, size_t size, int *len)
{
    json_t *tv = json_array();
    for (uint32_t k = 0; k < nt && k < 5; k++) {
        uint32_t v = (uint32_t)top[k][1];
        const struct an_vertex *x = &a->g.v[v];
        json_t *e = json_object();
        json_object_set_new(e, "vertex", json_integer(index_of[v]));
        json_object_set_new(e, "label", json_string(x->kind == PSG_MPI ? an_mpi_name(x->op) : x->name));
        json_object_set_new(e, "file", json_string(x->file));
        json_object_set_new(e, "line", json_integer(x->line));
        json_object_set_new(e, "function", json_string(x->function));
        json_object_set_new(e, "seconds_mean", num(top[k][0]));
        json_object_set_new(e, "percent", num(wall > 0 ? fmin(100, top[k][0] / wall * 100) : 0));
        json_object_set_new(e, "calling_contexts", json_integer((json_int_t)top[k][2]));
        json_array_append_new(tv, e);
        if (k < 3 && *len > 0 && (size_t)*len < size)
        {
            char where[600];
            if (*x->file) snprintf(where, sizeof where, "%s:%u", x->file, x->line);
            else snprintf(where, sizeof where, "(library)");
            char ctx[48] = "", sec[32];
            if (top[k][2] > 1) snprintf(ctx, sizeof ctx, ", %.0f calling contexts", top[k][2]);
            short_seconds(sec, sizeof sec, top[k][0]);
            *len += snprintf(text + *len, size - *len, "%s%s %s (%s s, %.0f%%%s)", k ? ", " : "; most: ",
                             x->kind == PSG_MPI ? an_mpi_name(x->op) : (x->name && *x->name ? x->name : x->function),
                             where, sec, wall > 0 ? fmin(100, top[k][0] / wall * 100) : 0.0, ctx);
        }
    }
    return tv;
}

/* Where the time goes at the largest count: computation vs MPI (mean over
 * processes, share of the wall time) and the vertices with the most own time
 * (mean over processes), with a sentence built from these numbers only.  An
 * MPI call reached through several calling contexts counts once, summed over
 * them (HPCG's halo MPI_Send from 40 contexts), as growing communication
 * judges it.  MPI_Init, MPI_Init_thread and MPI_Finalize are left out of the
 * top vertices and summed per call into startup_shutdown, a line of its own. */
static json_t *time_summary_json(const struct an_analysis *a, const uint32_t *index_of)
{
    if (!a->nscales) return json_null();
    const struct an_scale *big = &a->scales[a->nscales - 1];
    const struct an_run *r = big->rep;
    uint32_t N = a->g.n;
    json_t *o = json_object();
    double wall = big->wall, mpi = r->mpi_mean;
    json_object_set_new(o, "processes", json_integer(big->P));
    json_object_set_new(o, "wall_seconds", num(wall));
    json_object_set_new(o, "mpi_seconds_mean", num(mpi));
    double mpi_pct = wall > 0 ? fmin(100, mpi / wall * 100) : 0;
    double (*top)[3] = malloc((N + 1) * sizeof *top);
    double su[3][3]; /* start-up and shut-down: seconds, op, contexts; one row per op */
    uint32_t nt = 0, nsu = 0;
    if (!top) abort();
    double comp = time_summary_sites(a, index_of, top, &nt, su, &nsu);
    double comp_pct = wall > 0 ? fmin(100, comp / wall * 100) : 0;
    json_object_set_new(o, "computation_seconds_mean", num(comp));
    json_object_set_new(o, "computation_percent", num(comp_pct));
    json_object_set_new(o, "mpi_percent", num(mpi_pct));
    qsort(top, nt, sizeof *top, by_seconds_desc);
    char text[1024];
    char wall_s[32];
    short_seconds(wall_s, sizeof wall_s, wall);
    int len = snprintf(text, sizeof text, "At %u processes (%s s): %.0f%% of the time in computation, %.0f%% in MPI",
                       big->P, wall_s, comp_pct, mpi_pct);
    json_t *tv = time_summary_top(a, index_of, top, nt, wall, text, sizeof text, &len);
    double omp_s, omp_share = an_omp_runtime_share(r, &omp_s);
    json_object_set_new(o, "omp_runtime_seconds_mean", num(omp_s));
    json_object_set_new(o, "omp_runtime_cpu_percent", num(100 * omp_share));
    if (omp_share >= 0.05 && len > 0 && (size_t)len < sizeof text)
        len += snprintf(text + len, sizeof text - len,
                        "; the threads spent %.0f%% of their CPU time waiting in the OpenMP runtime (%.3g s per "
                        "process)", 100 * omp_share, omp_s);
    double ompt_s, ompt_share = an_ompt_wait_share(r, &ompt_s);
    json_object_set_new(o, "ompt_wait_seconds_mean", num(ompt_s));
    json_object_set_new(o, "ompt_wait_percent", num(100 * ompt_share));
    if (r->omp_ranks && ompt_s > 0 && len > 0 && (size_t)len < sizeof text)
        len += snprintf(text + len, sizeof text - len,
                        "; OpenMP threads waited at barriers %.0f%% of their time (%.3g s per process, "
                        "measured by OMPT)", 100 * ompt_share, ompt_s);
    double rest = 100 - comp_pct - mpi_pct;
    if (rest >= 10 && len > 0 && (size_t)len < sizeof text)
        len += snprintf(text + len, sizeof text - len,
                        "; %.0f%% in neither (start-up, I/O, or waiting for a core: contention %.2gx)", rest,
                        fmax(1, r->contention));
    if (len > 0 && (size_t)len < sizeof text - 2) snprintf(text + len, sizeof text - len, ".");
    free(top);
    json_object_set_new(o, "top_vertices", tv);
    json_object_set_new(o, "text", json_string(text));
    /* in program order: MPI_Init (or MPI_Init_thread) before MPI_Finalize */
    for (uint32_t i = 1; i < nsu; i++)
        for (uint32_t k = i; k > 0 && su[k][1] < su[k - 1][1]; k--)
            for (int c = 0; c < 3; c++) {
                double t = su[k][c];
                su[k][c] = su[k - 1][c], su[k - 1][c] = t;
            }
    json_object_set_new(o, "startup_shutdown", startup_shutdown_json((const double (*)[3])su, nsu, wall));
    return o;
}

void *an_report_build(const struct an_analysis *a)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema_version", json_string("1.0"));
    json_t *tool = json_object();
    json_object_set_new(tool, "name", json_string("scalana"));
    json_object_set_new(tool, "version", json_string(SCALANA_VERSION_STRING));
    if (a->psg_recovered && a->psg_producer)
        json_object_set_new(tool, "structure_recovery", json_string(a->psg_producer));
    /* how it was made: analyzer processes (mpirun -n N scalana-analyze, docs/parallel-analysis.md) */
    json_object_set_new(tool, "analyzer_processes", json_integer(a->nprocs ? a->nprocs : 1));
    json_object_set_new(root, "tool", tool);
    an_report_set_peaks(root, a);
    json_t *prog = json_object();
    json_object_set_new(prog, "executable", json_string(a->exe ? a->exe : ""));
    json_object_set_new(prog, "build_id", json_string(a->build_id ? a->build_id : ""));
    if (a->exe_source) json_object_set_new(prog, "executable_source", json_string(a->exe_source));
    /* the program as it ran, for the headers; executable is the file read (the run's copy when used) */
    if (a->program_path && *a->program_path) json_object_set_new(prog, "path", json_string(a->program_path));
    json_object_set_new(prog, "has_psg", json_boolean(a->has_psg));
    /* where the structure came from: the compiler pass, or recovered from the
     * machine code (docs/binstruct.md) */
    json_object_set_new(prog, "psg_source", json_string(!a->has_psg ? "none" : a->psg_recovered ? "machine_code"
                                                                                                : "compiler"));
    if (a->psg_recovered) {
        json_object_set_new(prog, "psg_loops", json_integer(a->psg_loops));
        json_object_set_new(prog, "psg_from_cache", json_boolean(a->psg_from_cache));
    }
    if (a->psg_libraries) json_object_set_new(prog, "psg_libraries", json_integer(a->psg_libraries));
    json_object_set_new(root, "program", prog);
    json_object_set_new(root, "scaling", json_string(a->opt->weak ? "weak" : "strong"));
    json_t *sm = json_object();
    json_object_set_new(sm, "mode", json_string(a->opt->weak ? "weak" : "strong"));
    json_object_set_new(sm, "source", json_string(a->scaling.from_flag ? "flag" : a->scaling.counts < 2 || !isfinite(a->scaling.work_slope) ? "default" : "detected"));
    json_object_set_new(sm, "uncertain", json_boolean(a->scaling.uncertain));
    json_object_set_new(sm, "work_slope", isfinite(a->scaling.work_slope) ? json_real(a->scaling.work_slope) : json_null());
    json_object_set_new(sm, "work_measure", json_string(a->scaling.iterations ? "loop_iterations" : "cpu_seconds"));
    json_object_set_new(root, "scaling_mode", sm);
    json_t *th = json_object();
    const char *name;
    double val;
    for (size_t i = 0; an_threshold_at(&a->opt->th, i, &name, &val, NULL); i++)
        json_object_set_new(th, name, json_real(val));
    json_object_set_new(root, "thresholds", th);
    json_object_set_new(root, "runs", runs_json(a));
    uint32_t *index_of = malloc((a->g.n + 1) * sizeof *index_of);
    if (!index_of) abort();
    /* the robust outliers of every vertex, per process count (report.json "outliers") */
    uint32_t **outliers = sc_xcalloc(a->nscales + 1, sizeof *outliers);
    for (uint32_t s = 0; s < a->nscales; s++) {
        outliers[s] = sc_xcalloc((size_t)a->g.n * 17 + 1, sizeof **outliers);
        an_run_outliers(a->scales[s].rep, a->g.n, a->opt->th.outlier_z, outliers[s]);
    }
    json_t *verts = vertices_json(a, index_of, outliers);
    for (uint32_t s = 0; s < a->nscales; s++) free(outliers[s]);
    free(outliers);
    json_object_set_new(root, "root_causes", causes_json(a, index_of, a->causes, a->ncauses));
    json_object_set_new(root, "candidates", causes_json(a, index_of, a->candidates, a->ncandidates));
    json_object_set_new(root, "time_summary", time_summary_json(a, index_of));
    json_object_set_new(root, "vertices", verts);
    json_t *comm = communication_json(a, index_of);
    if (comm) json_object_set_new(root, "communication", comm);
    if (a->phases) {
        /* user phases, with the vertex where each began as a report index */
        json_t *ph = json_deep_copy((json_t *)a->phases);
        size_t k;
        json_t *o;
        json_array_foreach(ph, k, o) {
            json_t *v = json_object_get(o, "vertex");
            if (!v) continue;
            json_int_t id = json_integer_value(v);
            if (id >= 0 && (uint32_t)id < a->g.n && index_of[id] != AN_NONE)
                json_object_set_new(o, "vertex", json_integer(index_of[id]));
            else
                json_object_del(o, "vertex");
        }
        json_object_set_new(root, "phases", ph);
    }
    json_object_set_new(root, "data_quality", quality_json(a));
    free(index_of);
    return root;
}
