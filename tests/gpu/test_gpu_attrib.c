/* test_gpu_attrib.c — unit tests of attribution (runtime/gpu/gpu_attrib.c,
 * gpu_corr.c, gpu_api_class.c): correlation id -> launching context, nested
 * runtime/driver calls, host time blocked in synchronisation, API names. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gpu_internal.h"
#include "scalana/profile_format.h"

/* ---- a fake runtime ------------------------------------------------------- */
struct add_call {
    uint32_t node, kind, device;
    char name[64];
    uint64_t time_ns, bytes;
};
static struct add_call calls[32];
static unsigned ncalls, ncaptures;
static uint32_t current_node;

static uint32_t fake_capture(void)
{
    ncaptures++;
    return current_node;
}

static void fake_add(uint32_t node, uint32_t kind, const char *name, uint32_t device,
                     uint64_t time_ns, uint64_t bytes)
{
    if (ncalls >= 32)
        fail_msg("too many gpu_add calls");
    struct add_call *c = &calls[ncalls++];
    c->node = node;
    c->kind = kind;
    c->device = device;
    snprintf(c->name, sizeof c->name, "%s", name);
    c->time_ns = time_ns;
    c->bytes = bytes;
}

static int setup(void **state)
{
    (void)state;
    struct gpu_rt rt = {.capture_context = fake_capture, .gpu_add = fake_add};
    gpu_attrib_set_rt(&rt);
    gpu_corr_fini();
    assert_int_equal(gpu_corr_init(GPU_CORR_LOG2_SLOTS), 0);
    ncalls = ncaptures = 0;
    current_node = 0;
    return 0;
}

static struct gpu_activity kernel(uint32_t corr, uint64_t dur)
{
    struct gpu_activity a = {.kind = PRF_GPU_KERNEL, .name = "_Z4busyPfi", .device = 0,
                             .start_ns = 100, .end_ns = 100 + dur, .correlation_id = corr};
    return a;
}

static void kernel_goes_to_launching_context(void **state)
{
    (void)state;
    struct gpu_api_state st = {0};
    current_node = 17;
    gpu_api_enter(&st, GPU_API_LAUNCH, "cudaLaunchKernel", 10, 1000);
    gpu_api_exit(&st, 0, 1200);
    current_node = 99; /* the application moved on before the record arrived */
    struct gpu_activity a = kernel(10, 5000);
    gpu_deliver(&a);
    assert_int_equal(ncalls, 1); /* a launch is not a sync: no host time */
    assert_int_equal(calls[0].node, 17);
    assert_int_equal(calls[0].kind, PRF_GPU_KERNEL);
    assert_string_equal(calls[0].name, "_Z4busyPfi");
    assert_int_equal(calls[0].time_ns, 5000);
    assert_int_equal(calls[0].bytes, 0);
}

static void nested_driver_call_shares_the_context(void **state)
{
    (void)state;
    struct gpu_api_state st = {0};
    current_node = 5;
    gpu_api_enter(&st, GPU_API_LAUNCH, "cudaLaunchKernel", 20, 0);
    current_node = 6; /* a capture inside would see the runtime's frames */
    gpu_api_enter(&st, GPU_API_LAUNCH, "cuLaunchKernel", 21, 0);
    gpu_api_exit(&st, 0, 0);
    gpu_api_exit(&st, 0, 0);
    assert_int_equal(ncaptures, 1);
    assert_int_equal(st.depth, 0);
    struct gpu_activity a = kernel(21, 10), b = kernel(20, 10);
    gpu_deliver(&a);
    gpu_deliver(&b);
    assert_int_equal(calls[0].node, 5);
    assert_int_equal(calls[1].node, 5);
}

static void copy_prefers_runtime_correlation(void **state)
{
    (void)state;
    struct gpu_api_state st = {0};
    current_node = 8;
    gpu_api_enter(&st, GPU_API_COPY_ASYNC, "cudaMemcpyAsync", 30, 0);
    gpu_api_exit(&st, 0, 0);
    current_node = 9;
    gpu_api_enter(&st, GPU_API_COPY_ASYNC, "cudaMemcpyAsync", 31, 0);
    gpu_api_exit(&st, 0, 0);
    /* driver id 31 belongs to another call: the runtime id 30 wins */
    struct gpu_activity a = {.kind = PRF_GPU_MEMCPY, .name = "HtoD", .start_ns = 0, .end_ns = 300,
                             .bytes = 1024, .correlation_id = 31, .runtime_correlation_id = 30};
    gpu_deliver(&a);
    assert_int_equal(ncalls, 1);
    assert_int_equal(calls[0].node, 8);
    assert_int_equal(calls[0].kind, PRF_GPU_MEMCPY);
    assert_string_equal(calls[0].name, "HtoD");
    assert_int_equal(calls[0].bytes, 1024);
    assert_int_equal(calls[0].time_ns, 300);
    /* runtime id unknown (driver API program): falls back to the driver id */
    a.runtime_correlation_id = 4444;
    gpu_deliver(&a);
    assert_int_equal(calls[1].node, 9);
}

