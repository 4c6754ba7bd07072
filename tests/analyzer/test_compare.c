/* test_compare.c — the before/after matching of analyzer/report/compare.c on
 * constructed reports: a loop moved by a few lines remains, one moved far but
 * still the only loop of its function remains, a location with another
 * category is "changed", an unmatched before cause is "gone" (with its
 * location's times after), an unmatched after cause is "new", two loops of
 * one function moved far are not confused, and the wall time per count is
 * compared where both builds ran; a gone cause's predicted saving against the
 * measured one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <stdio.h>

#include "report/compare.h"

/* A vertex: id, kind, function, line; metrics at 2 and 4 processes (max = 2 x mean). */
static json_t *vtx(int id, const char *kind, const char *fn, int line, double t2, double t4)
{
    return json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:[{s:i, s:f, s:f}, {s:i, s:f, s:f}]}", "id", id, "kind",
                     kind, "function", fn, "file", "/src/app.c", "line", line, "last_line", line + 2, "column", 5,
                     "metrics", "processes", 2, "inclusive_mean_seconds", t2, "inclusive_max_seconds", 2 * t2,
                     "processes", 4, "inclusive_mean_seconds", t4, "inclusive_max_seconds", 2 * t4);
}

static json_t *cause(const char *cat, const char *fn, int line, int vertex, double cost)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:s, s:[i]}", "category", cat, "function", fn, "file",
                     "/src/app.c", "line", line, "last_line", line + 2, "vertex", vertex, "cost_seconds", cost,
                     "location", "somewhere", "processes", 1);
}

static json_t *report(const char *bid, json_t *verts, json_t *causes, double wall2, double wall4, int with8)
{
    json_t *runs = json_pack("[{s:i, s:f, s:[s]}, {s:i, s:f, s:[s]}]", "processes", 2, "wall_seconds", wall2,
                             "directories", "r2", "processes", 4, "wall_seconds", wall4, "directories", "r4");
    if (with8) json_array_append_new(runs, json_pack("{s:i, s:f, s:[s]}", "processes", 8, "wall_seconds", 1.0, "directories", "r8"));
    return json_pack("{s:{s:s, s:s}, s:o, s:o, s:o}", "program", "build_id", bid, "executable", "/bin/app", "runs",
                     runs, "vertices", verts, "root_causes", causes);
}

static const json_t *find(const json_t *cmp, const char *status, const char *fn)
{
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(cmp, "causes"), k, c) {
        const json_t *side = json_is_object(json_object_get(c, "before")) ? json_object_get(c, "before")
                                                                         : json_object_get(c, "after");
        if (!strcmp(json_string_value(json_object_get(c, "status")), status) &&
            !strcmp(json_string_value(json_object_get(side, "function")), fn))
            return c;
    }
    return NULL;
}

static double num(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }

