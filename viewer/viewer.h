/* viewer.h — public interface of the ScalAna report renderer (libscalana_viewer):
 * DOT/SVG graphs, the self-contained HTML page, the Extra-P export and the
 * terminal summary, all rendered from the in-memory report.json (jansson). */
#ifndef SCALANA_VIEWER_H
#define SCALANA_VIEWER_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "scalana/outputs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of scalana_viewer_write().  A zeroed struct is valid: no source
 * remapping, the default graph bound, nothing written.
 *
 * source_path_from/source_path_to: source_path_count prefix pairs; a source
 *   file name that starts with source_path_from[k] is looked up with that
 *   prefix replaced by source_path_to[k] (first match wins; the unmapped name
 *   is tried last).  This is scalana-analyze's --source-path FROM=TO.
 * max_graph_vertices: bound on the vertices laid out in one graph (psg.dot);
 *   0 means the default, SCALANA_VIEWER_DEFAULT_MAX_GRAPH_VERTICES.  A larger
 *   graph is cut to the root-cause paths and their neighbourhood, with a note
 *   of what was left out.
 * outputs: the exports to write, SCALANA_OUT_BIT(SCALANA_OUT_<NAME>) of the
 *   lines of scalana/outputs.def (SCALANA_OUT_ALL: every one): DOT
 *   (psg.dot, rootcause-N.dot), SVG (psg.svg, rootcause-N.svg, rendered
 *   through libgvc), HTML (index.html; the SVGs it embeds are rendered in
 *   memory even without SVG), EXTRAP (extrap.jsonl, Extra-P JSON Lines),
 *   CALIPER (caliper/scalana-<P>p.json, one Caliper JSON profile per process
 *   count, read by Hatchet and Thicket). */
struct scalana_viewer_options { const char *const *source_path_from; const char *const *source_path_to; size_t source_path_count; size_t max_graph_vertices; unsigned outputs; };

/* Default layout bound: above this many vertices a graph is cut; chosen so
 * that dot lays the graph out in about a second on one core. */
#define SCALANA_VIEWER_DEFAULT_MAX_GRAPH_VERTICES 400

/* Render `report` (a report.json object conforming to docs/report.schema.json)
 * into the existing directory out_dir: as opt asks, the exports of
 * scalana/outputs.def (psg.dot, rootcause-N.dot with N = 1.. the root cause's
 * rank, psg.svg, rootcause-N.svg, index.html ...; docs/viewer.md lists them
 * all).  opt may be NULL (DOT files only).
 * Returns 0 on success, -1 on error with a one-line reason in err (errlen
 * bytes, may be NULL/0); files written before the error are left in place.
 * A report that does not follow the schema still renders (missing or mistyped
 * fields take defaults).  Not thread-safe: Graphviz keeps global state, and one
 * Graphviz context is kept for the life of the process.  See docs/viewer.md. */
int scalana_viewer_write(const json_t *report, const char *out_dir, const struct scalana_viewer_options *opt, char *err, size_t errlen);

/* Print the terminal summary of `report` to out: the top root causes (rank,
 * category, file:line, function, cost in seconds and percent of the largest
 * run's wall time, evidence), the runs (processes, wall seconds, parallel
 * efficiency) and the data-quality warnings.  use_color: ANSI colours. */
void scalana_viewer_print_summary(FILE *out, const json_t *report, int use_color);

#ifdef __cplusplus
}
#endif

#endif /* SCALANA_VIEWER_H */
