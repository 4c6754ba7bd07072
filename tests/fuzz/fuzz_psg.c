/* fuzz_psg.c — libFuzzer target for psg_parse (the .scalana_psg section:
 * units, vertex records, strings, zero padding).  Checks: no memory error;
 * every string and vertex of a parsed graph is readable; parents index
 * earlier vertices of the same unit or are PSG_NO_PARENT (pre-order). */
#include "fuzz_common.h"
#include "scalana/psg_format.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct psg_graph g;
    char err[256];
    memset(err, 0x5a, sizeof err);
    if (psg_parse(data, size, &g, err, sizeof err) != 0) {
        fuzz_check_err(err, sizeof err);
        return 0;
    }
    for (uint32_t u = 0; u < g.unit_count; u++) {
        const struct psg_unit *un = &g.units[u];
        fuzz_touch_str(un->unit_name);
        fuzz_touch_str(un->producer);
        for (uint32_t i = 0; i < un->vertex_count; i++) {
            const struct psg_vertex *v = &un->vertices[i];
            fuzz_touch_str(v->file);
            fuzz_touch_str(v->function);
            fuzz_touch_str(v->display_name);
            fuzz_touch_str(v->callee);
            fuzz_touch_str(psg_kind_name(v->kind));
            fuzz_touch_str(psg_gpu_op_name(v->op));
            if (v->parent != PSG_NO_PARENT && v->parent >= un->vertex_count)
                abort(); /* the parser must not hand out a dangling parent */
        }
    }
    psg_graph_free(&g);
    return 0;
}
