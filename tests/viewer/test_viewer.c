/* test_viewer.c — cmocka tests of libscalana_viewer on hand-written report.json
 * fixtures: every DOT parses back with libcgraph, the HTML is escaped, the
 * size bound holds, extrap.jsonl is valid JSON Lines, errors are one line.
 * Usage: test_viewer FIXTURE_DIR BIG_REPORT OUT_DIR (OUT_DIR is kept for the
 * dot-program, HTML and browser tests). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <graphviz/cgraph.h>
#include "viewer.h"
#include "vw_internal.h"
#include "vw_html.h"

/* the bit of an export of scalana/outputs.def */
#define OUT(name) SCALANA_OUT_BIT(SCALANA_OUT_##name)

static const char *fixtures, *big_report, *out_root;

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, fp) != (size_t)n) { free(b); b = NULL; }
    if (b) b[n] = '\0';
    fclose(fp);
    if (len) *len = (size_t)n;
    return b;
}

static json_t *load_fixture(const char *name)
{
    char path[4096];
    int n = name[0] == '/' ? snprintf(path, sizeof path, "%s", name)
                           : snprintf(path, sizeof path, "%s/%s", fixtures, name);
    if (n < 0 || (size_t)n >= sizeof path) fail_msg("path too long");
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r) fail_msg("%s: %s", path, je.text);
    return r;
}

static void outdir(char *buf, size_t len, const char *name)
{
    mkdir(out_root, 0755);
    if ((size_t)snprintf(buf, len, "%s/%s", out_root, name) >= len) fail_msg("path too long");
    mkdir(buf, 0755);
}

static int render(const char *fixture, const char *name, size_t max_vertices, char *dir, size_t dirlen)
{
    json_t *r = load_fixture(fixture);
    outdir(dir, dirlen, name);
    char to[4096];
    if ((size_t)snprintf(to, sizeof to, "%s/src", fixtures) >= sizeof to) fail_msg("path too long");
    const char *from_v[] = {"/build/proj/src"}, *to_v[] = {to};
    struct scalana_viewer_options o = {from_v, to_v, 1, max_vertices, OUT(DOT) | OUT(SVG) | OUT(HTML) | OUT(EXTRAP)};
    char err[256] = "";
    int rc = scalana_viewer_write(r, dir, &o, err, sizeof err);
    if (rc != 0) print_error("scalana_viewer_write: %s\n", err);
    json_decref(r);
    return rc;
}

static char *summary_json_color(json_t *r, int color)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    scalana_viewer_print_summary(fp, r, color);
    fclose(fp);
    json_decref(r);
    return buf;
}
static char *summary_of_json(json_t *r) { return summary_json_color(r, 0); }
static char *summary_of(const char *fixture, int color) { return summary_json_color(load_fixture(fixture), color); }

static Agraph_t *read_dot(const char *dir, const char *name)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) fail_msg("path too long");
    FILE *fp = fopen(path, "r");
    if (!fp) fail_msg("cannot open %s", path);
    Agraph_t *g = agread(fp, NULL);
    fclose(fp);
    if (!g) fail_msg("libcgraph cannot parse %s", path);
    return g;
}

static int file_exists(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) fail_msg("path too long");
    return stat(path, &st) == 0 && st.st_size > 0;
}

static char *read_out(const char *dir, const char *name)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) fail_msg("path too long");
    char *s = slurp(path, NULL);
    if (!s) fail_msg("cannot read %s", path);
    return s;
}

static int count_nodes_with_prefix(Agraph_t *g, const char *prefix)
{
    int n = 0;
    for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
        if (strncmp(agnameof(v), prefix, strlen(prefix)) == 0) n++;
    return n;
}

/* Every line of extrap.jsonl is one JSON object with params.p, callpath, metric, value. */
static size_t check_extrap(const char *dir, const char *want_callpath, size_t *want_hits)
{
    char *s = read_out(dir, "extrap.jsonl");
    size_t lines = 0;
    *want_hits = 0;
    json_t *seen = json_object();   /* Extra-P needs a call path's parent before it */
    char *save = NULL;
    for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        assert_non_null(o);
        const char *cp = json_string_value(json_object_get(o, "callpath"));
        assert_non_null(cp);
        const char *last = NULL;
        for (const char *q = strstr(cp, "->"); q; q = strstr(q + 2, "->")) last = q;
        if (last) {
            char *parent = strndup(cp, (size_t)(last - cp));
            if (!json_object_get(seen, parent)) fail_msg("extrap.jsonl: %s comes before its parent", cp);
            free(parent);
        }
        json_object_set_new(seen, cp, json_true());
        assert_true(json_is_integer(json_object_get(json_object_get(o, "params"), "p")));
        assert_true(json_is_string(json_object_get(o, "callpath")));
        assert_true(json_is_string(json_object_get(o, "metric")));
        assert_true(json_is_number(json_object_get(o, "value")));
        if (want_callpath && !strcmp(json_string_value(json_object_get(o, "callpath")), want_callpath) &&
            !strcmp(json_string_value(json_object_get(o, "metric")), "time"))
            (*want_hits)++;
        json_decref(o);
        lines++;
    }
    json_decref(seen);
    free(s);
    return lines;
}

