/* test_phases.c — cmocka unit tests of phases (analyzer/metrics/phases.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "metrics/metrics.h"
#include "metrics/phases.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Phases: "solve" scales, "setup" stays at 1 s per process and is imbalanced at 8. */
static void t_phases(void **state)
{
    (void)state;
    struct mini m;
    mini_init(&m, 0, 2);
    uint32_t Ps[2] = {2, 8};
    for (int k = 0; k < 2; k++) {
        uint32_t P = Ps[k];
        struct an_run *r = mini_run(&m, k, P, 10.0);
        r->phases = calloc(2, sizeof *r->phases);
        r->nphases = 2;
        const char *names[2] = {"solve", "setup"};
        for (int j = 0; j < 2; j++) {
            r->phases[j].name = an_intern(&m.a.g.strings, names[j]);
            r->phases[j].vertex = m.loop;
            r->phases[j].time = calloc(P, sizeof(float)), r->phases[j].count = calloc(P, sizeof(float));
            for (uint32_t i = 0; i < P; i++) {
                r->phases[j].time[i] = j == 0 ? 16.0f / P : (P == 8 && i == 3 ? 2.0f : 1.0f);
                r->phases[j].count[i] = 1;
            }
        }
    }
    mini_finish(&m);
    json_t *ph = an_phases_json(&m.a);
    assert_int_equal(json_array_size(ph), 2);
    json_t *solve = json_array_get(ph, 0), *setup = json_array_get(ph, 1);
    assert_string_equal(json_string_value(json_object_get(solve, "name")), "solve");
    assert_true(fabs(json_real_value(json_object_get(solve, "scaling_efficiency")) - 1.0) < 1e-6);
    double eff = json_real_value(json_object_get(setup, "scaling_efficiency"));
    assert_true(eff < 0.3); /* ideal 0.25 s against 1.125 s */
    json_t *last = json_array_get(json_object_get(setup, "metrics"), 1);
    assert_int_equal(json_integer_value(json_object_get(last, "max_process")), 3);
    int imb = 0, scal = 0;
    for (uint32_t i = 0; i < m.a.nwarnings; i++) {
        if (strstr(m.a.warnings[i], "'setup': imbalanced")) imb = 1;
        if (strstr(m.a.warnings[i], "'setup'") && strstr(m.a.warnings[i], "efficiency")) scal = 1;
        assert_null(strstr(m.a.warnings[i], "'solve'"));
    }
    assert_true(imb && scal);
    json_decref(ph);
    an_analysis_free(&m.a);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
