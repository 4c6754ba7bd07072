/* gpu_decode.c — CUPTI activity records to struct gpu_activity.  The only file
 * that knows the record layouts; the versions (GPU_RECORD_*: CUDA 13.0 has
 * CUpti_ActivityKernel10, Memcpy6, MemcpyPtoP4, Memset4) are the newest the
 * CUPTI headers define, found by runtime/gpu/CMakeLists.txt. */
#include "gpu_internal.h"

#include <string.h>

#include <cupti_activity.h>

#include "scalana/profile_format.h"

#ifndef GPU_RECORD_KERNEL /* built outside our CMake: CUDA 13.0's versions */
#define GPU_RECORD_KERNEL CUpti_ActivityKernel10
#define GPU_RECORD_MEMCPY CUpti_ActivityMemcpy6
#define GPU_RECORD_PTOP CUpti_ActivityMemcpyPtoP4
#define GPU_RECORD_MEMSET CUpti_ActivityMemset4
#endif

const char *gpu_copy_kind_name(unsigned copy_kind)
{
    switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "copy";
    }
}

uint64_t gpu_activity_duration(const struct gpu_activity *a)
{
    if ((a->start_ns == 0 && a->end_ns == 0) || a->end_ns < a->start_ns)
        return 0;
    return a->end_ns - a->start_ns;
}

int gpu_decode_record(const void *record, struct gpu_activity *out)
{
    const CUpti_Activity *rec = record;
    memset(out, 0, sizeof *out);
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const GPU_RECORD_KERNEL *k = record;
        out->kind = PRF_GPU_KERNEL;
        out->name = k->name ? k->name : "kernel";
        out->device = k->deviceId;
        out->stream = k->streamId;
        out->start_ns = k->start;
        out->end_ns = k->end;
        out->correlation_id = k->correlationId;
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const GPU_RECORD_MEMCPY *m = record;
        out->kind = PRF_GPU_MEMCPY;
        out->name = gpu_copy_kind_name(m->copyKind);
        out->device = m->deviceId;
        out->stream = m->streamId;
        out->start_ns = m->start;
        out->end_ns = m->end;
        out->bytes = m->bytes;
        out->correlation_id = m->correlationId;
        out->runtime_correlation_id = m->runtimeCorrelationId;
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const GPU_RECORD_PTOP *m = record;
        out->kind = PRF_GPU_MEMCPY;
        out->name = gpu_copy_kind_name(m->copyKind);
        out->device = m->deviceId;
        out->stream = m->streamId;
        out->start_ns = m->start;
        out->end_ns = m->end;
        out->bytes = m->bytes;
        out->correlation_id = m->correlationId;
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const GPU_RECORD_MEMSET *m = record;
        out->kind = PRF_GPU_MEMSET;
        out->name = "memset";
        out->device = m->deviceId;
        out->stream = m->streamId;
        out->start_ns = m->start;
        out->end_ns = m->end;
        out->bytes = m->bytes;
        out->correlation_id = m->correlationId;
        return 1;
    }
    default:
        return 0;
    }
}
