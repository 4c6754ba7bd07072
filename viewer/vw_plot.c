/* vw_plot.c — SVG figures drawn by our own code for index.html: log-log
 * scaling plots (measured, fitted model, ideal), per-process bars, and the
 * rank × rank communication heat map.  All text goes through vw_html. */
#include "vw_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PW 340.0   /* plot width, px */
#define PH 210.0
#define ML 58.0    /* margins */
#define MR 12.0
#define MT 12.0
#define MB 34.0

struct series { size_t n; double p[64], t[64], mean[64]; };

static double model_eval(const json_t *m, double p)
{
    double c0 = vw_dbl(m, "c0", 0), c1 = vw_dbl(m, "c1", 0), i = vw_dbl(m, "i", 0), j = vw_dbl(m, "j", 0);
    double l = p > 1 ? log2(p) : 0;
    return c0 + c1 * pow(p, i) * pow(l, j);
}

static void nice_ticks_log(double lo, double hi, double *ticks, size_t *nt, size_t max)
{
    *nt = 0;
    double start = pow(10, floor(log10(lo)));
    static const double mult[] = {1, 2, 5};
    for (double d = start; d <= hi * 1.0001 && *nt < max; d *= 10)
        for (size_t k = 0; k < 3 && *nt < max; k++) {
            double v = d * mult[k];
            if (v >= lo * 0.9999 && v <= hi * 1.0001) ticks[(*nt)++] = v;
        }
    if (*nt > 6) {   /* thin out: keep decades only */
        size_t w = 0;
        for (size_t k = 0; k < *nt; k++) {
            double e = log10(ticks[k]);
            if (fabs(e - floor(e + 0.5)) < 1e-9) ticks[w++] = ticks[k];
        }
        *nt = w;
    }
}

/* Generic log-log plot: measured max (filled), mean (hollow, optional), model
 * curve (optional), ideal line from the smallest count (1/p for strong, flat for weak). */
static void loglog(struct vw_out *o, const struct series *s, const json_t *model,
                   int strong, const char *ylabel, const char *aria)
{
    if (s->n == 0) return;
    double pmin = s->p[0], pmax = s->p[0], tmin = INFINITY, tmax = 0;
    for (size_t k = 0; k < s->n; k++) {
        if (s->p[k] < pmin) pmin = s->p[k];
        if (s->p[k] > pmax) pmax = s->p[k];
        double vals[2] = {s->t[k], s->mean[k]};
        for (int q = 0; q < 2; q++)
            if (vals[q] > 0) { if (vals[q] < tmin) tmin = vals[q]; if (vals[q] > tmax) tmax = vals[q]; }
    }
    size_t p0 = 0;
    for (size_t k = 0; k < s->n; k++) if (s->p[k] == pmin) p0 = k;
    double ideal0 = s->t[p0];
    if (ideal0 > 0) {
        double iend = strong ? ideal0 * pmin / pmax : ideal0;
        if (iend > 0 && iend < tmin) tmin = iend;
    }
    if (!(tmax > 0)) { tmin = 1e-6; tmax = 1; }
    if (pmax <= pmin) { pmin /= 2; pmax *= 2; }
    if (tmax <= tmin * 1.01) { tmin /= 2; tmax *= 2; }
    tmin /= 1.3; tmax *= 1.3;
    double lx0 = log2(pmin), lx1 = log2(pmax), ly0 = log10(tmin), ly1 = log10(tmax);
#define X(p) (ML + (log2(p) - lx0) / (lx1 - lx0) * (PW - ML - MR))
#define Y(t) (PH - MB - (log10(t) - ly0) / (ly1 - ly0) * (PH - MT - MB))
    vw_printf(o, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
              PW, PH, PW, PH);
    vw_html(o, aria);
    vw_puts(o, "\">");
    vw_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>",
              ML, MT, PW - ML - MR, PH - MT - MB);
    /* x ticks: powers of two (or every measured count when few) */
    for (double p = pow(2, ceil(lx0)); p <= pmax * 1.0001; p *= 2) {
        if (lx1 - lx0 > 8 && fmod(log2(p), 2) != 0) continue;
        vw_printf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", X(p), X(p), MT, PH - MB);
        vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%g</text>", X(p), PH - MB + 12, p);
    }
    double ticks[40];
    size_t nt;
    nice_ticks_log(tmin, tmax, ticks, &nt, 40);
    for (size_t k = 0; k < nt; k++) {
        vw_printf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", ML, PW - MR, Y(ticks[k]), Y(ticks[k]));
        vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%g</text>", ML - 3, Y(ticks[k]) + 3, ticks[k]);
    }
    vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">processes</text>", (ML + PW - MR) / 2, PH - 4);
    vw_printf(o, "<text x=\"12\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 12 %.1f)\">",
              (MT + PH - MB) / 2, (MT + PH - MB) / 2);
    vw_html(o, ylabel);
    vw_puts(o, "</text>");
    /* ideal */
    if (ideal0 > 0) {
        double iend = strong ? ideal0 * pmin / pmax : ideal0;
        vw_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"ideal\"><title>ideal</title></line>",
                  X(pmin), Y(ideal0), X(pmax), Y(iend));
    }
    /* model */
    if (json_is_object(model)) {
        vw_puts(o, "<polyline class=\"model\" points=\"");
        int any = 0;
        for (int k = 0; k <= 48; k++) {
            double p = pow(2, lx0 + (lx1 - lx0) * k / 48.0);
            double t = model_eval(model, p);
            if (!(t > 0) || !isfinite(t)) continue;
            if (t < tmin) t = tmin;
            if (t > tmax) t = tmax;
            vw_printf(o, "%s%.1f,%.1f", any ? " " : "", X(p), Y(t));
            any = 1;
        }
        vw_puts(o, "\"><title>model: ");
        vw_html(o, vw_str(model, "formula", ""));
        vw_puts(o, "</title></polyline>");
    }
    for (size_t k = 0; k < s->n; k++) {
        if (s->mean[k] > 0)
            vw_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" class=\"mean\"><title>%g p: %.4g s (hollow series)</title></circle>",
                      X(s->p[k]), Y(s->mean[k]), s->p[k], s->mean[k]);
        if (s->t[k] > 0)
            vw_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" class=\"meas\"><title>%g p: %.4g s</title></circle>",
                      X(s->p[k]), Y(s->t[k]), s->p[k], s->t[k]);
    }
    vw_puts(o, "</svg>");
