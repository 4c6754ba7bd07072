/* gpu_cupti.c — the CUPTI side of the collector: callback API subscription
 * (launch/copy/sync calls), activity buffers, flush, and the one-line
 * disable on any CUPTI error.  Decoding and attribution live elsewhere. */
#include "gpu_cupti.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

enum { GPU_OFF = 0, GPU_ON = 1, GPU_FAILED = 2 };

static _Atomic int state = GPU_OFF;
static CUpti_SubscriberHandle subscriber;
static int subscribed;
static size_t buffer_bytes = 1u << 20;
static int debug;
static uint8_t runtime_class[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t driver_class[CUPTI_DRIVER_TRACE_CBID_SIZE];
static _Thread_local struct gpu_api_state api_state;

/* Disables collection once: one stderr line, the runtime told.  Called from
 * callbacks too, so it only drops the flag there; CUPTI keeps running idle. */
static void gpu_fail(const char *call, CUptiResult r)
{
    int expected = GPU_ON;
    if (!atomic_compare_exchange_strong(&state, &expected, GPU_FAILED)) {
        expected = GPU_OFF; /* failing during start */
        if (!atomic_compare_exchange_strong(&state, &expected, GPU_FAILED))
            return;
    }
    const char *why = NULL;
    if (cuptiGetResultString(r, &why) != CUPTI_SUCCESS || !why)
        why = "unknown CUPTI error";
    char line[256];
    int call_len = (int)strcspn(call, "("); /* "cuptiSubscribe(&subscriber, ...)" -> its name */
    snprintf(line, sizeof line, "%.*s failed: %s (%d)", call_len, call, why, (int)r);
    fprintf(stderr, "scalana: GPU collection disabled: %s\n", line);
    const struct gpu_rt *rt = gpu_attrib_rt();
    if (rt->collector_failed)
        rt->collector_failed("gpu", line);
}

static int next_record(uint8_t *buffer, size_t valid, void **record)
{
    CUpti_Activity *rec = *record;
    CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &rec);
    *record = rec;
    if (r == CUPTI_SUCCESS)
        return 0;
    if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
        gpu_fail("cuptiActivityGetNextRecord", r);
    return 1;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *max_records = 0;
    *buffer = aligned_alloc(8, buffer_bytes);
    *size = *buffer ? buffer_bytes : 0; /* no memory: CUPTI drops records */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)size;
    if (atomic_load(&state) == GPU_ON && buffer && valid) {
        gpu_deliver_buffer(buffer, valid, next_record);
        size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
            __atomic_add_fetch(&gpu_attrib_stats()->dropped, dropped, __ATOMIC_RELAXED);
    }
    free(buffer);
}

void CUPTIAPI gpu_cupti_on_callback(void *userdata, CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (atomic_load_explicit(&state, memory_order_relaxed) != GPU_ON)
        return;
    enum gpu_api_class cls = GPU_API_OTHER;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
        cls = runtime_class[cbid];
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
        cls = driver_class[cbid];
    if (cls == GPU_API_OTHER)
        return;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        char base[64] = "";
        if (api_state.depth == 0)
            gpu_api_classify(cb->functionName, base, sizeof base);
        gpu_api_enter(&api_state, cls, base, cb->correlationId, gpu_now_ns());
    } else {
        uint64_t now = gpu_now_ns();
        uint32_t device = 0;
        if (api_state.depth == 1 &&
            (api_state.cls == GPU_API_SYNC || api_state.cls == GPU_API_COPY_BLOCKING) && cb->context)
            (void)cuptiGetDeviceId(cb->context, &device); /* unknown: device 0 */
        gpu_api_exit(&api_state, device, now);
    }
}

/* Fills the class table of one API domain from CUPTI's callback names and,
 * when enable is set, enables the callbacks of the intercepted ones. */
static CUptiResult enable_domain(CUpti_CallbackDomain domain, uint8_t *table, uint32_t size,
                                 int enable)
{
    for (uint32_t cbid = 1; cbid < size; cbid++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name)
            continue; /* unused id */
        table[cbid] = (uint8_t)gpu_api_classify(name, NULL, 0);
        if (table[cbid] == GPU_API_OTHER || !enable)
            continue;
        CUptiResult r = cuptiEnableCallback(1, subscriber, domain, cbid);
        if (r != CUPTI_SUCCESS)
            return r;
    }
    return CUPTI_SUCCESS;
}

#define TRY(call)                                                                          \
    do {                                                                                   \
        CUptiResult r_ = (call);                                                           \
        if (r_ != CUPTI_SUCCESS) {                                                         \
            gpu_fail(#call, r_);                                                           \
            goto failed;                                                                   \
        }                                                                                  \
    } while (0)

int gpu_cupti_start(size_t buffer_kib, int debug_level)
{
    if (atomic_load(&state) != GPU_OFF)
        return atomic_load(&state) == GPU_ON ? 0 : -1;
    buffer_bytes = buffer_kib * 1024u;
    debug = debug_level;
    TRY(cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)gpu_cupti_on_callback, NULL));
    subscribed = 1;
    TRY(enable_domain(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_class, CUPTI_RUNTIME_TRACE_CBID_SIZE, 1));
    TRY(enable_domain(CUPTI_CB_DOMAIN_DRIVER_API, driver_class, CUPTI_DRIVER_TRACE_CBID_SIZE, 1));
    TRY(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2));
    TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
    atomic_store(&state, GPU_ON);
    return 0;
failed:
    if (subscribed) {
        (void)cuptiUnsubscribe(subscriber);
        subscribed = 0;
    }
    return -1;
}

void gpu_cupti_flush(void)
{
    if (atomic_load(&state) != GPU_ON)
        return;
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r != CUPTI_SUCCESS) {
        gpu_fail("cuptiActivityFlushAll", r);
        return;
    }
    if (debug) {
        const struct gpu_stats *s = gpu_attrib_stats();
        fprintf(stderr,
                "scalana-gpu: flushed: %llu records, %llu unmatched, %llu ignored, %llu dropped, "
                "%llu syncs, %llu api calls\n",
                (unsigned long long)s->records, (unsigned long long)s->unmatched,
                (unsigned long long)s->ignored, (unsigned long long)s->dropped,
                (unsigned long long)s->syncs, (unsigned long long)s->callbacks);
    }
}

void gpu_cupti_off(void)
{
    atomic_store(&state, GPU_OFF);
}

int gpu_cupti_test_arm(void)
{
    if (enable_domain(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_class, CUPTI_RUNTIME_TRACE_CBID_SIZE, 0) ||
        enable_domain(CUPTI_CB_DOMAIN_DRIVER_API, driver_class, CUPTI_DRIVER_TRACE_CBID_SIZE, 0))
        return -1;
    atomic_store(&state, GPU_ON);
    return 0;
}
