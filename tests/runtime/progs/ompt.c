/* ompt.c — OpenMP regions with known shapes and planted waits, for
 * test_ompt.py (OMPT through LLVM's libomp when built by scalana-cc -fopenmp;
 * the same source under gcc's libgomp has no OMPT).  Per process:
 *   REGION_A  10 instances, 3 threads; thread 1 sleeps A_MS ms before an
 *             explicit barrier (threads 0 and 2 wait there about 10 * A_MS)
 *   REGION_B  4 instances, 2 threads, a work-sharing loop of 1000 iterations;
 *             the master sleeps B_MS ms after it, so thread 1 waits about
 *             4 * B_MS at the implicit barrier ending the region
 *   REGION_C  one pragma reached from two callers at the same stack depth
 *             (VIA_LEFT 3 times, VIA_RIGHT 5, in turns): the same code
 *             pointer and enter frame, two calling contexts, which the
 *             runtime's memo of forks must keep apart */
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

static __attribute__((noinline)) void region_c(void)
{
#pragma omp parallel num_threads(2) /* REGION_C */
    {
        sink = omp_get_thread_num();
    }
    sink += 1; /* the fork stays a call (no tail jump into libomp): the pragma's line is the leaf */
}

static __attribute__((noinline)) void via_left(void)
{
    region_c(); /* VIA_LEFT */
    __asm__ volatile("" ::: "memory"); /* keeps the call a call, not a tail jump */
}

static __attribute__((noinline)) void via_right(void)
{
    region_c(); /* VIA_RIGHT */
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    region_a();
    region_b();
    /* left, left, right, right, right, left, right, right: the first right
     * fork follows a left one with the same code pointer, frame depth and
     * enclosing region (the last left's) */
    for (int i = 0; i < 8; i++) {
        if (i < 2 || i == 5)
            via_left();
        else
            via_right();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ompt done\n");
    MPI_Finalize();
    return 0;
}
