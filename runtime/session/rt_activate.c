/* rt_activate.c — activation at the first MPI call (MPI_Init, or the first
 * wrapped call when MPI was initialised behind the runtime's back): world
 * rank and size, options, the tool's own communicator, the host's usable
 * cores, the run directory (world rank 0), sampling, the preliminary
 * run.json; and the one-line failure report shared by the collective steps. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "sampling/rt_sampling.h"
#include "mpi/rt_mpi.h"
#include "write/rt_write.h"
#include "rt_lifecycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCALANA_MPI_NAME
#error "SCALANA_MPI_NAME (openmpi or mpich) must be defined by the build"
#endif

uint64_t rt_init_t0, rt_init_rt0;

/* Usable cores of this host: the CPUs in the UNION of the affinity masks of
 * the host's ranks (node: their shared-memory communicator, or
 * MPI_COMM_NULL for this rank alone), capped at the host's online CPUs.  One
 * rank's own mask is not enough: Open MPI binds each rank to one core at
 * np <= 2, so two ranks on two cores would look oversubscribed.
 * Collective over node. */
static uint32_t rt_host_usable_cores(MPI_Comm node)
{
    int nw = 0;
    unsigned long *mask = rt_affinity_mask(&nw);
    if (node != MPI_COMM_NULL) {
        /* Masks may differ in width between ranks: agree on the widest. */
        int maxw = mask ? nw : 0;
        if (PMPI_Allreduce(MPI_IN_PLACE, &maxw, 1, MPI_INT, MPI_MAX, node) == MPI_SUCCESS && maxw > 0) {
            unsigned long *u = calloc((size_t)maxw, sizeof *u);
            if (u && mask)
                memcpy(u, mask, (size_t)nw * sizeof *u);
            /* The union only when every member has its buffer (the
             * reduction is collective); otherwise each keeps its own. */
            int ok = u != NULL;
            int all_ok = 0;
            PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node);
            if (all_ok) {
                PMPI_Allreduce(MPI_IN_PLACE, u, maxw, MPI_UNSIGNED_LONG, MPI_BOR, node);
                free(mask);
                mask = u;
                nw = maxw;
            } else {
                free(u);
            }
        }
    }
    uint32_t n = mask ? rt_usable_cores_of_mask(mask, nw) : 1;
    free(mask);
    return n;
}

static volatile int rt_activate_spin;

/* Once per run, not once per rank (rt_lifecycle.h). */
int rt_fail_once(unsigned first_new)
{
    int size = (int)rt_g.world_size, rank = (int)rt_g.world_rank;
    int failed = rt_error_count > first_new;
    int first = failed ? rank : size;
    if (rt_tool_comm != MPI_COMM_NULL)
        PMPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, rt_tool_comm);
    if (failed && first == rank)
        for (unsigned i = first_new; i < rt_error_count; i++)
            rt_log("%s disabled: %s", rt_errors[i].part, rt_errors[i].message);
    return first < size;
}

void rt_activate(int thread_level)
{
    rt_activate_in(MPI_COMM_WORLD, thread_level);
}

