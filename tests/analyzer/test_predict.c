/* test_predict.c — scalana-analyze --predict (analyzer/report/predict.c) on a
 * constructed report: a load imbalance measured at 2 and 4 processes (its
 * heavy/light gap 2.4 s and 1.143 s, the latter 5 % under the 1.2 s that
 * strong scaling gives: a sampled measurement's noise) is predicted at 8
 * within 6 % of the 0.6 s its 1/p excess has there.  The two-coefficient
 * fit through both gaps (-0.103 + 4.99/p) gave 0.546 s, 9 % low, from this
 * 5 % error, and 25 % low in CI from a noisier one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "core/types.h"
#include "report/predict.h"

/* One count's metrics: per-process seconds, light ones at `light`, the last at light + gap. */
static json_t *metrics_at(int p, double light, double gap)
{
    json_t *pp = json_array();
    double sum = 0;
    for (int k = 0; k < p; k++) {
        double x = light + (k == p - 1 ? gap : 0);
        sum += x;
        json_array_append_new(pp, json_real(x));
    }
    return json_pack("{s:i, s:f, s:f, s:f, s:o}", "processes", p, "inclusive_mean_seconds", sum / p,
                     "inclusive_max_seconds", light + gap, "time_min_seconds", light, "per_process_seconds", pp);
}

static void t_two_gaps_noisy(void **state)
{
    (void)state;
    json_t *ms = json_array();
    json_array_append_new(ms, json_pack("{s:i, s:f}", "processes", 1, "inclusive_mean_seconds", 2.4));
    json_array_append_new(ms, metrics_at(2, 1.2, 2.4));
    json_array_append_new(ms, metrics_at(4, 0.6, 1.143));
    json_t *v = json_pack("{s:i, s:s, s:s, s:o}", "id", 0, "kind", "loop", "function", "relax", "metrics", ms);
    json_t *c = json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:f}", "rank", 1, "category", "load_imbalance",
                          "function", "relax", "file", "/src/a.c", "line", 20, "last_line", 20, "vertex", 0,
                          "cost_seconds", 1.2, "cost_noise_seconds", 0.0);
    json_t *runs = json_pack("[{s:i, s:f, s:f}, {s:i, s:f, s:f}, {s:i, s:f, s:f}]", "processes", 1, "wall_seconds",
                             2.4, "contention", 1.0, "processes", 2, "wall_seconds", 3.6, "contention", 1.0,
                             "processes", 4, "wall_seconds", 1.8, "contention", 1.0);
    json_t *rep = json_pack("{s:s, s:o, s:[o], s:[o]}", "scaling", "strong", "runs", runs, "vertices", v,
                            "root_causes", c);
    struct an_thresholds th;
    memset(&th, 0, sizeof th);
    th.noise_sigmas = 2.5;
    an_predict(rep, 8, &th);
    json_t *pc = json_array_get(json_object_get(json_object_get(rep, "prediction"), "causes"), 0);
    assert_non_null(pc);
    double pred = json_number_value(json_object_get(pc, "predicted_cost_seconds"));
    assert_true(fabs(pred - 0.6) / 0.6 < 0.06);
    /* the band spans from the prediction to the cost at 4 (one gap alone: no trend) */
    assert_true(json_number_value(json_object_get(pc, "band_low_seconds")) <= pred);
    assert_true(json_number_value(json_object_get(pc, "band_high_seconds")) >= 1.2 - 1e-9);
    assert_string_equal(json_string_value(json_object_get(pc, "model")), "5.04 * p^(-1.07)");
    json_decref(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_two_gaps_noisy)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
