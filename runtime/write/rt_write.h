/* rt_write.h — the write room's interface (runtime/write/): encoding the
 * profile, the run directory, run.json, the kept executable, host CPUs, and
 * the writes themselves (collective at finalize, a rank alone at exit or
 * abort).  Nothing here needs mpi.h: the collective write's files
 * (rt_write_coll.c ...) include the MPI room themselves. */
#ifndef SCALANA_RT_WRITE_H
#define SCALANA_RT_WRITE_H

#include "core/rt_core.h"

/* ---- the profile (rt_profile.c) ------------------------------------------- */

/** Builds this rank's profile section (malloc'ed) from the runtime state.
 *  flags: enum prf_rank_flags of how it is written. */
RT_HIDDEN int rt_profile_encode(uint32_t flags, unsigned char **out, size_t *bytes);

/* ---- run directory (rt_rundir.c) ------------------------------------------- */
/** Decides the run directory name into rt_g.run_dir (SCALANA_OUTPUT or
 *  scalana-<exe>-<p>p), absolute against the working directory now; -1 when
 *  the path is too long (prepare then refuses it).  prepare (rank 0): claims
 *  the directory for this process (owner file + flock, docs/runtime.md): an
 *  earlier run directory whose owner is gone is moved aside (one line), one
 *  owned by a running process is left alone and rt_g.run_dir becomes the
 *  next free <dir>.N (one line), an empty directory is used as is, anything
 *  else (a regular file, a user's directory) is not touched; a missing one
 *  is created.  Returns 0 or -1 (one line). */
RT_HIDDEN int rt_rundir_name(uint32_t world_size);
RT_HIDDEN int rt_rundir_prepare(void);
RT_HIDDEN int rt_rundir_ensure(void);
RT_HIDDEN uint64_t rt_exe_hash(void);
/** Writes this rank alone into profile-<r>-<r>.sclp (at exit, on abort). */
RT_HIDDEN int rt_write_single(uint32_t flags);
/** run.json from rank 0's view; hosts may be NULL (then this rank's host only). */
struct scalana_run_info;
RT_HIDDEN int rt_write_run_json(struct scalana_run_info *info);
RT_HIDDEN void rt_run_info_fill(struct scalana_run_info *info, const char *written_by);
/** Keeps a copy of the command line the program was started with (argc
 *  strings of argv), from the load-time constructor: run.json's command is
 *  this, not what the program later writes over its argv.  Once; on failure
 *  to allocate, run.json falls back to /proc/self/cmdline. */
RT_HIDDEN void rt_cmdline_save(int argc, char **argv);
/* ---- the run's own executable (rt_keepexe.c) ------------------------------ */
/** World rank 0 at MPI_Init, after the run directory exists: unless
 *  SCALANA_KEEP_EXE=off, hard-links the running executable (and the debug
 *  file its .gnu_debuglink names) into <run>/exe/, or holds it open to copy
 *  at the end.  Failures: one line, the application is not affected. */
RT_HIDDEN void rt_keep_exe_begin(void);
/** Copies what could not be linked (from the descriptors held since MPI_Init). */
RT_HIDDEN void rt_keep_exe_finish(void);
/** At the end of the run's write (after the writer's own line, if any): the
 *  line about a copy that failed on a full disk (ENOSPC, EDQUOT), held back
 *  until now, unless the writer failed too: then its line already said the
 *  disk is full, and a full disk is one line (docs/runtime.md). */
RT_HIDDEN void rt_keep_warn_flush(void);
/** Sets info's executable_copy, executable_copy_method and debug_copy
 *  (NULL when not kept, or not yet copied). */
RT_HIDDEN void rt_keep_exe_describe(struct scalana_run_info *info);
/* ---- host CPUs (rt_rundir.c) ---------------------------------------------- */
/** This process's CPU affinity mask as words (malloc'ed; *nwords words),
 *  every online CPU when sched_getaffinity fails; NULL without memory. */
RT_HIDDEN unsigned long *rt_affinity_mask(int *nwords);
/** CPUs in mask (a union of affinity masks), capped at the online CPUs
 *  (sysconf(_SC_NPROCESSORS_ONLN)); at least 1. */
RT_HIDDEN uint32_t rt_usable_cores_of_mask(const unsigned long *mask, int nwords);

/* ---- writing (rt_write_coll.c, rt_write_exit.c, rt_runjson.c) ------------- */
/** One rank's entry of run.json's host table, gathered at finalize. */
struct rt_host_entry { char name[64]; uint32_t cores; uint32_t pad; };
/** The collective write at finalize: every rank's section in one file, at
 *  offsets from an exclusive scan of the section sizes; then run.json with
 *  every rank's host (rank 0).  Collective over rt_tool_comm.  Returns 0, or
 *  -1 on every rank (nothing printed: the caller falls back to
 *  rt_write_alone). */
RT_HIDDEN int rt_write_collective(void);
/** This rank's own profile file, then (world rank 0) run.json listing the
 *  files present; never waits for other ranks.  flags: enum prf_rank_flags;
 *  written_by: run.json's "written_by".  Returns 0 when the profile was
 *  written. */
RT_HIDDEN int rt_write_alone(uint32_t flags, const char *written_by);
/** The atexit handler registered at activation: holds SIGTERM until this
 *  rank's profile is written. */
RT_HIDDEN void rt_at_exit(void);
/** run.json (world rank 0) with the host table of n ranks (hosts NULL: this
 *  host alone) and the nfiles profile file names.  Returns 0 when written. */
RT_HIDDEN int rt_write_run_json_hosts(const struct rt_host_entry *hosts, uint32_t n, const char *written_by,
                                      char **files, uint32_t nfiles);
/** run.json (world rank 0) from this host's view, listing the profile files
 *  now in the run directory.  Returns 0 when written. */
RT_HIDDEN int rt_write_run_json_present(const char *written_by);

#endif
