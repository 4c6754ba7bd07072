/* example_omp.h — the balanced parallel work of the MPI + OpenMP examples
 * (examples.list needs openmp; built with -fopenmp): equal rows that the
 * static schedule splits evenly between the threads.  A header of its own so
 * that the pure MPI examples, built without -fopenmp, see no OpenMP pragma. */
#ifndef SCALANA_EXAMPLE_OMP_H
#define SCALANA_EXAMPLE_OMP_H

#include "example.h"

/* nrows equal rows of row_seconds CPU seconds each, shared by the team;
 * returns the CPU seconds all threads spent. */
static double ex_omp_rows(double row_seconds, int nrows)
{
    double spent = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : spent)
    for (int row = 0; row < nrows; row++) {
        volatile double acc = 0.0;
        double start = ex_cpu_seconds();
        while (ex_cpu_seconds() - start < row_seconds)
            for (int i = 0; i < EX_INNER / 10; i++) acc += i * 2e-9;
        spent += ex_cpu_seconds() - start;
    }
    return spent;
}

#endif /* SCALANA_EXAMPLE_OMP_H */
