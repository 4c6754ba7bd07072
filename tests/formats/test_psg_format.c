/* test_psg_format.c — PSG builder/parser round trip, concatenated units with
 * linker padding, and refusal of corrupt or truncated sections. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "scalana/psg_format.h"

/* The unit with its payload stored plainly (PSG_UNIT_DEFLATED cleared), so
 * tests can corrupt individual records; readers accept both forms. */
static unsigned char *to_plain(const unsigned char *u, size_t n, size_t *out_n)
{
    struct psg_unit_header h;
    memcpy(&h, u, sizeof h);
    size_t raw = sizeof h + (size_t)h.vertex_count * 64 + h.string_bytes;
    size_t padded = (raw + 7) & ~(size_t)7;
    unsigned char *p = calloc(1, padded);
    uLongf dl = raw - sizeof h;
    uLong sl = n - sizeof h;
    assert_int_equal(uncompress2(p + sizeof h, &dl, u + sizeof h, &sl), Z_OK);
    assert_int_equal(dl, raw - sizeof h);
    if (h.flags & PSG_UNIT_BYTE_PLANES) { /* back to one record after the other */
        size_t nr = h.vertex_count;
        unsigned char *planes = malloc(nr * 64 + 1);
        memcpy(planes, p + sizeof h, nr * 64);
        for (size_t k = 0; k < 64; k++)
            for (size_t i = 0; i < nr; i++)
                p[sizeof h + i * 64 + k] = planes[k * nr + i];
        free(planes);
    }
    h.flags &= ~(uint32_t)(PSG_UNIT_DEFLATED | PSG_UNIT_BYTE_PLANES);
    h.unit_bytes = padded;
    memcpy(p, &h, sizeof h);
    *out_n = padded;
    return p;
}

static unsigned char *make_unit(const char *name, size_t *n)
{
    struct psg_builder *b = psg_builder_new(name, "clang 19", PSG_LANG_C,
                                            PSG_UNIT_HAS_DEBUG_INFO, 10);
    assert_non_null(b);
    struct psg_vertex f = {.stable_id = 11, .parent = PSG_NO_PARENT, .kind = PSG_FUNCTION,
                           .file = "/src/a.c", .first_line = 3, .last_line = 20,
                           .function = "main", .display_name = "main"};
    uint32_t fi = psg_builder_add(b, &f);
    assert_int_equal(fi, 0);
    struct psg_vertex l = {.stable_id = 12, .parent = fi, .kind = PSG_LOOP, .loop_depth = 1,
                           .file = "/src/a.c", .first_line = 5, .last_line = 15,
                           .function = "main"};
    uint32_t li = psg_builder_add(b, &l);
    struct psg_vertex m = {.stable_id = 13, .parent = li, .kind = PSG_MPI, .op = 42,
                           .loop_depth = 1, .file = "/src/a.c", .first_line = 9, .last_line = 9,
                           .column = 7, .function = "main", .callee = "MPI_Allreduce"};
    assert_int_equal(psg_builder_add(b, &m), 2);
    struct psg_vertex bad = {.parent = 99, .kind = PSG_COMPUTE};
    assert_int_equal(psg_builder_add(b, &bad), UINT32_MAX); /* parent must exist */
    unsigned char *buf;
    assert_int_equal(psg_builder_finish(b, &buf, n), 0);
    assert_int_equal(*n % 8, 0);
    psg_builder_free(b);
    return buf;
}

static void roundtrip(void **state)
{
    (void)state;
    size_t n;
    unsigned char *u = make_unit("/src/a.c", &n);
    struct psg_graph g;
    char err[256];
    assert_int_equal(psg_parse(u, n, &g, err, sizeof err), 0);
    assert_int_equal(g.unit_count, 1);
    const struct psg_unit *un = &g.units[0];
    assert_string_equal(un->unit_name, "/src/a.c");
    assert_string_equal(un->producer, "clang 19");
    assert_int_equal(un->loop_depth_limit, 10);
    assert_int_equal(un->vertex_count, 3);
    assert_int_equal(un->vertices[0].kind, PSG_FUNCTION);
    assert_int_equal(un->vertices[0].parent, PSG_NO_PARENT);
    assert_string_equal(un->vertices[0].function, "main");
    assert_int_equal(un->vertices[1].parent, 0);
    assert_int_equal(un->vertices[1].first_line, 5);
    assert_int_equal(un->vertices[1].last_line, 15);
    assert_int_equal(un->vertices[2].op, 42);
    assert_int_equal(un->vertices[2].column, 7);
    assert_string_equal(un->vertices[2].callee, "MPI_Allreduce");
    assert_string_equal(un->vertices[2].display_name, "");
    assert_true(un->vertices[2].stable_id == 13);
    psg_graph_free(&g);
    free(u);
}

