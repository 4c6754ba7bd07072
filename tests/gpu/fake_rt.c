/* fake_rt.c — a stand-in for the main runtime's collector API (collector_api.h)
 * for tests of libscalana-cupti.so without the runtime.  Preloaded, it logs to
 * the file named by SCALANA_FAKE_RT_LOG (stderr if unset): registration,
 * failures, and at exit a table of the GPU activity it received, aggregated
 * per (kind, name, device) with how many arrived without a context.  With
 * SCALANA_FAKE_RT_VERBOSE=1 every call is logged as it happens. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scalana/collector_api.h"

static FILE *log_file(void)
{
    static FILE *f;
    if (!f) {
        const char *p = getenv("SCALANA_FAKE_RT_LOG");
        f = p ? fopen(p, "a") : NULL;
        if (!f)
            f = stderr;
        setvbuf(f, NULL, _IOLBF, 0);
    }
    return f;
}

struct agg {
    uint32_t kind, device;
    char name[96];
    uint64_t count, no_context, time_ns, bytes;
};
static struct agg aggs[256];
static int naggs;
static uint32_t captured; /* nodes handed out: 1..captured */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void (*flushes[8])(void);
static int nflush;
static const char *kinds[] = {"?", "KERNEL", "MEMCPY", "MEMSET", "SYNC"};

static void report(void)
{
    for (int i = 0; i < nflush; i++)
        flushes[i]();
    FILE *f = log_file();
    int pid = (int)getpid();
    pthread_mutex_lock(&lock);
    fprintf(f, "fake-rt[%d]: exit after %d flush function(s), %u contexts captured\n", pid, nflush,
            captured);
    for (int i = 0; i < naggs; i++)
        fprintf(f, "fake-rt[%d]: gpu %s name=%s device=%u count=%llu no_context=%llu time_ns=%llu bytes=%llu\n",
                pid, kinds[aggs[i].kind <= 4 ? aggs[i].kind : 0], aggs[i].name, aggs[i].device,
                (unsigned long long)aggs[i].count, (unsigned long long)aggs[i].no_context,
                (unsigned long long)aggs[i].time_ns, (unsigned long long)aggs[i].bytes);
    pthread_mutex_unlock(&lock);
}

uint32_t scalana_rt_collector_api_version(void) { return SCALANA_COLLECTOR_API_VERSION; }

uint32_t scalana_rt_capture_context(void)
{
    return __atomic_add_fetch(&captured, 1, __ATOMIC_RELAXED);
}

void scalana_rt_gpu_add(uint32_t node, uint32_t kind, const char *name, uint32_t device,
                        uint64_t time_ns, uint64_t bytes)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("SCALANA_FAKE_RT_VERBOSE") != NULL;
    if (verbose)
        fprintf(log_file(), "fake-rt[%d]: gpu_add node=%u kind=%u name=%s device=%u time_ns=%llu bytes=%llu\n",
                (int)getpid(), node, kind, name, device, (unsigned long long)time_ns,
                (unsigned long long)bytes);
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < naggs && !(aggs[i].kind == kind && aggs[i].device == device &&
                          strncmp(aggs[i].name, name, sizeof aggs[i].name - 1) == 0))
        i++;
    if (i == naggs && naggs < 256) {
        aggs[i].kind = kind;
        aggs[i].device = device;
        snprintf(aggs[i].name, sizeof aggs[i].name, "%s", name);
        naggs++;
    }
    if (i < naggs) {
        aggs[i].count++;
        aggs[i].no_context += node == UINT32_MAX || node == 0 || node > captured;
        aggs[i].time_ns += time_ns;
        aggs[i].bytes += bytes;
    }
    pthread_mutex_unlock(&lock);
}

void scalana_rt_register_flush(void (*flush)(void))
{
    if (nflush == 0)
        atexit(report);
    if (nflush < 8)
        flushes[nflush++] = flush;
    fprintf(log_file(), "fake-rt[%d]: register_flush\n", (int)getpid());
}

void scalana_rt_collector_failed(const char *part, const char *message)
{
    fprintf(log_file(), "fake-rt[%d]: collector_failed part=%s message=%s\n", (int)getpid(), part,
            message);
}
