/* vw_html_source.c — the source of whole functions for index.html's source
 * view: each function's lines (from its FUNCTION vertex's line..last_line, or
 * around its measured vertices when the structure graph has no extent for it),
 * read through --source-path, bounded per function and per page.  The page adds
 * each line's time from the vertices that start on it. */
#include "vw_html.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FUNCTION_LINES 400    /* lines of one function in the page */
#define MAX_SOURCE_LINES 20000    /* lines of all functions in the page */
#define MAX_LINE_COLS 400         /* longer lines are cut (… marks the cut) */
#define AROUND_LINES 3            /* context around measured vertices without an extent */

struct extent {
    const char *file, *fn;
    long a, b;          /* first and last line of the function */
    double weight;      /* time inside: ranks the functions kept under the page bound */
    long hot_line;      /* line of the heaviest vertex inside (the window keeps it) */
    double hot_w;
    int approx;         /* no FUNCTION vertex: a..b spans the measured vertices only */
};

static int by_weight_desc(const void *x, const void *y)
{
    const struct extent *a = x, *b = y;
    if (a->weight != b->weight) return a->weight < b->weight ? 1 : -1;
    int c = strcmp(a->file, b->file);
    return c ? c : (a->a > b->a) - (a->a < b->a);
}

/* UTF-8 with invalid bytes replaced by U+FFFD (jansson takes valid UTF-8 only),
 * cut at MAX_LINE_COLS bytes on a character boundary, "…" after a cut. */
static json_t *line_string(const char *s, size_t n)
{
    struct vw_out o;
    vw_out_init_mem(&o);
    size_t lim = n > MAX_LINE_COLS ? MAX_LINE_COLS : n;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < lim) {
        size_t k = p[i] ? vw_utf8_len(p + i, n - i) : 0;   /* a NUL byte would end the string */
        if (k) vw_write(&o, s + i, k);
        else { vw_puts(&o, "\xEF\xBF\xBD"); k = 1; }
        i += k;
    }
    if (lim < n) vw_puts(&o, " \xE2\x80\xA6");
    json_t *j = vw_out_error(&o) ? NULL : json_stringn(o.buf ? o.buf : "", o.len);
    vw_out_free(&o);
    return j;
}

/* The lines first..last of the file (fewer when it is shorter); NULL if unreadable.
 * *stale: the file is newer than the executable that was measured. */
static json_t *read_lines(const struct vw_html_ctx *c, const char *file, long first, long last, int *stale, long *got)
{
    char resolved[4096];
    FILE *fp = vw_source_open(c->opt, file, resolved, sizeof resolved);
    *got = 0;
    if (!fp) return NULL;
    struct stat src_st, exe_st;
    const char *exe = vw_str(json_object_get(c->r->root, "program"), "executable", "");
    *stale = *exe && fstat(fileno(fp), &src_st) == 0 && stat(exe, &exe_st) == 0 && src_st.st_mtime > exe_st.st_mtime + 1;
    json_t *a = json_array();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long no = 0;
    while (a && (n = getline(&line, &cap, fp)) >= 0) {
        if (++no < first) continue;
        if (no > last) break;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        json_array_append_new(a, line_string(line, (size_t)n));
        (*got)++;
    }
    free(line);
    fclose(fp);
    return a;
}