static void concatenated_with_padding(void **state)
{
    (void)state;
    size_t n1, n2;
    unsigned char *u1 = make_unit("/src/a.c", &n1), *u2 = make_unit("/src/b.c", &n2);
    size_t n = n1 + 16 + n2; /* the linker may pad between input sections */
    unsigned char *all = calloc(1, n);
    memcpy(all, u1, n1);
    memcpy(all + n1 + 16, u2, n2);
    struct psg_graph g;
    char err[256];
    assert_int_equal(psg_parse(all, n, &g, err, sizeof err), 0);
    assert_int_equal(g.unit_count, 2);
    assert_string_equal(g.units[1].unit_name, "/src/b.c");
    assert_int_equal(g.units[1].vertices[2].op, 42);
    assert_true(g.units[0].unit_hash != g.units[1].unit_hash);
    psg_graph_free(&g);
    free(all), free(u1), free(u2);
}

static void refuses_corrupt(void **state)
{
    (void)state;
    size_t n;
    unsigned char *u = make_unit("/src/a.c", &n);
    struct psg_graph g;
    char err[256];
    /* every truncation is refused, never read past the end */
    for (size_t cut = 1; cut < n; cut += 7) {
        int rc = psg_parse(u, cut, &g, err, sizeof err);
        assert_int_equal(rc, -1);
        assert_non_null(strstr(err, "PSG"));
    }
    unsigned char *v = malloc(n);
    memcpy(v, u, n);
    v[8] = 99; /* version */
    assert_int_equal(psg_parse(v, n, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "version 99"));
    memcpy(v, u, n);
    v[0] = 'X';
    assert_int_equal(psg_parse(v, n, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "magic"));
    /* a flipped byte inside the compressed payload */
    memcpy(v, u, n);
    v[64 + 10] ^= 0xff;
    assert_int_equal(psg_parse(v, n, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "PSG unit at byte 0"));
    /* the plain form reads the same, and vertex 1's parent pointing forward is refused */
    size_t pn;
    unsigned char *plain = to_plain(u, n, &pn);
    assert_int_equal(psg_parse(plain, pn, &g, err, sizeof err), 0);
    assert_int_equal(g.units[0].vertex_count, 3);
    assert_string_equal(g.units[0].vertices[2].callee, "MPI_Allreduce");
    psg_graph_free(&g);
    uint32_t fwd = 2;
    memcpy(plain + 64 + 64 + 8, &fwd, 4);
    assert_int_equal(psg_parse(plain, pn, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "parent"));
    free(plain);
    free(v), free(u);
}

static void empty_section(void **state)
{
    (void)state;
    struct psg_graph g;
    char err[64];
    unsigned char zeros[32] = {0};
    assert_int_equal(psg_parse(zeros, sizeof zeros, &g, err, sizeof err), 0);
    assert_int_equal(g.unit_count, 0);
    psg_graph_free(&g);
}

static void elf_missing_file(void **state)
{
    (void)state;
    struct psg_graph g;
    char err[256];
    assert_int_equal(psg_read_elf("/nonexistent/binary", &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/binary"));
    /* a non-ELF file is refused by name */
    assert_int_equal(psg_read_elf("/etc/hostname", &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "not an ELF"));
    /* an ELF without the section reads as "no PSG" */
    assert_int_equal(psg_read_elf("/bin/true", &g, err, sizeof err), 0);
    assert_int_equal(g.unit_count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip), cmocka_unit_test(concatenated_with_padding),
        cmocka_unit_test(refuses_corrupt), cmocka_unit_test(empty_section),
        cmocka_unit_test(elf_missing_file)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
