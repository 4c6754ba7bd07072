/* test_symbolize.c — cmocka unit tests of the symbolizer (analyzer/read/symbolize.c): a relative
 * source path joined to DW_AT_comp_dir. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "read/symbolize.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>

/* A plain `cc ../relpath_main.c` build records a relative file name: the
 * symbolizer joins it to DW_AT_comp_dir ("../" folded), so report.json and the
 * viewer name a file that exists. */
static void t_relative_source(void **state)
{
    (void)state;
    const char *prog = RELPATH_PROG;
    char bid[128] = "", cmd[4200], line[512];
    assert_int_equal(an_elf_build_id(prog, bid, sizeof bid), 0);
    /* the module-relative address of relpath_work (a PIE's symbol value) */
    snprintf(cmd, sizeof cmd, "nm '%s'", prog);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    unsigned long long addr = 0;
    char type, name[256];
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, "relpath_work")) break;
        else addr = 0;
    pclose(p);
    assert_true(addr != 0);
    struct an_strpool pool = {0};
    struct an_symbolizer *sym = an_sym_new(&pool, prog, bid);
    char warn[512] = "";
    uint32_t m = an_sym_module(sym, prog, bid, warn, sizeof warn);
    const struct an_resolved *r = an_sym_resolve(sym, m, addr + 8, 0);
    assert_true(r->nframes >= 1);
    const char *file = r->frames[r->nframes - 1].file;
    assert_int_equal(strncmp(RELPATH_REL, "../", 3), 0); /* the build really was relative */
    assert_true(file[0] == '/');
    assert_null(strstr(file, "/../"));
    assert_null(strstr(file, "/./"));
    assert_non_null(strstr(file, "tests/analyzer/relpath_main.c"));
    assert_int_equal(access(file, R_OK), 0);
    an_sym_free(sym);
    an_strpool_free(&pool);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_relative_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
