/* par.h — scalana-analyze on several processes (mpirun -n N scalana-analyze,
 * srun): detection of the launch, the slice of each run's ranks that an
 * analyzer process reads, and the exchange that combines the slices on
 * analyzer rank 0 (docs/parallel-analysis.md).  With one process (the
 * default) every function is a no-op and MPI is never loaded. */
#ifndef SCALANA_PAR_H
#define SCALANA_PAR_H

#include <stddef.h>
#include <stdint.h>

struct an_analysis;
struct an_run;

/** Detects from the launcher's environment, before any MPI call, whether
 *  this process is one of N > 1 analyzer processes (Open MPI's
 *  OMPI_COMM_WORLD_SIZE, MPICH/Hydra's and Intel MPI's PMI_SIZE, Slurm's
 *  SLURM_NTASKS with SLURM_PROCID; SCALANA_ANALYZE_PROCESSES=1 forces
 *  serial), then dlopens the MPI module for that library and initialises
 *  MPI.  Returns 0 (serial or parallel: an_par_size says which), or -1 with
 *  a message on stderr when a parallel launch cannot start (no module for
 *  the library, MPI_Init failed): the caller exits 1, since running the
 *  whole analysis N times would write one report N times. */
int an_par_start(void);
/** Analyzer processes (1 when serial). */
int an_par_size(void);
/** This process's rank among them (0 when serial). */
int an_par_rank(void);
/** The MPI library of the loaded module ("openmpi"), or "" when serial. */
const char *an_par_library(void);
/** The slice of a run of P processes this analyzer process reads: world
 *  ranks [*lo, *lo + *n) = [k P / N, (k + 1) P / N) for process k of N (*n
 *  may be 0 when N > P); (0, P) when serial. */
void an_par_slice(uint32_t P, uint32_t *lo, uint32_t *n);
/** The slice of analyzer process k of N in a run of P processes (k < N). */
void an_par_slice_of(uint32_t P, int k, int N, uint32_t *lo, uint32_t *n);
/** Whether this analyzer process reads world rank `rank` of a run of P
 *  processes: whether it lies in its an_par_slice (always 1 when serial). */
int an_par_mine(uint32_t rank, uint32_t P);
/** After every process read its slices of the runs of a (runs in the same
 *  order everywhere; ready: this process found a readable run and its
 *  executable), finishes the runs (an_run_finish): serially in place.  In
 *  parallel: (1) process 0 merges every process's vertex table into one and
 *  sends it back, so vertex ids are the same everywhere; (2) every process
 *  computes the per-rank inclusive times and the vertex statistics
 *  (an_vstat) of its ranks; (3) the others send process 0 their ranks'
 *  per-run figures (O(ranks)), the statistics and totals of every vertex
 *  (O(vertices)), their point-to-point partner records, phases and
 *  warnings; process 0 builds each run from them (an_par_attach: its
 *  per-rank vertex arrays stay with the processes that read them, an_vr
 *  fetches them) and finishes its totals.  Aborts the job (MPI_Abort, one line on
 *  stderr naming the process) when a message cannot be sent, received or
 *  merged, or when the processes did not find the same runs (one is ready
 *  and another not, a run's world size differs: the run directories are
 *  not on a file system all of them see). */
void an_par_combine(struct an_analysis *a, int ready);
/** Process 0 of a parallel analysis, whole run G (run j of the analysis,
 *  being built from every process's part): G reads its per-rank data
 *  through the parallel source from now on (run_source.h, par_serve.c):
 *  vertex arrays, intervals and partner records are asked of the processes
 *  that read the ranks the first time they are used, into a cache the
 *  source owns and frees (an_vr_release, an_run_free).  *own, the run of
 *  process 0's own slice, moves into the source (zeroed here): process 0
 *  answers for its ranks from it as the others do; returns where it now
 *  is.  Aborts on allocation failure; a process that does not answer a
 *  request aborts the job. */
const struct an_run *an_par_attach(struct an_run *G, struct an_run *own, uint32_t j);
/** The processes other than 0 of a parallel analysis, after an_par_combine:
 *  answers the requests of process 0's parallel source about the ranks they
 *  hold (vertex arrays, interval sums, outliers, site figures, partner
 *  records) until an_par_done.  Serial: no-op. */
void an_par_serve(struct an_analysis *a);
/** Process 0, at the end of an_par_combine: the others now serve (par_combine.c). */
void an_par_start_serving(void);
/** Process 0: ends the other processes' an_par_serve and gathers every
 *  process's peak resident memory into a->peak_rss (this process's measured
 *  now).  Once per analysis; serial: only this process's. */
void an_par_done(struct an_analysis *a);
/** MPI_Finalize when parallel. */
void an_par_end(void);
/** Peak resident set of this process in bytes (getrusage ru_maxrss). */
uint64_t an_peak_rss_bytes(void);

#endif
