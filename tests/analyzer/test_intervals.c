/* test_intervals.c — the analyzer's ingestion of computation intervals on a
 * real run: intervals.sh runs tests/runtime/progs/intervals.c under the
 * runtime with mpirun (2 processes), then this program reads the run
 * directory with the analyzer's own reader functions and checks
 * an_interval_before / an_interval_after on the MPI vertices of the marked
 * lines: rank r computes 3 x 0.1 * (r + 1) s of CPU time between
 * MPI_Barrier (LINE_A) and MPI_Allreduce (LINE_B).  The same profiles with
 * the interval record removed (an older profile) give "no data".
 *
 * usage: test_intervals RUN_DIR EXECUTABLE SOURCE */
#include "core/graph.h"
#include "core/mpi_table.h"
#include "core/options.h"
#include "core/types.h"
#include "ppg/ppg.h"
#include "ppg/run_source.h"
#include "read/attribute.h"
#include "read/symbolize.h"
#include "scalana/profile_format.h"
#include "scalana/psg_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static uint32_t marker_line(const char *src, const char *marker)
{
    FILE *f = fopen(src, "r");
    char line[512], want[64];
    snprintf(want, sizeof want, "/* %s */", marker);
    uint32_t n = 0, found = 0;
    while (f && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, want)) found = n;
    }
    if (f) fclose(f);
    return found;
}

/* Reads every rank of dir into r (strip: drop the interval record first). */
static void read_run(const char *dir, struct an_run *r, struct an_attr_ctx *c, int strip)
{
    char err[1024], **files = NULL;
    int nf = prf_run_list_files(dir, &files, err, sizeof err);
    if (nf <= 0) {
        fprintf(stderr, "FAIL: %s: no profiles (%s)\n", dir, nf < 0 ? err : "none");
        exit(1);
    }
    int inited = 0;
    for (int k = 0; k < nf; k++) {
        struct prf_file f;
        if (prf_file_open(files[k], &f, err, sizeof err) != 0) {
            fprintf(stderr, "FAIL: %s\n", err);
            exit(1);
        }
        if (!inited) an_run_init(r, f.header.world_size), inited = 1;
        for (uint32_t i = 0; i < f.header.rank_count; i++) {
            struct prf_rank_data d;
            if (prf_file_read_rank(&f, i, &d, err, sizeof err) != 1) {
                fprintf(stderr, "FAIL: %s\n", err);
                exit(1);
            }
            CHECK(d.has_intervals, "rank %u: no interval record", d.info.world_rank);
            if (strip) d.has_intervals = 0, d.interval_count = 0;
            if (an_run_add_rank(r, c, &d, err, sizeof err) != 0) CHECK(0, "%s", err);
            prf_rank_free(&d);
        }
        prf_file_close(&f);
        free(files[k]);
    }
    free(files);
}

