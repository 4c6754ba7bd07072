/* test_gate.c — the CI gate (analyzer/report/gate.c) on comparisons of constructed
 * reports whose call trees differ: a loop added above the cause (its lines
 * move by 40, its function has one loop more), a function renamed, a new
 * cause, a new cause that was a candidate under the thresholds before, a
 * cost grown within and beyond its noise band, and the JUnit and Markdown
 * files written from the verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/options.h"
#include "core/types.h"
#include "report/compare.h"
#include "report/gate.h"

static json_t *vtx(int id, const char *kind, const char *fn, int line)
{
    return json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:[{s:i, s:f, s:f}]}", "id", id, "kind", kind, "function",
                     fn, "file", "/src/app.c", "line", line, "last_line", line + 2, "column", 5, "metrics",
                     "processes", 4, "inclusive_mean_seconds", 1.0, "inclusive_max_seconds", 2.0);
}

static json_t *cause(const char *cat, const char *fn, int line, int vertex, double cost, double noise)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:f, s:s, s:[i]}", "category", cat, "function", fn, "file",
                     "/src/app.c", "line", line, "last_line", line + 2, "vertex", vertex, "cost_seconds", cost,
                     "cost_noise_seconds", noise, "location", "loop in main", "processes", 1);
}

static json_t *report(const char *bid, json_t *verts, json_t *causes)
{
    return json_pack("{s:{s:s, s:s}, s:[{s:i, s:f, s:[s]}], s:o, s:o, s:[]}", "program", "build_id", bid,
                     "executable", "/bin/app", "runs", "processes", 4, "wall_seconds", 2.0, "directories", "r4",
                     "vertices", verts, "root_causes", causes, "candidates");
}

static struct an_thresholds thresholds(void)
{
    struct an_options o;
    an_options_defaults(&o);
    return o.th; /* noise_sigmas 2.5, min_cost_percent 5, min_cost_seconds 0.01 */
}

/* The gate's entry for the cause in function fn (after build's name). */
static const json_t *entry(const json_t *gate, const char *fn)
{
    size_t k;
    json_t *g;
    json_array_foreach(json_object_get(gate, "causes"), k, g)
        if (!strcmp(json_string_value(json_object_get(g, "function")), fn)) return g;
    return NULL;
}

static const char *verdict(const json_t *gate, const char *fn)
{
    const json_t *g = entry(gate, fn);
    return g ? json_string_value(json_object_get(g, "verdict")) : "(missing)";
}

/* Before: f's loop at 100 (one loop), g's loop at 50.  After: a 40-line loop
 * added above f's (f has two loops, the cause's at 140), g renamed g2 with
 * its loop at the same lines.  Equal costs pass; g2's cost up by 0.3 s with
 * a noise of 0.01 s fails as regressed, up by 0.02 s passes (the band is 5 %
 * of 1 s, 0.05 s). */
static void t_trees_differ(void **state)
{
    (void)state;
    struct an_thresholds th = thresholds();
    for (int grow = 0; grow < 3; grow++) {
        double dg = grow == 0 ? 0 : grow == 1 ? 0.02 : 0.3;
        json_t *vb = json_pack("[o, o]", vtx(0, "LOOP", "f", 100), vtx(1, "LOOP", "g", 50));
        json_t *va = json_pack("[o, o, o]", vtx(0, "LOOP", "f", 100), vtx(1, "LOOP", "f", 140), vtx(2, "LOOP", "g2", 50));
        json_t *before = report("aaaa", vb, json_pack("[o, o]", cause("load_imbalance", "f", 100, 0, 0.5, 0.01),
                                                      cause("load_imbalance", "g", 50, 1, 1.0, 0.01)));
        json_t *after = report("bbbb", va, json_pack("[o, o]", cause("load_imbalance", "f", 140, 1, 0.5, 0.01),
                                                     cause("load_imbalance", "g2", 50, 2, 1.0 + dg, 0.01)));
        json_t *cmp = an_compare_reports(before, after);
        json_t *gate = an_gate_judge(cmp, &th);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(cmp, "counts"), "remains")), 2);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(cmp, "counts"), "new")), 0);
        assert_string_equal(verdict(gate, "f"), "unchanged");
        assert_string_equal(json_string_value(json_object_get(entry(gate, "g2"), "renamed_from")), "g");
        assert_string_equal(verdict(gate, "g2"), grow == 2 ? "regressed" : "unchanged");
        assert_int_equal(an_gate_failed(gate), grow == 2);
        assert_true(fabs(json_number_value(json_object_get(entry(gate, "g2"), "band_seconds")) - 0.05) < 1e-9);
        json_decref(gate), json_decref(cmp), json_decref(before), json_decref(after);
    }
}

