/* saving.c — predicted against measured: for each root cause of a
 * before/after comparison that is gone or changed, the saving its before
 * report predicted (its cost, less what is left of it after), the wall time
 * the change measurably saved at each process count both builds ran (with
 * a core per process, as the costs are: wall / contention; the repetitions'
 * spread as its noise), and the error of the prediction.
 * docs/analyzer.md, "Predicted against measured". */
#include "report/saving.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static double real(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Whether a compared cause is one a fix removed (gone) or turned into
 * another category (changed): the causes whose saving is checked. */
static int checked(const json_t *c)
{
    const char *s = json_string_value(json_object_get(c, "status"));
    return s && (!strcmp(s, "gone") || !strcmp(s, "changed"));
}

/* The comparison's entry of "scales" at P processes, or NULL. */
static const json_t *scale_at(const json_t *cmp, json_int_t P)
{
    size_t k;
    json_t *s;
    json_array_foreach(json_object_get(cmp, "scales"), k, s)
        if (json_integer_value(json_object_get(s, "processes")) == P) return s;
    return NULL;
}

/* The run time with a core per process of a report's run at P processes:
 * its base_seconds (the analyzer's base, an_run_base_seconds), in reports
 * older than that field wall / contention, the wall time where the
 * contention is unknown; NaN when there is no such run. */
static double base_at(const json_t *report, json_int_t P)
{
    size_t k;
    json_t *r;
    json_array_foreach(json_object_get(report, "runs"), k, r) {
        if (json_integer_value(json_object_get(r, "processes")) != P) continue;
        double base = real(r, "base_seconds");
        if (isfinite(base) && base > 0) return base;
        double wall = real(r, "wall_seconds"), c = real(r, "contention");
        return isfinite(c) && c >= 1 ? wall / c : wall;
    }
    return NAN;
}

/* The measured saving at P: base before - base after (seconds). */
static double saved_at(const json_t *before, const json_t *after, json_int_t P)
{
    return base_at(before, P) - base_at(after, P);
}

void an_compare_savings(void *comparison, const void *before_v, const void *after_v)
{
    json_t *cmp = comparison;
    const json_t *before = before_v, *after = after_v;
    json_int_t P = json_integer_value(json_object_get(cmp, "cost_processes_before"));
    const json_t *at = scale_at(cmp, P);
    const json_t *scales = json_object_get(cmp, "scales");
    if (!at && json_array_size(scales)) /* the before build's largest count is not common: the largest common */
        at = json_array_get(scales, json_array_size(scales) - 1);
    /* the measured saving is the program's: with several causes fixed at once it
     * is checked against the sum of their predictions */
    size_t k, n = 0;
    json_t *c;
    double predicted_all = 0;
    json_array_foreach(json_object_get(cmp, "causes"), k, c) if (checked(c)) {
        double s = real(c, "saved_seconds");
        predicted_all += isfinite(s) ? s : 0;
        n++;
    }
    json_int_t Pm = at ? json_integer_value(json_object_get(at, "processes")) : 0;
    double measured = at ? saved_at(before, after, Pm) : NAN, noise = at ? real(at, "spread_seconds") : NAN;
    double wall_saved = at ? real(at, "saved_seconds") : NAN;
    double error = isfinite(measured) && measured != 0 ? (predicted_all - measured) / fabs(measured) : NAN;
    json_array_foreach(json_object_get(cmp, "causes"), k, c) {
        if (!checked(c)) continue;
        json_object_set_new(c, "predicted_saving_seconds", num(real(c, "saved_seconds")));
        json_object_set_new(c, "predicted_saving_processes", json_integer(P));
        json_t *per = json_array();
        size_t j;
        json_t *s;
        json_array_foreach(scales, j, s) {
            json_int_t q = json_integer_value(json_object_get(s, "processes"));
            json_array_append_new(per, json_pack("{s:I, s:o, s:o, s:o}", "processes", q, "seconds",
                                                 num(saved_at(before, after, q)), "wall_seconds",
                                                 num(real(s, "saved_seconds")), "noise_seconds",
                                                 num(real(s, "spread_seconds"))));
        }
        json_object_set_new(c, "measured_saving", per);
        json_object_set_new(c, "measured_saving_seconds", num(measured));
        json_object_set_new(c, "measured_saving_noise_seconds", num(noise));
        json_object_set_new(c, "measured_wall_saving_seconds", num(wall_saved));
        json_object_set_new(c, "measured_saving_processes",
                            at ? json_integer(json_integer_value(json_object_get(at, "processes"))) : json_null());
        json_object_set_new(c, "prediction_error", num(error));
        if (n > 1) json_object_set_new(c, "prediction_combined", json_integer((json_int_t)n));
    }
    json_t *sum = json_object();
    json_object_set_new(sum, "causes", json_integer((json_int_t)n));
    json_object_set_new(sum, "predicted_saving_seconds", num(n ? predicted_all : NAN));
    json_object_set_new(sum, "measured_saving_seconds", num(measured));
    json_object_set_new(sum, "noise_seconds", num(noise));
    json_object_set_new(sum, "processes", at ? json_integer(json_integer_value(json_object_get(at, "processes"))) : json_null());
    json_object_set_new(sum, "prediction_error", num(n ? error : NAN));
    json_object_set_new(cmp, "saving_check", sum);
}