static void t_matching(void **state)
{
    (void)state;
    /* before: f's loop at 20 (shifted 5 after), g's only loop at 100 (at 150 after), h's loop
     * serial_bottleneck (load_imbalance after), m's loop (gone; still there after, faster),
     * p's two loops at 10 and 200 (the second the cause; after at 40 and 300, three loops) */
    json_t *vb = json_array(), *va = json_array();
    json_array_append_new(vb, vtx(0, "LOOP", "f", 20, 1.0, 0.5));
    json_array_append_new(vb, vtx(1, "LOOP", "g", 100, 1.0, 0.5));
    json_array_append_new(vb, vtx(2, "LOOP", "h", 10, 1.0, 0.5));
    json_array_append_new(vb, vtx(3, "LOOP", "m", 50, 0.8, 0.6));
    json_array_append_new(vb, vtx(4, "LOOP", "p", 10, 0.1, 0.1));
    json_array_append_new(vb, vtx(5, "LOOP", "p", 200, 0.9, 0.5));
    json_array_append_new(va, vtx(0, "LOOP", "f", 25, 1.0, 0.5));
    json_array_append_new(va, vtx(1, "LOOP", "g", 150, 1.0, 0.5));
    json_array_append_new(va, vtx(2, "LOOP", "h", 12, 1.0, 0.5));
    json_array_append_new(va, vtx(3, "LOOP", "m", 52, 0.3, 0.2));
    json_array_append_new(va, vtx(4, "LOOP", "p", 40, 0.1, 0.1));
    json_array_append_new(va, vtx(5, "LOOP", "p", 300, 0.9, 0.5));
    json_array_append_new(va, vtx(6, "LOOP", "p", 400, 0.1, 0.1));
    json_array_append_new(va, vtx(7, "CALL", "k", 70, 0.4, 0.4));
    json_t *cb = json_array(), *ca = json_array();
    json_array_append_new(cb, cause("load_imbalance", "f", 20, 0, 0.5));
    json_array_append_new(cb, cause("load_imbalance", "g", 100, 1, 0.4));
    json_array_append_new(cb, cause("serial_bottleneck", "h", 10, 2, 0.3));
    json_array_append_new(cb, cause("load_imbalance", "m", 50, 3, 0.25));
    json_array_append_new(cb, cause("load_imbalance", "p", 200, 5, 0.2));
    json_array_append_new(ca, cause("load_imbalance", "f", 25, 0, 0.1));
    json_array_append_new(ca, cause("load_imbalance", "g", 150, 1, 0.3));
    json_array_append_new(ca, cause("load_imbalance", "h", 12, 2, 0.3));
    json_array_append_new(ca, cause("late_sender", "k", 70, 7, 0.2));
    json_array_append_new(ca, cause("load_imbalance", "p", 300, 5, 0.2));
    json_t *before = report("aaaa", vb, cb, 3.0, 2.0, 1), *after = report("bbbb", va, ca, 2.0, 1.5, 0);
    /* m's cause, gone from the root causes, is a candidate under the thresholds after */
    json_object_set_new(after, "candidates", json_pack("[o]", cause("load_imbalance", "m", 52, 3, 0.05)));
    json_t *cmp = an_compare_reports(before, after);

    const json_t *c = find(cmp, "remains", "f");
    assert_non_null(c); /* 5 lines down: the same loop */
    assert_true(fabs(num(c, "saved_seconds") - 0.4) < 1e-9);
    c = find(cmp, "remains", "g");
    assert_non_null(c); /* 50 lines down, but g's only loop in both builds */
    assert_non_null(find(cmp, "changed", "h"));
    assert_string_equal(json_string_value(json_object_get(find(cmp, "changed", "h"), "category")), "load_imbalance");
    c = find(cmp, "gone", "m");
    assert_non_null(c);
    assert_true(fabs(num(c, "cost_after_seconds") - 0.05) < 1e-9); /* what is left, under the thresholds */
    assert_true(fabs(num(c, "saved_seconds") - 0.20) < 1e-9);
    assert_non_null(json_object_get(c, "after_below_thresholds"));
    assert_true(json_is_true(json_object_get(c, "location_found_after")));
    const json_t *pp = json_object_get(c, "per_process_count");
    assert_int_equal(json_array_size(pp), 2); /* 2 and 4: 8 only before */
    assert_true(fabs(num(json_array_get(pp, 0), "before_max_seconds") - 1.6) < 1e-9);
    assert_true(fabs(num(json_array_get(pp, 0), "after_max_seconds") - 0.6) < 1e-9);
    assert_true(fabs(num(json_array_get(pp, 0), "saved_max_seconds") - 1.0) < 1e-9);
    c = find(cmp, "new", "k");
    assert_non_null(c);
    assert_true(fabs(num(c, "saved_seconds") + 0.2) < 1e-9);
    /* p's loop moved 100 lines and p gained a loop: not the same place, so gone + new */
    assert_non_null(find(cmp, "gone", "p"));
    assert_non_null(find(cmp, "new", "p"));
    const json_t *n = json_object_get(cmp, "counts");
    assert_int_equal(json_integer_value(json_object_get(n, "gone")), 2);
    assert_int_equal(json_integer_value(json_object_get(n, "remains")), 2);
    assert_int_equal(json_integer_value(json_object_get(n, "changed")), 1);
    assert_int_equal(json_integer_value(json_object_get(n, "new")), 2);
    const json_t *sc = json_object_get(cmp, "scales");
    assert_int_equal(json_array_size(sc), 2);
    assert_true(fabs(num(json_array_get(sc, 0), "saved_seconds") - 1.0) < 1e-9);
    assert_true(fabs(num(json_array_get(sc, 1), "saved_percent") - 25.0) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(json_object_get(cmp, "before"), "build_id")), "aaaa");
    json_decref(cmp), json_decref(before), json_decref(after);
}

