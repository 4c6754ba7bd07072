/* test_gpu_idle.c — cmocka unit tests of idle GPUs (analyzer/detect/detectors/gpu_idle.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/graph.h"
#include "core/types.h"
#include "detect/category.h"
#include "metrics/metrics.h"
#include "ppg/ppg.h"
#include "scalana/psg_format.h"
#include "unit_helpers.h"

#include <dlfcn.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A GPU program whose processes compute on the host between launches while
 * their GPUs idle: gpu_idle at the host computation, not when the device work
 * could have overlapped it. */
static void gpu_idle_case(struct mini *m, double kernel_s, double sync_s)
{
    const uint32_t P = 4;
    mini_init(m, P, 1);
    uint32_t launch = add_v(&m->a.g, m->loop, PSG_GPU, "call cudaLaunchKernel", 3, 1);
    m->A = add_v(&m->a.g, m->loop, PSG_COMPUTE, "host_step", 4, 0);
    an_graph_sort_children(&m->a.g);
    struct an_run *r = mini_run(m, 0, P, 2.0);
    double A[4] = {1.0, 1.0, 1.0, 1.0}, W[4] = {0.01, 0.01, 0.01, 0.01};
    set_cpu(r, m->A, A), set_mpi(r, m->ar, W, 100, 1e-4);
    struct an_vrun *x = an_run_vertex(r, launch);
    x->gpu = calloc(P, sizeof *x->gpu);
    for (uint32_t i = 0; i < P; i++) x->gpu[i] = (float)kernel_s, x->gpu_kernel_s += kernel_s, r->gpu_sync[i] = sync_s;
    mini_finish(m);
}

static void t_gpu_idle(void **state)
{
    (void)state;
    struct mini m;
    /* 0.2 s of kernels per process, waited for (synchronised): 1 s of host work leaves the GPU idle */
    gpu_idle_case(&m, 0.2, 0.2);
    assert_int_equal(m.a.ncauses, 1);
    assert_int_equal(m.a.causes[0].vertex, m.A);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "gpu_idle");
    assert_int_equal(m.a.causes[0].nprocs, 4);
    assert_true(fabs(m.a.causes[0].cost - 1.0) < 0.01);
    an_analysis_free(&m.a);
    /* 0.6 s of kernels, none waited for: at most 0.6 s could overlap the host work */
    gpu_idle_case(&m, 0.6, 0.0);
    assert_int_equal(m.a.ncauses, 1);
    assert_string_equal(an_category_name(m.a.causes[0].cat), "gpu_idle");
    assert_true(fabs(m.a.causes[0].cost - 0.4) < 0.01);
    an_analysis_free(&m.a);
    /* 0.95 s asynchronous device work could hide nearly all of it: below the minimum cost */
    gpu_idle_case(&m, 0.95, 0.0);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
    /* GPUs busy most of the run: not idle */
    gpu_idle_case(&m, 1.2, 1.2);
    assert_int_equal(m.a.ncauses, 0);
    an_analysis_free(&m.a);
}

int main(void)
{
    unit_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_gpu_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
