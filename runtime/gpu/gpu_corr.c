/* gpu_corr.c — correlation id -> calling-context node, written at the API callback
 * (launch, copy) and read when the activity record arrives, possibly on another
 * thread.  Direct-mapped, lock-free, fixed size: memory does not grow with run time. */
#include "gpu_internal.h"

#include <stdatomic.h>
#include <stdlib.h>

static _Atomic uint64_t *slots;
static uint32_t mask;

int gpu_corr_init(unsigned log2_slots)
{
    if (slots)
        return 0;
    if (log2_slots < 4 || log2_slots > 24)
        log2_slots = GPU_CORR_LOG2_SLOTS;
    size_t n = (size_t)1 << log2_slots;
    _Atomic uint64_t *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    mask = (uint32_t)(n - 1);
    slots = s;
    return 0;
}

void gpu_corr_fini(void)
{
    free((void *)slots);
    slots = NULL;
    mask = 0;
}

void gpu_corr_put(uint32_t corr, uint32_t node)
{
    if (!slots || corr == 0)
        return;
    atomic_store_explicit(&slots[corr & mask], ((uint64_t)corr << 32) | node,
                          memory_order_release);
}

uint32_t gpu_corr_get(uint32_t corr)
{
    if (!slots || corr == 0)
        return GPU_NO_NODE;
    uint64_t v = atomic_load_explicit(&slots[corr & mask], memory_order_acquire);
    if ((uint32_t)(v >> 32) != corr)
        return GPU_NO_NODE;
    return (uint32_t)v;
}
