/* gpu_attrib.c — attribution: the calling context captured at a launch or copy is
 * remembered under its correlation id and given to the activity record when it
 * arrives; host time blocked in synchronisation is delivered as PRF_GPU_SYNC. */
#include "gpu_internal.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "scalana/profile_format.h"

static struct gpu_rt rt;
static struct gpu_stats stats;

uint64_t gpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gpu_attrib_set_rt(const struct gpu_rt *r)
{
    rt = *r;
    memset(&stats, 0, sizeof stats);
}

const struct gpu_rt *gpu_attrib_rt(void) { return &rt; }

struct gpu_stats *gpu_attrib_stats(void) { return &stats; }

static void count(uint64_t *c) { __atomic_add_fetch(c, 1, __ATOMIC_RELAXED); }

void gpu_api_enter(struct gpu_api_state *st, enum gpu_api_class cls, const char *base_name,
                   uint32_t corr, uint64_t now_ns)
{
    count(&stats.callbacks);
    if (st->depth++ == 0) {
        st->cls = cls;
        st->enter_ns = now_ns;
        st->node = rt.capture_context ? rt.capture_context() : GPU_NO_NODE;
        size_t n = base_name ? strlen(base_name) : 0;
        if (n >= sizeof st->name)
            n = sizeof st->name - 1;
        if (n)
            memcpy(st->name, base_name, n);
        st->name[n] = '\0';
    }
    /* Activity records carry the runtime or the driver call's id: map both. */
    if (cls != GPU_API_SYNC && cls != GPU_API_OTHER)
        gpu_corr_put(corr, st->node);
}

void gpu_api_exit(struct gpu_api_state *st, uint32_t device, uint64_t now_ns)
{
    if (st->depth == 0)
        return; /* enabled in the middle of a call: nothing to close */
    if (--st->depth != 0)
        return;
    if (st->cls != GPU_API_SYNC && st->cls != GPU_API_COPY_BLOCKING)
        return;
    uint64_t t = now_ns > st->enter_ns ? now_ns - st->enter_ns : 0;
    count(&stats.syncs);
    if (rt.gpu_add)
        rt.gpu_add(st->node, PRF_GPU_SYNC, st->name, device, t, 0);
}

void gpu_deliver(const struct gpu_activity *a)
{
    uint32_t node = GPU_NO_NODE;
    if (a->runtime_correlation_id)
        node = gpu_corr_get(a->runtime_correlation_id);
    if (node == GPU_NO_NODE)
        node = gpu_corr_get(a->correlation_id);
    if (node == GPU_NO_NODE)
        count(&stats.unmatched);
    count(&stats.records);
    if (rt.gpu_add)
        rt.gpu_add(node, a->kind, a->name, a->device, gpu_activity_duration(a), a->bytes);
}

size_t gpu_deliver_buffer(uint8_t *buffer, size_t valid, int (*next)(uint8_t *, size_t, void **))
{
    size_t delivered = 0;
    void *rec = NULL;
    if (!buffer)
        return 0;
    while (next(buffer, valid, &rec) == 0) {
        struct gpu_activity a;
        if (gpu_decode_record(rec, &a)) {
            gpu_deliver(&a);
            delivered++;
        } else {
            count(&stats.ignored);
        }
    }
    return delivered;
}
