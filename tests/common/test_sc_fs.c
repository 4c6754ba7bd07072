/* test_sc_fs.c — the output-directory steps of the analyzer and the viewer
 * (common/sc_fs.c) on a real directory: mkdir -p of nested and existing
 * paths, a too long path refused with ENAMETOOLONG, the cause graph names
 * recognised exactly, and stale cause graphs removed while other files and
 * the kept ones stay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_fs.h"

static char root[512];

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists(const char *dir, const char *name)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void touch(const char *dir, const char *name)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
}

static void t_mkdir_p(void **state)
{
    (void)state;
    char p[600];
    snprintf(p, sizeof p, "%s/a/b/c", root);
    assert_int_equal(sc_mkdir_p(p), 0);
    assert_true(is_dir(p));
    assert_int_equal(sc_mkdir_p(p), 0); /* exists: fine */
    snprintf(p, sizeof p, "%s/a/b/c/", root); /* a trailing slash too */
    assert_int_equal(sc_mkdir_p(p), 0);
    /* a file in the way */
    touch(root, "plain");
    snprintf(p, sizeof p, "%s/plain/sub", root);
    assert_int_equal(sc_mkdir_p(p), -1);
    assert_int_equal(errno, ENOTDIR);
    char *longp = malloc(5000);
    memset(longp, 'x', 4999);
    longp[0] = '/', longp[4999] = 0;
    errno = 0;
    assert_int_equal(sc_mkdir_p(longp), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    free(longp);
}

static void t_names(void **state)
{
    (void)state;
    long r = -1;
    char ext[4];
    assert_int_equal(sc_cause_graph_name("rootcause-3.dot", &r, ext), 1);
    assert_int_equal(r, 3);
    assert_string_equal(ext, "dot");
    assert_int_equal(sc_cause_graph_name("rootcause-12.svg", &r, ext), 1);
    assert_int_equal(r, 12);
    assert_string_equal(ext, "svg");
    const char *not[] = {"rootcause-.dot", "rootcause--1.dot", "rootcause- 1.dot", "rootcause-1.png",
                         "rootcause-1.dot.bak", "rootcause-1", "xrootcause-1.dot", "rootcause-1x.dot",
                         "rootcause-1.dotx", "psg.dot", ""};
    for (size_t i = 0; i < sizeof not / sizeof *not; i++)
        assert_int_equal(sc_cause_graph_name(not[i], &r, ext), 0);
}

/* keeps rank 1 (dot and svg) and the dot of rank 2 */
static int keep_some(long rank, const char *ext, void *ctx)
{
    (*(int *)ctx)++;
    return rank == 1 || (rank == 2 && !strcmp(ext, "dot"));
}

static void t_remove(void **state)
{
    (void)state;
    char d[600];
    snprintf(d, sizeof d, "%s/out", root);
    assert_int_equal(sc_mkdir_p(d), 0);
    const char *files[] = {"rootcause-1.dot", "rootcause-1.svg", "rootcause-2.dot", "rootcause-2.svg",
                           "rootcause-7.dot", "rootcause-1.png", "report.json", "rootcause-x.dot"};
    for (size_t i = 0; i < 8; i++) touch(d, files[i]);
    int asked = 0;
    sc_remove_cause_graphs(d, keep_some, &asked);
    assert_int_equal(asked, 5); /* only cause graph names are asked about */
    assert_true(exists(d, "rootcause-1.dot") && exists(d, "rootcause-1.svg") && exists(d, "rootcause-2.dot"));
    assert_false(exists(d, "rootcause-2.svg") || exists(d, "rootcause-7.dot"));
    assert_true(exists(d, "rootcause-1.png") && exists(d, "report.json") && exists(d, "rootcause-x.dot"));
    sc_remove_cause_graphs(d, NULL, NULL); /* all of them */
    assert_false(exists(d, "rootcause-1.dot") || exists(d, "rootcause-1.svg") || exists(d, "rootcause-2.dot"));
    assert_true(exists(d, "report.json"));
    sc_remove_cause_graphs("/nonexistent/dir", NULL, NULL); /* nothing to do, no crash */
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/sc_fs.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    const struct CMUnitTest tests[] = {cmocka_unit_test(t_mkdir_p), cmocka_unit_test(t_names), cmocka_unit_test(t_remove)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
