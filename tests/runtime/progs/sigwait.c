/* sigwait.c — a thread that takes the process's signals with sigtimedwait on
 * the full set (the librdkafka / Go-runtime pattern) while the other threads
 * block every signal; the runtime's sampler must never deliver its signal to
 * such threads nor let the waiter pick it up.  Per rank:
 *   main blocks every signal, then starts the waiter (polling sigtimedwait
 *   and computing between polls), a worker that computes with every signal
 *   blocked, and a worker that unblocks every signal first (it asks to be
 *   sampled); an Allreduce, then the main thread sends the waiter SIGUSR1
 *   and stops it.  Prints, per rank, the signals the waiter took by number
 *   ("waiter took SIGUSR1 1, others 0"). */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile int stop, usr1_sent;
static int took_usr1, took_other, other_signo;

static double work(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += i * 0.5;
    return x;
}

static void *waiter(void *p)
{
    (void)p;
    sigset_t all;
    sigfillset(&all);
    struct timespec poll = {0, 1000000};
    for (;;) {
        siginfo_t si;
        int s = sigtimedwait(&all, &si, &poll);
        if (s == SIGUSR1)
            took_usr1++;
        else if (s > 0)
            took_other++, other_signo = s;
        if (stop && took_usr1)
            break;
        work(200000); /* the waiter runs application code too */
    }
    return NULL;
}

static void *blocked_worker(void *p)
{
    *(double *)p = work(60000000);
    return NULL;
}

static void *sampled_worker(void *p)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_UNBLOCK, &all, NULL);
    *(double *)p = work(60000000);
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* inherited by every thread started now */
    pthread_t w, b, s;
    double rb = 0, rs = 0;
    pthread_create(&w, NULL, waiter, NULL);
    pthread_create(&b, NULL, blocked_worker, &rb);
    pthread_create(&s, NULL, sampled_worker, &rs);
    pthread_join(b, NULL);
    pthread_join(s, NULL);
    double v = rb > 0 && rs > 0 ? 1 : 0, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    stop = 1;
    pthread_kill(w, SIGUSR1);
    pthread_join(w, NULL);
    printf("rank %d: waiter took SIGUSR1 %d, others %d (last %d), sum %g\n", rank, took_usr1, took_other,
           other_signo, sum);
    MPI_Finalize();
    return 0;
}
