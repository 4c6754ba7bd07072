/* gpu_calls.h — classes of the CUDA API calls ScalAna recognises.  The table
 * is include/scalana/gpu_calls.def; this is its lookup (formats/gpu_calls.c),
 * shared by the compiler pass, the binary-structure builder and the CUPTI
 * collector so that they cannot disagree on a name. */
#ifndef SCALANA_GPU_CALLS_H
#define SCALANA_GPU_CALLS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a CUDA API call is (the CLASS column of gpu_calls.def).  Each
 *  consumer maps it to its own vocabulary: the PSG's enum psg_gpu_op
 *  (ALLOC -> PSG_GPU_MALLOC) and the collector's enum gpu_api_class (ALLOC
 *  is not intercepted: a profile has no kind for allocations). */
enum scalana_gpu_class {
    SCALANA_GPU_NONE = 0,   /* not a GPU operation */
    SCALANA_GPU_LAUNCH = 1, /* kernel or graph launch */
    SCALANA_GPU_COPY = 2,   /* memory copy (asynchronous when the name says Async) */
    SCALANA_GPU_MEMSET = 3,
    SCALANA_GPU_SYNC = 4,   /* device, context, stream or event synchronisation */
    SCALANA_GPU_ALLOC = 5   /* device or host memory allocation or release */
};

/** Classifies a CUDA runtime or driver API function by name, in the spelling
 *  of a source or binary (cudaMemcpyAsync, cuMemcpyHtoD_v2, cudaMemcpy_ptds)
 *  or of CUPTI (cudaMemcpyAsync_ptsz_v7000, __cudaLaunchKernel_v13000).
 *  base (may be NULL, base_len bytes) receives the name without leading
 *  underscores and _ptsz/_ptds/_vNNNN suffixes.  *async (may be NULL) is set
 *  to 1 for an asynchronous copy.  Unknown names and NULL are
 *  SCALANA_GPU_NONE; never fails. */
enum scalana_gpu_class scalana_gpu_classify(const char *name, char *base, size_t base_len, int *async);

/** The PSG's GPU operation (enum psg_gpu_op, include/scalana/psg_format.h)
 *  of a callee name, or -1 when it is not a GPU operation: the class mapped
 *  (ALLOC -> PSG_GPU_MALLOC), and clang's `__device_stub__<kernel>` (what a
 *  `<<<>>>` launch calls) as a launch.  The compiler pass and the
 *  binary-structure builder both use it, so that either path gives a call
 *  site the same vertex. */
int scalana_gpu_psg_op(const char *name);

/** Name of a class ("launch", "copy", ...). */
const char *scalana_gpu_class_name(enum scalana_gpu_class c);

#ifdef __cplusplus
}
#endif
#endif
