/* gpu_cupti.h — start, flush and switch off the CUPTI side of the collector
 * (gpu_cupti.c); used by the injection entry point (gpu_inject.c). */
#ifndef SCALANA_GPU_CUPTI_H
#define SCALANA_GPU_CUPTI_H

#include <cupti.h>

#include "gpu_internal.h"

/** Subscribes to the CUDA API callbacks (launches, copies, sets,
 *  synchronisation) and enables the kernel/memcpy/memset activity kinds with
 *  buffers of buffer_kib KiB.  Returns 0, or -1 after a CUPTI error (already
 *  reported: one stderr line and scalana_rt_collector_failed). */
GPU_HIDDEN int gpu_cupti_start(size_t buffer_kib, int debug_level);
/** Delivers every buffered activity record now (forced flush).  The
 *  runtime calls it before writing the profile and before fork().  A CUPTI
 *  error disables collection. */
GPU_HIDDEN void gpu_cupti_flush(void);
/** Stops collection without calling CUPTI (used in a forked child). */
GPU_HIDDEN void gpu_cupti_off(void);

/** The callback-API handler (a CUpti_CallbackFunc; data is the
 *  CUpti_CallbackData of the runtime/driver domains).  Exposed for tests. */
GPU_HIDDEN void CUPTIAPI gpu_cupti_on_callback(void *userdata, CUpti_CallbackDomain domain,
                                               CUpti_CallbackId cbid, const void *data);
/** Tests only: fills the callback-id class tables from CUPTI's names and
 *  switches collection on without subscribing (no driver needed).  Returns 0. */
GPU_HIDDEN int gpu_cupti_test_arm(void);

#endif
