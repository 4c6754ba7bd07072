/* test_options.c — cmocka unit tests of the command line (analyzer/core/options.c). */
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/mpi_table.h"
#include "core/options.h"
#include "core/types.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void t_options(void **state)
{
    (void)state;
    struct an_options o;
    an_options_defaults(&o);
    char th[] = "imbalance=1.5", sp[] = "/a=/b"; /* parsed in place */
    char *argv[] = {"scalana-analyze", "-o", "out", "--weak", "-t", th, "--source-path", sp, "d1", "d2", NULL};
    assert_int_equal(an_options_parse(&o, 10, argv), 0);
    assert_true(o.weak);
    assert_true(o.th.imbalance == 1.5);
    assert_int_equal(o.run_dir_count, 2);
    struct an_strpool p = {0};
    assert_string_equal(an_remap_path(&o, &p, "/a/x.c"), "/b/x.c");
    assert_string_equal(an_remap_path(&o, &p, "/c/x.c"), "/c/x.c");
    an_strpool_free(&p);
    an_options_free(&o);
    an_options_defaults(&o);
    char ns[] = "nosuch=1";
    char *bad[] = {"scalana-analyze", "-t", ns, "d", NULL};
    assert_int_equal(an_options_parse(&o, 4, bad), -1);
    an_options_free(&o);
    /* a step bound beyond the range (3e9 asked the walk for more memory than
     * exists; 4294967296 wrapped to 0 and switched the walk off) */
    const char *big[] = {"max_steps=3e9", "max_steps=4294967296", "max_steps=1e300", "max_steps=0"};
    for (size_t k = 0; k < sizeof big / sizeof *big; k++) {
        an_options_defaults(&o);
        char v[32];
        snprintf(v, sizeof v, "%s", big[k]);
        char *bv[] = {"scalana-analyze", "-t", v, "d", NULL};
        assert_int_equal(an_options_parse(&o, 4, bv), -1);
        an_options_free(&o);
    }
    an_options_defaults(&o);
    char ok_steps[] = "max_steps=1000000";
    char *okv[] = {"scalana-analyze", "-t", ok_steps, "d", NULL};
    assert_int_equal(an_options_parse(&o, 4, okv), 0);
    assert_true(o.th.max_steps == 1e6);
    an_options_free(&o);
    assert_string_equal(an_mpi_name(203), "MPI_Allreduce");
    assert_int_equal(an_mpi_role(203), AN_MPI_COLLECTIVE);
    assert_true(an_mpi_nonblocking(121));
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
