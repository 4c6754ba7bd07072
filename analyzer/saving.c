/* saving.c — predicted against measured: for each root cause of a
 * before/after comparison that is gone or changed, the saving its before
 * report predicted (its cost, less what is left of it after), the wall time
 * the change measurably saved at each process count both builds ran (with
 * the repetitions' spread as its noise), and the error of the prediction.
 * docs/analyzer.md, "Predicted against measured". */
#include "analyzer.h"

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

void an_compare_savings(void *comparison)
{
    json_t *cmp = comparison;
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
    double measured = at ? real(at, "saved_seconds") : NAN, noise = at ? real(at, "spread_seconds") : NAN;
    double error = isfinite(measured) && measured != 0 ? (predicted_all - measured) / fabs(measured) : NAN;
    json_array_foreach(json_object_get(cmp, "causes"), k, c) {
        if (!checked(c)) continue;
        json_object_set_new(c, "predicted_saving_seconds", num(real(c, "saved_seconds")));
        json_object_set_new(c, "predicted_saving_processes", json_integer(P));
        json_t *per = json_array();
        size_t j;
        json_t *s;
        json_array_foreach(scales, j, s)
            json_array_append_new(per, json_pack("{s:I, s:o, s:o}", "processes",
                                                 json_integer_value(json_object_get(s, "processes")), "seconds",
                                                 num(real(s, "saved_seconds")), "noise_seconds",
                                                 num(real(s, "spread_seconds"))));
        json_object_set_new(c, "measured_saving", per);
        json_object_set_new(c, "measured_saving_seconds", num(measured));
        json_object_set_new(c, "measured_saving_noise_seconds", num(noise));
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
