/* rt_perf.c — the taskclock sampler: the perf_event software task clock of
 * each thread (its CPU time, kept by the scheduler at nanosecond
 * resolution), overflowing every sampling period and notifying the thread
 * itself with the sampling signal (O_ASYNC, F_SETOWN_EX to the thread,
 * F_SETSIG).  Unlike a CPU-time POSIX timer it is not checked only at
 * kernel ticks: asked 1000 or 5000 Hz it delivers about that many signals
 * per CPU second here (rt_rate.c, docs/runtime.md).  Needs perf_event_open
 * for the own process (kernel.perf_event_paranoid <= 2, no seccomp filter
 * against it); the runtime falls back to cputime with one line otherwise. */
#include "threads/rt_threads.h"
#include "rt_perf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rt_perf_open(pid_t tid, uint64_t period_ns, int signo)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.disabled = 1;
    a.exclude_kernel = 1; /* allowed at perf_event_paranoid 2 */
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    struct f_owner_ex o = {F_OWNER_TID, tid};
    int fl = fcntl(fd, F_GETFL);
    if (fcntl(fd, F_SETOWN_EX, &o) != 0 || fcntl(fd, F_SETSIG, signo) != 0 || fl < 0 ||
        fcntl(fd, F_SETFL, fl | O_ASYNC) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int rt_perf_available(void)
{
    /* Opened disabled-for-good on this thread and closed: the call itself is
     * what seccomp or perf_event_paranoid 3 refuse. */
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

/* fds that ever carried a task clock of ours: a notification still pending
 * when its thread stopped sampling (fd closed) must not reach the
 * application's disposition (SIGPROF's default terminates). */
#define RT_PERF_FDS 4096
static volatile uint8_t rt_perf_fd_used[RT_PERF_FDS];

int rt_perf_thread_start(struct rt_thread *t, uint64_t period_ns, int signo)
{
    int fd = rt_perf_open(t->tid, period_ns, signo);
    if (fd < 0)
        return -1;
    if (fd < RT_PERF_FDS)
        rt_perf_fd_used[fd] = 1;
    t->perf_fd = fd;
    t->perf_last = 0;
    t->timer_ok = 3;
    return 0;
}

void rt_perf_thread_stop(struct rt_thread *t)
{
    if (t->timer_ok != 3)
        return;
    ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
    close(t->perf_fd);
    t->perf_fd = -1;
}

int rt_perf_signal_of(const siginfo_t *si, const struct rt_thread *t)
{
    return t && t->timer_ok == 3 && (si->si_code == POLL_IN || si->si_code == POLL_HUP) &&
           si->si_fd == t->perf_fd;
}

int rt_perf_signal_stale(const siginfo_t *si)
{
    return (si->si_code == POLL_IN || si->si_code == POLL_HUP) && si->si_fd >= 0 &&
           si->si_fd < RT_PERF_FDS && rt_perf_fd_used[si->si_fd];
}

uint64_t rt_perf_weight(struct rt_thread *t, uint64_t period_ns)
{
    /* Periods elapsed since the last signal, from the counter itself (a
     * standard signal still pending when the next overflow comes is merged:
     * the count keeps the CPU time estimate right). */
    uint64_t v = 0;
    if (read(t->perf_fd, &v, sizeof v) != (ssize_t)sizeof v || v <= t->perf_last || !period_ns)
        return 1;
    uint64_t w = (v - t->perf_last + period_ns / 2) / period_ns;
    if (t->perf_last == 0 || w == 0 || w > 100000) /* first signal; a counter read after close */
        w = 1;
    t->perf_last = v;
    return w;
}