/* Predicted against measured (saving.c): one gone cause, its saving
 * predicted at 4 processes against the wall seconds saved there; then two
 * gone causes share the one measured saving (their predictions summed); a
 * before build whose largest count (8) the after build did not run is
 * checked at the largest common count. */
static void t_savings(void **state)
{
    (void)state;
    for (int two = 0; two < 2; two++) {
        json_t *vb = json_pack("[o, o]", vtx(0, "LOOP", "f", 20, 1.0, 0.5), vtx(1, "LOOP", "g", 60, 1.0, 0.5));
        json_t *va = json_pack("[o, o]", vtx(0, "LOOP", "f", 20, 0.6, 0.3), vtx(1, "LOOP", "g", 60, 1.0, 0.5));
        json_t *cb = json_pack("[o]", cause("load_imbalance", "f", 20, 0, 0.4));
        if (two) json_array_append_new(cb, cause("serial_bottleneck", "g", 60, 1, 0.2));
        json_t *before = report("aaaa", vb, cb, 3.0, 2.0, two), *after = report("bbbb", va, json_array(), 2.7, 1.5, 0);
        json_object_set_new(json_array_get(json_object_get(before, "runs"), 1), "wall_seconds_spread", json_real(0.05));
        json_t *cmp = an_compare_reports(before, after);
        const json_t *c = find(cmp, "gone", "f");
        assert_non_null(c);
        assert_true(fabs(num(c, "predicted_saving_seconds") - 0.4) < 1e-9);
        assert_int_equal(json_integer_value(json_object_get(c, "predicted_saving_processes")), two ? 8 : 4);
        assert_int_equal(json_integer_value(json_object_get(c, "measured_saving_processes")), 4);
        assert_true(fabs(num(c, "measured_saving_seconds") - 0.5) < 1e-9); /* 2.0 -> 1.5 s at 4 */
        assert_true(fabs(num(c, "measured_saving_noise_seconds") - 0.05) < 1e-9);
        /* one cause: (0.4 - 0.5) / 0.5; two: (0.4 + 0.2 - 0.5) / 0.5 */
        assert_true(fabs(num(c, "prediction_error") - (two ? 0.2 : -0.2)) < 1e-9);
        assert_int_equal(json_array_size(json_object_get(c, "measured_saving")), 2);
        assert_true(fabs(num(json_array_get(json_object_get(c, "measured_saving"), 0), "seconds") - 0.3) < 1e-9);
        assert_int_equal(json_integer_value(json_object_get(c, "prediction_combined")), two ? 2 : 0);
        const json_t *sum = json_object_get(cmp, "saving_check");
        assert_true(fabs(num(sum, "predicted_saving_seconds") - (two ? 0.6 : 0.4)) < 1e-9);
        json_decref(cmp), json_decref(before), json_decref(after);
    }
    /* the measured saving is with a core per process, as the costs are: the before
     * build's 4-process run took 2 s of wall time at contention 2, so 1 s with a core
     * each, and the after build's 1.5 s is 0.5 s slower (its wall time 0.5 s faster) */
    json_t *vb = json_pack("[o]", vtx(0, "LOOP", "f", 20, 1.0, 0.5));
    json_t *before = report("aaaa", vb, json_pack("[o]", cause("load_imbalance", "f", 20, 0, 0.4)), 3.0, 2.0, 0);
    json_t *after = report("bbbb", json_pack("[o]", vtx(0, "LOOP", "f", 20, 0.6, 0.3)), json_array(), 2.7, 1.5, 0);
    json_object_set_new(json_array_get(json_object_get(before, "runs"), 1), "contention", json_real(2.0));
    json_t *cmp = an_compare_reports(before, after);
    const json_t *c = find(cmp, "gone", "f");
    assert_true(fabs(num(c, "measured_saving_seconds") + 0.5) < 1e-9);
    assert_true(fabs(num(c, "measured_wall_saving_seconds") - 0.5) < 1e-9);
    assert_true(fabs(num(c, "prediction_error") - 1.8) < 1e-9); /* (0.4 + 0.5) / 0.5 */
    json_decref(cmp), json_decref(before), json_decref(after);
}