/* A new cause fails; a new one that was a candidate before at nearly its
 * cost is unchanged; a gone one is fixed; the noise band grows with the
 * costs' noise (2.5 sigma of both). */
static void t_new_and_gone(void **state)
{
    (void)state;
    struct an_thresholds th = thresholds();
    json_t *vb = json_pack("[o, o, o]", vtx(0, "LOOP", "f", 10), vtx(1, "LOOP", "h", 30), vtx(2, "LOOP", "k", 70));
    json_t *va = json_pack("[o, o, o]", vtx(0, "LOOP", "f", 10), vtx(1, "LOOP", "h", 30), vtx(2, "LOOP", "k", 70));
    json_t *before = report("aaaa", vb, json_pack("[o, o]", cause("serial_bottleneck", "f", 10, 0, 0.8, 0.01),
                                                  cause("load_imbalance", "k", 70, 2, 0.2, 0.1)));
    json_object_set_new(before, "candidates", json_pack("[o]", cause("load_imbalance", "h", 30, 1, 0.04, 0.01)));
    json_t *after = report("bbbb", va, json_pack("[o, o]", cause("load_imbalance", "h", 30, 1, 0.05, 0.01),
                                                 cause("load_imbalance", "k", 70, 2, 0.6, 0.1)));
    json_t *cmp = an_compare_reports(before, after);
    json_t *gate = an_gate_judge(cmp, &th);
    assert_string_equal(verdict(gate, "f"), "fixed");
    assert_string_equal(verdict(gate, "h"), "unchanged"); /* 0.04 -> 0.05 s: within 0.01 s */
    /* k: 0.2 -> 0.6 s, noise 0.1 s each: band 2.5 x 0.141 = 0.354 s; grew 0.4 s */
    assert_true(fabs(json_number_value(json_object_get(entry(gate, "k"), "band_seconds")) - 2.5 * sqrt(0.02)) < 1e-9);
    assert_string_equal(verdict(gate, "k"), "regressed");
    assert_true(an_gate_failed(gate));
    json_decref(gate), json_decref(cmp), json_decref(after);
    /* now h is new without a candidate before */
    json_object_set_new(before, "candidates", json_array());
    va = json_pack("[o, o, o]", vtx(0, "LOOP", "f", 10), vtx(1, "LOOP", "h", 30), vtx(2, "LOOP", "k", 70));
    after = report("bbbb", va, json_pack("[o]", cause("load_imbalance", "h", 30, 1, 0.05, 0.01)));
    cmp = an_compare_reports(before, after);
    gate = an_gate_judge(cmp, &th);
    assert_string_equal(verdict(gate, "h"), "new");
    assert_string_equal(verdict(gate, "k"), "fixed");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(gate, "counts"), "new")), 1);
    assert_true(an_gate_failed(gate));

    /* the files: the failure names file:line and both costs; the Markdown says FAIL */
    char junit[] = "/tmp/scalana-gate-XXXXXX", md[] = "/tmp/scalana-gate-md-XXXXXX";
    int fd1 = mkstemp(junit), fd2 = mkstemp(md);
    assert_true(fd1 >= 0 && fd2 >= 0);
    close(fd1), close(fd2);
    assert_int_equal(an_gate_write_junit(gate, junit), 0);
    assert_int_equal(an_gate_write_markdown(gate, cmp, md), 0);
    char buf[8192];
    FILE *f = fopen(junit, "r");
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    assert_non_null(strstr(buf, "<testsuites name=\"scalana-gate\" tests=\"3\" failures=\"1\""));
    assert_non_null(strstr(buf, "<failure type=\"new\" message=\"/src/app.c:30: load_imbalance: new root cause: "
                                "cost before 0 s, after 0.05 s"));
    assert_non_null(strstr(buf, "name=\"serial_bottleneck at app.c:10-12 in f\""));
    f = fopen(md, "r");
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    assert_non_null(strstr(buf, "## ScalAna gate: FAIL"));
    assert_non_null(strstr(buf, "| **new** | load_imbalance | `app.c:30-32` in h | 0 | 0.05 |"));
    unlink(junit), unlink(md);
    assert_int_equal(an_gate_write_junit(gate, "/nonexistent-dir/x.xml"), -1);
    json_decref(gate), json_decref(cmp), json_decref(before), json_decref(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_trees_differ), cmocka_unit_test(t_new_and_gone)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
