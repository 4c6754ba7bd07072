/* vw_html_causes.c — the root-cause section of index.html: ranked causes that
 * open to their details, backtracking path (SVG) and the source around them. */
#include "vw_html.h"
#include "vw_html_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SNIPPET_CONTEXT 5        /* lines shown before and after a root cause */
#define SNIPPET_MAX_LINES 60     /* cap on the highlighted range shown */
#define SNIPPET_MAX_COLS 400     /* longer source lines are cut */

static void source_snippet(struct vw_out *o, const struct vw_html_ctx *c, const char *file,
                           long first, long last)
{
    if (!file || !*file || first <= 0) {
        vw_puts(o, "<p class=\"missing\">no source location</p>");
        return;
    }
    if (last < first) last = first;
    long shown_last = last;
    if (shown_last - first + 1 > SNIPPET_MAX_LINES) shown_last = first + SNIPPET_MAX_LINES - 1;
    char resolved[4096];
    FILE *fp = vw_source_open(c->opt, file, resolved, sizeof resolved);
    if (!fp) {
        vw_puts(o, "<p class=\"missing\">source file not found: ");
        vw_html(o, file);
        vw_puts(o, " (scalana-analyze --source-path FROM=TO maps build paths to where the sources are)</p>");
        return;
    }
    long from = first > SNIPPET_CONTEXT ? first - SNIPPET_CONTEXT : 1;
    long to = shown_last + SNIPPET_CONTEXT;
    vw_puts(o, "<div class=\"note\">");
    vw_html(o, resolved);
    vw_printf(o, ", lines %ld–%ld</div>", first, last);
    /* The lines are those of the file as it is now: edited after the binary
     * that ran was linked (a before/after study, runs kept after a change),
     * they may not be the code measured.  The executable analysed is the
     * run's own copy when the program was rebuilt, which keeps its time. */
    struct stat src_st, exe_st;
    const char *exe = vw_str(json_object_get(c->r->root, "program"), "executable", "");
    if (*exe && fstat(fileno(fp), &src_st) == 0 && stat(exe, &exe_st) == 0 &&
        src_st.st_mtime > exe_st.st_mtime + 1) {
        vw_puts(o, "<p class=\"missing\">this file was changed after the measured binary was built: the lines "
                   "below may not be the code that ran (the terminal summary and report.json name the lines "
                   "as built)</p>");
    }
    vw_puts(o, "<pre class=\"src\">");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long no = 0;
    int any = 0;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        no++;
        if (no < from) continue;
        if (no > to) break;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        size_t len = (size_t)n > SNIPPET_MAX_COLS ? SNIPPET_MAX_COLS : (size_t)n;
        vw_printf(o, "<span class=\"l%s\" data-line=\"%ld\"><span class=\"n\">%ld</span>",
                  (no >= first && no <= last) ? " hl" : "", no, no);
        vw_html_n(o, line, len);
        if (len < (size_t)n) vw_puts(o, " \xE2\x80\xA6");
        vw_puts(o, "</span>");
        any = 1;
    }
    free(line);
    fclose(fp);
    vw_puts(o, "</pre>");
    if (!any) vw_printf(o, "<p class=\"missing\">the file has fewer than %ld lines (does it match the binary?)</p>", first);
    if (shown_last < last) vw_printf(o, "<p class=\"note\">%ld more highlighted lines not shown</p>", last - shown_last);
}

/* A cause's category, location and cost as spans (the head of a root
 * cause, a candidate's row): "loop f.c:11-15 in relax, inlined into main at
 * f.c:38", the full path on hover. */
static void cause_spans(struct vw_out *o, const json_t *rc)
{
    const char *cat = vw_str(rc, "category", "");
    vw_puts(o, "<span class=\"cat\">");
    vw_html(o, vw_category_title(cat));
    if (*vw_str(rc, "location", "")) {
        vw_puts(o, "</span><span class=\"loc where\" title=\"");
        vw_html(o, vw_str(rc, "file", ""));
        vw_puts(o, "\">");
        vw_html(o, vw_str(rc, "location", ""));
    } else {
        vw_puts(o, "</span><span class=\"loc\">");
        vw_html_loc(o, vw_str(rc, "file", ""), vw_int(rc, "line", 0));
        vw_puts(o, "</span><span class=\"fn\">");
        vw_html(o, vw_str(rc, "function", ""));
    }
    vw_puts(o, "</span><span class=\"cost\">");
    vw_num(o, vw_dbl(rc, "cost_seconds", 0));
    vw_printf(o, " s (%.1f%%)</span>", vw_dbl(rc, "cost_percent", 0));
}