static void test_planted(void **state)
{
    (void)state;
    char dir[4096];
    assert_int_equal(render("planted.json", "planted", 0, dir, sizeof dir), 0);
    static const char *files[] = {"psg.dot", "psg.svg", "rootcause-1.dot", "rootcause-1.svg", "rootcause-2.dot",
                                  "rootcause-3.dot", "rootcause-3.svg", "index.html", "extrap.jsonl"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) assert_true(file_exists(dir, files[i]));

    Agraph_t *g = read_dot(dir, "psg.dot");
    assert_int_equal(agnnodes(g), 17);
    assert_int_equal(agnedges(g), 16);
    Agnode_t *root = agnode(g, "v11", 0);
    assert_non_null(root);
    assert_non_null(strstr(agget(root, "label"), "\"planted\" extra work"));
    assert_string_equal(agget(root, "penwidth"), "3");
    assert_non_null(strstr(agget(agnode(g, "v1", 0), "label"), "init_grid<double>"));
    agclose(g);

    g = read_dot(dir, "rootcause-1.dot");
    assert_int_equal(agnnodes(g), 7);
    assert_int_equal(agnsubg(g), 2);                   /* clusters for ranks 1 and 0 */
    assert_non_null(agsubg(g, "cluster_rank0", 0));
    Agnode_t *r0 = agnode(g, "r0_v11", 0), *sym = agnode(g, "r1_v9", 0), *send = agnode(g, "r0_v8", 0);
    assert_non_null(r0);
    assert_non_null(sym);
    assert_string_equal(agget(r0, "fillcolor"), "#b2182b");
    Agedge_t *comm = agedge(g, send, sym, NULL, 0);     /* causal direction: send -> waiting receiver */
    assert_non_null(comm);
    assert_string_equal(agget(comm, "label"), "communication");
    agclose(g);
    for (int k = 2; k <= 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "rootcause-%d.dot", k);
        g = read_dot(dir, name);
        assert_int_equal(agnnodes(g), 1);
        agclose(g);
    }

    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    assert_non_null(strstr(html, "Content-Security-Policy"));
    assert_null(strstr(html, "<script>alert(1)"));
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_null(strstr(html, "<b>not bold</b>"));
    assert_non_null(strstr(html, "init_grid&lt;double&gt;"));
    assert_non_null(strstr(html, "12 samples dropped &lt;0.1%&gt; &amp; ignored"));
    /* the source snippet came through the --source-path remapping, escaped, highlighted */
    assert_non_null(strstr(html, "fixtures/src/solver.c, lines 45–46"));
    assert_non_null(strstr(html, "<span class=\"l hl\" data-line=\"45\">"));
    assert_non_null(strstr(html, "%g &lt;done&gt; &amp; \\&quot;ok\\&quot;"));
    assert_non_null(strstr(html, "id=\"cause-1-path\""));
    assert_non_null(strstr(html, "id=\"plot-v11\""));
    assert_non_null(strstr(html, "id=\"bars-v11\""));
    assert_non_null(strstr(html, "id=\"heat-bytes\""));
    assert_non_null(strstr(html, "id=\"vrow-16\""));
    assert_null(strstr(html, "http://www.w3.org/1999/xlink\" href=\"http"));
    assert_null(strstr(html, "src=\"http"));
    free(html);

    size_t hits;
    size_t lines = check_extrap(dir, "main->for (step < 100)->MPI_Allreduce", &hits);
    assert_true(lines > 17 * 3);
    assert_int_equal(hits, 3);                          /* one per process count */
}

