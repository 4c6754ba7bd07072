/* gpu_sim.h — a simulated GPU behind CUDA-named calls (cudaLaunchKernel,
 * cudaMemcpy, cudaDeviceSynchronize), for machines without one.  The PSG pass
 * recognises the call sites by name; the collector's real callback handler,
 * decoder and attribution (runtime/gpu) are fed by a device model instead of
 * CUPTI and deliver to the real runtime.  Test data for the analyzer. */
#ifndef SCALANA_GPU_SIM_H
#define SCALANA_GPU_SIM_H

#include <stdint.h>

#include <cuda_runtime_api.h> /* the real prototypes: this library stands in for cudart */

/** Declares what one block of kernel func costs on the simulated device (ns)
 *  and the name its activity records carry (e.g. a mangled kernel name).
 *  The simulated calls:
 *  - cudaLaunchKernel: queues gridDim.x * ns_per_block of work on one in-order
 *    stream; cudaErrorInvalidDeviceFunction for an unregistered kernel;
 *  - cudaMemcpy: copies (memmove) and blocks like a blocking copy: waits for
 *    the queued work, then for the transfer at 10 GB/s;
 *  - cudaDeviceSynchronize: blocks until the queued work is done. */
void gpu_sim_register_kernel(const void *func, const char *name, uint64_t ns_per_block);

#endif
