/* gpu_api_class.c — which CUDA runtime/driver API calls the collector
 * intercepts, from the names CUPTI gives them (so new API versions, _v13000,
 * _ptsz, are covered without a table of callback ids).  The classification
 * is the one table every part shares (include/scalana/gpu_calls.def, through
 * formats/gpu_calls.c); this maps its classes to what the collector does. */
#include "gpu_internal.h"

#include "scalana/gpu_calls.h"

enum gpu_api_class gpu_api_classify(const char *cupti_name, char *base, size_t base_len)
{
    int async = 0;
    switch (scalana_gpu_classify(cupti_name, base, base_len, &async)) {
    case SCALANA_GPU_LAUNCH: return GPU_API_LAUNCH;
    case SCALANA_GPU_COPY: return async ? GPU_API_COPY_ASYNC : GPU_API_COPY_BLOCKING;
    case SCALANA_GPU_MEMSET: return GPU_API_MEMSET;
    case SCALANA_GPU_SYNC: return GPU_API_SYNC;
    /* A profile has no kind for allocations (enum prf_gpu_kind): the PSG
     * shows the call site, the collector does not time it. */
    case SCALANA_GPU_ALLOC: return GPU_API_OTHER;
    case SCALANA_GPU_NONE: break;
    }
    return GPU_API_OTHER;
}