static void test_single_run(void **state)
{
    (void)state;
    char dir[4096];
    assert_int_equal(render("single_run.json", "single_run", 0, dir, sizeof dir), 0);
    Agraph_t *g = read_dot(dir, "psg.dot");
    assert_int_equal(agnnodes(g), 4);
    /* user backslashes stay literal: "\N" must not become the node name */
    assert_non_null(strstr(agget(agnode(g, "v1", 0), "label"), "MAIN__ \\\\N \\\\G {record|label}"));
    agclose(g);
    char *svg = read_out(dir, "psg.svg");
    assert_non_null(strstr(svg, "MAIN__ \\N \\G {record|label}"));
    assert_non_null(strstr(svg, "solve_&quot;block&quot; &lt;T&amp;&gt;"));
    free(svg);
    g = read_dot(dir, "rootcause-1.dot");
    assert_int_equal(agnnodes(g), 1);
    assert_non_null(agsubg(g, "cluster_rank3", 0));
    agclose(g);
    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "source file not found: /nonexistent/src/kernel\\path.F90"));
    assert_non_null(strstr(html, "app &lt;beta&gt; &amp; co"));
    assert_null(strstr(html, "</li><li>injected"));
    assert_non_null(strstr(html, "&lt;/li&gt;&lt;li&gt;injected"));
    assert_non_null(strstr(html, "Missing ranks: rank 2 of the 4-process run (1 rank)"));
    assert_non_null(strstr(html, "Scaling plots need runs at two or more process counts"));
    assert_non_null(strstr(html, "id=\"bars-v2\""));
    assert_non_null(strstr(html, "No point-to-point communication"));
    free(html);
    size_t hits;
    assert_int_equal(check_extrap(dir, NULL, &hits), 4 * 7);   /* 4 call paths x 1 count x 7 metrics (docs/viewer.md) */
}

static void test_empty(void **state)
{
    (void)state;
    char dir[4096];
    assert_int_equal(render("empty.json", "empty", 0, dir, sizeof dir), 0);
    Agraph_t *g = read_dot(dir, "psg.dot");
    assert_int_equal(agnnodes(g), 0);
    agclose(g);
    assert_false(file_exists(dir, "rootcause-1.dot"));
    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "No root cause above the thresholds"));
    free(html);
    size_t hits;
    assert_int_equal(check_extrap(dir, NULL, &hits), 0);
}

static void test_big_bounded(void **state)
{
    (void)state;
    char dir[4096];
    assert_int_equal(render(big_report, "big", 0, dir, sizeof dir), 0);
    Agraph_t *g = read_dot(dir, "psg.dot");
    int kept = count_nodes_with_prefix(g, "v"), folded = count_nodes_with_prefix(g, "folded_");
    print_message("big: %d vertices laid out, %d folded nodes\n", kept, folded);
    assert_true(kept >= SCALANA_VIEWER_DEFAULT_MAX_GRAPH_VERTICES * 3 / 4);
    assert_true(kept <= SCALANA_VIEWER_DEFAULT_MAX_GRAPH_VERTICES * 5 / 4);
    assert_true(folded > 0 && folded <= kept + 1);
    assert_non_null(strstr(agget(g, "label"), "of 5000 vertices"));
    assert_non_null(agnode(g, "v4321", 0));             /* the root causes are always kept */
    assert_non_null(agnode(g, "v2500", 0));
    assert_non_null(agnode(g, "v4999", 0));
    agclose(g);
    for (int k = 1; k <= 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "rootcause-%d.dot", k);
        g = read_dot(dir, name);
        assert_true(agnnodes(g) >= 2);
        agclose(g);
    }
    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "Showing "));
    assert_non_null(strstr(html, "id=\"vrow-4999\""));
    assert_non_null(strstr(html, "Each cell sums a block of ranks"));
    free(html);

    /* a small bound: still the causes, a note, and far fewer nodes */
    char dir2[4096];
    assert_int_equal(render(big_report, "big-small-bound", 60, dir2, sizeof dir2), 0);
    g = read_dot(dir2, "psg.dot");
    kept = count_nodes_with_prefix(g, "v");
    assert_true(kept < 200);
    assert_non_null(agnode(g, "v4321", 0));
    agclose(g);
}

/* A report that breaks every rule of the schema (wrong types, parent cycles,
 * indices out of range, ragged matrices) renders without crashing. */
static void test_malformed(void **state)
{
    (void)state;
    char dir[4096];
    assert_int_equal(render("malformed.json", "malformed", 0, dir, sizeof dir), 0);
    Agraph_t *g = read_dot(dir, "psg.dot");
    assert_int_equal(count_nodes_with_prefix(g, "v"), 5);
    agclose(g);
    g = read_dot(dir, "rootcause-1.dot");
    agclose(g);
    assert_true(file_exists(dir, "index.html"));
    char *s = summary_of_json(load_fixture("malformed.json"));
    assert_non_null(strstr(s, "real warning"));
    free(s);
}

