/* vw_graph.c — libcgraph/libgvc plumbing: attributes, label escaping, DOT
 * writing through agwrite, in-process layout and SVG rendering through libgvc. */
#include "vw_graph.h"
#include <graphviz/gvc.h>
#include <errno.h>
#include <string.h>
#include <stdlib.h>

void vw_gset(void *obj, const char *name, const char *value)
{
    agsafeset(obj, (char *)name, (char *)(value ? value : ""), "");
}

const char *vw_basename(const char *file)
{
    if (!file) return "";
    const char *s = strrchr(file, '/');
    return s ? s + 1 : file;
}

void vw_label_text(struct vw_out *lab, const char *s, size_t max)
{
    if (!s) return;
    size_t n = strlen(s);
    int cut = 0;
    if (max && n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;   /* UTF-8 boundary */
        cut = 1;
    }
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' || c < 0x20) {
            vw_write(lab, s + i - run, run);
            run = 0;
            vw_puts(lab, c == '\\' ? "\\\\" : " ");
        } else {
            run++;
        }
    }
    vw_write(lab, s + n - run, run);
    if (cut) vw_puts(lab, "\xE2\x80\xA6");
}

void vw_loss_color(double share, char buf[8], int *dark)
{
    /* white (255,255,255) -> salmon (244,165,130) -> dark red (178,24,43) */
    if (!(share > 0)) share = 0;
    if (share > 1) share = 1;
    double r, g, b;
    if (share < 0.5) {
        double t = share / 0.5;
        r = 255 + (244 - 255) * t; g = 255 + (165 - 255) * t; b = 255 + (130 - 255) * t;
    } else {
        double t = (share - 0.5) / 0.5;
        r = 244 + (178 - 244) * t; g = 165 + (24 - 165) * t; b = 130 + (43 - 130) * t;
    }
    snprintf(buf, 8, "#%02x%02x%02x", (int)(r + 0.5), (int)(g + 0.5), (int)(b + 0.5));
    if (dark) *dark = share > 0.6;
}

Agraph_t *vw_graph_open(const char *name, const char *id, const char *node_style)
{
    Agraph_t *g = agopen((char *)name, Agdirected, NULL);
    if (!g) return NULL;
    vw_gset(g, "rankdir", "LR");
    vw_gset(g, "id", id);
    vw_gset(g, "fontname", "Helvetica");
    agattr(g, AGNODE, "shape", "box");
    agattr(g, AGNODE, "style", (char *)node_style);
    agattr(g, AGNODE, "fillcolor", "#ffffff");
    agattr(g, AGNODE, "fontname", "Helvetica");
    agattr(g, AGNODE, "fontsize", "10");
    return g;
}

void vw_graph_close(vw_graph *g)
{
    if (g) agclose(g);
}

int vw_graph_write_dot(vw_graph *g, const char *path, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        vw_seterr(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = agwrite(g, fp);
    if (fclose(fp) != 0 || rc != 0) {
        vw_seterr(err, errlen, "cannot write %s", path);
        return -1;
    }
    return 0;
}

/* Graphviz reports through a callback; keep the last message for our one-line error. */
static char last_gv_msg[256];
static int gv_msg(char *msg)
{
    snprintf(last_gv_msg, sizeof last_gv_msg, "%s", msg ? msg : "");
    return 0;
}

/* One layout context for the process, never freed: graphviz 2.42's pango
 * plugin keeps a font-name pointer across contexts, and freeing a context
 * then laying out with a new one reads freed memory (seen with ASan).  One
 * context also loads the plugins once.  Not thread-safe, like graphviz. */
static GVC_t *shared_gvc(void)
{
    static GVC_t *gvc;
    if (!gvc) gvc = gvContext();
    return gvc;
}

int vw_graph_render_svg(vw_graph *g, char **svg, size_t *len, char *err, size_t errlen)
{
    *svg = NULL;
    if (len) *len = 0;
    last_gv_msg[0] = '\0';
    agusererrf old = agseterrf(gv_msg);
    agerrlevel_t oldlevel = agseterr(AGERR);   /* warnings are not errors for us */
    GVC_t *gvc = shared_gvc();
    int rc = -1;
    if (!gvc) {
        vw_seterr(err, errlen, "graphviz: cannot create a context");
        goto out;
    }
    if (gvLayout(gvc, g, "dot") != 0) {
        vw_seterr(err, errlen, "graphviz layout failed: %s", last_gv_msg[0] ? last_gv_msg : "dot plugin missing?");
        goto out;
    }
    char *data = NULL;
    unsigned int n = 0;
    if (gvRenderData(gvc, g, "svg", &data, &n) != 0 || !data) {
        vw_seterr(err, errlen, "graphviz SVG rendering failed: %s", last_gv_msg[0] ? last_gv_msg : "svg plugin missing?");
        gvFreeLayout(gvc, g);
        goto out;
    }
    *svg = malloc((size_t)n + 1);
    if (*svg) {
        memcpy(*svg, data, n);
        (*svg)[n] = '\0';
        if (len) *len = n;
        rc = 0;
    } else {
        vw_seterr(err, errlen, "out of memory");
    }
    gvFreeRenderData(data);
    gvFreeLayout(gvc, g);
out:
    agseterrf(old);
    agseterr(oldlevel);
    return rc;
}
