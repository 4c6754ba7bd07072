/* par.h — scalana-analyze on several processes (mpirun -n N scalana-analyze,
 * srun): detection of the launch, the slice of each run's ranks that an
 * analyzer process reads, and the exchange that combines the slices on
 * analyzer rank 0 (docs/parallel-analysis.md).  With one process (the
 * default) every function is a no-op and MPI is never loaded. */
#ifndef SCALANA_PAR_H
#define SCALANA_PAR_H

#include <stdint.h>

struct an_analysis;

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
 *  executable): the processes other than 0 send their vertices, the
 *  per-rank figures of their ranks and their warnings to process 0, which
 *  merges them into a as if it had read every rank itself; then every
 *  process's peak resident memory is gathered into a->peak_rss (on 0).
 *  Serial: only a->peak_rss = this process's.  Aborts the job (MPI_Abort,
 *  one line on stderr naming the process) when a message cannot be sent,
 *  received or merged, or when the processes did not find the same runs
 *  (one is ready and another not, a run's world size differs: the run
 *  directories are not on a file system all of them see). */
void an_par_combine(struct an_analysis *a, int ready);
/** MPI_Finalize when parallel. */
void an_par_end(void);
/** Peak resident set of this process in bytes (getrusage ru_maxrss). */
uint64_t an_peak_rss_bytes(void);

#endif
