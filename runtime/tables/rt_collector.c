/* rt_collector.c — the API optional collectors (libscalana-cupti.so) find
 * with dlsym: context capture, GPU activity aggregation, flush callbacks,
 * failure reports (include/scalana/collector_api.h). */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "rt_tables.h"
#include "scalana/collector_api.h"

#include <dlfcn.h>
#include <string.h>

#define RT_GPU_MAX 4096 /* distinct (node, kind, name, device) aggregates */

static struct rt_gpu_rec rt_gpu[RT_GPU_MAX];
static uint32_t rt_ngpu;
static volatile int rt_gpu_spin;
static void (*rt_flush_fns[8])(void);
static volatile int rt_nflush;

struct rt_gpu_rec *rt_gpu_array(uint32_t *count) { *count = rt_ngpu; return rt_gpu; }

RT_EXPORT uint32_t scalana_rt_collector_api_version(void) { return SCALANA_COLLECTOR_API_VERSION; }

/* Objects whose frames sit between the application and a collector's
 * callback: CUPTI (libcupti*), the CUDA driver and runtime (libcuda.so*,
 * libcudart*), NVIDIA's driver helpers (libnvidia-*), ScalAna's own
 * collectors (libscalana-*). */
static int rt_is_gpu_tool_object(const char *path)
{
    const char *b = path ? strrchr(path, '/') : NULL;
    b = b ? b + 1 : path;
    return b && (strncmp(b, "libcupti", 8) == 0 || strncmp(b, "libcuda", 7) == 0 ||
                 strncmp(b, "libnvidia-", 10) == 0 || strncmp(b, "libscalana-", 11) == 0);
}

/* Context nodes handed to collectors carry the thread in the top 8 bits
 * (threads beyond 255 share the encoding of thread 255).  The context ends
 * at the application's call: the runtime's frames, the collector's (the
 * caller's object) and those inside CUPTI and the CUDA libraries are dropped,
 * so the deepest frame is the application's call into CUDA (with a
 * statically linked CUDA runtime, as nvcc links by default, that call is
 * inside the program's copy of libcudart). */
RT_EXPORT uint32_t scalana_rt_capture_context(void)
{
    if (rt_g.state != RT_ON)
        return PRF_NONE;
    struct rt_thread *t = rt_thread_get();
    if (!t)
        return PRF_NONE;
    void *frames[RT_MAX_DEPTH];
    int truncated = 0;
    t->in_rt = 1;
    int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
    /* Return addresses: the object is the one holding address - 1. */
    Dl_info self;
    int k = 0;
    if (n > 0 && dladdr((char *)frames[0] - 1, &self) && self.dli_fbase) {
        Dl_info di;
        while (k < n - 1 && dladdr((char *)frames[k] - 1, &di) &&
               (di.dli_fbase == self.dli_fbase || rt_is_gpu_tool_object(di.dli_fname)))
            k++;
    }
    uint32_t node = n > k ? rt_cct_insert(&t->cct, frames + k, n - k, PRF_CCT_CALLSITE, truncated) : 0;
    t->in_rt = 0;
    uint32_t ti = t->index > 255 ? 255 : t->index;
    return node > 0xffffffu ? PRF_NONE : (ti << 24 | node);
}

RT_EXPORT void scalana_rt_gpu_add(uint32_t node, uint32_t kind, const char *name, uint32_t device,
                                  uint64_t time_ns, uint64_t bytes)
{
    if (rt_g.state != RT_ON)
        return;
    uint32_t thread = node == PRF_NONE ? 0 : node >> 24;
    uint32_t n = node == PRF_NONE ? PRF_NONE : node & 0xffffffu;
    if (!name)
        name = "";
    rt_spin_lock(&rt_gpu_spin);
    struct rt_gpu_rec *g = NULL;
    for (uint32_t i = 0; i < rt_ngpu; i++)
        if (rt_gpu[i].node == n && rt_gpu[i].thread == thread && rt_gpu[i].kind == kind &&
            rt_gpu[i].device == device && strncmp(rt_gpu[i].name, name, sizeof rt_gpu[i].name - 1) == 0) {
            g = &rt_gpu[i];
            break;
        }
    if (!g && rt_ngpu < RT_GPU_MAX) {
        g = &rt_gpu[rt_ngpu++];
        memset(g, 0, sizeof *g);
        g->node = n;
        g->thread = thread;
        g->kind = kind;
        g->device = device;
        strncpy(g->name, name, sizeof g->name - 1);
    }
    if (g) {
        g->count++;
        g->time_ns += time_ns;
        g->bytes += bytes;
        if (time_ns > g->max_time_ns)
            g->max_time_ns = time_ns;
    }
    rt_spin_unlock(&rt_gpu_spin);
    rt_g.flags |= PRF_RANK_GPU_ENABLED;
}

RT_EXPORT void scalana_rt_register_flush(void (*flush)(void))
{
    int i = __atomic_fetch_add(&rt_nflush, 1, __ATOMIC_ACQ_REL);
    if (i < 8)
        rt_flush_fns[i] = flush;
}

RT_EXPORT void scalana_rt_collector_failed(const char *part, const char *message)
{
    rt_fail_record(part ? part : "collector", message ? message : "failed");
}

void rt_collectors_flush(void)
{
    int n = rt_nflush > 8 ? 8 : rt_nflush;
    for (int i = 0; i < n; i++)
        if (rt_flush_fns[i])
            rt_flush_fns[i]();
}
