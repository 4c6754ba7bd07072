/* test_run_info.c — run.json written without a JSON library reads back
 * through jansson, including strings that need escaping; bad files named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scalana/run_info.h"

static void roundtrip(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/runinfo-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    char *argv[] = {"./app", "--name=\"quoted\"\\back", "tab\there", "\x01"};
    uint32_t r0[] = {0, 2}, r1[] = {1, 3};
    struct scalana_run_host hosts[] = {{"node-a", 2, 2, r0}, {"node-b", 2, 2, r1}};
    char *files[] = {"profile-000000-000003.sclp"};
    char *libs[] = {"exe/lib/libwork.so", "/abs/libbad.so"};
    struct scalana_run_info w = {
        .version = 1, .argv = argv, .argc = 4, .launcher = "mpirun -n 4 ./app",
        .processes = 4, .hosts = hosts, .host_count = 2, .usable_cores = 4,
        .sampler = "cputime", .sample_period_ns = 5000000,
        .start_realtime_ns = 1790000000000000000ull, .end_realtime_ns = 1790000001000000000ull,
        .mpi_library = "openmpi", .mpi_version = "Open MPI v4.1.4", .executable = "/x/app",
        .build_id = "0123abcd", .executable_copy = "exe/app", .executable_copy_method = "hard link",
        .library_copies = libs, .library_copy_count = 2,
        .scalana_version = "0.1.0", .written_by = "finalize",
        .profile_files = files, .profile_file_count = 1};
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    FILE *f = fopen(path, "w");
    assert_int_equal(scalana_run_info_write(f, &w), 0);
    fclose(f);
    struct scalana_run_info r;
    char err[512];
    assert_int_equal(scalana_run_info_read(dir, &r, err, sizeof err), 0);
    assert_int_equal(r.argc, 4);
    assert_string_equal(r.argv[1], argv[1]);
    assert_string_equal(r.argv[2], argv[2]);
    assert_string_equal(r.argv[3], argv[3]);
    assert_string_equal(r.launcher, "mpirun -n 4 ./app");
    assert_int_equal(r.processes, 4);
    assert_int_equal(r.host_count, 2);
    assert_string_equal(r.hosts[1].name, "node-b");
    assert_int_equal(r.hosts[1].ranks[1], 3);
    assert_true(r.sample_period_ns == 5000000);
    assert_true(r.end_realtime_ns == 1790000001000000000ull);
    assert_string_equal(r.build_id, "0123abcd");
    assert_string_equal(r.executable_copy, "exe/app");
    assert_string_equal(r.executable_copy_method, "hard link");
    assert_string_equal(r.debug_copy, ""); /* written as null */
    assert_int_equal(r.library_copy_count, 1); /* an absolute path is not inside the run */
    assert_string_equal(r.library_copies[0], "exe/lib/libwork.so");
    assert_int_equal(r.profile_file_count, 1);
    scalana_run_info_free(&r);

    /* a copy named outside the run directory is ignored */
    w.executable_copy = "../elsewhere/app";
    f = fopen(path, "w");
    assert_int_equal(scalana_run_info_write(f, &w), 0);
    fclose(f);
    assert_int_equal(scalana_run_info_read(dir, &r, err, sizeof err), 0);
    assert_string_equal(r.executable_copy, "");
    scalana_run_info_free(&r);

    /* corrupt JSON and a missing field are refused naming the file */
    f = fopen(path, "w");
    fputs("{\"version\": 1, \"processes\": ", f);
    fclose(f);
    assert_int_equal(scalana_run_info_read(dir, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    f = fopen(path, "w");
    fputs("{\"version\": 1, \"processes\": 4}", f);
    fclose(f);
    assert_int_equal(scalana_run_info_read(dir, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "executable"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(scalana_run_info_read(dir, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "no such run directory"));
    /* a file instead of the directory, and a directory without run.json */
    assert_int_equal(scalana_run_info_read("/etc/hostname", &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a directory"));
    assert_int_equal(scalana_run_info_read("/etc", &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "/etc/run.json: missing"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(roundtrip)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
