/* work.c — loops with known header counts for test_work.py (built there
 * with scalana-cc): every count below is what PRF_REC_WORK must hold.
 *   - tri:      inner header runs sum(i + 2), i < n (the outer loop holds a
 *               counted loop: not counted itself); world rank r calls it with
 *               n = 100 (r + 1), 3 times
 *   - find:     a loop left by `return` at i = 7 (8 header runs per call),
 *               5 calls
 *   - brk:      a loop left by `break` at i = 4 (5 header runs), 5 calls
 *   - a thread that runs tri(50) once and ends before MPI_Finalize: its
 *     counts survive its exit
 *   - spin:     a do-while (its header is its body) in two threads of
 *               one process: 1000 and 3000 header runs, kept apart */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static volatile double sink;

__attribute__((noinline)) static void tri(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)        /* LOOP_TRI_OUTER */
        for (int j = 0; j <= i; j++)   /* LOOP_TRI_INNER */
            s += (double)j * 0.5 + sink;
    sink = s;
}

__attribute__((noinline)) static int find(const int *a, int n, int x)
{
    for (int i = 0; i < n; i++)        /* LOOP_FIND */
        if (a[i] == x)
            return i;
    return -1;
}

__attribute__((noinline)) static int brk(int n)
{
    int i = 0;
    for (; i < n; i++)                 /* LOOP_BRK */
        if (i * i > 10)
            break;
    return i;
}

static void *worker(void *arg)
{
    (void)arg;
    tri(50);
    return NULL;
}

static void *spinner(void *arg)
{
    long n = (long)arg, i = 0;
    do
        sink += 1;                     /* LOOP_SPIN (a do-while starts at its body) */
    while (++i < n);
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int a[16];
    for (int i = 0; i < 16; i++)       /* LOOP_FILL */
        a[i] = i;
    int found = 0;
    for (int k = 0; k < 3; k++)        /* LOOP_MAIN */
        tri(100 * (rank + 1));
    for (int k = 0; k < 5; k++)        /* LOOP_CALLS */
        found += find(a, 16, 7) + brk(100);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    pthread_t s1, s2;
    pthread_create(&s1, NULL, spinner, (void *)1000L);
    pthread_create(&s2, NULL, spinner, (void *)3000L);
    pthread_join(s1, NULL);
    pthread_join(s2, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d found %d\n", rank, found);
    MPI_Finalize();
    return 0;
}
