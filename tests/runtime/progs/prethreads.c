/* prethreads.c — test program: two application threads started before
 * MPI_Init_thread (while the runtime is inert) compute 100 ms of CPU each
 * after it; they must be sampled.  Any np. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile int go;

static double spin(double seconds)
{
    struct timespec a, b;
    volatile double x = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do {
        for (int i = 0; i < 100000; i++)
            x += i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec) < seconds);
    return x;
}

static void *worker(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    spin(0.1);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("prethreads done\n");
    MPI_Finalize();
    return 0;
}