static void test_errors(void **state)
{
    (void)state;
    json_t *r = load_fixture("planted.json");
    char err[128] = "";
    struct scalana_viewer_options o = {NULL, NULL, 0, 0, OUT(DOT) | OUT(SVG) | OUT(HTML) | OUT(EXTRAP)};
    assert_int_equal(scalana_viewer_write(r, "/nonexistent/dir/for/viewer", &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/dir/for/viewer"));
    assert_null(strchr(err, '\n'));
    json_t *notobj = json_array();
    assert_int_equal(scalana_viewer_write(notobj, out_root, &o, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
    assert_int_equal(scalana_viewer_write(r, out_root, &o, NULL, 0), 0);   /* NULL err is allowed */
    json_decref(notobj);
    /* opt NULL: DOT files only */
    char dir[4096];
    outdir(dir, sizeof dir, "dot-only");
    assert_int_equal(scalana_viewer_write(r, dir, NULL, err, sizeof err), 0);
    assert_true(file_exists(dir, "psg.dot"));
    assert_false(file_exists(dir, "index.html"));
    assert_false(file_exists(dir, "psg.svg"));
    /* HTML without SVG files: the graphs are still rendered into the page */
    outdir(dir, sizeof dir, "html-no-svg");
    struct scalana_viewer_options h = {NULL, NULL, 0, 0, OUT(DOT) | OUT(HTML)};
    assert_int_equal(scalana_viewer_write(r, dir, &h, err, sizeof err), 0);
    assert_false(file_exists(dir, "psg.svg"));
    assert_false(file_exists(dir, "extrap.jsonl"));
    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "<div class=\"viewport\" id=\"psgview\"><svg"));
    assert_non_null(strstr(html, "<div class=\"pathsvg\" id=\"cause-1-path\"><svg"));
    free(html);
    json_decref(r);
}


static void test_summary(void **state)
{
    (void)state;
    char *s = summary_of("planted.json", 0);
    assert_non_null(strstr(s, "#1"));
    assert_non_null(strstr(s, "late sender"));
    assert_non_null(strstr(s, "/build/proj/src/solver.c:45"));
    assert_non_null(strstr(s, "1.9 s (42.2%)"));
    assert_non_null(strstr(s, "rank 0 spends 2.0 s"));
    assert_non_null(strstr(s, "55.6%"));
    assert_non_null(strstr(s, "warning: 8 ranks on 2 cores"));
    assert_non_null(strstr(s, "what to do: Send earlier")); /* the late_sender remedy (categories.def) */
    assert_null(strchr(s, '\033'));
    free(s);
    s = summary_of("planted.json", 1);
    assert_non_null(strchr(s, '\033'));
    free(s);
    s = summary_of("empty.json", 0);
    assert_non_null(strstr(s, "No root cause above the thresholds"));
    free(s);
    s = summary_of("single_run.json", 0);
    assert_non_null(strstr(s, "missing ranks: 2 of the 4-process run (1 rank)")); /* the rank, not a count */
    free(s);
}

/* A report without root causes whose causes lie under the minimum cost: the
 * summary and the page list the top three candidates (category, location,
 * processes, cost), name the threshold they are under and how to lower it. */
static void test_candidates_shown(void **state)
{
    (void)state;
    json_t *r = load_fixture("planted.json");
    json_t *rcs = json_object_get(r, "root_causes");
    json_t *cands = json_array();
    for (size_t i = 0; i < json_array_size(rcs); i++) {
        json_t *c = json_deep_copy(json_array_get(rcs, i));
        json_object_set_new(c, "cost_percent", json_real(4.8 - (double)i));
        json_array_append_new(cands, c);
    }
    json_array_append_new(cands, json_deep_copy(json_array_get(cands, 0)));  /* a fourth: counted, not shown */
    json_object_set_new(r, "candidates", cands);
    json_object_set_new(r, "root_causes", json_array());
    json_object_set_new(json_object_get(r, "thresholds"), "min_cost_percent", json_real(5));
    char *s = summary_of_json(json_deep_copy(r));
    assert_non_null(strstr(s, "No root cause above the thresholds"));
    assert_non_null(strstr(s, "4 candidates under the thresholds (not root causes):\n  under min_cost_percent = 5 %"));
    assert_non_null(strstr(s, "lower it with scalana-analyze -t min_cost_percent=4\n"));
    assert_non_null(strstr(s, "late sender"));
    assert_non_null(strstr(s, "/build/proj/src/solver.c:45"));
    assert_non_null(strstr(s, "(4.8%)"));
    assert_non_null(strstr(s, "(2.8%)"));
    assert_non_null(strstr(s, "process 0\n"));
    assert_non_null(strstr(s, "processes 0-7\n"));
    assert_non_null(strstr(s, "... and 1 more (see report.json candidates)"));
    assert_null(strstr(s, "rank 0 spends")); /* the evidence is in report.json, not in a candidate's line */
    free(s);
    char dir[4096];
    outdir(dir, sizeof dir, "candidates");
    struct scalana_viewer_options o = {NULL, NULL, 0, 400, OUT(DOT) | OUT(SVG) | OUT(HTML) | OUT(EXTRAP)};
    char err[256] = "";
    assert_int_equal(scalana_viewer_write(r, dir, &o, err, sizeof err), 0);
    json_decref(r);
    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "Candidates under the thresholds"));
    assert_non_null(strstr(html, "4 candidates, not root causes: under min_cost_percent = 5 %"));
    assert_non_null(strstr(html, "<li class=\"candidate\"><span class=\"cat\">late sender"));
    assert_non_null(strstr(html, "1 more in report.json (candidates)"));
    free(html);
}

