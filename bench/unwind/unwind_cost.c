/* unwind_cost.c — what taking a call path costs here, ~14 frames deep, by
 * method: a frame-pointer walk, unw_backtrace (libunwind's fast trace),
 * unw_step with the default (global) cache and with UNW_CACHE_PER_THREAD,
 * unw_step started from a given frame (the runtime's fallback).  Prints ns
 * per path, median of 31 batches of 20000.  usage: unwind_cost [depth=14] */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#define BATCH 20000
#define NB 31
static void *sink[64];
static int sinkn;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

__attribute__((noinline)) static int fp_walk(void **f, int cap)
{
    const uintptr_t *fp = __builtin_frame_address(0);
    int n = 0;
    while (fp && n < cap) {
        uintptr_t ra = fp[1];
        if (!ra)
            break;
        f[n++] = (void *)ra;
        const uintptr_t *next = (const uintptr_t *)fp[0];
        if (next <= fp)
            break;
        fp = next;
    }
    return n;
}

__attribute__((noinline)) static int step_walk(void **f, int cap)
{
    unw_context_t uc;
    unw_cursor_t c;
    unw_getcontext(&uc);
    unw_init_local(&c, &uc);
    int n = 0;
    while (n < cap && unw_step(&c) > 0) {
        unw_word_t ip;
        unw_get_reg(&c, UNW_REG_IP, &ip);
        f[n++] = (void *)ip;
    }
    return n;
}

static int method;
__attribute__((noinline)) static void take(void)
{
    switch (method) {
    case 0: sinkn = fp_walk(sink, 64); break;
    case 1: sinkn = unw_backtrace(sink, 64); break;
    default: sinkn = step_walk(sink, 64); break;
    }
}

__attribute__((noinline)) static double measure(void)
{
    double v[NB];
    for (int b = 0; b < NB; b++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++)
            take();
        v[b] = (now() - t0) / BATCH * 1e9;
    }
    qsort(v, NB, sizeof v[0], cmpd);
    return v[NB / 2];
}

__attribute__((noinline)) static double descend(int d)
{
    double r = d > 0 ? descend(d - 1) : measure();
    __asm__ volatile("" ::: "memory");
    return r;
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 14;
    static const char *names[] = {"frame_pointers", "unw_backtrace", "unw_step_global_cache",
                                  "unw_step_per_thread_cache", "unw_step_no_cache"};
    for (method = 0; method < 5; method++) {
        if (method == 2)
            unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL);
        if (method == 3)
            unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
        if (method == 4)
            unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE);
        double ns = descend(depth - 4); /* main, descend chain, measure, take */
        printf("unwind_cost %-26s %8.1f ns per path (%d frames)\n", names[method], ns, sinkn);
    }
    return 0;
}
