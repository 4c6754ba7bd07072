/* gpu_inject.c — entry point of libscalana-cupti.so: InitializeInjection, called by
 * the CUDA driver (libcuda.so.1) at cuInit when CUDA_INJECTION64_PATH names this
 * library.  Finds the main runtime, reads the environment, starts CUPTI. */
#include "gpu_cupti.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalana/collector_api.h"

/* Reads an unsigned environment variable clamped to [lo, hi]; def when unset or bad. */
static unsigned long env_ulong(const char *name, unsigned long def, unsigned long lo,
                               unsigned long hi)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end = NULL;
    unsigned long v = strtoul(s, &end, 10);
    if (*end)
        return def;
    return v < lo ? lo : v > hi ? hi : v;
}

/* Looks up the runtime's collector API (collector_api.h) in the global scope.
 * Returns 0 when all of it is there in a version we speak, -1 otherwise. */
static int find_runtime(struct gpu_rt *rt)
{
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(RTLD_DEFAULT, "scalana_rt_collector_api_version");
    memset(rt, 0, sizeof *rt);
    if (!version || version() != SCALANA_COLLECTOR_API_VERSION)
        return -1;
    rt->capture_context = (uint32_t(*)(void))dlsym(RTLD_DEFAULT, "scalana_rt_capture_context");
    *(void **)&rt->gpu_add = dlsym(RTLD_DEFAULT, "scalana_rt_gpu_add");
    *(void **)&rt->register_flush = dlsym(RTLD_DEFAULT, "scalana_rt_register_flush");
    *(void **)&rt->collector_failed = dlsym(RTLD_DEFAULT, "scalana_rt_collector_failed");
    if (!rt->capture_context || !rt->gpu_add || !rt->register_flush || !rt->collector_failed)
        return -1;
    return 0;
}

static void fork_child(void)
{
    gpu_cupti_off(); /* CUDA does not survive fork; the parent flushed before it */
}

/** Called once by the CUDA driver during cuInit (CUDA_INJECTION64_PATH).
 *  Returns 1 (success) in every case, so that CUDA never fails because of the
 *  tool: without the runtime, with SCALANA_GPU=0, or after a CUPTI error
 *  (one stderr line), collection is simply off. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return 1;
    int debug = (int)env_ulong("SCALANA_GPU_DEBUG", 0, 0, 9);
    if (env_ulong("SCALANA_GPU", 1, 0, 1) == 0)
        return 1;
    struct gpu_rt rt;
    if (find_runtime(&rt) != 0) {
        if (debug)
            fprintf(stderr, "scalana-gpu: the ScalAna runtime is not loaded: collector inert\n");
        return 1;
    }
    gpu_attrib_set_rt(&rt);
    if (gpu_corr_init(GPU_CORR_LOG2_SLOTS) != 0) {
        fprintf(stderr, "scalana: GPU collection disabled: out of memory for the correlation table\n");
        rt.collector_failed("gpu", "out of memory for the correlation table");
        return 1;
    }
    size_t kib = env_ulong("SCALANA_GPU_BUFFER_KB", 1024, 64, 65536);
    if (gpu_cupti_start(kib, debug) != 0)
        return 1;
    rt.register_flush(gpu_cupti_flush);
    pthread_atfork(NULL, NULL, fork_child);
    if (debug)
        fprintf(stderr, "scalana-gpu: collecting (buffers of %zu KiB)\n", kib);
    return 1;
}
