/* vw_html_views.c — the frames of index.html's interactive views, which the
 * page's script (vw_views.js) fills from SCALANA_DATA: the calling-context tree,
 * the flat and bottom-up tables, the per-process panel and the source view. */
#include "vw_html.h"

void vw_html_views(struct vw_out *o, const struct vw_html_ctx *c)
{
    long p = c->r->largest_processes;
    vw_printf(o, "<section id=\"calltree\"><h2>Calling-context tree</h2><p class=\"note\">Top-down, at the largest run "
                 "(%ld process%s): inclusive time (the vertex and everything under it) and exclusive time (its own), "
                 "mean over processes, and the inclusive time's minimum, median and maximum over processes. "
                 "&#9656; opens a vertex; a name shows its values per process.</p>"
                 "<div class=\"toolbar\"><button type=\"button\" id=\"cct-expand\">expand all</button>"
                 "<button type=\"button\" id=\"cct-collapse\">collapse all</button>"
                 "<button type=\"button\" id=\"cct-hot\">hot path</button></div>"
                 "<div class=\"tablewrap\"><table id=\"cct\" class=\"views\"><thead><tr><th>calling context</th><th>location</th>"
                 "<th class=\"num\">incl. s</th><th class=\"num\">incl. %%</th><th class=\"num\">excl. s</th>"
                 "<th class=\"num\">incl. min s</th><th class=\"num\">incl. median s</th><th class=\"num\">incl. max s</th>"
                 "<th class=\"num\">imbalance</th></tr></thead><tbody></tbody></table></div></section>",
              p, p == 1 ? "" : "es");
    vw_puts(o, "<section id=\"flat\"><h2>Flat and bottom-up</h2><p class=\"note\">Time summed over every calling context, "
               "at the largest run: by function (an MPI call counts as its own function), by loop or line, by MPI call. "
               "Click a header to sort; &#9656; opens a row bottom-up: a function or MPI call into the places it is called from, "
               "a loop or line into its calling contexts.</p>"
               "<div class=\"toolbar\" role=\"tablist\"><button type=\"button\" class=\"tab\" data-flat=\"function\">by function</button>"
               "<button type=\"button\" class=\"tab\" data-flat=\"line\">by loop or line</button>"
               "<button type=\"button\" class=\"tab\" data-flat=\"mpi\">by MPI call</button></div>"
               "<div class=\"tablewrap\"><table id=\"flattable\" class=\"views sortable\"><thead><tr><th>name</th><th>location</th>"
               "<th class=\"num\">excl. s</th><th class=\"num\">excl. %</th><th class=\"num\">incl. s</th>"
               "<th class=\"num\">excl. max s</th><th class=\"num\">imbalance</th><th class=\"num\">contexts</th>"
               "<th class=\"num\">calls</th></tr></thead><tbody></tbody></table></div></section>");
    vw_puts(o, "<section id=\"perprocess\"><h2>Per process</h2><div id=\"ppbody\"><p class=\"note\">Click a vertex (in the tree, "
               "the tables, the graph or a root cause) for its time on each process.</p></div></section>");
    vw_puts(o, "<section id=\"source\"><h2>Source</h2><p class=\"note\">Whole functions with the time of the vertices that start "
               "on each line (self: exclusive time, mean over processes; calls: the inclusive time of calls made there).</p>"
               "<label>function <select id=\"srcfn\"></select></label><div id=\"srcbody\"></div></section>");
}
