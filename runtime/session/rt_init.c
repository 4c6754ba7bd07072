/* rt_init.c — the hand-written wrappers of the calls that start and end the
 * run (MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort, MPI_Pcontrol:
 * the "manual" entries of mpi_calls.def) and the recording of such a call in
 * its calling context.  Activation is rt_activate.c, the profile writes
 * rt_write_coll.c (finalize) and rt_write_exit.c (exit, abort). */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "sampling/rt_sampling.h"
#include "tables/rt_tables.h"
#include "mpi/rt_mpi.h"
#include "write/rt_write.h"
#include "rt_lifecycle.h"

#include <stdio.h>

/* Records a hand-written call in its calling context.  Its place among the
 * computation intervals: MPI_Init opens the thread's first one (after it),
 * MPI_Finalize and MPI_Abort close the last one (before them), MPI_Pcontrol
 * closes one and opens the next.  dt: the call's duration in ticks (0 when
 * recorded before the call); pflags: enum prf_mpi_flags. */
static void rt_record_simple_flags(uint32_t op, uint64_t dt, uint64_t comm_id, uint32_t pflags)
{
    uint64_t iv_now = rt_ticks();
    struct rt_thread *t = rt_thread_get();
    if (!t)
        return;
    t->in_rt = 1;
    uint64_t iv_sig = t->cpu_signals;
    uint64_t iv_cpu = t->iv.cpu0 != UINT64_MAX ? rt_thread_cpu_ns() : 0;
    void *frames[RT_MAX_DEPTH];
    int truncated = 0;
    int n = rt_capture_path(frames, RT_MAX_DEPTH, &truncated);
    uint32_t node;
    uint32_t ctx = rt_ctx_get(t, frames, n, truncated, op, comm_id, pflags, &node);
    rt_ctx_add(ctx, dt, 0, 0);
    int init = op == SCALANA_MPI_OP_Init || op == SCALANA_MPI_OP_Init_thread || op == SCALANA_MPI_OP_Session_init;
    if (!init && (t->depth == 0 || op == SCALANA_MPI_OP_Abort)) { /* MPI_Abort raised the depth */
        if (ctx != UINT32_MAX)
            rt_iv_end(t, ctx, iv_now, iv_sig, iv_cpu);
        else
            rt_iv_drop(t);
    }
    if (init || (op == SCALANA_MPI_OP_Pcontrol && t->depth == 0))
        rt_iv_begin(t, ctx);
    t->in_rt = 0;
}

static void rt_record_simple(uint32_t op, uint64_t dt, uint64_t comm_id)
{
    rt_record_simple_flags(op, dt, comm_id, 0);
}

void rt_init_begin(void)
{
    rt_init_t0 = rt_now_ns();
    rt_init_rt0 = rt_realtime_ns();
}

void rt_init_record(uint32_t op, uint64_t dt, uint32_t pflags)
{
    if (rt_g.state == RT_ON)
        rt_record_simple_flags(op, dt, 0, pflags);
}

RT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    /* From inside our Fortran MPI_INIT (MPICH's binding calls the C entry):
     * that wrapper times and records it. */
    if (rt_g.state != RT_INERT || (rt_self && rt_self->depth > 0))
        return PMPI_Init(argc, argv);
    struct rt_thread *t = rt_thread_get();
    if (t)
        t->depth++; /* threads the library starts now are not the application's */
    uint64_t t0 = rt_ticks();
    rt_init_t0 = rt_now_ns();
    rt_init_rt0 = rt_realtime_ns();
    int rc = PMPI_Init(argc, argv);
    uint64_t dt = rt_ticks() - t0;
    if (t)
        t->depth--;
    if (rc == MPI_SUCCESS) {
        rt_activate(MPI_THREAD_SINGLE);
        if (rt_g.state == RT_ON)
            rt_record_simple(SCALANA_MPI_OP_Init, dt, 0);
    }
    return rc;
}

RT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (rt_g.state != RT_INERT || (rt_self && rt_self->depth > 0))
        return PMPI_Init_thread(argc, argv, required, provided);
    struct rt_thread *t = rt_thread_get();
    if (t)
        t->depth++;
    uint64_t t0 = rt_ticks();
    rt_init_t0 = rt_now_ns();
    rt_init_rt0 = rt_realtime_ns();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    uint64_t dt = rt_ticks() - t0;
    if (t)
        t->depth--;
    if (rc == MPI_SUCCESS) {
        rt_activate(provided ? *provided : required);
        if (rt_g.state == RT_ON)
            rt_record_simple(SCALANA_MPI_OP_Init_thread, dt, 0);
    }
    return rc;
}

int rt_finalize_prepare(uint32_t pflags)
{
    return rt_finalize_prepare_as(SCALANA_MPI_OP_Finalize, "MPI_Finalize", pflags);
}

int rt_finalize_prepare_as(uint32_t op, const char *name, uint32_t pflags)
{
    if (rt_g.state != RT_ON)
        return 0;
    struct rt_thread *t = rt_thread_get(); /* any thread may finalize */
    if (t && t->depth)
        return 0;
    rt_record_simple_flags(op, 0, 0, pflags);
    rt_phase_close_all(name);
    if (t)
        t->depth++;
    rt_collectors_flush();
    rt_sampler_stop();
    rt_callpath_debug();
    if (rt_g.writer_off) {
        /* the run directory was refused at activation (one line then) */
    } else if (rt_tool_comm == MPI_COMM_NULL || rt_write_collective() != 0) {
        /* Each rank writes its own file; one line for the run: the first
         * rank that failed, or rank 0 when all succeeded. */
        unsigned failures = rt_error_count;
        rt_fail_quiet = 1;
        rt_write_alone(PRF_RANK_FINALIZED, "finalize");
        rt_fail_quiet = 0;
        if (!rt_fail_once(failures) && rt_g.world_rank == 0)
            rt_log("collective profile write failed: each rank wrote its own file");
    }
    rt_keep_warn_flush(); /* after the writer's line: one line on a full disk */
    rt_g.state = RT_WRITTEN;
    if (rt_tool_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&rt_tool_comm);
    return 1;
}

void rt_finalize_done(void)
{
    if (rt_self && rt_self->depth > 0)
        rt_self->depth--;
}

RT_EXPORT int MPI_Finalize(void)
{
    if (!rt_finalize_prepare(0))
        return PMPI_Finalize();
    int rc = PMPI_Finalize();
    rt_finalize_done();
    return rc;
}

void rt_abort_prepare(uint32_t pflags)
{
    if (rt_g.state != RT_ON)
        return;
    rt_g.state = RT_WRITTEN;
    struct rt_thread *t = rt_self;
    if (t)
        t->depth++;
    rt_phase_close_all("MPI_Abort");
    rt_record_simple_flags(SCALANA_MPI_OP_Abort, 0, 0, pflags);
    rt_write_alone(PRF_RANK_ABORTED, "abort");
}

RT_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    rt_abort_prepare(0);
    return PMPI_Abort(comm, errorcode);
}

void rt_pcontrol(int level, uint32_t pflags)
{
    static char open_name[32];
    if (open_name[0])
        rt_phase_event(open_name, 0);
    snprintf(open_name, sizeof open_name, "MPI_Pcontrol(%d)", level);
    rt_phase_event(open_name, 1);
    rt_record_simple_flags(SCALANA_MPI_OP_Pcontrol, 0, 0, pflags);
}

RT_EXPORT int MPI_Pcontrol(const int level, ...)
{
    if (rt_wrap_enabled())
        rt_pcontrol(level, 0);
    return PMPI_Pcontrol(level);
}
