/* test_gpu_decode.c — unit tests of CUPTI record decoding (runtime/gpu/gpu_decode.c):
 * the newest records the CUPTI headers define (GPU_RECORD_*: CUDA 13.0 has Kernel10,
 * Memcpy6, MemcpyPtoP4, Memset4) built in memory and fed to the decoder, and the
 * walk over a completed buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <cupti_activity.h>

#include "gpu_internal.h"
#include "scalana/profile_format.h"

static void decodes_kernel10(void **state)
{
    (void)state;
    GPU_RECORD_KERNEL k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "_Z11busy_kernelPfii";
    k.deviceId = 3;
    k.streamId = 7;
    k.start = 1000;
    k.end = 5500;
    k.correlationId = 42;
    struct gpu_activity a;
    assert_int_equal(gpu_decode_record(&k, &a), 1);
    assert_int_equal(a.kind, PRF_GPU_KERNEL);
    assert_string_equal(a.name, "_Z11busy_kernelPfii");
    assert_int_equal(a.device, 3);
    assert_int_equal(a.stream, 7);
    assert_int_equal(a.correlation_id, 42);
    assert_int_equal(a.runtime_correlation_id, 0);
    assert_int_equal(a.bytes, 0);
    assert_int_equal(gpu_activity_duration(&a), 4500);

    k.kind = CUPTI_ACTIVITY_KIND_KERNEL; /* the serialising kind decodes the same */
    k.name = NULL;
    assert_int_equal(gpu_decode_record(&k, &a), 1);
    assert_string_equal(a.name, "kernel");
}

static void decodes_memcpy6(void **state)
{
    (void)state;
    GPU_RECORD_MEMCPY m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    m.bytes = 1u << 20;
    m.start = 10;
    m.end = 2010;
    m.deviceId = 1;
    m.streamId = 14;
    m.correlationId = 99;
    m.runtimeCorrelationId = 98;
    struct gpu_activity a;
    assert_int_equal(gpu_decode_record(&m, &a), 1);
    assert_int_equal(a.kind, PRF_GPU_MEMCPY);
    assert_string_equal(a.name, "DtoH");
    assert_int_equal(a.bytes, 1u << 20);
    assert_int_equal(a.device, 1);
    assert_int_equal(a.stream, 14);
    assert_int_equal(a.correlation_id, 99);
    assert_int_equal(a.runtime_correlation_id, 98);
    assert_int_equal(gpu_activity_duration(&a), 2000);
}

static void decodes_peer_copy_and_memset(void **state)
{
    (void)state;
    GPU_RECORD_PTOP p;
    memset(&p, 0, sizeof p);
    p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p.bytes = 4096;
    p.start = 100;
    p.end = 300;
    p.deviceId = 2;
    p.correlationId = 5;
    struct gpu_activity a;
    assert_int_equal(gpu_decode_record(&p, &a), 1);
    assert_int_equal(a.kind, PRF_GPU_MEMCPY);
    assert_string_equal(a.name, "PtoP");
    assert_int_equal(a.bytes, 4096);
    assert_int_equal(a.correlation_id, 5);
    assert_int_equal(gpu_activity_duration(&a), 200);

    GPU_RECORD_MEMSET s;
    memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    s.bytes = 512;
    s.start = 7;
    s.end = 9;
    s.streamId = 3;
    s.correlationId = 6;
    assert_int_equal(gpu_decode_record(&s, &a), 1);
    assert_int_equal(a.kind, PRF_GPU_MEMSET);
    assert_string_equal(a.name, "memset");
    assert_int_equal(a.bytes, 512);
    assert_int_equal(a.stream, 3);
    assert_int_equal(gpu_activity_duration(&a), 2);
}

static void ignores_other_kinds(void **state)
{
    (void)state;
    CUpti_ActivityAPI api;
    memset(&api, 0, sizeof api);
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    struct gpu_activity a;
    assert_int_equal(gpu_decode_record(&api, &a), 0);
    api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    assert_int_equal(gpu_decode_record(&api, &a), 0);
}

static void missing_or_reversed_timestamps_give_zero(void **state)
{
    (void)state;
    struct gpu_activity a = {.start_ns = 0, .end_ns = 0};
    assert_int_equal(gpu_activity_duration(&a), 0);
    a.start_ns = 50;
    a.end_ns = 40;
    assert_int_equal(gpu_activity_duration(&a), 0);
}

static void copy_kind_names(void **state)
{
    (void)state;
    assert_string_equal(gpu_copy_kind_name(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD), "HtoD");
    assert_string_equal(gpu_copy_kind_name(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH), "DtoH");
    assert_string_equal(gpu_copy_kind_name(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD), "DtoD");
    assert_string_equal(gpu_copy_kind_name(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH), "HtoH");
    assert_string_equal(gpu_copy_kind_name(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN), "copy");
    assert_string_equal(gpu_copy_kind_name(200), "copy");
}

/* A completed buffer as a list of records, walked like cuptiActivityGetNextRecord. */
static void *fake_records[8];
static size_t fake_count, fake_pos;
static int fake_next(uint8_t *buffer, size_t valid, void **rec)
{
    (void)buffer;
    (void)valid;
    if (fake_pos >= fake_count)
        return 1;
    *rec = fake_records[fake_pos++];
    return 0;
}

static unsigned adds;
static uint64_t add_time, add_bytes;
static void count_add(uint32_t node, uint32_t kind, const char *name, uint32_t device,
                      uint64_t time_ns, uint64_t bytes)
{
    (void)node; (void)kind; (void)name; (void)device;
    adds++;
    add_time += time_ns;
    add_bytes += bytes;
}

static void walks_a_buffer(void **state)
{
    (void)state;
    struct gpu_rt rt = {.gpu_add = count_add};
    gpu_attrib_set_rt(&rt);
    GPU_RECORD_KERNEL k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 0;
    k.end = 100;
    k.name = "k";
    CUpti_ActivityAPI api;
    memset(&api, 0, sizeof api);
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    GPU_RECORD_MEMCPY m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.start = 1;
    m.end = 11;
    m.bytes = 64;
    fake_records[0] = &k;
    fake_records[1] = &api;
    fake_records[2] = &m;
    fake_count = 3;
    fake_pos = 0;
    uint8_t dummy[8];
    assert_int_equal(gpu_deliver_buffer(dummy, sizeof dummy, fake_next), 2);
    assert_int_equal(adds, 2);
    assert_int_equal(add_time, 110);
    assert_int_equal(add_bytes, 64);
    assert_int_equal(gpu_attrib_stats()->ignored, 1);
    assert_int_equal(gpu_attrib_stats()->records, 2);
    assert_int_equal(gpu_deliver_buffer(NULL, 0, fake_next), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_kernel10),
        cmocka_unit_test(decodes_memcpy6),
        cmocka_unit_test(decodes_peer_copy_and_memset),
        cmocka_unit_test(ignores_other_kinds),
        cmocka_unit_test(missing_or_reversed_timestamps_give_zero),
        cmocka_unit_test(copy_kind_names),
        cmocka_unit_test(walks_a_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
