/* test_report.c — cmocka unit tests of report.json (analyzer/report/report.c): the categories against
 * docs/report.schema.json. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/options.h"
#include "core/types.h"
#include "detect/category.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>

/* One list of categories (include/scalana/categories.def): the names are
 * exactly docs/report.schema.json's enum, each with a label and a remedy;
 * --help lists every one. */
static void t_categories_schema(void **state)
{
    (void)state;
    json_error_t err;
    json_t *schema = json_load_file(REPORT_SCHEMA, 0, &err);
    assert_non_null(schema);
    json_t *en;
    en = json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(schema, "$defs"),
                                                                         "root_cause"), "properties"), "category"),
                         "enum");
    assert_true(json_is_array(en));
    assert_int_equal(json_array_size(en), AN_CAT_COUNT);
    for (int c = 0; c < AN_CAT_COUNT; c++) {
        int found = 0;
        size_t i;
        json_t *x;
        json_array_foreach(en, i, x) found += strcmp(json_string_value(x), an_category_name((enum an_category)c)) == 0;
        assert_int_equal(found, 1);
        assert_true(strlen(an_category_label((enum an_category)c)) > 3);
        assert_true(strlen(an_category_remedy((enum an_category)c)) > 20);
    }
    json_decref(schema);
    /* --help prints every category with its remedy */
    char path[] = "/tmp/scalana-help-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    struct an_options o;
    an_options_defaults(&o);
    char *argv[] = {"scalana-analyze", "--help", NULL};
    int rc = an_options_parse(&o, 2, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    assert_int_equal(rc, 1);
    FILE *f = fopen(path, "r");
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f), close(fd), unlink(path);
    for (int c = 0; c < AN_CAT_COUNT; c++) assert_non_null(strstr(text, an_category_name((enum an_category)c)));
    an_options_free(&o);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_categories_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
