/* test_par.c — the parallel analyzer's launch detection and slices (analyzer/par/par.c),
 * without MPI: the slices of every (P, N) cover each rank exactly once in
 * ascending order; a process not started by a launcher, or started as one of
 * one, or told SCALANA_ANALYZE_PROCESSES=1, stays serial without loading MPI;
 * a launch of N > 1 whose MPI module cannot be loaded is refused (-1), so the
 * N processes do not each write the whole report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "par/par.h"

static void t_slices_cover(void **state)
{
    (void)state;
    const uint32_t Ps[] = {0, 1, 2, 3, 7, 8, 64, 1000, 65536, 1u << 24};
    for (size_t q = 0; q < sizeof Ps / sizeof *Ps; q++)
        for (int N = 1; N <= 9; N++) {
            uint32_t next = 0;
            for (int k = 0; k < N; k++) {
                uint32_t lo, n;
                an_par_slice_of(Ps[q], k, N, &lo, &n);
                assert_int_equal(lo, next);           /* contiguous, ascending */
                assert_true(n <= Ps[q] / N + 1);      /* balanced within one rank */
                next = lo + n;
            }
            assert_int_equal(next, Ps[q]);            /* every rank, once */
        }
}

static void clear_launcher_env(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS",
                          "SLURM_STEP_NUM_TASKS", "PMIX_RANK", "PMIX_SIZE", "SCALANA_ANALYZE_PROCESSES",
                          "SCALANA_ANALYZE_MPI_MODULE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
}

static void t_serial_without_launcher(void **state)
{
    (void)state;
    clear_launcher_env();
    assert_int_equal(an_par_start(), 0);
    assert_int_equal(an_par_size(), 1);
    assert_int_equal(an_par_rank(), 0);
    assert_string_equal(an_par_library(), "");
    assert_true(an_par_mine(12345, 65536)); /* serial: every rank is ours */
    /* and no MPI library was loaded */
    FILE *maps = fopen("/proc/self/maps", "r");
    assert_non_null(maps);
    char line[4096];
    while (fgets(line, sizeof line, maps)) assert_null(strstr(line, "libmpi"));
    fclose(maps);
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1); /* mpirun -n 1 */
    assert_int_equal(an_par_start(), 0);
    assert_int_equal(an_par_size(), 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("SCALANA_ANALYZE_PROCESSES", "1", 1); /* forced serial */
    assert_int_equal(an_par_start(), 0);
    assert_int_equal(an_par_size(), 1);
    clear_launcher_env();
}

static void t_missing_module_refused(void **state)
{
    (void)state;
    clear_launcher_env();
    setenv("PMI_SIZE", "2", 1); /* Hydra, two processes */
    setenv("SCALANA_ANALYZE_MPI_MODULE", "/nonexistent/libscalana-analyze-mpi-x.so", 1);
    assert_int_equal(an_par_start(), -1);
    assert_int_equal(an_par_size(), 1); /* nothing was started */
    clear_launcher_env();
    setenv("SLURM_PROCID", "0", 1); /* srun -n 3, any library */
    setenv("SLURM_NTASKS", "3", 1);
    setenv("SCALANA_ANALYZE_MPI_MODULE", "/nonexistent/module.so", 1);
    assert_int_equal(an_par_start(), -1);
    clear_launcher_env();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_slices_cover),
        cmocka_unit_test(t_serial_without_launcher),
        cmocka_unit_test(t_missing_module_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
