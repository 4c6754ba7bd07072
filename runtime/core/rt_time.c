/* rt_time.c — the clock of the MPI wrappers: the invariant TSC when the CPU
 * has one (CPUID 0x80000007 EDX bit 8), calibrated against CLOCK_MONOTONIC
 * over the whole run, else CLOCK_MONOTONIC itself. */
#include "rt_core.h"

#include <cpuid.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int rt_use_tsc;
static uint64_t rt_tsc0, rt_ns0;

void rt_ticks_init(void)
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
        __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8))) {
        rt_use_tsc = 1;
        rt_ns0 = rt_now_ns();
        rt_tsc0 = rt_ticks();
    }
}

double rt_ns_per_tick(void)
{
    if (!rt_use_tsc)
        return 1.0;
    uint64_t ns = rt_now_ns(), tsc = rt_ticks();
    if (tsc <= rt_tsc0 || ns <= rt_ns0)
        return 1.0;
    return (double)(ns - rt_ns0) / (double)(tsc - rt_tsc0);
}

int rt_run_delay_ns(pid_t tid, uint64_t *ns)
{
    char path[64], buf[96];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    /* "<on-CPU ns> <run-queue wait ns> <timeslices>" */
    const char *p = buf;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p != ' ')
        return -1;
    p++;
    if (!(*p >= '0' && *p <= '9'))
        return -1;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    *ns = v;
    return 0;
}
