/* predict.c — scalana-analyze --predict P: each root cause's cost at the
 * largest measured count, extended to P processes by a scaling model of the
 * cause's excess at its location (model.c's hypotheses and selection), with
 * a band from leaving each measured count out of the fit, and the cause that
 * dominates at P.  Works on report.json alone (vertices[].metrics), so it
 * sees what a user of the report sees.  docs/analyzer.md, "At the scale you
 * care about". */
#include "report/predict.h"
#include "core/types.h"
#include "models/model.h"
#include "report/report_json.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* What a category's cost is made of, per process count. */
enum basis { B_EXCESS, B_ABOVE_IDEAL, B_GROWTH };

static enum basis basis_of(const char *cat)
{
    if (!strcmp(cat, "non_scalable_computation")) return B_ABOVE_IDEAL;
    if (!strcmp(cat, "load_imbalance") || !strcmp(cat, "serial_bottleneck") || !strcmp(cat, "late_sender") ||
        !strcmp(cat, "late_receiver") || !strcmp(cat, "gpu_idle") || !strcmp(cat, "gpu_bound"))
        return B_EXCESS;
    return B_GROWTH; /* communication, waits, contention, pipeline */
}

static const char *basis_text(enum basis b)
{
    switch (b) {
    case B_EXCESS: return "the heavy processes' time above the light ones' (split at the largest gap)";
    case B_ABOVE_IDEAL: return "mean inclusive time above ideal scaling";
    default: return "the mean inclusive time's growth from the smallest count with two processes or more";
    }
}

static const json_t *vertex_of(const json_t *report, json_int_t id)
{
    const json_t *vs = json_object_get(report, "vertices");
    const json_t *v = id >= 0 ? json_array_get(vs, (size_t)id) : NULL;
    if (v && json_integer_value(json_object_get(v, "id")) == id) return v;
    size_t k;
    json_t *x;
    json_array_foreach(vs, k, x) if (json_integer_value(json_object_get(x, "id")) == id) return x;
    return NULL;
}