#define HTML_CANDIDATES 3 /* candidates listed when there is no root cause */

/* With no root cause: the top candidates (causes under the minimum cost),
 * labelled as under the thresholds, with the threshold and how to lower it. */
static void candidates_list(struct vw_out *o, const struct vw_html_ctx *c)
{
    const json_t *cands = json_object_get(c->r->root, "candidates");
    size_t nc = json_array_size(cands), i;
    if (!nc) return;
    char note[400];
    vw_candidate_note(c->r->root, note, sizeof note);
    vw_printf(o, "<h3>Candidates under the thresholds</h3><p class=\"note\">%zu candidate%s, not root causes: ",
              nc, nc == 1 ? "" : "s");
    vw_html(o, note);
    vw_puts(o, ".</p><ol class=\"candidates\">");
    const json_t *rc;
    json_array_foreach(cands, i, rc) {
        if (i >= HTML_CANDIDATES) break;
        vw_puts(o, "<li class=\"candidate\">");
        cause_spans(o, rc);
        vw_puts(o, " <span class=\"procs\">processes ");
        vw_html_int_list(o, json_object_get(rc, "processes"), 32);
        vw_puts(o, "</span></li>");
    }
    vw_puts(o, "</ol>");
    if (nc > HTML_CANDIDATES) vw_printf(o, "<p class=\"note\">%zu more in report.json (candidates).</p>", nc - HTML_CANDIDATES);
}

/* Without a root cause: where the time goes, in the analyzer's own numbers
 * (report time_summary), and the candidates below the thresholds. */
static void no_causes(struct vw_out *o, const struct vw_html_ctx *c)
{
    const struct vw_report *r = c->r;
    const json_t *ts = json_object_get(r->root, "time_summary");
    vw_puts(o, "<p>No root cause above the thresholds.");
    if (*vw_str(ts, "text", "")) {
        vw_puts(o, " ");
        vw_html(o, vw_str(ts, "text", ""));
    }
    vw_puts(o, "</p>");
    /* MPI_Init/MPI_Finalize: a line of their own, not among the top places */
    const char *su = vw_str(json_object_get(ts, "startup_shutdown"), "text", "");
    if (*su) {
        vw_puts(o, "<p class=\"startup\">");
        vw_html(o, su);
        vw_puts(o, "</p>");
    }
    candidates_list(o, c);
}

/* A cause's head: its rank and summary (the button that opens it), the
 * evidence and what to do. */
static void cause_head(struct vw_out *o, const json_t *rc, long rank)
{
    const char *cat = vw_str(rc, "category", "");
    vw_printf(o, "<li class=\"cause\" id=\"cause-%ld\" data-rank=\"%ld\" data-category=\"", rank, rank);
    vw_html(o, cat);
    vw_printf(o, "\"><button class=\"cause-head\" type=\"button\" aria-expanded=\"false\" aria-controls=\"cause-%ld-detail\">", rank);
    vw_printf(o, "<span class=\"rk\">#%ld</span>", rank);
    cause_spans(o, rc);
    vw_puts(o, "</button><p class=\"evidence\">");
    vw_html(o, vw_str(rc, "evidence", ""));
    const char *fix = vw_str(rc, "remedy", vw_category_remedy(cat)); /* the cause's own first */
    if (*fix) {
        vw_puts(o, "</p><p class=\"remedy\"><b>What to do:</b> ");
        vw_html(o, fix);
    }
}

