/* attribute.h — calling-context nodes of a profile mapped to PPG vertices
 * (read/attribute.c). */
#ifndef SCALANA_AN_READ_ATTRIBUTE_H
#define SCALANA_AN_READ_ATTRIBUTE_H

#include <stdint.h>
#include "core/types.h"
#include "read/psg_index.h"
#include "read/symbolize.h"
#include "scalana/profile_format.h"

/** Per-rank attribution state, cached per CCT node. */
struct an_attr_ctx {
    struct an_graph *g;
    struct an_symbolizer *sym;
    const struct an_psg *psg;        /* may be NULL (no PSG) */
    const struct an_options *opt;
    uint32_t outside_root;           /* vertex for samples outside main, AN_NONE until used */
    /* every instance of each function entered from a call path: where a
     * thread that starts in that function (an OpenMP worker) is joined */
    struct { const char *name; uint32_t v; } *inst; size_t inst_n, inst_cap;
    struct sc_hash inst_index; /* indices into inst, by interned name */
    uint64_t *inst_weight; size_t inst_weight_n; /* the rank's main-thread samples per instance */
    /* memo of (state, frame) -> state across ranks: most ranks repeat the same paths */
    struct an_step_memo { uint64_t address; uint32_t v, module, nv; uint8_t mode, kind, flags, nmode, unres; } *memo;
    size_t memo_n, memo_cap;
    struct sc_hash memo_index; /* indices into memo, by (state, frame) */
    int no_memo; /* set by a step whose result depends on what was seen before */
};
void an_attr_ctx_init(struct an_attr_ctx *c, struct an_graph *g, struct an_symbolizer *sym,
                      const struct an_psg *psg, const struct an_options *opt);
void an_attr_ctx_free(struct an_attr_ctx *c);

/** Maps every CCT node of d to a vertex (node_vertex[i]); module_ids maps
 *  d's modules to symbolizer modules.  Creates vertices as needed.
 *  Returns 0, or -1 on allocation failure. */
int an_attribute_rank(struct an_attr_ctx *c, const struct prf_rank_data *d, uint32_t *node_vertex,
                      uint64_t *unresolved);

#endif
