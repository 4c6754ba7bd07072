/* phases.c — user phases (scalana_phase_begin/end, MPI_Pcontrol levels): per
 * phase and process count the time inside (mean, max over processes, max/mean),
 * a scaling model of the mean, the scaling efficiency at the largest count,
 * and a warning for a phase that is imbalanced or does not scale. */
#include "metrics/phases.h"
#include "core/types.h"
#include "core/warn.h"
#include "metrics/metrics.h"
#include "models/model.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double x) { return json_real(isfinite(x) ? x : 0.0); }

/* Mean and max over the present processes of phase `name` in run r; 0 if absent. */
static int phase_stats(const struct an_run *r, const char *name, double *mean, double *max, uint32_t *argmax,
                       uint32_t *vertex)
{
    for (uint32_t k = 0; k < r->nphases; k++) {
        const struct an_phase_run *q = &r->phases[k];
        if (strcmp(q->name, name) != 0) continue;
        double sum = 0, mx = 0;
        uint32_t n = 0, arg = 0;
        for (uint32_t i = 0; i < r->P; i++) {
            if (!r->present[i]) continue;
            double t = isfinite(q->time[i]) ? q->time[i] : 0;
            sum += t, n++;
            if (t > mx) mx = t, arg = i;
        }
        if (!n) return 0;
        *mean = sum / n, *max = mx, *argmax = arg, *vertex = q->vertex;
        return 1;
    }
    return 0;
}

void *an_phases_json(struct an_analysis *a)
{
    json_t *arr = json_array();
    if (!a->nscales) return arr;
    const struct an_thresholds *th = &a->opt->th;
    double min_cost = an_min_cost(a);
    /* every phase name of any representative run, once */
    for (uint32_t s = 0; s < a->nscales; s++) {
        const struct an_run *rs = a->scales[s].rep;
        for (uint32_t k = 0; k < rs->nphases; k++) {
            const char *name = rs->phases[k].name;
            int seen = 0;
            for (uint32_t s2 = 0; s2 < s && !seen; s2++) {
                double m, x;
                uint32_t g, v;
                seen = phase_stats(a->scales[s2].rep, name, &m, &x, &g, &v);
            }
            for (uint32_t k2 = 0; k2 < k && !seen; k2++) seen = strcmp(rs->phases[k2].name, name) == 0;
            if (seen) continue;
            json_t *o = json_object(), *per = json_array();
            json_object_set_new(o, "name", json_string(name));
            double p[256], t[256], first_mean = 0, last_mean = 0, last_max = 0;
            uint32_t n = 0, first_p = 0, last_p = 0, last_arg = 0, vertex = AN_NONE;
            for (uint32_t s2 = 0; s2 < a->nscales && n < 256; s2++) {
                double mean, max;
                uint32_t arg, v;
                if (!phase_stats(a->scales[s2].rep, name, &mean, &max, &arg, &v)) continue;
                if (vertex == AN_NONE) vertex = v;
                json_t *m = json_object();
                json_object_set_new(m, "processes", json_integer(a->scales[s2].P));
                json_object_set_new(m, "time_mean_seconds", num(mean));
                json_object_set_new(m, "time_max_seconds", num(max));
                json_object_set_new(m, "imbalance", num(mean > 0 ? max / mean : 1));
                json_object_set_new(m, "max_process", json_integer(arg));
                json_array_append_new(per, m);
                if (!n) first_mean = mean, first_p = a->scales[s2].P;
                last_mean = mean, last_max = max, last_p = a->scales[s2].P, last_arg = arg;
                p[n] = a->scales[s2].P, t[n] = mean, n++;
            }
            if (vertex != AN_NONE && vertex < a->g.n) json_object_set_new(o, "vertex", json_integer(vertex));
            json_object_set_new(o, "metrics", per);
            struct scalana_model sm;
            if (n >= 2 && scalana_model_fit(p, t, n, &sm) == 0) {
                char f[96];
                scalana_model_formula(&sm, f, sizeof f);
                json_object_set_new(o, "model", json_string(f));
            }
            /* scaling efficiency at the largest count against the smallest */
            double ideal = n >= 2 ? (a->opt->weak ? first_mean : first_mean * first_p / (last_p ? last_p : 1)) : last_mean;
            double eff = last_mean > 0 && n >= 2 ? ideal / last_mean : 1;
            json_object_set_new(o, "scaling_efficiency", num(eff));
            if (n >= 2 && eff > 0 && 1 / eff >= th->scaling_ratio && last_mean - ideal >= min_cost)
                an_warn(a, "phase '%s': %.3g s per process at %u processes against an ideal %.3g s (%s scaling "
                           "from %u): efficiency %.0f%%", name, last_mean, last_p, ideal,
                        a->opt->weak ? "weak" : "strong", first_p, 100 * eff);
            if (last_mean > 0 && last_max / last_mean >= th->imbalance && last_max - last_mean >= min_cost)
                an_warn(a, "phase '%s': imbalanced at %u processes, max/mean %.2f (process %u: %.3g s, mean %.3g s)",
                        name, last_p, last_max / last_mean, last_arg, last_max, last_mean);
            json_array_append_new(arr, o);
        }
    }
    return arr;
}