/* Thresholds and suggested values are printed short and rounded (issue 24):
 * the candidate's share of its base (cost_percent_of_base, what
 * min_cost_percent is compared with) rounded down to one significant digit,
 * seconds to two, the threshold as the page writes numbers, never
 * 0.0061728 nor 1.11e+03 nor 0.051400000000000001. */
static void test_candidate_rounding(void **state)
{
    (void)state;
    json_t *r = load_fixture("planted.json");
    json_t *c = json_deep_copy(json_array_get(json_object_get(r, "root_causes"), 0));
    json_object_set_new(c, "cost_percent", json_real(0.02));
    json_object_set_new(c, "cost_percent_of_base", json_real(0.0123456));
    json_object_set_new(r, "candidates", json_pack("[o]", c));
    json_object_set_new(r, "root_causes", json_array());
    json_t *th = json_object_get(r, "thresholds");
    json_object_set_new(th, "min_cost_percent", json_real(5));
    json_object_set_new(th, "min_cost_seconds", json_real(0.051400000000000001));
    char *s = summary_of_json(json_deep_copy(r));
    assert_non_null(strstr(s, "under min_cost_percent = 5 %: lower it with scalana-analyze -t min_cost_percent=0.01\n"));
    free(s);
    /* above the percentage: the seconds bind */
    json_object_set_new(c, "cost_percent_of_base", json_real(7.5));
    json_object_set_new(c, "cost_seconds", json_real(0.0512));
    s = summary_of_json(json_deep_copy(r));
    assert_non_null(strstr(s, "under min_cost_seconds = 0.0514 s: lower it with scalana-analyze -t min_cost_seconds=0.046\n"));
    free(s);
    /* above both minimums but within its sampling noise: more samples decide it */
    json_object_set_new(th, "noise_sigmas", json_real(2.5));
    json_object_set_new(c, "cost_noise_seconds", json_real(0.025));
    s = summary_of_json(json_deep_copy(r));
    assert_non_null(strstr(s, "within its sampling noise: 0.0512 s with a standard deviation of 0.025 s, under "
                              "noise_sigmas =\n  2.5: run longer or raise SCALANA_FREQ to decide it\n"));
    free(s);
    json_object_set_new(c, "cost_noise_seconds", json_real(0.001));
    json_object_set_new(th, "min_cost_seconds", json_real(1500));
    json_object_set_new(c, "cost_seconds", json_real(1234.5));
    s = summary_of_json(json_deep_copy(r));
    assert_non_null(strstr(s, "under min_cost_seconds = 1500 s: lower it with scalana-analyze -t min_cost_seconds=1100\n"));
    free(s);
    json_object_set_new(th, "min_cost_seconds", json_real(0.051400000000000001));
    json_object_set_new(c, "cost_seconds", json_real(0.0512));
    char dir[4096];
    outdir(dir, sizeof dir, "candidate-rounding");
    struct scalana_viewer_options o = {NULL, NULL, 0, 400, OUT(DOT) | OUT(SVG) | OUT(HTML) | OUT(EXTRAP)};
    char err[256] = "";
    assert_int_equal(scalana_viewer_write(r, dir, &o, err, sizeof err), 0);
    json_decref(r);
    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "under min_cost_seconds = 0.0514 s: lower it with scalana-analyze -t min_cost_seconds=0.046"));
    assert_non_null(strstr(html, "<th>min_cost_seconds</th><td class=\"num\">0.0514</td>"));
    assert_non_null(strstr(html, "<th>min_cost_percent</th><td class=\"num\">5</td>"));
    assert_null(strstr(html, "0.0514000"));
    free(html);
}

