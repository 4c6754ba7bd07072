/* ompt.c — OpenMP regions with known shapes and planted waits, for
 * test_ompt.py (OMPT through LLVM's libomp when built by scalana-cc -fopenmp;
 * the same source under gcc's libgomp has no OMPT).  Per process:
 *   REGION_A  10 instances, 3 threads; thread 1 sleeps A_MS ms before an
 *             explicit barrier (threads 0 and 2 wait there about 10 * A_MS)
 *   REGION_B  4 instances, 2 threads, a work-sharing loop of 1000 iterations;
 *             the master sleeps B_MS ms after it, so thread 1 waits about
 *             4 * B_MS at the implicit barrier ending the region */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define A_MS 20
#define B_MS 30

static volatile double sink;

static void region_a(void)
{
    for (int i = 0; i < 10; i++) {
#pragma omp parallel num_threads(3) /* REGION_A */
        {
            if (omp_get_thread_num() == 1)
                usleep(A_MS * 1000);
#pragma omp barrier
        }
    }
}

static void region_b(void)
{
    for (int i = 0; i < 4; i++) {
#pragma omp parallel num_threads(2) /* REGION_B */
        {
            double s = 0;
#pragma omp for nowait
            for (int k = 0; k < 1000; k++)
                s += k * 0.5;
            sink = s;
            if (omp_get_thread_num() == 0)
                usleep(B_MS * 1000);
        }
    }
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    region_a();
    region_b();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ompt done\n");
    MPI_Finalize();
    return 0;
}