#undef X
#undef Y
}

static int strong_scaling(const struct vw_report *r)
{
    const char *sc = vw_str(r->root, "scaling", "strong");
    return strcmp(sc, "weak") != 0;
}

const char *vw_plot_companion(const char *series)
{
    static const struct { const char *a, *b; } pairs[] = {
        {"time_max_seconds", "time_mean_seconds"}, {"time_mean_seconds", "time_max_seconds"},
        {"inclusive_mean_seconds", "inclusive_max_seconds"}, {"inclusive_max_seconds", "inclusive_mean_seconds"},
        {"time_min_seconds", "time_mean_seconds"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if (!strcmp(series, pairs[k].a)) return pairs[k].b;
    return "time_mean_seconds";
}

void vw_plot_scaling(struct vw_out *o, const struct vw_report *r, const json_t *v, const char *series)
{
    struct series s;
    memset(&s, 0, sizeof s);
    size_t i;
    const json_t *m;
    if (!series) series = "time_max_seconds";
    const char *other = vw_plot_companion(series);
    json_array_foreach(json_object_get(v, "metrics"), i, m) {
        if (s.n >= 64) break;
        s.p[s.n] = (double)vw_int(m, "processes", 0);
        s.t[s.n] = vw_dbl(m, series, 0);
        s.mean[s.n] = vw_dbl(m, other, 0);
        if (s.p[s.n] >= 1) s.n++;
    }
    const json_t *model = json_object_get(v, "model");
    char aria[160];
    snprintf(aria, sizeof aria, "scaling of vertex %ld", vw_int(v, "id", 0));
    loglog(o, &s, model, strong_scaling(r), "seconds", aria);
}

void vw_plot_runs(struct vw_out *o, const struct vw_report *r)
{
    struct series s;
    memset(&s, 0, sizeof s);
    size_t i;
    const json_t *run;
    json_array_foreach(r->runs, i, run) {
        if (s.n >= 64) break;
        s.p[s.n] = (double)vw_int(run, "processes", 0);
        s.t[s.n] = vw_dbl(run, "wall_seconds", 0);
        s.mean[s.n] = 0;
        if (s.p[s.n] >= 1) s.n++;
    }
    loglog(o, &s, NULL, strong_scaling(r), "wall seconds", "wall time of the runs");
}

void vw_plot_bars(struct vw_out *o, const json_t *m)
{
    const json_t *pp = json_object_get(m, "per_process_seconds");
    size_t n = json_array_size(pp);
    if (n == 0) return;
    size_t bins = n > 256 ? 256 : n;   /* above 256 ranks a bar shows the max of its ranks */
    double *val = calloc(bins, sizeof *val);
    unsigned char *out = calloc(bins, 1);
    unsigned char *outlier = calloc(n, 1);
    if (!val || !out || !outlier) { free(val); free(out); free(outlier); return; }
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(m, "outliers"), i, x) {
        long rk = json_is_integer(x) ? (long)json_integer_value(x) : -1;
        if (rk >= 0 && (size_t)rk < n) outlier[rk] = 1;
    }
    double vmax = 0, sum = 0;
    for (size_t k = 0; k < n; k++) {
        double t = json_number_value(json_array_get(pp, k));
        size_t b = k * bins / n;
        if (t > val[b]) val[b] = t;
        if (outlier[k]) out[b] = 1;
        if (t > vmax) vmax = t;
        sum += t;
    }
    double mean = sum / (double)n;
    if (!(vmax > 0)) vmax = 1;
    double w = 520, h = 160, ml = 50, mb = 24, mt = 8;
    double bw = (w - ml - 8) / (double)bins;
    vw_printf(o, "<svg class=\"plot bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"time per process\">",
              w, h, w, h);
    vw_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>", ml, mt, w - ml - 8, h - mt - mb);
    for (size_t b = 0; b < bins; b++) {
        double bh = val[b] / vmax * (h - mt - mb);
        size_t r0 = b * n / bins, r1 = (b + 1) * n / bins - 1;
        vw_printf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" class=\"%s\"><title>",
                  ml + b * bw, h - mb - bh, bw > 2 ? bw - 1 : bw, bh, out[b] ? "bar outlier" : "bar");
        if (r1 > r0) vw_printf(o, "ranks %zu-%zu: max %.4g s", r0, r1, val[b]);
        else vw_printf(o, "rank %zu: %.4g s%s", r0, val[b], out[b] ? " (outlier)" : "");
        vw_puts(o, "</title></rect>");
    }
    double my = h - mb - mean / vmax * (h - mt - mb);
    vw_printf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"meanline\"><title>mean %.4g s</title></line>",
              ml, w - 8, my, my, mean);
    vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%.3g s</text>", ml - 3, mt + 8, vmax);
    vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">0</text>", ml - 3, h - mb);
    vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">rank (0 … %zu)</text>", (ml + w) / 2, h - 6, n - 1);
    vw_puts(o, "</svg>");
    free(val);
    free(out);
    free(outlier);
}

