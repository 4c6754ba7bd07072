/* test_gpu_callbacks.c — the CUPTI callback handler (runtime/gpu/gpu_cupti.c) fed
 * CUpti_CallbackData for real CUDA 13 callback ids, with the id tables built
 * from the real libcupti's names (no driver needed): which calls are captured,
 * nesting of runtime and driver calls, synchronisation time, switching off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_cupti.h"
#include "scalana/profile_format.h"

static unsigned captures, adds;
static uint32_t last_kind;
static char last_name[64];
static uint32_t fake_capture(void) { return 100 + ++captures; }
static void fake_add(uint32_t node, uint32_t kind, const char *name, uint32_t device,
                     uint64_t time_ns, uint64_t bytes)
{
    (void)node; (void)device; (void)time_ns; (void)bytes;
    adds++;
    last_kind = kind;
    snprintf(last_name, sizeof last_name, "%s", name);
}

static int setup(void **state)
{
    (void)state;
    struct gpu_rt rt = {.capture_context = fake_capture, .gpu_add = fake_add};
    gpu_attrib_set_rt(&rt);
    gpu_corr_fini();
    assert_int_equal(gpu_corr_init(GPU_CORR_LOG2_SLOTS), 0);
    assert_int_equal(gpu_cupti_test_arm(), 0);
    captures = adds = 0;
    return 0;
}

static void call(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const char *name,
                 CUpti_ApiCallbackSite site, uint32_t corr)
{
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.callbackSite = site;
    cb.functionName = name;
    cb.correlationId = corr;
    gpu_cupti_on_callback(NULL, dom, cbid, &cb);
}

static void launch_through_runtime_and_driver(void **state)
{
    (void)state;
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
         "cudaLaunchKernel_v7000", CUPTI_API_ENTER, 11);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel",
         CUPTI_API_ENTER, 12);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel",
         CUPTI_API_EXIT, 12);
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
         "cudaLaunchKernel_v7000", CUPTI_API_EXIT, 11);
    assert_int_equal(captures, 1);
    assert_int_equal(gpu_corr_get(11), 101);
    assert_int_equal(gpu_corr_get(12), 101);
    assert_int_equal(adds, 0);
}

static void synchronize_and_blocking_copy_are_timed(void **state)
{
    (void)state;
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
         "cudaDeviceSynchronize_v3020", CUPTI_API_ENTER, 20);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize",
         CUPTI_API_ENTER, 21);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize",
         CUPTI_API_EXIT, 21);
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
         "cudaDeviceSynchronize_v3020", CUPTI_API_EXIT, 20);
    assert_int_equal(adds, 1);
    assert_int_equal(last_kind, PRF_GPU_SYNC);
    assert_string_equal(last_name, "cudaDeviceSynchronize");

    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020",
         CUPTI_API_ENTER, 22);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2",
         CUPTI_API_ENTER, 23);
    call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2",
         CUPTI_API_EXIT, 23);
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020",
         CUPTI_API_EXIT, 22);
    assert_int_equal(adds, 2);
    assert_string_equal(last_name, "cudaMemcpy");
    assert_int_equal(gpu_corr_get(23), gpu_corr_get(22));
    assert_int_not_equal(gpu_corr_get(22), GPU_NO_NODE);

    /* an asynchronous copy is not host wait */
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
         "cudaMemcpyAsync_v3020", CUPTI_API_ENTER, 24);
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
         "cudaMemcpyAsync_v3020", CUPTI_API_EXIT, 24);
    assert_int_equal(adds, 2);
}

static void other_calls_and_domains_are_ignored(void **state)
{
    (void)state;
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020",
         CUPTI_API_ENTER, 30);
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020",
         CUPTI_API_EXIT, 30);
    call(CUPTI_CB_DOMAIN_RUNTIME_API, 100000, "bogus", CUPTI_API_ENTER, 31); /* id out of range */
    gpu_cupti_on_callback(NULL, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, NULL);
    gpu_cupti_on_callback(NULL, CUPTI_CB_DOMAIN_NVTX, 1, NULL);
    assert_int_equal(captures, 0);
    assert_int_equal(gpu_corr_get(30), GPU_NO_NODE);
}

static void nothing_after_switching_off(void **state)
{
    (void)state;
    gpu_cupti_off();
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
         "cudaLaunchKernel_v7000", CUPTI_API_ENTER, 40);
    call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
         "cudaLaunchKernel_v7000", CUPTI_API_EXIT, 40);
    assert_int_equal(captures, 0);
    gpu_cupti_flush(); /* off: does not call CUPTI */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(launch_through_runtime_and_driver, setup),
        cmocka_unit_test_setup(synchronize_and_blocking_copy_are_timed, setup),
        cmocka_unit_test_setup(other_calls_and_domains_are_ignored, setup),
        cmocka_unit_test_setup(nothing_after_switching_off, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
