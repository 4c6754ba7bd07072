/* test_run_files.c — the run-directory names API (formats/run_files.c):
 * names built and parsed back, the matching rule the tools list by, the
 * default directory name, and the listing (sorted, names or paths). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scalana/run_files.h"

static void test_build_parse(void **state)
{
    (void)state;
    char b[SCALANA_PROFILE_NAME_MAX];
    assert_int_equal(scalana_profile_file_name(b, sizeof b, 0, 3, 0), 26);
    assert_string_equal(b, "profile-000000-000003.sclp");
    assert_int_equal(scalana_profile_file_name(b, sizeof b, 7, 7, 1), 31);
    assert_string_equal(b, ".profile-000007-000007.sclp.tmp");
    /* the largest ranks still fit */
    assert_true(scalana_profile_file_name(b, sizeof b, UINT32_MAX, UINT32_MAX, 1) > 0);
    assert_int_equal(scalana_profile_file_name(b, 10, 0, 3, 0), -1);
    assert_string_equal(b, "");
    uint32_t lo = 99, hi = 99;
    assert_int_equal(scalana_profile_file_parse("/a/b/profile-000100-000131.sclp", &lo, &hi), 1);
    assert_int_equal(lo, 100);
    assert_int_equal(hi, 131);
    assert_int_equal(scalana_profile_file_parse("profile-000001-000002.sclp.tmp", &lo, &hi), 0);
    assert_int_equal(scalana_profile_file_parse(".profile-000001-000002.sclp.tmp", &lo, &hi), 0);
    assert_int_equal(scalana_profile_file_parse("profile-x.sclp", &lo, &hi), 0);
    assert_int_equal(lo, 100); /* untouched on failure */
}

static void test_match(void **state)
{
    (void)state;
    assert_true(scalana_profile_file_match("profile-000000-000003.sclp"));
    assert_true(scalana_profile_file_match("profile-old.sclp")); /* listed, then read (and refused) */
    assert_false(scalana_profile_file_match(".profile-000000-000003.sclp.tmp"));
    assert_false(scalana_profile_file_match("profile-.sclp"));
    assert_false(scalana_profile_file_match("run.json"));
    assert_false(scalana_profile_file_match("x.sclp"));
    assert_true(scalana_profile_tmp_match(".profile-000007-000007.sclp.tmp"));
    assert_false(scalana_profile_tmp_match("profile-000007-000007.sclp"));
    assert_false(scalana_profile_tmp_match(".profile-.sclp.tmp"));
    assert_false(scalana_profile_tmp_match(".profile-000007-000007.sclp.tmp~"));
    assert_false(scalana_profile_tmp_match(".other-000007.sclp.tmp"));
    assert_true(scalana_profile_path_has_suffix("/tmp/copy.sclp"));
    assert_false(scalana_profile_path_has_suffix(".sclp"));
    assert_false(scalana_profile_path_has_suffix("/tmp/run"));
}

/* run.json's temporary is hidden (a rank SIGKILLed between writing and
 * renaming it left a visible one: runtime.mpich.writing_exit.np8), and the
 * visible name of earlier versions is still recognised for removal. */
static void test_run_info_tmp(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(scalana_run_info_tmp_path(buf, sizeof buf, "/r", 7044, 4), 23);
    assert_string_equal(buf, "/r/.run.json.tmp.7044.4");
    assert_int_equal(scalana_run_info_tmp_path(buf, 10, "/r", 7044, 4), -1);
    assert_string_equal(buf, "");
    assert_true(scalana_run_info_tmp_match(".run.json.tmp.7044.4"));
    assert_true(scalana_run_info_tmp_match("run.json.tmp.7044.4"));
    assert_false(scalana_run_info_tmp_match("run.json"));
    assert_false(scalana_run_info_tmp_match(".run.json.tmp."));
    assert_false(scalana_run_info_tmp_match("xrun.json.tmp.1.2"));
}

static void test_default_dir(void **state)
{
    (void)state;
    char b[64];
    assert_int_equal(scalana_run_dir_default_name(b, sizeof b, "cg.x", 16), 16);
    assert_string_equal(b, "scalana-cg.x-16p");
    scalana_run_dir_default_name(b, sizeof b, "", 2);
    assert_string_equal(b, "scalana-app-2p");
    assert_true(scalana_run_dir_default_name(b, 8, "long-name", 2) >= 8); /* truncation reported */
}

static void touch(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
}

static void test_list(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char dir[400];
    snprintf(dir, sizeof dir, "%s/run_files.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    char err[256];
    char **v = NULL;
    assert_int_equal(scalana_run_list_profiles(dir, 0, &v, err, sizeof err), 0);
    assert_null(v);
    touch(dir, "profile-000004-000007.sclp");
    touch(dir, "profile-000000-000003.sclp");
    touch(dir, ".profile-000008-000008.sclp.tmp");
    touch(dir, "run.json");
    assert_int_equal(scalana_run_list_profiles(dir, 0, &v, err, sizeof err), 2);
    assert_string_equal(v[0], "profile-000000-000003.sclp");
    assert_string_equal(v[1], "profile-000004-000007.sclp");
    for (int i = 0; i < 2; i++)
        free(v[i]);
    free(v);
    assert_int_equal(scalana_run_list_profiles(dir, 1, &v, err, sizeof err), 2);
    char want[512];
    snprintf(want, sizeof want, "%s/profile-000000-000003.sclp", dir);
    assert_string_equal(v[0], want);
    for (int i = 0; i < 2; i++)
        free(v[i]);
    free(v);
    const char *names[] = {"profile-000004-000007.sclp", "profile-000000-000003.sclp",
                           ".profile-000008-000008.sclp.tmp", "run.json"};
    for (int i = 0; i < 4; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    assert_int_equal(scalana_run_list_profiles(dir, 1, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, dir)); /* the error names the directory */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_parse),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_run_info_tmp),
        cmocka_unit_test(test_default_dir),
        cmocka_unit_test(test_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