/* The function extents of the report, heaviest first; *n_out of them. */
static struct extent *extents(const struct vw_report *r, size_t *n_out)
{
    size_t n = r->nvert, ne = 0;
    long p = r->largest_processes;
    struct extent *e = calloc(2 * (n ? n : 1), sizeof *e);   /* at most one FUNCTION and one fallback per vertex */
    if (!e) return NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = vw_vertex(r, (long)i);
        const char *file = vw_str(v, "file", "");
        long a = vw_int(v, "line", 0), b = vw_int(v, "last_line", a);
        if (strcmp(vw_str(v, "kind", ""), "FUNCTION") || !*file || a <= 0) continue;
        if (b < a) b = a;
        size_t k;
        for (k = 0; k < ne; k++)
            if (e[k].a == a && e[k].b == b && !strcmp(e[k].file, file)) break;
        if (k == ne) e[ne++] = (struct extent){file, vw_str(v, "function", vw_str(v, "name", "")), a, b, 0, a, -1, 0};
        e[k].weight += vw_dbl(vw_metrics_at(v, p), "inclusive_mean_seconds", 0);
    }
    size_t nfun = ne;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = vw_vertex(r, (long)i);
        const char *file = vw_str(v, "file", "");
        long a = vw_int(v, "line", 0), b = vw_int(v, "last_line", a);
        if (!strcmp(vw_str(v, "kind", ""), "FUNCTION") || !*file || a <= 0) continue;
        if (b < a) b = a;
        double w = vw_dbl(vw_metrics_at(v, p), "time_mean_seconds", 0);
        size_t k, best = ne;
        for (k = 0; k < nfun; k++)   /* the innermost function extent holding the line */
            if (e[k].a <= a && a <= e[k].b && !strcmp(e[k].file, file) &&
                (best == ne || e[k].b - e[k].a < e[best].b - e[best].a))
                best = k;
        if (best == ne) {
            const char *fn = vw_str(v, "function", "");
            for (k = nfun; k < ne; k++)
                if (!strcmp(e[k].file, file) && !strcmp(e[k].fn, fn)) break;
            if (k == ne) e[ne++] = (struct extent){file, fn, a, b, 0, a, -1, 1};
            if (a < e[k].a) e[k].a = a;
            if (b > e[k].b) e[k].b = b;
            best = k;
        }
        e[best].weight += w;
        if (w > e[best].hot_w) { e[best].hot_w = w; e[best].hot_line = a; }
    }
    for (size_t k = nfun; k < ne; k++) {
        e[k].a = e[k].a > AROUND_LINES ? e[k].a - AROUND_LINES : 1;
        e[k].b += AROUND_LINES;
    }
    qsort(e, ne, sizeof *e, by_weight_desc);
    *n_out = ne;
    return e;
}

json_t *vw_html_sources(const struct vw_html_ctx *c, const json_t *seen)
{
    size_t ne = 0;
    struct extent *e = extents(c->r, &ne);
    json_t *out = json_array();
    if (!e || !out) { free(e); return out; }
    long budget = MAX_SOURCE_LINES;
    char note[600];
    for (size_t k = 0; k < ne; k++) {
        const json_t *ix = json_object_get(seen, e[k].file);
        if (!ix) continue;
        json_t *s = json_object();
        json_object_set_new(s, "s", json_integer(json_integer_value(ix)));
        json_object_set_new(s, "fn", json_string(e[k].fn));
        json_object_set_new(s, "a", json_integer(e[k].a));
        json_object_set_new(s, "b", json_integer(e[k].b));
        long first = e[k].a, last = e[k].b;
        note[0] = '\0';
        if (last - first + 1 > MAX_FUNCTION_LINES) {
            /* a window of the bound around the heaviest line */
            first = e[k].hot_line - MAX_FUNCTION_LINES / 2;
            if (first < e[k].a) first = e[k].a;
            last = first + MAX_FUNCTION_LINES - 1;
            if (last > e[k].b) { last = e[k].b; first = last - MAX_FUNCTION_LINES + 1; }
            snprintf(note, sizeof note, "The function spans lines %ld-%ld; lines %ld-%ld are shown (at most %d lines per function).",
                     e[k].a, e[k].b, first, last, MAX_FUNCTION_LINES);
        }
        if (budget < last - first + 1) {
            snprintf(note, sizeof note, "Not in the page: it keeps at most %d source lines, for the functions with the most time.",
                     MAX_SOURCE_LINES);
            json_object_set_new(s, "note", json_string(note));
            json_array_append_new(out, s);
            continue;
        }
        int stale = 0;
        long got = 0;
        json_t *lines = read_lines(c, e[k].file, first, last, &stale, &got);
        if (!lines) {
            snprintf(note, sizeof note, "Source file not found: %.400s (scalana-analyze --source-path FROM=TO maps build paths to where the sources are).",
                     e[k].file);
        } else if (got == 0) {
            snprintf(note, sizeof note, "The file has fewer than %ld lines: does it match the binary?", first);
        } else {
            budget -= got;
            json_object_set_new(s, "first", json_integer(first));
            json_object_set_new(s, "lines", lines);
            lines = NULL;
            size_t len = strlen(note);
            if (stale)
                snprintf(note + len, sizeof note - len, "%sThis file was changed after the measured binary was built: the lines may not be the code that ran.",
                         len ? " " : "");
            len = strlen(note);
            if (e[k].approx)
                snprintf(note + len, sizeof note - len, "%sThe structure graph gives no extent for this function: the lines around its measured code.",
                         len ? " " : "");
        }
        json_decref(lines);
        if (note[0]) json_object_set_new(s, "note", json_string(note));
        json_array_append_new(out, s);
    }
    free(e);
    return out;
}
