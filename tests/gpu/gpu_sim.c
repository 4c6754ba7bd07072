/* gpu_sim.c — libscalana_gpu_sim.so: a device model (one in-order stream, a
 * "busy until" clock) driving the collector's own code exactly as CUPTI would:
 * API enter/exit callbacks with real callback ids, activity records in the
 * decoder's layouts (GPU_RECORD_*) delivered at the runtime's flush.  Started
 * at the first CUDA-named call, as the driver starts the real collector at
 * cuInit.  See gpu_sim.h. */
#include "gpu_sim.h"

#include <dlfcn.h>
#include <string.h>
#include <time.h>

#include "gpu_cupti.h"
#include "scalana/collector_api.h"

#define SIM_MAX_PENDING 1024

static union sim_record {
    CUpti_Activity any;
    GPU_RECORD_KERNEL kernel;
    GPU_RECORD_MEMCPY memcpy;
} pending[SIM_MAX_PENDING];
static size_t npending, walk;
static uint64_t busy_until;
static uint32_t next_corr = 1;
static int armed, started;
static struct { const void *func; const char *name; uint64_t ns; } kernels[64];
static int nkernels;

static void wait_until(uint64_t t)
{
    uint64_t now = gpu_now_ns();
    if (t <= now)
        return;
    struct timespec ts = {(time_t)((t - now) / 1000000000u), (long)((t - now) % 1000000000u)};
    nanosleep(&ts, NULL);
}

static int sim_next(uint8_t *buffer, size_t valid, void **rec)
{
    (void)buffer;
    (void)valid;
    if (walk >= npending)
        return 1;
    *rec = &pending[walk++];
    return 0;
}

/* What cuptiActivityFlushAll does: hand over every completed record. */
static void sim_flush(void)
{
    uint8_t dummy;
    walk = 0;
    gpu_deliver_buffer(&dummy, 1, sim_next);
    npending = 0;
}

static union sim_record *sim_record(void)
{
    if (npending == SIM_MAX_PENDING)
        sim_flush(); /* a full buffer */
    union sim_record *r = &pending[npending++];
    memset(r, 0, sizeof *r);
    return r;
}

static void api(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const char *name,
                CUpti_ApiCallbackSite site, uint32_t corr)
{
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.callbackSite = site;
    cb.functionName = name;
    cb.correlationId = corr;
    if (armed)
        gpu_cupti_on_callback(NULL, dom, cbid, &cb);
}

static int gpu_sim_start(void)
{
    struct gpu_rt rt;
    uint32_t (*version)(void) = (uint32_t(*)(void))dlsym(RTLD_DEFAULT, "scalana_rt_collector_api_version");
    if (!version || version() != SCALANA_COLLECTOR_API_VERSION)
        return -1;
    rt.capture_context = (uint32_t(*)(void))dlsym(RTLD_DEFAULT, "scalana_rt_capture_context");
    *(void **)&rt.gpu_add = dlsym(RTLD_DEFAULT, "scalana_rt_gpu_add");
    *(void **)&rt.register_flush = dlsym(RTLD_DEFAULT, "scalana_rt_register_flush");
    *(void **)&rt.collector_failed = dlsym(RTLD_DEFAULT, "scalana_rt_collector_failed");
    if (!rt.capture_context || !rt.gpu_add || !rt.register_flush || !rt.collector_failed)
        return -1;
    gpu_attrib_set_rt(&rt);
    if (gpu_corr_init(GPU_CORR_LOG2_SLOTS) != 0 || gpu_cupti_test_arm() != 0)
        return -1;
    rt.register_flush(sim_flush);
    armed = 1;
    return 0;
}

static void start_once(void)
{
    if (!started) {
        started = 1;
        gpu_sim_start(); /* without a runtime: simulated, not recorded */
    }
}

void gpu_sim_register_kernel(const void *func, const char *name, uint64_t ns_per_block)
{
    if (nkernels < 64) {
        kernels[nkernels].func = func;
        kernels[nkernels].name = name;
        kernels[nkernels].ns = ns_per_block;
        nkernels++;
    }
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                             size_t shared_bytes, cudaStream_t stream)
{
    (void)block; (void)args; (void)shared_bytes; (void)stream;
    start_once();
    int k = 0;
    while (k < nkernels && kernels[k].func != func)
        k++;
    if (k == nkernels)
        return cudaErrorInvalidDeviceFunction;
    uint32_t corr = next_corr++;
    api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        "cudaLaunchKernel_v7000", CUPTI_API_ENTER, corr);
    uint64_t now = gpu_now_ns(), start = busy_until > now ? busy_until : now;
    busy_until = start + kernels[k].ns * (grid.x ? grid.x : 1);
    GPU_RECORD_KERNEL *r = &sim_record()->kernel;
    r->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    r->name = kernels[k].name;
    r->streamId = 7;
    r->start = start;
    r->end = busy_until;
    r->correlationId = corr;
    api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        "cudaLaunchKernel_v7000", CUPTI_API_EXIT, corr);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    start_once();
    int dtoh = kind == cudaMemcpyDeviceToHost;
    uint32_t corr = next_corr++, dcorr = next_corr++;
    api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020",
        CUPTI_API_ENTER, corr);
    CUpti_CallbackId dcb = dtoh ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2 : CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2;
    const char *dname = dtoh ? "cuMemcpyDtoH_v2" : "cuMemcpyHtoD_v2";
    api(CUPTI_CB_DOMAIN_DRIVER_API, dcb, dname, CUPTI_API_ENTER, dcorr);
    memmove(dst, src, bytes);
    uint64_t now = gpu_now_ns(), start = busy_until > now ? busy_until : now;
    busy_until = start + bytes / 10; /* 10 bytes per ns */
    GPU_RECORD_MEMCPY *m = &sim_record()->memcpy;
    m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m->copyKind = dtoh ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOH : CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m->bytes = bytes;
    m->start = start;
    m->end = busy_until;
    m->streamId = 7;
    m->correlationId = dcorr;
    m->runtimeCorrelationId = corr;
    wait_until(busy_until);
    api(CUPTI_CB_DOMAIN_DRIVER_API, dcb, dname, CUPTI_API_EXIT, dcorr);
    api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020",
        CUPTI_API_EXIT, corr);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    start_once();
    uint32_t corr = next_corr++;
    api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
        "cudaDeviceSynchronize_v3020", CUPTI_API_ENTER, corr);
    wait_until(busy_until);
    api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
        "cudaDeviceSynchronize_v3020", CUPTI_API_EXIT, corr);
    return cudaSuccess;
}