/* A cause's facts (<dl>): location, processes, model, symptom, vertex. */
static void cause_facts(struct vw_out *o, const struct vw_report *r, const json_t *rc)
{
    vw_puts(o, "<dt>location</dt><dd class=\"loc\">");
    if (*vw_str(rc, "file", "")) {
        vw_html(o, vw_str(rc, "file", ""));
        vw_printf(o, ":%ld–%ld</dd>", vw_int(rc, "line", 0), vw_int(rc, "last_line", vw_int(rc, "line", 0)));
        if (*vw_str(rc, "location", "")) {
            /* the loop, its function and the chain of call sites from main */
            vw_puts(o, "<dt>where</dt><dd class=\"where\">");
            vw_html(o, vw_str(rc, "location", ""));
            vw_puts(o, "</dd>");
        }
    } else {
        vw_puts(o, "(no source location: code without debug information or outside the program)</dd>");
    }
    vw_puts(o, "<dt>causing processes</dt><dd>");
    vw_html_int_list(o, json_object_get(rc, "processes"), 32);
    vw_puts(o, "</dd>");
    if (json_object_get(rc, "waiting_processes")) {
        vw_puts(o, "<dt>waiting processes</dt><dd>");
        vw_html_int_list(o, json_object_get(rc, "waiting_processes"), 32);
        vw_puts(o, "</dd>");
    }
    const json_t *model = json_object_get(rc, "model");
    if (json_is_object(model)) {
        vw_puts(o, "<dt>model</dt><dd>t(p) = ");
        vw_html(o, vw_str(model, "formula", ""));
        vw_puts(o, " <span class=\"note\">(");
        vw_html(o, vw_str(model, "quality", ""));
        double sm = vw_dbl(model, "smape", NAN);
        if (isfinite(sm)) vw_printf(o, ", SMAPE %.1f%%", sm);
        vw_puts(o, ")</span></dd>");
    }
    const json_t *sym = json_object_get(rc, "symptom");
    if (json_is_object(sym)) {
        vw_puts(o, "<dt>symptom</dt><dd>");
        vw_html(o, vw_str(sym, "operation", ""));
        vw_puts(o, " at <span class=\"loc\">");
        vw_html_loc(o, vw_str(sym, "file", ""), vw_int(sym, "line", 0));
        vw_puts(o, "</span></dd>");
    }
    long vi = vw_int(rc, "vertex", -1);
    const json_t *cv = vw_vertex(r, vi);
    if (cv) {
        vw_printf(o, "<dt>vertex</dt><dd><a href=\"#vrow-%ld\">%ld</a> ", vi, vi);
        if (*vw_kind_prefix(cv)) {
            vw_html(o, vw_kind_prefix(cv));
            vw_puts(o, " ");
        }
        vw_html(o, vw_str(rc, "name", vw_str(cv, "name", "")));
        vw_printf(o, " \xC2\xB7 <a href=\"#pp-%ld\">per process</a> \xC2\xB7 <a href=\"#tree-%ld\">in the tree</a>"
                     " \xC2\xB7 <a href=\"#srcv-%ld\">whole function</a></dd>", vi, vi, vi);
    }
}

/* A cause's backtracking path (the SVG laid out for it) and its source,
 * with the symptom's when elsewhere. */
static void cause_path_source(struct vw_out *o, const struct vw_html_ctx *c, const json_t *rc, size_t i, long rank)
{
    const json_t *sym = json_object_get(rc, "symptom");
    vw_puts(o, "</dl><h4>Backtracking path</h4>");
    if (c->path_svgs && c->path_svgs[i]) {
        vw_printf(o, "<div class=\"pathsvg\" id=\"cause-%ld-path\">", rank);
        vw_html_inline_svg(o, c->path_svgs[i]);
        vw_puts(o, "</div>");
    } else {
        vw_printf(o, "<p class=\"missing\" id=\"cause-%ld-path\">path not rendered (see rootcause-%ld.dot)</p>", rank, rank);
    }
    vw_printf(o, "<h4>Source</h4><div class=\"source\" id=\"cause-%ld-source\">", rank);
    source_snippet(o, c, vw_str(rc, "file", ""), vw_int(rc, "line", 0), vw_int(rc, "last_line", 0));
    if (json_is_object(sym) && vw_str(sym, "file", NULL) &&
        (strcmp(vw_str(sym, "file", ""), vw_str(rc, "file", "")) != 0 || vw_int(sym, "line", 0) != vw_int(rc, "line", 0))) {
        vw_puts(o, "<h5>Symptom</h5>");
        source_snippet(o, c, vw_str(sym, "file", ""), vw_int(sym, "line", 0), vw_int(sym, "line", 0));
    }
}

void vw_html_causes(struct vw_out *o, const struct vw_html_ctx *c)
{
    const struct vw_report *r = c->r;
    vw_puts(o, "<section id=\"causes\"><h2>Root causes</h2>");
    size_t n = json_array_size(r->root_causes);
    if (n == 0) {
        no_causes(o, c);
        vw_puts(o, "</section>");
        return;
    }
    vw_puts(o, "<p class=\"note\">Ranked by the run time they explain at the largest process count. Click one for its backtracking path and source.</p><ol class=\"causes\">");
    size_t i;
    const json_t *rc;
    json_array_foreach(r->root_causes, i, rc) {
        long rank = vw_int(rc, "rank", (long)i + 1);
        cause_head(o, rc, rank);
        vw_printf(o, "</p><div class=\"detail\" id=\"cause-%ld-detail\" hidden><dl>", rank);
        cause_facts(o, r, rc);
        cause_path_source(o, c, rc, i, rank);
        vw_puts(o, "</div></div></li>");
    }
    vw_puts(o, "</ol></section>");
}
