/* rt_errh.c — whether the application can see an MPI error.  Under
 * MPI_ERRORS_ARE_FATAL (the default) an error ends the job, so completing an
 * MPI_Waitall through MPI_Waitsome changes nothing the application sees.
 * Once the application installs any other error handler (MPI_ERRORS_RETURN or
 * its own) on a communicator, errors reach it with the exact semantics of the
 * call it made, and the runtime stops rewriting calls (rt_errors_visible). */
#include "core/rt_core.h"
#include "rt_fortran.h"
#include "rt_mpi.h"

volatile int rt_errors_visible;

static int rt_errh_fatal(MPI_Errhandler h)
{
#ifdef MPI_ERRORS_ABORT
    if (h == MPI_ERRORS_ABORT)
        return 1;
#endif
    return h == MPI_ERRORS_ARE_FATAL;
}

RT_EXPORT int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler h)
{
    int rc = PMPI_Comm_set_errhandler(comm, h);
    if (rc == MPI_SUCCESS && !rt_errh_fatal(h))
        rt_errors_visible = 1;
    return rc;
}

/* Fortran: the handle is an integer in every binding (mpi_f08's
 * TYPE(MPI_Errhandler) holds just MPI_VAL). */
typedef void (*rt_f_set_errh_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void rt_f_comm_set_errhandler(int v, MPI_Fint *comm, MPI_Fint *h, MPI_Fint *ierr)
{
    static void *real[RT_F_VARIANTS];
    rt_f_set_errh_fn f = (rt_f_set_errh_fn)rt_f_real(v, "comm_set_errhandler", real);
    if (!f) {
        if (ierr)
            *ierr = MPI_ERR_INTERN;
        return;
    }
    f(comm, h, ierr);
    if ((!ierr || *ierr == MPI_SUCCESS) && h && !rt_errh_fatal(PMPI_Errhandler_f2c(*h)))
        rt_errors_visible = 1;
}

#define RT_F_ARGS (MPI_Fint * comm, MPI_Fint * h, MPI_Fint * ierr)
RT_EXPORT void mpi_comm_set_errhandler_ RT_F_ARGS { rt_f_comm_set_errhandler(0, comm, h, ierr); }
RT_EXPORT void mpi_comm_set_errhandler__ RT_F_ARGS { rt_f_comm_set_errhandler(1, comm, h, ierr); }
RT_EXPORT void mpi_comm_set_errhandler RT_F_ARGS { rt_f_comm_set_errhandler(2, comm, h, ierr); }
RT_EXPORT void MPI_COMM_SET_ERRHANDLER RT_F_ARGS { rt_f_comm_set_errhandler(3, comm, h, ierr); }
RT_EXPORT void RT_F08_NAME(mpi_comm_set_errhandler) RT_F_ARGS { rt_f_comm_set_errhandler(4, comm, h, ierr); }
#ifdef RT_F08B_NAME
RT_EXPORT void RT_F08B_NAME(mpi_comm_set_errhandler) RT_F_ARGS { rt_f_comm_set_errhandler(5, comm, h, ierr); }
#endif
