/* sample_cost.c — what one sample costs, for bench/overhead: one rank does
 * a fixed amount of work 14 frames below main and prints its CPU and wall
 * time.  With BENCH_FLOOR=cputime|taskclock and BENCH_FLOOR_HZ=N it arms the
 * same timer the runtime would (a CPU-time POSIX timer per thread, or a
 * perf_event task clock) with a handler that only counts: the floor a
 * sampling tool cannot go below.  Prints "cpu S wall S signals N" (signals:
 * the floor handler's count, 0 otherwise).
 * usage: sample_cost [work=400] [depth=14] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <linux/perf_event.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long signals;
static void on_signal(int s, siginfo_t *si, void *uc) { (void)s, (void)si, (void)uc; signals++; }

static void floor_timer(void)
{
    const char *kind = getenv("BENCH_FLOOR"), *hz = getenv("BENCH_FLOOR_HZ");
    if (!kind || !hz)
        return;
    long period = 1000000000L / atol(hz);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (strcmp(kind, "taskclock") == 0) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.type = PERF_TYPE_SOFTWARE, a.size = sizeof a, a.config = PERF_COUNT_SW_TASK_CLOCK;
        a.sample_period = (unsigned long)period, a.disabled = 1, a.exclude_kernel = 1, a.exclude_hv = 1;
        int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        struct f_owner_ex o = {F_OWNER_TID, tid};
        if (fd < 0 || fcntl(fd, F_SETOWN_EX, &o) || fcntl(fd, F_SETSIG, SIGPROF) ||
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
            perror("sample_cost: perf_event_open");
        return;
    }
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev._sigev_un._tid = tid;
    timer_t t;
    struct itimerspec its = {{0, period}, {0, period}};
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t) || timer_settime(t, 0, &its, NULL))
        perror("sample_cost: timer_create");
}

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static double work(long units)
{
    double x = 0;
    for (long u = 0; u < units; u++)
        for (int i = 0; i < 1000000; i++)
            x += (double)(i ^ u) * 1e-9;
    return x;
}

__attribute__((noinline)) static double descend(int d, long units)
{
    double r = d > 0 ? descend(d - 1, units) : work(units);
    __asm__ volatile("" ::: "memory");
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long units = argc > 1 ? atol(argv[1]) : 400;
    int depth = argc > 2 ? atoi(argv[2]) : 14;
    floor_timer();
    double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    double x = descend(depth > 2 ? depth - 2 : 0, units);
    double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
    printf("cpu %.6f wall %.6f signals %lu check %g\n", c1 - c0, w1 - w0, signals, x > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
}