static int by_processes(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The heavy group's mean time above the light group's at one count: the
 * processes split at the largest gap of their sorted times
 * (per_process_seconds), which is the culprits' excess that the detectors'
 * heavy/light split costs (3 x the share on 1 of 4 processes: 2 shares, where
 * max - mean would give 1.5).  Without per-process times, max - min.  NaN
 * when neither is known. */
static double heavy_light_gap(const json_t *m)
{
    const json_t *pp = json_object_get(m, "per_process_seconds");
    size_t n = json_array_size(pp);
    if (n < 2) return an_jreal(m, "inclusive_max_seconds") - an_jreal(m, "time_min_seconds");
    double *x = malloc(n * sizeof *x);
    if (!x) abort();
    for (size_t i = 0; i < n; i++) x[i] = json_number_value(json_array_get(pp, i));
    qsort(x, n, sizeof *x, by_processes); /* compares the first double */
    size_t cut = 1;
    double gap = -1, total = 0;
    for (size_t i = 0; i < n; i++) total += x[i];
    for (size_t i = 1; i < n; i++)
        if (x[i] - x[i - 1] > gap) gap = x[i] - x[i - 1], cut = i;
    double low = 0;
    for (size_t i = 0; i < cut; i++) low += x[i];
    double r = (total - low) / (double)(n - cut) - low / (double)cut;
    free(x);
    return r;
}

/* What is fitted for a cause and how its excess follows from the model m:
 * B_EXCESS fits the heavy/light gap itself (excess = m(p)); the others fit
 * the mean inclusive time at every count (the quantity the analyzer's
 * vertex model describes) and take the excess above ideal scaling from the
 * smallest count (p0, t0), or the growth above the smallest count with two
 * processes or more (pb, tb). */
struct series {
    enum basis b;
    int weak;
    double p0, t0, pb, tb;
    double p[64], y[64];
    size_t n;
};

static double excess_at(const struct series *s, const struct scalana_model *m, double P)
{
    double y = scalana_model_eval(m, P);
    if (s->b == B_ABOVE_IDEAL)
        return y - (s->weak ? scalana_ideal_weak(s->t0, s->p0, P) : scalana_ideal_strong(s->t0, s->p0, P));
    if (s->b == B_GROWTH) return y - s->tb;
    return y;
}

/* The points to fit for a cause's vertex v (ascending p): the heavy/light
 * gap at each count with two processes or more (B_EXCESS, positive gaps
 * only), or the mean at each count (B_ABOVE_IDEAL) or at each count from pb
 * (B_GROWTH). */
static void series_of(const json_t *v, struct series *s)
{
    const json_t *ms = json_object_get(v, "metrics");
    size_t n = 0, k;
    json_t *m;
    double *pts = calloc(json_array_size(ms) * 3 + 3, sizeof *pts);
    if (!pts) abort();
    json_array_foreach(ms, k, m) {
        pts[3 * n] = (double)json_integer_value(json_object_get(m, "processes"));
        pts[3 * n + 1] = an_jreal(m, "inclusive_mean_seconds");
        pts[3 * n + 2] = heavy_light_gap(m);
        if (pts[3 * n] >= 1 && isfinite(pts[3 * n + 1])) n++;
    }
    qsort(pts, n, 3 * sizeof *pts, by_processes);
    s->p0 = n ? pts[0] : 0, s->t0 = n ? pts[1] : 0, s->pb = 0, s->tb = 0;
    for (size_t i = 0; i < n && !s->pb; i++)
        if (pts[3 * i] >= 2) s->pb = pts[3 * i], s->tb = pts[3 * i + 1];
    s->n = 0;
    for (size_t i = 0; i < n && s->n < 64; i++) {
        double pp = pts[3 * i], y = NAN;
        if (s->b == B_EXCESS && pp >= 2 && pts[3 * i + 2] > 0) y = pts[3 * i + 2];
        else if (s->b == B_ABOVE_IDEAL) y = pts[3 * i + 1];
        else if (s->b == B_GROWTH && s->pb && pp >= s->pb) y = pts[3 * i + 1];
        if (isfinite(y)) s->p[s->n] = pp, s->y[s->n] = y, s->n++;
    }
    free(pts);
}

/* A power law c * p^s through two points of a heavy/light gap (both > 0,
 * p distinct), as *m; 0 when it does not apply.  With two counts, the
 * two-coefficient hypotheses (c0 + c1 * f(p)) fit both exactly, and the
 * constant takes up the noise of the larger count: a gap 5 % low at 4
 * processes (1.143 s for 1.2) moved its prediction at 8 3x as much, 9 % low
 * (0.546 s for 0.6), and a noisier one 25 % (e2e_predict in CI: 0.444 s for
 * 0.594 s).  The power law moves it by about the noise itself.  An
 * imbalance's excess is a share of the work per process, which strong
 * scaling divides by p and weak scaling keeps: no offset to fit.  The
 * exponent is kept to two decimals (its precision, with two points). */
static int power_through(const double *p, const double *y, struct scalana_model *m)
{
    if (!(y[0] > 0) || !(y[1] > 0) || !(p[0] > 0) || !(p[1] > 0) || p[0] == p[1]) return 0;
    double sl = round(100.0 * log(y[1] / y[0]) / log(p[1] / p[0])) / 100.0;
    if (!isfinite(sl)) return 0;
    memset(m, 0, sizeof *m);
    m->i = sl;
    m->c1 = sl == 0 ? 0 : y[1] / pow(p[1], sl);
    m->c0 = sl == 0 ? 0.5 * (y[0] + y[1]) : 0;
    m->quality = SCALANA_MODEL_INSUFFICIENT_POINTS;
    m->loglog_slope = sl, m->has_slope = 1;
    for (int k = 0; k < 2; k++) {
        double e = scalana_model_eval(m, p[k]);
        m->smape += 100.0 * fabs(e - y[k]) / (0.5 * (fabs(e) + fabs(y[k]))) / 2.0;
    }
    return 1;
}

/* cost * excess(P) / excess(Pc) with the model fitted to the series'
 * points without point skip (n: none skipped), or with *given when not
 * NULL (the vertex's own model); the model used into *used.  NaN when the
 * fit fails or the excess at Pc is not positive. */
static double scaled(const struct series *s, size_t skip, const struct scalana_model *given, double cost,
                     double Pc, double P, struct scalana_model *used)
{
    struct scalana_model md;
    if (given) {
        md = *given;
    } else {
        double pp[64], yy[64];
        size_t m = 0;
        for (size_t i = 0; i < s->n; i++)
            if (i != skip) pp[m] = s->p[i], yy[m] = s->y[i], m++;
        if (!m) return NAN;
        if (!(s->b == B_EXCESS && m == 2 && power_through(pp, yy, &md)) && scalana_model_fit(pp, yy, m, &md) != 0)
            return NAN;
    }
    if (used) *used = md;
    double at = excess_at(s, &md, Pc), to = excess_at(s, &md, P);
    if (!(at > 0) || !isfinite(to)) return NAN;
    return cost * fmax(0, to) / at;
}

/* The vertex's inclusive-mean model from report.json (vertices[].model), or
 * 0 when it has none. */
static int vertex_model(const json_t *v, struct scalana_model *m)
{
    const json_t *o = json_object_get(v, "model");
    if (!json_is_object(o) || strcmp(an_jstr(o, "metric"), "inclusive_mean_seconds") != 0) return 0;
    memset(m, 0, sizeof *m);
    m->c0 = an_jreal(o, "c0"), m->c1 = an_jreal(o, "c1"), m->i = an_jreal(o, "i");
    m->j = (int)json_integer_value(json_object_get(o, "j"));
    m->smape = an_jreal(o, "smape");
    const char *q = an_jstr(o, "quality");
    m->quality = !strcmp(q, "cross-validated") ? SCALANA_MODEL_CROSS_VALIDATED
                 : !strcmp(q, "single point") ? SCALANA_MODEL_SINGLE_POINT : SCALANA_MODEL_INSUFFICIENT_POINTS;
    return isfinite(m->c0) && isfinite(m->c1) && isfinite(m->i);
}

/* The prediction of one root cause at P. */
static json_t *predict_cause(const json_t *report, const json_t *c, double Pc, double P, int weak,
                             const struct an_thresholds *th)
{
    json_t *o = json_object();
    const char *cat = an_jstr(c, "category");
    enum basis b = basis_of(cat);
    double cost = an_jreal(c, "cost_seconds"), noise = an_jreal(c, "cost_noise_seconds");
    if (!isfinite(noise)) noise = 0;
    json_object_set_new(o, "rank", json_integer(json_integer_value(json_object_get(c, "rank"))));
    json_object_set_new(o, "category", json_string(cat));
    an_jcopy_location(o, c);
    json_object_set_new(o, "cost_seconds", num(cost));
    json_object_set_new(o, "cost_processes", json_integer((json_int_t)Pc));
    json_object_set_new(o, "basis", json_string(basis_text(b)));
    struct series ser;
    memset(&ser, 0, sizeof ser);
    ser.b = b, ser.weak = weak;
    const json_t *v = vertex_of(report, json_integer_value(json_object_get(c, "vertex")));
    if (v) series_of(v, &ser);
    size_t n = ser.n;
    json_t *pts = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(pts, json_pack("[f, f]", ser.p[i], ser.y[i]));
    json_object_set_new(o, "fitted_points", pts);
    struct scalana_model md, vm;
    /* the vertex's own model where the mean is what is fitted: the analyzer's */
    int own = b != B_EXCESS && v && vertex_model(v, &vm);
    double pred = n ? scaled(&ser, n, own ? &vm : NULL, cost, Pc, P, &md) : NAN;
    if (!isfinite(pred) && own && n) pred = scaled(&ser, n, NULL, cost, Pc, P, &md), own = 0;
    if (!isfinite(pred) || !isfinite(cost)) {
        json_object_set_new(o, "predicted_cost_seconds", json_null());
        json_object_set_new(o, "reason", json_string(n ? "the model of its excess is not positive at the measured "
                                                         "count" : "no excess measured at its location"));
        return o;
    }
    double lo = pred, hi = pred;
    size_t need = b == B_EXCESS ? 1 : 2; /* points that determine a trend of the excess */
    if (n <= need) { /* no trend known: from 1/p to p */
        lo = cost * fmin(Pc / P, P / Pc), hi = cost * fmax(Pc / P, P / Pc);
    } else {
        double x = scaled(&ser, n, NULL, cost, Pc, P, NULL);
        if (isfinite(x)) lo = fmin(lo, x), hi = fmax(hi, x);
        for (size_t k = 0; k < n; k++) {
            x = scaled(&ser, k, NULL, cost, Pc, P, NULL);
            if (isfinite(x)) lo = fmin(lo, x), hi = fmax(hi, x);
        }
    }
    double ratio = cost > 0 ? pred / cost : 1, wid = th->noise_sigmas * noise * ratio;
    lo = fmax(0, lo - wid), hi += wid;
    /* the band holds the prediction it is around (the vertex's own model can
     * predict outside the spread of the fits of the excess) */
    lo = fmin(lo, pred), hi = fmax(hi, pred);
    char formula[128];
    scalana_model_formula(&md, formula, sizeof formula);
    json_object_set_new(o, "predicted_cost_seconds", num(pred));
    json_object_set_new(o, "band_low_seconds", num(lo));
    json_object_set_new(o, "band_high_seconds", num(hi));
    json_object_set_new(o, "model", json_string(formula));
    json_object_set_new(o, "model_quality", json_string(scalana_model_quality_name(md.quality)));
    json_object_set_new(o, "model_source", json_string(own ? "the vertex's model (report.json vertices[].model)"
                                                           : "fitted to fitted_points"));
    return o;
}

void an_predict(void *report_v, double P, const struct an_thresholds *th)
{
    json_t *report = report_v;
    int weak = !strcmp(an_jstr(report, "scaling"), "weak");
    /* the measured counts, and the run time with a core per process at each */
    double rp[64], rt[64], Pc = 0;
    size_t nr = 0, k;
    json_t *r, *counts = json_array();
    json_array_foreach(json_object_get(report, "runs"), k, r) {
        double pp = (double)json_integer_value(json_object_get(r, "processes"));
        double wall = an_jreal(r, "wall_seconds"), cont = an_jreal(r, "contention");
        json_array_append_new(counts, json_integer((json_int_t)pp));
        if (pp > Pc) Pc = pp;
        if (nr < 64 && pp >= 1 && wall > 0) rp[nr] = pp, rt[nr] = cont >= 1 ? wall / cont : wall, nr++;
    }
    json_t *o = json_object();
    json_object_set_new(o, "processes", json_integer((json_int_t)P));
    json_object_set_new(o, "measured_processes", counts);
    json_object_set_new(o, "cost_processes", json_integer((json_int_t)Pc));
    struct scalana_model rm;
    if (nr && scalana_model_fit(rp, rt, nr, &rm) == 0) {
        char formula[128];
        scalana_model_formula(&rm, formula, sizeof formula);
        /* a model of the run time that falls to 0 at P says nothing there */
        double run = scalana_model_eval(&rm, P);
        json_object_set_new(o, "run_seconds", run > 0 ? num(run) : json_null());
        json_object_set_new(o, "run_model", json_string(formula));
    }
    json_t *arr = json_array();
    json_int_t dominant = 0;
    double best = -1;
    const json_t *c;
    json_array_foreach(json_object_get(report, "root_causes"), k, c) {
        json_t *pc = predict_cause(report, c, Pc, P, weak, th);
        double x = an_jreal(pc, "predicted_cost_seconds");
        /* a cause predicted to vanish at P dominates nothing */
        if (isfinite(x) && x > 0 && x > best) best = x, dominant = json_integer_value(json_object_get(c, "rank"));
        json_array_append_new(arr, pc);
    }
    json_object_set_new(o, "causes", arr);
    json_object_set_new(o, "dominant_rank", dominant ? json_integer(dominant) : json_null());
    json_object_set_new(o, "dominant_changes", json_boolean(dominant > 1));
    json_object_set_new(o, "band",
                        json_string("the predictions with each measured count left out of the fit in turn, "
                                    "widened by noise_sigmas times the cost's noise"));
    json_object_set_new(report, "prediction", o);
}
