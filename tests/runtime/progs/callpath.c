/* callpath.c — MPI calls whose call paths share a call site, a stack depth
 * and the frame sizes but not the callers (a() and b() are the same code),
 * and calls from recursion of varying depth: a call-path cache keyed by the
 * innermost frame must still tell them apart (runtime/callpath/rt_unwcache.c).
 * Each rank makes, per round, one MPI_Send to MPI_PROC_NULL through a(),
 * one through b(), and one at recursion depth 1, 2 and 3 (ROUNDS rounds),
 * plus ROUNDS MPI_Barrier calls from main.  Threads: when argv[1] is "t",
 * a second thread makes the same calls (MPI_THREAD_MULTIPLE). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 300

__attribute__((noinline)) static void common(int tag)
{
    char buf[8] = {0};
    MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, tag, MPI_COMM_WORLD);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void a(int tag) { common(tag); __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) static void b(int tag) { common(tag); __asm__ volatile("" ::: "memory"); }

__attribute__((noinline)) static void rec(int d)
{
    if (d > 0)
        rec(d - 1);
    else
        common(3);
    __asm__ volatile("" ::: "memory");
}

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        a(1);
        b(2);
        rec(1 + i % 3);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0, threads = argc > 1 && strcmp(argv[1], "t") == 0;
    MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    pthread_t th;
    int started = threads && provided == MPI_THREAD_MULTIPLE && pthread_create(&th, NULL, work, NULL) == 0;
    work(NULL);
    for (int i = 0; i < ROUNDS; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    if (started)
        pthread_join(th, NULL);
    MPI_Finalize();
    return 0;
}