void vw_plot_heatmap(struct vw_out *o, const json_t *matrix, const char *unit)
{
    size_t n = json_array_size(matrix);
    if (n == 0) return;
    size_t cells = n > 64 ? 64 : n;   /* above 64 ranks a cell sums a block of ranks */
    double *c = calloc(cells * cells, sizeof *c);
    if (!c) return;
    double vmax = 0;
    for (size_t s = 0; s < n; s++) {
        const json_t *row = json_array_get(matrix, s);
        size_t m = json_array_size(row);
        for (size_t d = 0; d < m && d < n; d++) {
            double v = json_number_value(json_array_get(row, d));
            if (v > 0) c[(s * cells / n) * cells + d * cells / n] += v;
        }
    }
    for (size_t k = 0; k < cells * cells; k++) if (c[k] > vmax) vmax = c[k];
    double side = 420, ml = 46, mt = 10, cs = (side - ml - 10) / (double)cells;
    vw_printf(o, "<svg class=\"plot heat\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"communication matrix\">",
              side, side + 44, side, side + 44);
    for (size_t s = 0; s < cells; s++)
        for (size_t d = 0; d < cells; d++) {
            double v = c[s * cells + d];
            double share = (v > 0 && vmax > 0) ? log1p(v) / log1p(vmax) : 0;
            int R = (int)(255 - share * (255 - 8)), G = (int)(255 - share * (255 - 48)), B = (int)(255 - share * (255 - 107));
            vw_printf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#%02x%02x%02x\"><title>",
                      ml + d * cs, mt + s * cs, cs, cs, R, G, B);
            if (cells == n) vw_printf(o, "rank %zu \xE2\x86\x92 rank %zu: %.6g ", s, d, v);
            else vw_printf(o, "ranks %zu-%zu \xE2\x86\x92 ranks %zu-%zu: %.6g ", s * n / cells, (s + 1) * n / cells - 1,
                           d * n / cells, (d + 1) * n / cells - 1, v);
            vw_html(o, unit);
            vw_puts(o, "</title></rect>");
        }
    vw_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>", ml, mt, cs * cells, cs * cells);
    vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">receiver rank (0 … %zu)</text>",
              ml + cs * cells / 2, mt + cs * cells + 16, n - 1);
    vw_printf(o, "<text x=\"14\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">sender rank</text>",
              mt + cs * cells / 2, mt + cs * cells / 2);
    /* colour key: white = 0, darkest = the largest cell, logarithmic in between */
    for (int k = 0; k < 10; k++) {
        double share = k / 9.0;
        int R = (int)(255 - share * (255 - 8)), G = (int)(255 - share * (255 - 48)), B = (int)(255 - share * (255 - 107));
        vw_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"8\" fill=\"#%02x%02x%02x\" stroke=\"#ccc\" stroke-width=\"0.5\"/>",
                  ml + k * 10, mt + cs * cells + 24, R, G, B);
    }
    vw_printf(o, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">0 \xE2\x80\xA6 %.3g ", ml + 106, mt + cs * cells + 32, vmax);
    vw_html(o, unit);
    vw_puts(o, " per cell (log scale)</text>");
    vw_puts(o, "</svg>");
    free(c);
}