/* The MPI vertex of op name `op` whose call is on `line`. */
static uint32_t mpi_vertex_at(const struct an_graph *g, const char *op, uint32_t line)
{
    uint32_t found = AN_NONE;
    for (uint32_t v = 0; v < g->n; v++)
        if (g->v[v].kind == PSG_MPI && !strcmp(an_mpi_name(g->v[v].op), op) && g->v[v].line == line) {
            CHECK(found == AN_NONE, "two %s vertices on line %u", op, line);
            found = v;
        }
    CHECK(found != AN_NONE, "no %s vertex on line %u", op, line);
    return found;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_intervals RUN_DIR EXECUTABLE SOURCE\n");
        return 2;
    }
    const char *dir = argv[1], *exe = argv[2], *src = argv[3];
    uint32_t la = marker_line(src, "LINE_A"), lb = marker_line(src, "LINE_B"), lc = marker_line(src, "LINE_C");
    if (!la || !lb || !lc) {
        fprintf(stderr, "FAIL: markers not found in %s\n", src);
        return 1;
    }
    struct an_options opt;
    an_options_defaults(&opt);
    char bid[128] = "";
    an_elf_build_id(exe, bid, sizeof bid);
    struct an_graph g;
    an_graph_init(&g);
    struct an_symbolizer *sym = an_sym_new(&g.strings, exe, bid);
    struct an_attr_ctx c;
    an_attr_ctx_init(&c, &g, sym, NULL, &opt);
    struct an_run r, old;
    read_run(dir, &r, &c, 0);
    read_run(dir, &old, &c, 1);
    an_run_finish(&r, &g);
    an_run_finish(&old, &g);
    CHECK(r.has_intervals == 1 && r.nintervals > 0, "has_intervals %d, %u pairs", r.has_intervals, r.nintervals);
    CHECK(r.interval_overflow == 0, "overflow %llu", (unsigned long long)r.interval_overflow);
    uint32_t va = mpi_vertex_at(&g, "MPI_Barrier", la), vb = mpi_vertex_at(&g, "MPI_Allreduce", lb);
    uint32_t vc = mpi_vertex_at(&g, "MPI_Allreduce", lc);
    if (va == AN_NONE || vb == AN_NONE || vc == AN_NONE) return 1;
    uint32_t P = r.P;
    double *w = calloc(P, sizeof *w), *cpu = calloc(P, sizeof *cpu), *after = calloc(P, sizeof *after);
    CHECK(an_interval_before(&r, vb, 0, w) == 1, "before(B) says no data");
    CHECK(an_interval_before(&r, vb, 1, cpu) == 1, "before(B, cpu) says no data");
    CHECK(an_interval_after(&r, va, 0, after) == 1, "after(A) says no data");
    for (uint32_t i = 0; i < P; i++) {
        double T = 3 * 0.1 * (i + 1);
        CHECK(w[i] >= 0.97 * T && w[i] <= 10 * T, "rank %u: wall before Allreduce(B) %.3f s, planted %.2f s CPU", i, w[i], T);
        CHECK(cpu[i] >= 0.5 * T && cpu[i] <= 1.5 * T, "rank %u: CPU before Allreduce(B) %.3f s, planted %.2f s", i, cpu[i], T);
        CHECK(cpu[i] <= w[i] * 1.05 + 0.01, "rank %u: CPU %.3f s above wall %.3f s", i, cpu[i], w[i]);
        /* only Barrier(A) precedes Allreduce(B), and only B follows A */
        CHECK(fabs(after[i] - w[i]) < 1e-6 * (1 + w[i]), "rank %u: after(A) %.6f != before(B) %.6f", i, after[i], w[i]);
    }
    /* on CPU time: under ctest -j2 on 2 cores the wall time of the lighter
     * rank can be stretched past the heavier one's (seen: 1.393 vs 0.998 s) */
    CHECK(cpu[P - 1] > 1.3 * cpu[0] || P == 1, "the heavier rank is not heavier: %.3f vs %.3f s CPU", cpu[P - 1],
          cpu[0]);
    /* the pair's own statistics */
    const struct an_interval *ab = NULL;
    for (uint32_t k = 0; k < r.nintervals; k++)
        if (r.intervals[k].prev_vertex == va && r.intervals[k].next_vertex == vb) ab = &r.intervals[k];
    CHECK(ab != NULL, "no (A, B) interval");
    if (ab)
        for (uint32_t i = 0; i < P; i++) {
            double T = 0.1 * (i + 1);
            CHECK(ab->count[i] == 3, "rank %u: count %g", i, ab->count[i]);
            CHECK(ab->wall_min[i] >= 0.97 * T && ab->wall_min[i] <= ab->wall_max[i], "rank %u: min %g max %g", i,
                  ab->wall_min[i], ab->wall_max[i]);
            CHECK(ab->wall_sq[i] >= 3 * ab->wall_min[i] * ab->wall_min[i] * 0.99, "rank %u: sum of squares %g", i,
                  ab->wall_sq[i]);
            CHECK(ab->cpu_exact == 0, "auto mode: the first interval is estimated from samples");
        }
    /* the worker thread: thread start -> C, C -> thread end */
    double *s = calloc(P, sizeof *s), *e = calloc(P, sizeof *e);
    an_interval_before(&r, vc, 0, s);
    an_interval_after(&r, vc, 0, e);
    for (uint32_t i = 0; i < P; i++) {
        CHECK(s[i] >= 0.039 && e[i] >= 0.029, "rank %u: worker before/after C %.3f / %.3f s", i, s[i], e[i]);
    }
    int from_start = 0, to_end = 0;
    for (uint32_t k = 0; k < r.nintervals; k++) {
        from_start += r.intervals[k].prev_vertex == AN_NONE && r.intervals[k].next_vertex == vc;
        to_end += r.intervals[k].prev_vertex == vc && r.intervals[k].next_vertex == AN_NONE;
    }
    CHECK(from_start == 1 && to_end == 1, "worker intervals from start %d, to end %d", from_start, to_end);
    /* an older profile: "no data", out zeroed */
    for (uint32_t i = 0; i < P; i++) w[i] = 99;
    CHECK(an_interval_before(&old, vb, 0, w) == 0, "a run without interval records says it has data");
    for (uint32_t i = 0; i < P; i++) CHECK(w[i] == 0, "rank %u: out not zeroed (%g)", i, w[i]);
    CHECK(an_interval_after(&old, va, 1, w) == 0 && old.nintervals == 0 && !old.has_intervals, "old run has intervals");
    free(w), free(cpu), free(after), free(s), free(e);
    an_run_free(&r);
    an_run_free(&old);
    an_attr_ctx_free(&c);
    an_sym_free(sym);
    an_graph_free(&g);
    an_options_free(&opt);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else printf("ok: intervals ingested\n");
    return failures ? 1 : 0;
}