/* With no root cause, the time summary's start-up and shut-down line
 * (report.json time_summary.startup_shutdown) is printed on its own line
 * after the sentence, in the summary and the page. */
static void test_startup_line(void **state)
{
    (void)state;
    json_t *r = load_fixture("planted.json");
    json_object_set_new(r, "root_causes", json_array());
    const char *su = "start-up and shut-down: MPI_Init 1.2 s, MPI_Finalize 0.01 s (mean per process)";
    json_object_set_new(r, "time_summary",
                        json_pack("{s:i, s:s, s:{s:f, s:f, s:[], s:s}}", "processes", 8, "text",
                                  "At 8 processes (4.5 s): 60% of the time in computation, 30% in MPI; most: "
                                  "LOOP 45-46 /build/proj/src/solver.c:45 (2.1 s, 47%).",
                                  "startup_shutdown", "seconds_mean", 1.21, "percent", 27.0, "calls", "text", su));
    char *s = summary_of_json(json_deep_copy(r));
    assert_non_null(strstr(s, "(2.1 s, 47%).\n  start-up and shut-down: MPI_Init 1.2 s, MPI_Finalize 0.01 s (mean per process)\n"));
    free(s);
    char dir[4096];
    outdir(dir, sizeof dir, "startup-line");
    struct scalana_viewer_options o = {NULL, NULL, 0, 400, OUT(DOT) | OUT(SVG) | OUT(HTML) | OUT(EXTRAP)};
    char err[256] = "";
    assert_int_equal(scalana_viewer_write(r, dir, &o, err, sizeof err), 0);
    json_decref(r);
    char *html = read_out(dir, "index.html");
    assert_non_null(strstr(html, "<p class=\"startup\">start-up and shut-down: MPI_Init 1.2 s, MPI_Finalize 0.01 s (mean per process)</p>"));
    free(html);
}

/* The user trial's summary complaints: a multi-line cause prints its range,
 * long evidence and warnings wrap instead of being cut, the header counts
 * process counts and runs (directories) apart, a partial run is marked in the
 * runs table, and ranks lost to truncated profiles are not "not found". */
static void test_summary_wording(void **state)
{
    (void)state;
    json_t *r = load_fixture("planted.json");
    char ev[1200] = "";
    for (int i = 0; i < 60; i++) strcat(ev, "word-of-evidence ");
    strcat(ev, "END-OF-EVIDENCE");
    json_object_set_new(json_array_get(json_object_get(r, "root_causes"), 0), "evidence", json_string(ev));
    json_t *run8 = json_array_get(json_object_get(r, "runs"), 2);
    json_object_set_new(run8, "missing_ranks", json_integer(2));
    json_object_set_new(run8, "unreadable_ranks", json_integer(2));
    json_object_set_new(run8, "partial", json_true());
    json_t *mr = json_object_get(json_object_get(r, "data_quality"), "missing_ranks");
    for (int k = 6; k < 8; k++)
        json_array_append_new(mr, json_pack("{s:i,s:i,s:s}", "processes", 8, "rank", k, "reason", "unreadable"));
    json_array_append_new(json_object_get(json_object_get(r, "data_quality"), "warnings"), json_string(ev));
    char *s = summary_of_json(r);
    assert_non_null(strstr(s, "/build/proj/src/solver.c:45-46 "));
    assert_non_null(strstr(s, "/build/proj/src/solver.c:49 "));
    assert_non_null(strstr(s, "(strong scaling, 3 process counts, 5 runs)"));
    assert_non_null(strstr(s, "END-OF-EVIDENCE")); /* not cut */
    assert_null(strstr(s, "wor\n"));
    for (const char *l = s; *l;) {           /* wrapped: no line over 100 columns */
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        assert_true(n <= 100);
        l += n + (e != NULL);
    }
    assert_non_null(strstr(s, "partial: 2 ranks missing (2 unreadable)"));
    assert_non_null(strstr(s, "missing ranks: 6-7 of the 8-process run (2 ranks) (their profiles are truncated, corrupt"));
    assert_null(strstr(s, "process(es)"));
    free(s);
}

