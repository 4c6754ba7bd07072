/* gpu_internal.h — private types of the CUPTI GPU collector (libscalana-cupti.so):
 * the decoded activity, the API-call classes, the runtime's entry points and
 * the per-thread API state.  Nothing here is exported from the library. */
#ifndef SCALANA_GPU_INTERNAL_H
#define SCALANA_GPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define GPU_HIDDEN __attribute__((visibility("hidden")))
#define GPU_NO_NODE UINT32_MAX /* == PRF_NONE of profile_format.h */

/** One GPU activity decoded from a CUPTI record: the collector's own,
 *  CUPTI-independent view.  Times are CUPTI timestamps in ns. */
struct gpu_activity {
    uint32_t kind;           /* enum prf_gpu_kind (KERNEL, MEMCPY, MEMSET) */
    const char *name;        /* kernel name (mangled, owned by CUPTI) or copy direction */
    uint32_t device;         /* CUDA device id */
    uint32_t stream;         /* CUPTI stream id */
    uint64_t start_ns, end_ns;
    uint64_t bytes;          /* copied/set bytes, 0 for kernels */
    uint32_t correlation_id; /* driver or runtime API correlation id */
    uint32_t runtime_correlation_id; /* memcpy only: the runtime API id, else 0 */
};

/** What an intercepted CUDA API call means to the collector. */
enum gpu_api_class {
    GPU_API_OTHER = 0,         /* not intercepted */
    GPU_API_LAUNCH = 1,        /* kernel or graph launch: context only */
    GPU_API_COPY_ASYNC = 2,    /* asynchronous copy: context only */
    GPU_API_COPY_BLOCKING = 3, /* blocking copy: context + host time as SYNC */
    GPU_API_MEMSET = 4,        /* memset: context only */
    GPU_API_SYNC = 5           /* device/stream/event synchronisation: host time as SYNC */
};

/** The main runtime's collector API (include/scalana/collector_api.h), as
 *  function pointers so that tests can substitute fakes. */
struct gpu_rt {
    uint32_t (*capture_context)(void);
    void (*gpu_add)(uint32_t node, uint32_t kind, const char *name, uint32_t device,
                    uint64_t time_ns, uint64_t bytes);
    void (*register_flush)(void (*flush)(void));
    void (*collector_failed)(const char *part, const char *message);
};

/** Counters of the collector, reported with SCALANA_GPU_DEBUG=1. */
struct gpu_stats {
    uint64_t records, ignored, unmatched, dropped, syncs, callbacks;
};

/* ---- gpu_decode.c ---------------------------------------------------------- */
/** Decodes one CUPTI activity record (a CUpti_Activity*, passed as void* so
 *  that callers need no CUPTI header).  Returns 1 and fills *out for kernels
 *  (KERNEL, CONCURRENT_KERNEL: CUpti_ActivityKernel10), copies (MEMCPY:
 *  CUpti_ActivityMemcpy6, MEMCPY2: CUpti_ActivityMemcpyPtoP4) and sets
 *  (MEMSET: CUpti_ActivityMemset4); 0 for any other kind (ignored).  Cannot fail. */
GPU_HIDDEN int gpu_decode_record(const void *record, struct gpu_activity *out);
/** Name of a CUpti_ActivityMemcpyKind ("HtoD", "DtoH", "DtoD", ...; "copy" if unknown). */
GPU_HIDDEN const char *gpu_copy_kind_name(unsigned copy_kind);
/** Device duration of a decoded activity in ns; 0 when the timestamps are
 *  missing (both 0) or reversed. */
GPU_HIDDEN uint64_t gpu_activity_duration(const struct gpu_activity *a);

/* ---- gpu_api_class.c ------------------------------------------------------- */
/** Classifies a CUDA runtime or driver API function by the name CUPTI gives
 *  it (cuptiGetCallbackName: "cudaMemcpyAsync_ptsz_v7000", "cuLaunchKernel",
 *  "__cudaLaunchKernel_v13000").  Writes the base name without leading
 *  underscores, _ptsz/_ptds and _vNNNN suffixes to base (may be NULL).
 *  Cannot fail; unknown names are GPU_API_OTHER. */
GPU_HIDDEN enum gpu_api_class gpu_api_classify(const char *cupti_name, char *base,
                                               size_t base_len);

/* ---- gpu_corr.c ------------------------------------------------------------ */
/** Correlation table: correlation id -> calling-context node, direct-mapped
 *  with 2^log2_slots slots (an id is overwritten by the id 2^log2_slots
 *  later; GPU_CORR_LOG2_SLOTS slots cover far more launches than CUPTI keeps
 *  in flight).  Lock-free: one 64-bit atomic word per slot.  Returns 0, or
 *  -1 when the table cannot be allocated. */
#define GPU_CORR_LOG2_SLOTS 16
GPU_HIDDEN int gpu_corr_init(unsigned log2_slots);
GPU_HIDDEN void gpu_corr_fini(void);
/** Remembers node for correlation id corr (0 is never a valid id: ignored). */
GPU_HIDDEN void gpu_corr_put(uint32_t corr, uint32_t node);
/** Node for corr, or GPU_NO_NODE when unknown or overwritten.  Not removed:
 *  one graph launch yields many records with one id. */
GPU_HIDDEN uint32_t gpu_corr_get(uint32_t corr);

/* ---- gpu_attrib.c ---------------------------------------------------------- */
/** Per-thread state of intercepted API calls: the runtime API calls the
 *  driver API inside, and only the outermost call is captured and timed. */
struct gpu_api_state {
    uint32_t depth;       /* intercepted calls in progress on this thread */
    uint32_t node;        /* context captured at the outermost call */
    uint32_t cls;         /* enum gpu_api_class of the outermost call */
    uint64_t enter_ns;    /* CLOCK_MONOTONIC at the outermost enter */
    char name[64];        /* base name of the outermost call */
};

/** Installs the runtime entry points used by the functions below (copied). */
GPU_HIDDEN void gpu_attrib_set_rt(const struct gpu_rt *rt);
GPU_HIDDEN const struct gpu_rt *gpu_attrib_rt(void);
GPU_HIDDEN struct gpu_stats *gpu_attrib_stats(void);
/** API enter: captures the context at the outermost intercepted call and
 *  maps corr to it (every nested call's corr too).  now_ns: monotonic. */
GPU_HIDDEN void gpu_api_enter(struct gpu_api_state *st, enum gpu_api_class cls,
                              const char *base_name, uint32_t corr, uint64_t now_ns);
/** API exit: at the outermost call of class SYNC or COPY_BLOCKING, delivers
 *  the host time blocked as PRF_GPU_SYNC on device `device`. */
GPU_HIDDEN void gpu_api_exit(struct gpu_api_state *st, uint32_t device, uint64_t now_ns);
/** Delivers one decoded activity to the runtime, attributed to the context
 *  of its correlation id (runtime id first for copies, then the driver id);
 *  GPU_NO_NODE when unknown (counted as unmatched). */
GPU_HIDDEN void gpu_deliver(const struct gpu_activity *a);
/** Decodes and delivers every record of a completed CUPTI buffer using
 *  next(buffer, valid, &record) (cuptiActivityGetNextRecord or a test fake,
 *  returning 0 while records remain).  Returns the number delivered. */
GPU_HIDDEN size_t gpu_deliver_buffer(uint8_t *buffer, size_t valid,
                                     int (*next)(uint8_t *, size_t, void **));

/** Monotonic clock in ns. */
GPU_HIDDEN uint64_t gpu_now_ns(void);

#endif