static void blocking_copy_is_host_sync_time(void **state)
{
    (void)state;
    struct gpu_api_state st = {0};
    current_node = 12;
    gpu_api_enter(&st, GPU_API_COPY_BLOCKING, "cudaMemcpy", 40, 1000);
    gpu_api_enter(&st, GPU_API_COPY_BLOCKING, "cuMemcpyDtoH", 41, 1100);
    gpu_api_exit(&st, 2, 5900);
    assert_int_equal(ncalls, 0);
    gpu_api_exit(&st, 2, 6000);
    assert_int_equal(ncalls, 1);
    assert_int_equal(calls[0].node, 12);
    assert_int_equal(calls[0].kind, PRF_GPU_SYNC);
    assert_string_equal(calls[0].name, "cudaMemcpy");
    assert_int_equal(calls[0].device, 2);
    assert_int_equal(calls[0].time_ns, 5000);
    struct gpu_activity a = {.kind = PRF_GPU_MEMCPY, .name = "DtoH", .end_ns = 700,
                             .correlation_id = 41};
    gpu_deliver(&a); /* the copy itself: device time at the same context */
    assert_int_equal(calls[1].node, 12);
    assert_int_equal(calls[1].kind, PRF_GPU_MEMCPY);
}

static void synchronize_is_host_sync_time(void **state)
{
    (void)state;
    struct gpu_api_state st = {0};
    current_node = 3;
    gpu_api_enter(&st, GPU_API_SYNC, "cudaDeviceSynchronize", 50, 10);
    gpu_api_enter(&st, GPU_API_SYNC, "cuCtxSynchronize", 51, 20);
    gpu_api_exit(&st, 0, 990);
    gpu_api_exit(&st, 0, 1010);
    assert_int_equal(ncalls, 1);
    assert_int_equal(calls[0].kind, PRF_GPU_SYNC);
    assert_string_equal(calls[0].name, "cudaDeviceSynchronize");
    assert_int_equal(calls[0].time_ns, 1000);
    assert_int_equal(calls[0].node, 3);
    assert_int_equal(gpu_attrib_stats()->syncs, 1);
    /* a sync has no activity record: its id is not mapped */
    assert_int_equal(gpu_corr_get(50), GPU_NO_NODE);
    /* an exit without its enter (enabled mid-call) is ignored */
    gpu_api_exit(&st, 0, 2000);
    assert_int_equal(ncalls, 1);
    assert_int_equal(st.depth, 0);
}

static void unknown_correlation_is_unmatched(void **state)
{
    (void)state;
    struct gpu_activity a = kernel(777, 1);
    gpu_deliver(&a);
    assert_int_equal(ncalls, 1);
    assert_int_equal(calls[0].node, PRF_NONE);
    assert_int_equal(gpu_attrib_stats()->unmatched, 1);
    struct gpu_activity z = kernel(0, 1); /* id 0 never matches */
    gpu_corr_put(0, 4);
    gpu_deliver(&z);
    assert_int_equal(calls[1].node, PRF_NONE);
}

static void graph_launch_attributes_every_kernel(void **state)
{
    (void)state;
    struct gpu_api_state st = {0};
    current_node = 21;
    gpu_api_enter(&st, GPU_API_LAUNCH, "cudaGraphLaunch", 60, 0);
    gpu_api_exit(&st, 0, 0);
    for (int i = 0; i < 3; i++) {
        struct gpu_activity a = kernel(60, 10 + i);
        gpu_deliver(&a);
    }
    assert_int_equal(ncalls, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(calls[i].node, 21);
}

static void table_slot_reuse_forgets_old_ids(void **state)
{
    (void)state;
    uint32_t slots = 1u << GPU_CORR_LOG2_SLOTS;
    gpu_corr_put(100, 1);
    assert_int_equal(gpu_corr_get(100), 1);
    gpu_corr_put(100 + slots, 2);
    assert_int_equal(gpu_corr_get(100 + slots), 2);
    assert_int_equal(gpu_corr_get(100), GPU_NO_NODE);
    gpu_corr_put(UINT32_MAX, 3); /* ids near wrap-around */
    assert_int_equal(gpu_corr_get(UINT32_MAX), 3);
}

static void *put_range(void *arg)
{
    uint32_t base = (uint32_t)(uintptr_t)arg;
    for (uint32_t i = 1; i <= 5000; i++)
        gpu_corr_put(base + i, base + i);
    return NULL;
}

static void table_is_thread_safe(void **state)
{
    (void)state;
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, put_range, (void *)(i * 10000)), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (uint32_t b = 0; b < 40000; b += 10000)
        for (uint32_t i = 1; i <= 5000; i++)
            assert_int_equal(gpu_corr_get(b + i), b + i);
}