static void test_html_escape(void **state)
{
    (void)state;
    struct vw_out o;
    vw_out_init_mem(&o);
    vw_html(&o, "a<b>&\"c'\x01 \xC3\xA9 \xFF\xE2\x82");
    assert_false(vw_out_error(&o));
    assert_string_equal(o.buf, "a&lt;b&gt;&amp;&quot;c&#39;\xEF\xBF\xBD \xC3\xA9 \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    vw_out_free(&o);
}

/* --source-path: the first matching prefix wins, and a prefix only matches up to a '/'. */
static void test_source_remap(void **state)
{
    (void)state;
    char to[4096], got[4096];
    if ((size_t)snprintf(to, sizeof to, "%s/src", fixtures) >= sizeof to) fail_msg("path too long");
    const char *from_v[] = {"/build/proj/sr", "/build/proj/src/", "/build/proj"}, *to_v[] = {"/nowhere", to, "/nowhere"};
    struct scalana_viewer_options o = {from_v, to_v, 3, 0, OUT(DOT)};
    FILE *fp = vw_source_open(&o, "/build/proj/src/solver.c", got, sizeof got);
    assert_non_null(fp);
    fclose(fp);
    assert_non_null(strstr(got, "fixtures/src/solver.c"));
    assert_null(vw_source_open(&o, "/build/proj/srcx/solver.c", got, sizeof got));
    assert_null(vw_source_open(NULL, "/build/proj/src/solver.c", got, sizeof got));
    assert_null(vw_source_open(&o, "", got, sizeof got));
}

/* The source view's data (index.html's <div id="scalana-data">): a function
 * longer than the bound is cut to a window around its hottest line with a
 * note, invalid UTF-8 becomes U+FFFD, long lines are cut, markup in the source
 * stays text, a missing file is said so, per-process times are report.json's. */
static void test_views_data(void **state)
{
    (void)state;
    char dir[4096], src[4200];
    outdir(dir, sizeof dir, "views-data");
    if ((size_t)snprintf(src, sizeof src, "%s/long.c", dir) >= sizeof src) fail_msg("path too long");
    FILE *fp = fopen(src, "w");
    assert_non_null(fp);
    for (int l = 1; l <= 600; l++) {
        if (l == 450) fprintf(fp, "    for (i = 0; i < n; i++) s += \"</script><T&>\"[i %% 3]; /* \xFF bad */\n");
        else if (l == 451) { for (int k = 0; k < 1000; k++) fputc('x', fp); fputc('\n', fp); }
        else fprintf(fp, "line %d\n", l);
    }
    fclose(fp);
    char text[12288];
    int tn = snprintf(text, sizeof text,
             "{\"schema_version\":\"1.0\",\"program\":{\"executable\":\"/nonexistent/exe\"},\"scaling\":\"strong\","
             "\"runs\":[{\"processes\":2,\"wall_seconds\":3.0}],\"root_causes\":[],\"data_quality\":{},"
             "\"vertices\":["
             "{\"id\":0,\"parent\":null,\"kind\":\"FUNCTION\",\"name\":\"big\",\"function\":\"big\",\"file\":\"%s\",\"line\":1,\"last_line\":600,"
             " \"metrics\":[{\"processes\":2,\"time_mean_seconds\":0,\"inclusive_mean_seconds\":1.5,\"per_process_seconds\":[0,0]}]},"
             "{\"id\":1,\"parent\":0,\"kind\":\"LOOP\",\"name\":\"LOOP 450-450\",\"function\":\"big\",\"file\":\"%s\",\"line\":450,\"last_line\":450,"
             " \"metrics\":[{\"processes\":2,\"time_mean_seconds\":1.5,\"time_max_seconds\":2,\"inclusive_mean_seconds\":1.5,\"per_process_seconds\":[1,2]}]},"
             "{\"id\":2,\"parent\":null,\"kind\":\"FUNCTION\",\"name\":\"gone\",\"function\":\"gone\",\"file\":\"/nonexistent/gone.c\",\"line\":3,\"last_line\":9,"
             " \"metrics\":[]}]}",
             src, src);
    if (tn < 0 || (size_t)tn >= sizeof text) fail_msg("fixture too long");
    json_error_t je;
    json_t *rep = json_loads(text, 0, &je);
    if (!rep) fail_msg("fixture: %s", je.text);
    struct scalana_viewer_options o = {0};
    o.outputs = OUT(DOT) | OUT(HTML);
    char err[512] = "";
    assert_int_equal(scalana_viewer_write(rep, dir, &o, err, sizeof err), 0);
    json_decref(rep);
    char *html = read_out(dir, "index.html");
    assert_null(strstr(html, "</script><T&>"));
    const char *b = strstr(html, "<div id=\"scalana-data\" hidden>");
    assert_non_null(b);
    b += strlen("<div id=\"scalana-data\" hidden>");
    const char *e = strstr(b, "</div>");
    assert_non_null(e);
    assert_null(memchr(b, '<', (size_t)(e - b)));   /* no markup inside the data */
    json_t *d = json_loadb(b, (size_t)(e - b), 0, &je);
    if (!d) fail_msg("data: %s", je.text);
    assert_int_equal(json_integer_value(json_object_get(d, "processes")), 2);
    json_t *pp = json_object_get(json_array_get(json_object_get(d, "v"), 1), "pp");
    assert_int_equal(json_array_size(pp), 2);
    assert_true(json_real_value(json_array_get(pp, 1)) == 2.0);
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(d, "v"), 2), "pp")));   /* not measured */
    assert_null(json_object_get(d, "ppnote"));
    json_t *srcs = json_object_get(d, "src");
    assert_int_equal(json_array_size(srcs), 2);
    json_t *big = json_array_get(srcs, 0), *gone = json_array_get(srcs, 1);
    assert_string_equal(json_string_value(json_object_get(big, "fn")), "big");
    json_t *lines = json_object_get(big, "lines");
    assert_int_equal(json_array_size(lines), 400);                 /* MAX_FUNCTION_LINES */
    long first = (long)json_integer_value(json_object_get(big, "first"));
    assert_int_equal(first, 201);                                  /* the window ends at the function's last line */
    assert_non_null(strstr(json_string_value(json_object_get(big, "note")), "spans lines 1-600; lines 201-600 are shown"));
    const char *l450 = json_string_value(json_array_get(lines, 450 - first));
    assert_non_null(strstr(l450, "\"</script><T&>\"[i % 3]"));
    assert_non_null(strstr(l450, "\xEF\xBF\xBD bad"));
    const char *l451 = json_string_value(json_array_get(lines, 451 - first));
    assert_true(strlen(l451) == 400 + strlen(" \xE2\x80\xA6"));     /* cut at 400 columns, marked */
    assert_null(json_object_get(gone, "lines"));
    assert_non_null(strstr(json_string_value(json_object_get(gone, "note")), "Source file not found: /nonexistent/gone.c"));
    json_decref(d);
    free(html);

    /* bounded to 4 per-process numbers: one vertex (2 processes, exclusive and
     * inclusive) keeps its values, the root (inclusive 1.5 s, ahead of the loop's
     * 1.5 s by its index), with the inclusive ones of its subtree */
    rep = json_loads(text, 0, &je);
    struct vw_report vr;
    assert_int_equal(vw_report_open(&vr, rep, err, sizeof err), 0);
    struct vw_html_ctx ctx = {&vr, &o, NULL, NULL, NULL};
    struct vw_out mo;
    vw_out_init_mem(&mo);
    vw_html_data_bounded(&mo, &ctx, 4);
    assert_false(vw_out_error(&mo));
    b = strchr(mo.buf, '>') + 1;
    d = json_loadb(b, (size_t)(strstr(b, "</div>") - b), 0, &je);
    if (!d) fail_msg("bounded data: %s", je.text);
    json_t *v0 = json_array_get(json_object_get(d, "v"), 0), *v1 = json_array_get(json_object_get(d, "v"), 1);
    json_t *pi = json_object_get(v0, "pi");
    assert_int_equal(json_array_size(pi), 2);
    assert_true(json_real_value(json_array_get(pi, 0)) == 1.0 && json_real_value(json_array_get(pi, 1)) == 2.0);
    assert_int_equal(json_array_size(json_object_get(v0, "pp")), 2);
    assert_null(json_object_get(v1, "pp"));
    assert_null(json_object_get(v1, "pi"));
    assert_non_null(strstr(json_string_value(json_object_get(d, "ppnote")), "for 1 of 3 vertices (at most 4 values)"));
    json_decref(d);
    vw_out_free(&mo);
    vw_report_close(&vr);
    json_decref(rep);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s FIXTURE_DIR BIG_REPORT OUT_DIR\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    big_report = argv[2];
    out_root = argv[3];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_html_escape),
        cmocka_unit_test(test_source_remap),
        cmocka_unit_test(test_views_data),
        cmocka_unit_test(test_planted),
        cmocka_unit_test(test_single_run),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_big_bounded),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_summary_wording),
        cmocka_unit_test(test_candidates_shown),
        cmocka_unit_test(test_candidate_rounding),
        cmocka_unit_test(test_startup_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
