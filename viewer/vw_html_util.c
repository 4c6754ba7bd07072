/* vw_html_util.c — HTML helpers shared by the section writers of index.html:
 * a source location, an inline graphviz SVG, a bounded list of integers, the
 * order of the vertices a section shows first. */
#include "vw_html_util.h"
#include <string.h>

void vw_html_loc(struct vw_out *o, const char *file, long line)
{
    if (!file || !*file) {
        vw_puts(o, "(no source location)");
        return;
    }
    vw_html(o, file);
    vw_printf(o, ":%ld", line);
}

/* graphviz SVG output starts with an XML declaration, DOCTYPE and comments: keep from <svg */
void vw_html_inline_svg(struct vw_out *o, const char *svg)
{
    const char *s = svg ? strstr(svg, "<svg") : NULL;
    if (s) vw_puts(o, s);
}

void vw_html_int_list(struct vw_out *o, const json_t *arr, size_t max)
{
    size_t i, n = json_array_size(arr);
    const json_t *x;
    json_array_foreach(arr, i, x) {
        if (i >= max) { vw_printf(o, " … (%zu in all)", n); break; }
        vw_printf(o, "%s%lld", i ? ", " : "", (long long)json_integer_value(x));
    }
    if (n == 0) vw_puts(o, "–");
}

int vw_pick_desc(const void *a, const void *b)
{
    const struct vw_pick *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? 1 : -1;
    return (x->v > y->v) - (x->v < y->v);
}
