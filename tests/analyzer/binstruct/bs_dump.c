/* bs_dump.c — prints the PSG that analyzer/binstruct recovers from an ELF
 * file, one vertex a line, indented by depth, for the tests in this
 * directory (check_binstruct.py):
 *   KIND function file:first-last [col N] [callee NAME] [op NAME] [flags]
 * Usage: bs_dump EXE   (exit 0, or 1 with the reason on stderr)
 *        bs_dump --cache DIR|off EXE: through the build-id cache (bs_load); the
 *        first line then says "cache: hit|written|none PATH". */
#include "binstruct.h"
#include "read/symbolize.h"
#include "scalana/psg_format.h"
#include "scalana/mpi_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : (p ? p : "");
}

int main(int argc, char **argv)
{
    struct psg_graph g;
    char err[1024];
    if (argc == 4 && !strcmp(argv[1], "--cache")) {
        struct bs_cache_opts co = {!strcmp(argv[2], "off"), argv[2]};
        struct bs_load_info info;
        char bid[128];
        if (an_elf_build_id(argv[3], bid, sizeof bid) != 0) {
            fprintf(stderr, "bs_dump: %s: cannot read its build-id\n", argv[3]);
            return 1;
        }
        if (bs_load(argv[3], bid, &co, &g, &info, err, sizeof err) != 0) {
            fprintf(stderr, "bs_dump: %s\n", err);
            return 1;
        }
        printf("cache: %s %s\n", info.from_cache ? "hit" : info.cache_written ? "written" : "none", info.cache_path);
    } else if (argc == 2) {
        unsigned char *b;
        size_t n;
        uint32_t loops;
        if (bs_recover(argv[1], &b, &n, &loops, err, sizeof err) != 0) {
            fprintf(stderr, "bs_dump: %s\n", err);
            return 1;
        }
        if (psg_parse(b, n, &g, err, sizeof err) != 0) {
            fprintf(stderr, "bs_dump: %s: recovered PSG does not parse: %s\n", argv[1], err);
            return 1;
        }
        free(b);
    } else {
        fprintf(stderr, "usage: bs_dump EXE | bs_dump --cache DIR|off EXE\n");
        return 2;
    }
    for (uint32_t u = 0; u < g.unit_count; u++) {
        const struct psg_unit *un = &g.units[u];
        printf("UNIT %s recovered=%d vertices=%u\n", un->producer, bs_unit_is_recovered(un), un->vertex_count);
        uint32_t *depth = calloc(un->vertex_count + 1, sizeof *depth);
        for (uint32_t i = 0; i < un->vertex_count; i++) {
            const struct psg_vertex *v = &un->vertices[i];
            depth[i] = v->parent == PSG_NO_PARENT ? 0 : depth[v->parent] + 1;
            printf("%*s%s %s %s:%u-%u", (int)depth[i] * 2, "", psg_kind_name(v->kind),
                   v->kind == PSG_FUNCTION ? v->display_name : v->function, base(v->file), v->first_line,
                   v->last_line);
            if (v->column) printf(" col %u", v->column);
            if (v->kind == PSG_MPI) printf(" op %s", scalana_mpi_op_name(v->op));
            else if (v->kind == PSG_GPU) printf(" gpu %s callee %s", psg_gpu_op_name(v->op), v->callee);
            else if (v->callee && *v->callee) printf(" callee %s", v->callee);
            if (v->kind == PSG_LOOP) printf(" depth %u", v->loop_depth);
            if (v->flags & PSG_V_REACHES_MPI) printf(" reaches_mpi");
            printf("\n");
        }
        free(depth);
    }
    psg_graph_free(&g);
    return 0;
}
