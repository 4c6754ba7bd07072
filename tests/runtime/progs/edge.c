/* edge.c — test program for the never-break-the-application rules; the mode
 * is argv[1]:
 *   signals  the application's own SIGPROF (setitimer) and SIGALRM handlers
 *            keep working next to the sampler
 *   fork     fork (child computes and exits), system(), fork+exec
 *   exit     every rank exits without MPI_Finalize
 *   abort    rank 0 calls MPI_Abort
 *   dtor     MPI_Finalize is called from a destructor after main returns
 * Each mode does one Allreduce of 1 int on MPI_COMM_WORLD first. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t prof_ticks, alrm_ticks;
static void on_prof(int s) { (void)s; prof_ticks++; }
static void on_alrm(int s) { (void)s; alrm_ticks++; }

static double spin(double seconds)
{
    struct timespec t0, t;
    volatile double s = 0;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 100000; i++)
            s += i * 0.5;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) < seconds);
    return s;
}

static int dtor_mode;
__attribute__((destructor)) static void finalize_late(void)
{
    if (dtor_mode)
        MPI_Finalize();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "signals";
    if (strcmp(mode, "signals") == 0) {
        /* Installed before MPI_Init (the runtime is not active yet) ... */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_prof;
        sigaction(SIGPROF, &sa, NULL);
    }
    MPI_Init(&argc, &argv);
    int rank, x = 1, y;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (strcmp(mode, "signals") == 0) {
        /* ... and after it, with signal(). */
        signal(SIGALRM, on_alrm);
        struct itimerval it = {{0, 10000}, {0, 10000}};
        setitimer(ITIMER_PROF, &it, NULL);
        struct itimerval ir = {{0, 20000}, {0, 20000}};
        setitimer(ITIMER_REAL, &ir, NULL);
        spin(0.3);
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_PROF, &off, NULL);
        setitimer(ITIMER_REAL, &off, NULL);
        struct sigaction old;
        sigaction(SIGPROF, NULL, &old);
        if (old.sa_handler != on_prof)
            printf("FAIL: sigaction does not report the application's SIGPROF handler\n");
        if (prof_ticks < 3 || alrm_ticks < 1)
            printf("FAIL: application handlers ran %d (SIGPROF) and %d (SIGALRM) times\n", (int)prof_ticks,
                   (int)alrm_ticks);
    } else if (strcmp(mode, "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            spin(0.05);
            _exit(7);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
            printf("FAIL: forked child status %d\n", st);
        if (system("true") != 0)
            printf("FAIL: system(\"true\")\n");
        pid = fork();
        if (pid == 0) {
            execl("/bin/sh", "sh", "-c", "exit 3", (char *)NULL);
            _exit(1);
        }
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 3)
            printf("FAIL: exec'd child status %d\n", st);
        spin(0.05);
    } else if (strcmp(mode, "exit") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        spin(0.02);
        exit(0);
    } else if (strcmp(mode, "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 5);
        sleep(5);
    } else if (strcmp(mode, "dtor") == 0) {
        dtor_mode = 1;
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    MPI_Finalize();
    return 0;
}
