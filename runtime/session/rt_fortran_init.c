/* rt_fortran_init.c — the hand-written Fortran entries (MPI_INIT,
 * MPI_INIT_THREAD, MPI_FINALIZE, MPI_ABORT, MPI_PCONTROL) in all manglings:
 * the Fortran twins of rt_init.c.  Each forwards to the MPI library's own
 * Fortran PMPI entry (rt_f_real, rt_fortran.c); they live in the session
 * room because they activate the runtime and write the profile, which the
 * MPI room's wrappers never do. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "mpi/rt_fortran.h"
#include "mpi/rt_mpi.h"
#include "rt_lifecycle.h"

typedef void (*rt_f_ierr_fn)(MPI_Fint *);
typedef void (*rt_f_init_thread_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*rt_f_abort_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*rt_f_pcontrol_fn)(MPI_Fint *, MPI_Fint *);

static void rt_f_init(int v, MPI_Fint *ierr)
{
    static void *real[RT_F_VARIANTS];
    rt_f_ierr_fn f = (rt_f_ierr_fn)rt_f_real(v, "init", real);
    if (!f) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    int first = rt_g.state == RT_INERT;
    struct rt_thread *t = first ? rt_thread_get() : NULL;
    if (t)
        t->depth++; /* the library's threads and its own C MPI_Init pass through */
    if (first)
        rt_init_begin();
    uint64_t t0 = rt_ticks();
    f(ierr);
    uint64_t dt = rt_ticks() - t0;
    if (t)
        t->depth--;
    if (first && rt_g.state == RT_INERT && (!ierr || *ierr == MPI_SUCCESS)) {
        rt_activate(MPI_THREAD_SINGLE);
        rt_f_probe();
        rt_init_record(SCALANA_MPI_OP_Init, dt, PRF_MPI_FORTRAN);
    }
}

static void rt_f_init_thread(int v, MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    static void *real[RT_F_VARIANTS];
    rt_f_init_thread_fn f = (rt_f_init_thread_fn)rt_f_real(v, "init_thread", real);
    if (!f) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    int first = rt_g.state == RT_INERT;
    struct rt_thread *t = first ? rt_thread_get() : NULL;
    if (t)
        t->depth++;
    if (first)
        rt_init_begin();
    uint64_t t0 = rt_ticks();
    f(required, provided, ierr);
    uint64_t dt = rt_ticks() - t0;
    if (t)
        t->depth--;
    if (first && rt_g.state == RT_INERT && (!ierr || *ierr == MPI_SUCCESS)) {
        rt_activate(provided ? (int)*provided : (int)*required);
        rt_f_probe();
        rt_init_record(SCALANA_MPI_OP_Init_thread, dt, PRF_MPI_FORTRAN);
    }
}

static void rt_f_finalize(int v, MPI_Fint *ierr)
{
    static void *real[RT_F_VARIANTS];
    rt_f_ierr_fn f = (rt_f_ierr_fn)rt_f_real(v, "finalize", real);
    if (!f) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    int wrote = rt_finalize_prepare(PRF_MPI_FORTRAN);
    f(ierr);
    if (wrote)
        rt_finalize_done();
}

static void rt_f_abort(int v, MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr)
{
    static void *real[RT_F_VARIANTS];
    rt_f_abort_fn f = (rt_f_abort_fn)rt_f_real(v, "abort", real);
    if (!f) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    rt_abort_prepare(PRF_MPI_FORTRAN);
    f(comm, code, ierr);
}

static void rt_f_pcontrol(int v, MPI_Fint *level, MPI_Fint *ierr)
{
    static void *real[RT_F_VARIANTS];
    rt_f_pcontrol_fn f = (rt_f_pcontrol_fn)rt_f_real(v, "pcontrol", real);
    int measure = rt_wrap_enabled();
    if (measure)
        rt_pcontrol((int)*level, PRF_MPI_FORTRAN);
    /* MPICH's Fortran MPI_PCONTROL calls the C MPI_Pcontrol (ours, not
     * PMPI_Pcontrol): the call is recorded once, here. */
    struct rt_thread *t = measure ? rt_self : NULL;
    if (t)
        t->depth++;
    if (f)
        f(level, ierr);
    else if (ierr)
        *ierr = MPI_SUCCESS;
    if (t)
        t->depth--;
}

#define RT_F_ENTRIES(lower, upper, impl, params, args)                       \
    RT_EXPORT void lower##_ params { impl(0, RT_F_UNPACK args); }            \
    RT_EXPORT void lower##__ params { impl(1, RT_F_UNPACK args); }           \
    RT_EXPORT void lower params { impl(2, RT_F_UNPACK args); }               \
    RT_EXPORT void upper params { impl(3, RT_F_UNPACK args); }               \
    RT_EXPORT void RT_F08_NAME(lower) params { impl(4, RT_F_UNPACK args); } \
    RT_F_ENTRY_F08B(lower, impl, params, args)
#ifdef RT_F08B_NAME
#define RT_F_ENTRY_F08B(lower, impl, params, args) \
    RT_EXPORT void RT_F08B_NAME(lower) params { impl(5, RT_F_UNPACK args); }
#else
#define RT_F_ENTRY_F08B(lower, impl, params, args)
#endif
#define RT_F_UNPACK(...) __VA_ARGS__

RT_F_ENTRIES(mpi_init, MPI_INIT, rt_f_init, (MPI_Fint * ierr), (ierr))
RT_F_ENTRIES(mpi_init_thread, MPI_INIT_THREAD, rt_f_init_thread,
             (MPI_Fint * required, MPI_Fint * provided, MPI_Fint * ierr), (required, provided, ierr))
RT_F_ENTRIES(mpi_finalize, MPI_FINALIZE, rt_f_finalize, (MPI_Fint * ierr), (ierr))
RT_F_ENTRIES(mpi_abort, MPI_ABORT, rt_f_abort, (MPI_Fint * comm, MPI_Fint * code, MPI_Fint * ierr),
             (comm, code, ierr))
RT_F_ENTRIES(mpi_pcontrol, MPI_PCONTROL, rt_f_pcontrol, (MPI_Fint * level, MPI_Fint * ierr), (level, ierr))
