/* collector_api.h — what the main runtime offers to optional collectors
 * (the CUPTI GPU collector, libscalana-cupti.so) loaded into the same process.
 * Collectors find these with dlsym(RTLD_DEFAULT, ...), so the main runtime has
 * no CUDA dependency and a collector without the runtime stays inert. */
#ifndef SCALANA_COLLECTOR_API_H
#define SCALANA_COLLECTOR_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCALANA_COLLECTOR_API_VERSION 1u

/** Version of this API the loaded runtime implements (SCALANA_COLLECTOR_API_VERSION). */
uint32_t scalana_rt_collector_api_version(void);

/** Captures the calling thread's current call path into the calling-context
 *  tree (frames of the runtime and of the collector removed) and returns its
 *  node (a PRF_CCT_CALLSITE node), or PRF_NONE (UINT32_MAX) when the runtime is
 *  not active.  Not async-signal-safe; call from API callbacks only. */
uint32_t scalana_rt_capture_context(void);

/** Adds one GPU activity (enum prf_gpu_kind) to the aggregate of (node, kind,
 *  name, device).  time_ns: device duration (kernel/copy/set) or host time
 *  blocked (SYNC); bytes: copied or set bytes, 0 for kernels.  Thread-safe. */
void scalana_rt_gpu_add(uint32_t node, uint32_t kind, const char *name, uint32_t device,
                        uint64_t time_ns, uint64_t bytes);

/** Registers a function the runtime calls before it writes the profile (at
 *  MPI_Finalize, at exit, on MPI_Abort) and before fork(), so buffered
 *  activity is delivered first.  At most 8 registrations. */
void scalana_rt_register_flush(void (*flush)(void));

/** Tells the runtime that a collector disabled itself (recorded as a
 *  PRF_REC_ERRORS entry of part `part`); the collector prints its own one line. */
void scalana_rt_collector_failed(const char *part, const char *message);

#ifdef __cplusplus
}
#endif
#endif
