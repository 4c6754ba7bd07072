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

/* 1 when the task clock may sample in kernel mode (exclude_kernel = 0:
 * CAP_PERFMON, root, or perf_event_paranoid <= 1), set by
 * rt_perf_available.  A period that ends in kernel mode is then signalled
 * and the signal is delivered on the return to user mode, in the code that
 * made the system call, as the cputime timer's is.  With exclude_kernel
 * the period gives no signal and its weight goes to the next one, a
 * period later and often in other code: a 1 ms function that reads the
 * thread's CPU clock every 2 us (a system call), 4 % of the CPU time, got
 * 2.7-3.6 % of it beside two CPU hogs, and 3.0-4.1 % with kernel-mode
 * samples (jittered periods, 5 s runs, three each). */
static int rt_perf_kernel;

static int rt_perf_open(pid_t tid, uint64_t period_ns, int signo)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.disabled = 1;
    a.exclude_kernel = !rt_perf_kernel; /* exclude_kernel = 1 is allowed at perf_event_paranoid 2 */
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
    a.exclude_hv = 1;
    for (int kernel = 1; kernel >= 0; kernel--) {
        a.exclude_kernel = !kernel;
        int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            rt_perf_kernel = kernel;
            return 0;
        }
        if (!kernel || (errno != EACCES && errno != EPERM))
            return -errno;
    }
    return -EPERM;
}

/* fds that ever carried a task clock of ours: a notification still pending
 * when its thread stopped sampling (fd closed) must not reach the
 * application's disposition (SIGPROF's default terminates). */
#define RT_PERF_FDS 4096
static volatile uint8_t rt_perf_fd_used[RT_PERF_FDS];

/* Periods are drawn uniformly from [period / 2, 3 period / 2] (the mean
 * stays the period).  A fixed period of CPU time locks onto a program
 * whose iterations take a fixed CPU time: tests/exports/progs/
 * jacobi_paths.c spends 24 ms then 1 ms of CPU per iteration, 5 periods of
 * 5 ms exactly, so the samples fell at the same points of every iteration
 * and its 1 ms function got 0.14 s instead of 0.05 s on a quiet machine
 * and none at all beside two CPU hogs (the cputime timer expires at ticks
 * of wall time, which drift against the program's CPU time).
 *
 * A new period is set every RT_PERF_BLOCK signals, not at each: the
 * PERF_EVENT_IOC_PERIOD call restarts the event's timer, 12 us a signal
 * here (bench/overhead sample_cost at 5 kHz: 46-49 us per sample with it at
 * every signal, 35-36 us without).  Blocks come in antithetic pairs, a
 * drawn period d then 2 period - d, so that every pair of blocks lasts
 * 2 RT_PERF_BLOCK periods: the weights (at least 1 a signal, rt_perf_weight)
 * overcount a block of short periods and pay it back in the next.  With
 * independent draws for blocks of random length the carry made a random
 * walk, and the run's weight came out 8 % over its CPU time (2.235 s for
 * 2.06 s, spin.c periodic).  xorshift64: no lock, no libc state, safe in
 * the signal handler. */
#define RT_PERF_BLOCK 4u

static uint64_t rt_perf_rand(struct rt_thread *t)
{
    uint64_t x = t->perf_rng ? t->perf_rng : 0x9e3779b97f4a7c15ull ^ (uint64_t)t->tid;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    t->perf_rng = x;
    return x;
}

static uint64_t rt_perf_draw(struct rt_thread *t, uint64_t period_ns)
{
    return period_ns / 2 + (period_ns ? rt_perf_rand(t) % (period_ns + 1) : 0);
}

/* The period of the next block: a new draw, or its antithetic partner. */
static uint64_t rt_perf_next_block(struct rt_thread *t, uint64_t period_ns)
{
    uint32_t block = t->perf_signals / RT_PERF_BLOCK;
    uint64_t d = t->perf_period;
    return block & 1 && d <= 2 * period_ns ? 2 * period_ns - d : rt_perf_draw(t, period_ns);
}

int rt_perf_thread_start(struct rt_thread *t, uint64_t period_ns, int signo)
{
    t->perf_rng = 0;
    t->perf_carry = 0;
    t->perf_signals = 0;
    t->perf_period = rt_perf_draw(t, period_ns);
    int fd = rt_perf_open(t->tid, t->perf_period, signo);
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
    if (++t->perf_signals % RT_PERF_BLOCK == 0) {
        uint64_t next = rt_perf_next_block(t, period_ns);
        t->perf_period = next;
        (void)ioctl(t->perf_fd, PERF_EVENT_IOC_PERIOD, &next);
    }
    if (t->perf_last == 0 || v - t->perf_last > 100000 * period_ns) { /* first signal; a read after close */
        t->perf_last = v;
        return 1;
    }
    /* periods drawn around period_ns: the CPU time since the last signal
     * in whole periods, the rest carried to the next (at least 1 each, the
     * carry pays it back: the antithetic blocks above keep it bounded), so
     * the weights sum to the counted time */
    int64_t ns = (int64_t)(v - t->perf_last) + t->perf_carry;
    int64_t w = (ns + (int64_t)period_ns / 2) / (int64_t)period_ns;
    if (w < 1)
        w = 1;
    t->perf_carry = ns - w * (int64_t)period_ns;
    t->perf_last = v;
    return (uint64_t)w;
}
