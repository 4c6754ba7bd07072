/* rt_lifecycle.h — the session room's interface (runtime/session/): the
 * run's life in a process — load-time checks, activation at MPI_Init or the
 * first MPI_Session_init, the hand-written MPI_Init/Finalize/Abort/Pcontrol
 * wrappers (C and Fortran).  The top room: it uses every other one. */
#ifndef SCALANA_RT_LIFECYCLE_H
#define SCALANA_RT_LIFECYCLE_H

#include "mpi/rt_mpi.h"

/* ---- activation (rt_activate.c) ------------------------------------------ */
/** Activation at MPI_Init (world MPI_COMM_WORLD) or at the first
 *  MPI_Session_init (world: a communicator of the process set mpi://WORLD,
 *  rt_session.c): world ranks, the runtime's own communicator (a dup of
 *  world), the run directory, the sampler.  Collective over world. */
RT_HIDDEN void rt_activate_in(MPI_Comm world, int thread_level);
/** rt_activate_in(MPI_COMM_WORLD, thread_level). */
RT_HIDDEN void rt_activate(int thread_level);
/** When the run started: monotonic and realtime ns at the entry of MPI_Init
 *  (0 before; activation then takes its own time). */
RT_HIDDEN extern uint64_t rt_init_t0, rt_init_rt0;
/** After a step every rank performs with rt_fail_quiet set (failures recorded
 *  since rt_errors[first_new]): only the lowest world rank with a new failure
 *  prints its lines, so a failure prints once per run, not once per rank.
 *  Collective over rt_tool_comm; without it each rank prints its own.
 *  Returns whether any rank failed. */
RT_HIDDEN int rt_fail_once(unsigned first_new);

/* ---- the hand-written wrappers (rt_init.c) -------------------------------- */
/** The Fortran MPI_INIT / MPI_INIT_THREAD wrappers (rt_fortran_init.c): the run
 *  starts now (called before the library's init) ... */
RT_HIDDEN void rt_init_begin(void);
/** ... and the call is recorded in its calling context with pflags
 *  (PRF_MPI_FORTRAN) and its duration dt in ticks, after activation. */
RT_HIDDEN void rt_init_record(uint32_t op, uint64_t dt, uint32_t pflags);
/** The profile write of MPI_Finalize (C or Fortran), before the library's
 *  finalize; the call is recorded with pflags (PRF_MPI_FORTRAN from the
 *  Fortran binding).  Returns 1 when it ran (the caller then calls the
 *  library's finalize with this thread's depth raised, and rt_finalize_done
 *  after). */
RT_HIDDEN int rt_finalize_prepare(uint32_t pflags);
/** rt_finalize_prepare recording op (SCALANA_MPI_OP_Finalize or
 *  SCALANA_MPI_OP_Session_finalize) with pflags and closing open phases in
 *  its name. */
RT_HIDDEN int rt_finalize_prepare_as(uint32_t op, const char *name, uint32_t pflags);
RT_HIDDEN void rt_finalize_done(void);
/** MPI_Abort (C or Fortran): closes the open phases, records the call (with
 *  pflags) and writes this rank's profile alone, before the library aborts. */
RT_HIDDEN void rt_abort_prepare(uint32_t pflags);
/** MPI_Pcontrol(level): closes the previous level's phase, opens this one's;
 *  the call is recorded with pflags (PRF_MPI_FORTRAN from the Fortran
 *  binding). */
RT_HIDDEN void rt_pcontrol(int level, uint32_t pflags);

#endif
