/* collector_stub.c — libcollector_stub.so: a GPU collector's API callback.
 * Like libscalana-cupti.so it finds the runtime with dlsym, captures the
 * calling context and adds one kernel record to it. */
#include <dlfcn.h>
#include <stdint.h>

#include "scalana/collector_api.h"
#include "scalana/profile_format.h"

__attribute__((visibility("default"))) int collector_stub_callback(int x)
{
    uint32_t (*capture)(void) = (uint32_t (*)(void))dlsym(RTLD_DEFAULT, "scalana_rt_capture_context");
    void (*add)(uint32_t, uint32_t, const char *, uint32_t, uint64_t, uint64_t) =
        (void (*)(uint32_t, uint32_t, const char *, uint32_t, uint64_t, uint64_t))dlsym(RTLD_DEFAULT,
                                                                                        "scalana_rt_gpu_add");
    if (!capture || !add)
        return -1;
    uint32_t node = capture();
    add(node, PRF_GPU_KERNEL, "stub_kernel", 0, 1000, 0);
    return x + 1;
}
