/* rt_session.c — the sessions model (MPI-4.0): a program that never calls
 * MPI_Init is measured from its first MPI_Session_init to its last
 * MPI_Session_finalize (the "manual" entries Session_init and
 * Session_finalize of mpi_calls.def).  The runtime opens a session of its
 * own: the process set mpi://WORLD gives the world ranks (a group's ranks
 * in that set are the ranks MPI_COMM_WORLD would have) and, through
 * MPI_Comm_create_from_group, the communicator the runtime agrees on ids
 * and writes the profile over.  Built only where mpi.h is MPI-4.0. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_lifecycle.h"

#if MPI_VERSION >= 4

#include <string.h>

static MPI_Session rt_session = MPI_SESSION_NULL;
static MPI_Comm rt_session_world = MPI_COMM_NULL;
static int rt_sessions_open; /* the application's sessions not yet finalized */

/* The runtime's own session and its communicator of mpi://WORLD.  Returns
 * 0, or -1 (then nothing is measured: the program runs as without us). */
static int rt_session_world_open(void)
{
    MPI_Group g = MPI_GROUP_NULL;
    if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &rt_session) != MPI_SUCCESS)
        return -1;
    if (PMPI_Group_from_session_pset(rt_session, "mpi://WORLD", &g) != MPI_SUCCESS ||
        PMPI_Comm_create_from_group(g, "org.scalana.runtime.world", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                    &rt_session_world) != MPI_SUCCESS) {
        if (g != MPI_GROUP_NULL)
            PMPI_Group_free(&g);
        PMPI_Session_finalize(&rt_session);
        rt_fail("mpi", "MPI_Session_init: no communicator of the process set mpi://WORLD");
        return -1;
    }
    PMPI_Group_free(&g);
    return 0;
}

/* The thread support the application's session was given (its info key
 * "thread_level"); MPI_THREAD_SINGLE when it does not say. */
static int rt_session_thread_level(MPI_Session s)
{
    MPI_Info info = MPI_INFO_NULL;
    char v[64] = "";
    int len = (int)sizeof v - 1, flag = 0;
    if (PMPI_Session_get_info(s, &info) != MPI_SUCCESS || info == MPI_INFO_NULL)
        return MPI_THREAD_SINGLE;
    PMPI_Info_get_string(info, "thread_level", &len, v, &flag);
    PMPI_Info_free(&info);
    if (!flag)
        return MPI_THREAD_SINGLE;
    if (strcmp(v, "MPI_THREAD_MULTIPLE") == 0)
        return MPI_THREAD_MULTIPLE;
    if (strcmp(v, "MPI_THREAD_SERIALIZED") == 0)
        return MPI_THREAD_SERIALIZED;
    if (strcmp(v, "MPI_THREAD_FUNNELED") == 0)
        return MPI_THREAD_FUNNELED;
    return MPI_THREAD_SINGLE;
}

RT_EXPORT int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    if (rt_self && rt_self->depth > 0)
        return PMPI_Session_init(info, errhandler, session);
    int first = rt_g.state == RT_INERT;
    struct rt_thread *t = rt_thread_get();
    if (t)
        t->depth++; /* threads the library starts now are not the application's */
    uint64_t t0 = rt_ticks();
    if (first) {
        rt_init_t0 = rt_now_ns();
        rt_init_rt0 = rt_realtime_ns();
    }
    int rc = PMPI_Session_init(info, errhandler, session);
    uint64_t dt = rt_ticks() - t0;
    int world = rc == MPI_SUCCESS && first && rt_session_world_open() == 0;
    if (t)
        t->depth--;
    if (rc != MPI_SUCCESS)
        return rc;
    __atomic_add_fetch(&rt_sessions_open, 1, __ATOMIC_ACQ_REL);
    /* Later sessions pass through: the run is already measured. */
    if (world) {
        rt_activate_in(rt_session_world, rt_session_thread_level(*session));
        rt_init_record(SCALANA_MPI_OP_Session_init, dt, 0);
    }
    return rc;
}

RT_EXPORT int MPI_Session_finalize(MPI_Session *session)
{
    if (rt_self && rt_self->depth > 0)
        return PMPI_Session_finalize(session);
    int left = __atomic_sub_fetch(&rt_sessions_open, 1, __ATOMIC_ACQ_REL);
    /* The profile is written at the last one, collectively over the
     * runtime's communicator (every process finalizes its sessions). */
    if (left > 0 || rt_session_world == MPI_COMM_NULL ||
        !rt_finalize_prepare_as(SCALANA_MPI_OP_Session_finalize, "MPI_Session_finalize", 0))
        return PMPI_Session_finalize(session);
    PMPI_Comm_free(&rt_session_world);
    PMPI_Session_finalize(&rt_session);
    int rc = PMPI_Session_finalize(session);
    rt_finalize_done();
    return rc;
}

#endif