void rt_activate_in(MPI_Comm world, int thread_level)
{
    rt_spin_lock(&rt_activate_spin);
    if (rt_g.state != RT_INERT) {
        rt_spin_unlock(&rt_activate_spin);
        return;
    }
    struct rt_thread *t = rt_thread_get();
    if (t)
        t->depth++;
    int rank = 0, size = 1;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    rt_g.world_rank = (uint32_t)rank;
    rt_g.world_size = (uint32_t)size;
    rt_options_read();
    rt_iv_init();
    rt_shadow_check();
    rt_g.mpi_library = SCALANA_MPI_NAME;
    rt_g.thread_level = thread_level;
    rt_g.mt = thread_level == MPI_THREAD_MULTIPLE;
    /* The run starts at the beginning of MPI_Init (when we saw it). */
    rt_g.start_ns = rt_init_t0 ? rt_init_t0 : rt_now_ns();
    rt_g.start_realtime_ns = rt_init_rt0 ? rt_init_rt0 : rt_realtime_ns();
    /* other load's share of the run, measured exactly (run.json, report.json) */
    rt_g.init_tid = (pid_t)syscall(SYS_gettid);
    rt_g.run_delay_ok = rt_run_delay_ns(rt_g.init_tid, &rt_g.start_run_delay_ns) == 0;
    if (gethostname(rt_g.hostname, sizeof rt_g.hostname - 1) != 0)
        snprintf(rt_g.hostname, sizeof rt_g.hostname, "unknown");
    if (PMPI_Comm_dup(world, &rt_tool_comm) != MPI_SUCCESS)
        rt_tool_comm = MPI_COMM_NULL;
    rt_g.ranks_on_host = 1;
    MPI_Comm node = MPI_COMM_NULL;
    if (rt_tool_comm != MPI_COMM_NULL &&
        PMPI_Comm_split_type(rt_tool_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        node = MPI_COMM_NULL;
    if (node != MPI_COMM_NULL) {
        int n = 1;
        PMPI_Comm_size(node, &n);
        rt_g.ranks_on_host = (uint32_t)n;
    }
    rt_g.usable_cores = rt_host_usable_cores(node);
    if (node != MPI_COMM_NULL)
        PMPI_Comm_free(&node);
    rt_comm_init_world(world);
    rt_rundir_name(rt_g.world_size);
    int prepared = rank == 0 && rt_rundir_prepare() == 0;
    __atomic_store_n(&rt_g.state, RT_ON, __ATOMIC_SEQ_CST);
    if (t)
        t->depth--;
    rt_spin_unlock(&rt_activate_spin);
    unsigned failures = rt_error_count;
    rt_fail_quiet = 1; /* a timer that fails on one rank fails on all: one line */
    rt_sampler_start();
    rt_fail_quiet = 0;
    rt_fail_once(failures);
    /* A preliminary run.json (this host only, no files listed, written_by
     * "running"): a run killed before it can write keeps a readable
     * directory; finalize, exit and abort rewrite it (temporary + rename). */
    if (prepared) {
        rt_keep_exe_begin(); /* before run.json: a hard link is named in it at once */
        /* Not even run.json can be written (a full disk): the writer is off
         * from the start, so the run says so once and never leaves a partial file. */
        if (rt_write_run_json_present("running") != 0) prepared = 0;
    }
    /* Every rank learns whether the directory is usable (rank 0 printed the
     * one line otherwise); no rank leaves MPI_Init before run.json exists. */
    int off = rank == 0 ? !prepared : 0;
    if (rt_tool_comm != MPI_COMM_NULL) {
        PMPI_Bcast(&off, 1, MPI_INT, 0, rt_tool_comm);
        /* rank 0 may have chosen another name (the one asked for is in use) */
        if (!off)
            PMPI_Bcast(rt_g.run_dir, (int)sizeof rt_g.run_dir, MPI_CHAR, 0, rt_tool_comm);
    }
    if (off) {
        rt_g.writer_off = 1;
        rt_fail_record("writer", "the run directory is not usable (see world rank 0)");
    }
    /* The activating thread's first computation interval starts now, not at its
     * registration before MPI_Init (C MPI_Init then marks it as following MPI_Init). */
    if (t)
        rt_iv_thread_start(t, 1);
    atexit(rt_at_exit);
}

/* Wrappers reach here when the runtime is not on: activate lazily when MPI
 * was initialised behind our back (e.g. by a Fortran binding). */
int rt_wrap_slow(void)
{
    if (rt_g.state != RT_INERT)
        return 0;
    int flag = 0, fin = 0;
    if (PMPI_Initialized(&flag) != MPI_SUCCESS || !flag)
        return 0;
    if (PMPI_Finalized(&fin) == MPI_SUCCESS && fin)
        return 0;
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    rt_activate(level);
    struct rt_thread *t = rt_self;
    return rt_g.state == RT_ON && (!t || t->depth == 0);
}