/* Empty reports (no cause, no common count) compare without error. */
static void t_empty(void **state)
{
    (void)state;
    json_t *b = json_pack("{s:{s:s}, s:[], s:[], s:[]}", "program", "build_id", "a", "runs", "vertices", "root_causes");
    json_t *a = json_pack("{s:{s:s}, s:[], s:[], s:[]}", "program", "build_id", "b", "runs", "vertices", "root_causes");
    json_t *cmp = an_compare_reports(b, a);
    assert_int_equal(json_array_size(json_object_get(cmp, "causes")), 0);
    assert_int_equal(json_array_size(json_object_get(cmp, "scales")), 0);
    json_decref(cmp), json_decref(b), json_decref(a);
}

/* 20 000 loops in 10 functions, 200 causes, every line moved by 100: the
 * matching stays near n log n (it once was cubic: minutes), and each cause is
 * found again by its place in its function. */
static void t_large(void **state)
{
    (void)state;
    enum { NV = 20000, NF = 10, NC = 200 };
    json_t *vb = json_array(), *va = json_array(), *cb = json_array(), *ca = json_array();
    char fn[16];
    for (int i = 0; i < NV; i++) {
        snprintf(fn, sizeof fn, "f%d", i % NF);
        json_array_append_new(vb, vtx(i, "LOOP", fn, 10 + 3 * (i / NF), 0.01, 0.01));
        json_array_append_new(va, vtx(i, "LOOP", fn, 110 + 3 * (i / NF), 0.01, 0.01));
    }
    for (int k = 0; k < NC; k++) {
        int i = k * (NV / NC);
        snprintf(fn, sizeof fn, "f%d", i % NF);
        json_array_append_new(cb, cause("load_imbalance", fn, 10 + 3 * (i / NF), i, 0.5));
        if (k % 2) json_array_append_new(ca, cause("load_imbalance", fn, 110 + 3 * (i / NF), i, 0.1));
    }
    json_t *before = report("aaaa", vb, cb, 3.0, 2.0, 0), *after = report("bbbb", va, ca, 2.0, 1.5, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    json_t *cmp = an_compare_reports(before, after);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    print_message("compared %d vertices, %d causes in %.2f s\n", NV, NC, dt);
    assert_true(dt < 20); /* a loaded 2-core machine: generous; cubic would be hours */
    const json_t *n = json_object_get(cmp, "counts");
    assert_int_equal(json_integer_value(json_object_get(n, "remains")), NC / 2);
    assert_int_equal(json_integer_value(json_object_get(n, "gone")), NC / 2);
    assert_int_equal(json_integer_value(json_object_get(n, "new")), 0);
    json_decref(cmp), json_decref(before), json_decref(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_matching), cmocka_unit_test(t_savings), cmocka_unit_test(t_empty), cmocka_unit_test(t_large)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
