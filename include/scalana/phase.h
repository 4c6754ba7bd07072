/* scalana/phase.h — ScalAna's phase API: name a region of the program (a
 * setup, a time step, a solver iteration) and get its count and time per
 * process in the profile and in the report (report.json "phases").
 *
 * The functions live in the ScalAna runtime, libscalana-<mpi>.so; this header
 * is the declaration the runtime itself is compiled against (runtime/tables/rt_phase.c).
 * Two ways to use it:
 *
 *   - Link the runtime (scalana-cc does; or `pkg-config --libs scalana-openmpi`,
 *     or CMake's ScalAna::runtime-openmpi target): the calls always resolve.
 *   - Define SCALANA_PHASE_WEAK before including this header and do not link
 *     the runtime: the declarations become weak, the program links and runs
 *     without ScalAna, and under `scalana-run` (the runtime preloaded) the calls
 *     reach it.  Test the function before calling:
 *
 *         #define SCALANA_PHASE_WEAK
 *         #include <scalana/phase.h>
 *         ...
 *         if (scalana_phase_begin) scalana_phase_begin("solve");
 *
 * C++: the declarations have C linkage (extern "C"), nothing else to do.
 *
 * Fortran: there is no module; call the routines with an implicit interface,
 * `call scalana_phase_begin('solve')` and `call scalana_phase_end('solve')`.
 * The runtime exports the names gfortran, flang and other compilers produce
 * (scalana_phase_begin_, scalana_phase_begin__, SCALANA_PHASE_BEGIN, the same
 * for _end) and takes the hidden length argument, so trailing blanks are
 * ignored.  Fortran names longer than 63 characters are cut there.
 *
 * MPI_Pcontrol(level) marks phases too, for programs that must not reference
 * ScalAna: a phase named "MPI_Pcontrol(level)" from that call to the next
 * MPI_Pcontrol or the end of the run.
 *
 * See docs/runtime.md (phases) and docs/install.md (building against an
 * installed ScalAna).
 */
#ifndef SCALANA_PHASE_H
#define SCALANA_PHASE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Default visibility: the runtime is built with -fvisibility=hidden and these
 * are part of what it exports (runtime/exports.map). */
#if defined(__GNUC__) && defined(SCALANA_PHASE_WEAK)
#define SCALANA_PHASE_API __attribute__((weak, visibility("default")))
#elif defined(__GNUC__)
#define SCALANA_PHASE_API __attribute__((visibility("default")))
#else
#define SCALANA_PHASE_API
#endif

/** Opens a phase called name on the calling thread.
 *
 *  name: a NUL-terminated string; up to 63 characters are kept and phases are
 *  told apart by that name (one record per distinct name, at most 256 names
 *  per process; further names are not recorded).  Phases nest: up to 32
 *  open at a time per thread are timed, deeper ones are not.
 *  Time is wall-clock time; the report gives it in seconds, per process (MPI
 *  world rank).  The begin also records the call path it is called from, so
 *  the report places the phase in the program's structure graph.
 *
 *  Thread-safe.  Does nothing before the runtime is active (it starts in
 *  MPI_Init), after the profile is written (MPI_Finalize) or when the runtime
 *  disabled itself; a NULL name is ignored.  Returns nothing and never fails
 *  the application. */
SCALANA_PHASE_API void scalana_phase_begin(const char *name);

/** Closes the innermost open phase called name on the calling thread and adds
 *  its time (end minus begin) and one to its count.  An end without a matching
 *  begin on this thread is ignored.  Phases still open at MPI_Finalize, exit
 *  or MPI_Abort are closed there and counted (the runtime warns once). */
SCALANA_PHASE_API void scalana_phase_end(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* SCALANA_PHASE_H */
