/* threads.c — test program: MPI_THREAD_MULTIPLE with three application
 * threads that compute (sampled) and each exchange one message with the
 * partner rank (rank ^ 1) concurrently, tag 100 + thread.  Even np. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define NT 3

static double spin(double seconds)
{
    struct timespec t0, t;
    volatile double s = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 100000; i++)
            s += i * 0.5;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) < seconds);
    return s;
}

static int rank;

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    spin(0.08);
    int x = id, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, rank ^ 1, 100 + id, &y, 1, MPI_INT, rank ^ 1, 100 + id, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (y != id)
        printf("FAIL: thread %d got %d\n", id, y);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE)
        printf("FAIL: provided %d\n", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_t th[NT];
    for (long i = 0; i < NT; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    spin(0.05);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads done\n");
    MPI_Finalize();
    return 0;
}