static void classifies_api_names(void **state)
{
    (void)state;
    static const struct {
        const char *name, *base;
        enum gpu_api_class cls;
    } cases[] = {
        {"cudaLaunchKernel_v7000", "cudaLaunchKernel", GPU_API_LAUNCH},
        {"cudaLaunchKernel_ptsz_v7000", "cudaLaunchKernel", GPU_API_LAUNCH},
        {"__cudaLaunchKernel_v13000", "cudaLaunchKernel", GPU_API_LAUNCH},
        {"cudaLaunchKernelExC_v11060", "cudaLaunchKernelExC", GPU_API_LAUNCH},
        {"cudaLaunchCooperativeKernel_v9000", "cudaLaunchCooperativeKernel", GPU_API_LAUNCH},
        {"cudaGraphLaunch_ptsz_v10000", "cudaGraphLaunch", GPU_API_LAUNCH},
        {"cuLaunchKernel", "cuLaunchKernel", GPU_API_LAUNCH},
        {"cuLaunchKernelEx", "cuLaunchKernelEx", GPU_API_LAUNCH},
        {"cuGraphLaunch", "cuGraphLaunch", GPU_API_LAUNCH},
        {"cudaLaunchHostFunc_v10000", "cudaLaunchHostFunc", GPU_API_OTHER},
        {"cuLaunchHostFunc", "cuLaunchHostFunc", GPU_API_OTHER},
        {"cudaMemcpy_v3020", "cudaMemcpy", GPU_API_COPY_BLOCKING},
        {"cudaMemcpy2D_ptds_v7000", "cudaMemcpy2D", GPU_API_COPY_BLOCKING},
        {"cudaMemcpyToSymbol_v3020", "cudaMemcpyToSymbol", GPU_API_COPY_BLOCKING},
        {"cudaMemcpyPeer_v4000", "cudaMemcpyPeer", GPU_API_COPY_BLOCKING},
        {"cuMemcpyDtoH_v2", "cuMemcpyDtoH", GPU_API_COPY_BLOCKING},
        {"cudaMemcpyAsync_ptsz_v7000", "cudaMemcpyAsync", GPU_API_COPY_ASYNC},
        {"cuMemcpyHtoDAsync_v2_ptsz", "cuMemcpyHtoDAsync", GPU_API_COPY_ASYNC},
        {"cudaGraphAddMemcpyNode_v10000", "cudaGraphAddMemcpyNode", GPU_API_OTHER},
        {"cudaMemset_v3020", "cudaMemset", GPU_API_MEMSET},
        {"cuMemsetD8Async", "cuMemsetD8Async", GPU_API_MEMSET},
        {"cudaDeviceSynchronize_v3020", "cudaDeviceSynchronize", GPU_API_SYNC},
        {"cudaThreadSynchronize_v3020", "cudaThreadSynchronize", GPU_API_SYNC},
        {"cudaStreamSynchronize_ptsz_v7000", "cudaStreamSynchronize", GPU_API_SYNC},
        {"cudaEventSynchronize_v3020", "cudaEventSynchronize", GPU_API_SYNC},
        {"cuCtxSynchronize", "cuCtxSynchronize", GPU_API_SYNC},
        {"cuStreamSynchronize_ptsz", "cuStreamSynchronize", GPU_API_SYNC},
        {"cudaMalloc_v3020", "cudaMalloc", GPU_API_OTHER},
        {"cudaGetDevice_v3020", "cudaGetDevice", GPU_API_OTHER},
        {"cuInit", "cuInit", GPU_API_OTHER},
        {"MPI_Send", "MPI_Send", GPU_API_OTHER},
        {"", "", GPU_API_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char base[64];
        enum gpu_api_class c = gpu_api_classify(cases[i].name, base, sizeof base);
        if (c != cases[i].cls || strcmp(base, cases[i].base) != 0)
            fail_msg("%s: class %d base '%s', expected %d '%s'", cases[i].name, c, base,
                     cases[i].cls, cases[i].base);
    }
    assert_int_equal(gpu_api_classify(NULL, NULL, 0), GPU_API_OTHER);
    char tiny[5];
    gpu_api_classify("cudaDeviceSynchronize", tiny, sizeof tiny);
    assert_string_equal(tiny, "cuda");
}

static void works_without_runtime(void **state)
{
    (void)state;
    struct gpu_rt none = {0};
    gpu_attrib_set_rt(&none);
    struct gpu_api_state st = {0};
    gpu_api_enter(&st, GPU_API_SYNC, "cudaDeviceSynchronize", 1, 0);
    gpu_api_exit(&st, 0, 10);
    struct gpu_activity a = kernel(1, 1);
    gpu_deliver(&a);
    assert_int_equal(ncalls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(kernel_goes_to_launching_context, setup),
        cmocka_unit_test_setup(nested_driver_call_shares_the_context, setup),
        cmocka_unit_test_setup(copy_prefers_runtime_correlation, setup),
        cmocka_unit_test_setup(blocking_copy_is_host_sync_time, setup),
        cmocka_unit_test_setup(synchronize_is_host_sync_time, setup),
        cmocka_unit_test_setup(unknown_correlation_is_unmatched, setup),
        cmocka_unit_test_setup(graph_launch_attributes_every_kernel, setup),
        cmocka_unit_test_setup(table_slot_reuse_forgets_old_ids, setup),
        cmocka_unit_test_setup(table_is_thread_safe, setup),
        cmocka_unit_test(classifies_api_names),
        cmocka_unit_test_setup(works_without_runtime, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
