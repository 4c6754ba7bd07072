/* inject_shim.c — does what libcuda.so.1 does at cuInit when CUDA_INJECTION64_PATH
 * is set: loads that library and calls its InitializeInjection.  Preloaded in
 * tests on this GPU-less machine, where no driver exists to do it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void inject(void)
{
    const char *path = getenv("CUDA_INJECTION64_PATH");
    if (!path || !*path)
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "inject-shim: %s\n", dlerror());
        return;
    }
    int (*init)(void) = (int (*)(void))dlsym(h, "InitializeInjection");
    if (!init) {
        fprintf(stderr, "inject-shim: no InitializeInjection in %s\n", path);
        return;
    }
    fprintf(stderr, "inject-shim: InitializeInjection returned %d\n", init());
}
