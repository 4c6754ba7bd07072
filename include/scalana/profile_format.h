/* profile_format.h — the run profile: what the runtime measured, per world rank.
 * Written by runtime/ (at MPI_Finalize, at exit, on MPI_Abort), read by
 * scalana-dump and scalana-analyze.  One definition for writer and reader;
 * see docs/formats.md for the run directory around it. */
#ifndef SCALANA_PROFILE_FORMAT_H
#define SCALANA_PROFILE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "scalana/run_files.h" /* the names of profile files */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Run directory --------------------------------------------------------
 *   <dir>/run.json                      run description (docs/formats.md)
 *   <dir>/profile-<first>-<last>.sclp   ranks first..last (world ranks, %06u)
 * A collective MPI-IO write produces one or a few files holding ranges of
 * ranks; a rank that writes at exit without the others produces its own
 * one-rank file.  Readers treat both the same.
 *
 * ---- Profile file (all integers little-endian) -----------------------------
 *   prf_file_header                       64 bytes
 *   prf_index_entry[rank_count]           24 bytes each, rank order
 *   rank sections                          at the offsets the index gives
 * An index entry with bytes == 0 is a rank that did not write (missing).
 * A rank section is a sequence of records, each
 *   prf_record_header {type, payload_bytes}  then payload, padded to 8 bytes
 * ending with PRF_REC_END.  Unknown record types are skipped (so adding a
 * record type does not need a version bump); a record type's payload layout
 * never changes without bumping SCALANA_PROFILE_VERSION.  Record codes are
 * never reused.  Every time is in nanoseconds (fields end in _ns); every rank
 * is a world rank unless the name says otherwise.
 * When adding a record: the code below, prf_encode_rank/prf_decode_rank in
 * formats/profile_io.c (a record with its own reader: formats/profile_omp.c),
 * scalana-dump, docs/formats.md. */

#define SCALANA_PROFILE_MAGIC "SCLNPRF" /* 8 bytes with the NUL */
#define SCALANA_PROFILE_MAGIC_LEN 8
#define SCALANA_PROFILE_VERSION 1u
#define PRF_NONE UINT32_MAX
#define PRF_ANY_RANK (-1) /* a peer that could not be resolved to a world rank */

struct prf_file_header {
    char magic[SCALANA_PROFILE_MAGIC_LEN];
    uint32_t version;
    uint32_t header_bytes;  /* sizeof(struct prf_file_header) */
    uint32_t first_rank;    /* world rank of index entry 0 */
    uint32_t rank_count;
    uint32_t world_size;    /* MPI_COMM_WORLD size of the run */
    uint32_t index_entry_bytes; /* sizeof(struct prf_index_entry) */
    uint64_t file_bytes;    /* total size; a shorter file is truncated */
    uint64_t exe_hash;      /* FNV-1a 64 of the executable's build-id (0 if none) */
    uint8_t reserved[16];
};

struct prf_index_entry {
    uint64_t offset;  /* from the start of the file; 0 when missing */
    uint64_t bytes;   /* section size; 0 when the rank did not write */
    uint32_t world_rank;
    uint32_t crc32;   /* zlib crc32 of the section bytes */
};

struct prf_record_header {
    uint32_t type;          /* enum prf_record_type */
    uint32_t payload_bytes; /* excluding padding to 8 */
};

/** Record codes.  Fixed forever; append only. */
enum prf_record_type {
    PRF_REC_END = 0,
    PRF_REC_RANK_INFO = 1,   /* struct prf_rank_info, exactly one */
    PRF_REC_STRINGS = 2,     /* NUL-terminated strings; offset 0 is "" */
    PRF_REC_MODULES = 3,     /* struct prf_module[] */
    PRF_REC_CCT = 4,         /* struct prf_cct_node[] (calling-context tree) */
    PRF_REC_SAMPLES = 5,     /* struct prf_sample[] */
    PRF_REC_MPI = 6,         /* struct prf_mpi_context[] */
    PRF_REC_PEERS = 7,       /* struct prf_peer[] */
    PRF_REC_COMM = 8,        /* one struct prf_comm followed by uint32 world ranks */
    PRF_REC_GPU = 9,         /* struct prf_gpu_activity[] */
    PRF_REC_PHASES = 10,     /* struct prf_phase[] */
    PRF_REC_THREADS = 11,    /* struct prf_thread[] */
    PRF_REC_ERRORS = 12,     /* struct prf_runtime_error[] (parts that disabled themselves) */
    PRF_REC_INTERVALS = 13,  /* one struct prf_interval_table, then struct prf_interval[count] */
    PRF_REC_SAMPLING = 14,   /* struct prf_sampling, at most one (absent before it existed:
                                readers then take signals from prf_sample.count) */
    PRF_REC_WORK = 15,       /* one struct prf_work_table, then struct prf_work[count]; at most
                                one, absent when the rank has no work measure */
    PRF_REC_OMP = 16         /* one struct prf_omp_table, then struct prf_omp_region[count]; at
                                most one, absent without OMPT (gcc's libgomp, SCALANA_OMPT=off) */
};

/* PRF_SAMPLER_NONE 0, CPUTIME 1, REALTIME 2, PAPI 3, TASKCLOCK 4 (perf_event task
 * clock): one line each in samplers.def, with their names (scalana/samplers.h). */
enum prf_sampler {
#define SCALANA_SAMPLER(id, NAME, word, clock, arg) PRF_SAMPLER_##NAME = id,
#include "scalana/samplers.def"
#undef SCALANA_SAMPLER
};

enum prf_rank_flags {
    PRF_RANK_FINALIZED = 1u << 0,      /* written from MPI_Finalize */
    PRF_RANK_AT_EXIT = 1u << 1,        /* written at exit without MPI_Finalize */
    PRF_RANK_ABORTED = 1u << 2,        /* written from MPI_Abort (best effort) */
    PRF_RANK_SAMPLING_DISABLED = 1u << 3,
    PRF_RANK_MPI_DISABLED = 1u << 4,
    PRF_RANK_GPU_ENABLED = 1u << 5,
    PRF_RANK_RUN_DELAY = 1u << 6       /* run_delay_ns was measured (absent: older runtimes and
                                          kernels without /proc/<pid>/task/<tid>/schedstat) */
};

struct prf_rank_info {
    uint32_t world_rank, world_size;
    uint32_t pid, flags;            /* enum prf_rank_flags */
    uint32_t hostname;              /* string */
    uint32_t usable_cores;          /* CPUs in the union of the affinity masks of this host's
                                       ranks, capped at online CPUs; same on all its ranks */
    uint32_t ranks_on_host;         /* world ranks sharing this host */
    uint32_t sampler;               /* enum prf_sampler */
    uint64_t sample_period_ns;      /* nominal period of one sample */
    uint64_t start_realtime_ns;     /* CLOCK_REALTIME at MPI_Init */
    uint64_t wall_ns;               /* MPI_Init .. write, monotonic */
    uint64_t cpu_user_ns, cpu_system_ns; /* getrusage(RUSAGE_SELF) */
    uint64_t voluntary_switches, involuntary_switches;
    uint64_t samples_taken;         /* timer/overflow signals handled */
    uint64_t samples_weight;        /* sum of (1 + si_overrun) over recorded samples */
    uint64_t samples_dropped;       /* in the runtime, in dlopen, or CCT full */
    uint64_t samples_overrun;       /* sum of si_overrun */
    uint64_t mpi_time_ns;           /* wall time inside wrapped MPI calls, all contexts */
    uint64_t cct_overflow;          /* frames charged to the overflow node */
    uint32_t thread_count, mpi_thread_level;
    uint64_t run_delay_ns;          /* MPI_Init .. write: time the thread that called MPI_Init
                                       spent runnable but waiting for a core (the second field of
                                       its /proc schedstat: other processes held the CPU; sleep,
                                       I/O and blocking waits are not in it).  Valid only with
                                       PRF_RANK_RUN_DELAY; 0 in older profiles (was reserved) */
    uint64_t reserved[3];
};

struct prf_module {
    uint32_t path;      /* string: absolute path of the loaded object */
    uint32_t build_id;  /* string: lowercase hex of NT_GNU_BUILD_ID, "" if none */
    uint64_t load_base; /* dlpi_addr at run time (for diagnostics only) */
};

enum prf_cct_kind {
    PRF_CCT_ROOT = 0,      /* root of one thread's tree; address = thread index */
    PRF_CCT_CALLSITE = 1,  /* a return address: the call in the caller's frame */
    PRF_CCT_PC = 2,        /* the interrupted program counter (sample leaf) */
    PRF_CCT_OVERFLOW = 3   /* stands for frames beyond the depth/size cap */
};

/** Calling-context tree node.  Addresses are module-relative
 *  (runtime address - load_base).  A call path is read from a node up to
 *  its ROOT; the outermost frame is next to the root. */
struct prf_cct_node {
    uint32_t parent;   /* node index, PRF_NONE for a ROOT */
    uint32_t module;   /* index into PRF_REC_MODULES, PRF_NONE if unknown */
    uint64_t address;  /* module-relative; see enum prf_cct_kind */
    uint32_t kind;     /* enum prf_cct_kind */
    uint32_t reserved;
};

enum prf_sample_flags { PRF_SAMPLE_IN_MPI = 1u << 0, PRF_SAMPLE_IN_GPU_SYNC = 1u << 1 };

/** Samples that ended at one node (PC leaf, or an MPI call site when
 *  PRF_SAMPLE_IN_MPI).  count is the number of signals (independent
 *  observations: what statistical tests count); weight counts 1 + si_overrun
 *  per signal, the sampler periods they stand for; the CPU time is
 *  weight * sample_period_ns.  When the timer cannot fire as often as asked
 *  (CPU-time timers fire at kernel ticks), weight > count. */
struct prf_sample {
    uint32_t node, thread, flags, reserved;
    uint64_t count, weight;
};

enum prf_mpi_flags {
    PRF_MPI_FORTRAN = 1u << 0,   /* reached through a Fortran binding */
    PRF_MPI_NONBLOCKING = 1u << 1
};

/** One MPI call site in its calling context (node = the call site's
 *  PRF_CCT_CALLSITE node) with one operation and one communicator. */
struct prf_mpi_context {
    uint32_t id;        /* referenced by prf_peer.context; index in the array */
    uint32_t node;      /* CCT node of the call path (leaf: return address of the MPI call) */
    uint32_t op;        /* enum scalana_mpi_op (include/scalana/mpi_calls.def) */
    uint32_t flags;     /* enum prf_mpi_flags */
    uint64_t comm_id;   /* prf_comm.comm_id, 0 when not applicable */
    uint64_t calls;
    uint64_t bytes_sent, bytes_received;
    uint64_t time_ns;      /* wall time inside the call, summed */
    uint64_t max_time_ns;  /* longest single call */
    uint64_t min_time_ns;  /* shortest single call */
};

enum prf_peer_flags { PRF_PEER_SEND = 1u << 0, PRF_PEER_RECV = 1u << 1 };

/** Point-to-point partner of a context, aggregated per (peer, tag, comm, direction).
 *  For receives completed in a multi-request wait, last_count/last_wait_ns
 *  count the times this peer's request completed last and the wait time
 *  charged to it then. */
struct prf_peer {
    uint32_t context;  /* prf_mpi_context.id of the call that started the transfer */
    int32_t peer;      /* world rank, PRF_ANY_RANK if unknown */
    int32_t tag;
    uint32_t flags;    /* enum prf_peer_flags */
    uint64_t comm_id;
    uint64_t count, bytes;
    uint64_t time_ns;  /* time charged to this peer at completion */
    uint64_t last_count, last_wait_ns;
};

enum prf_comm_flags { PRF_COMM_INTER = 1u << 0, PRF_COMM_WORLD = 1u << 1, PRF_COMM_SELF = 1u << 2 };

/** A communicator this rank belonged to.  comm_id is equal on all members.
 *  member_count world ranks follow (local group, then remote group for an
 *  intercommunicator); only the member with local rank 0 lists them,
 *  others write member_count = 0. */
struct prf_comm {
    uint64_t comm_id;
    uint32_t size, remote_size;
    uint32_t local_rank;   /* this process's rank in the communicator */
    uint32_t flags;        /* enum prf_comm_flags */
    uint32_t member_count;
    uint32_t name;         /* string: MPI_Comm_get_name or "" */
};

enum prf_gpu_kind { PRF_GPU_KERNEL = 1, PRF_GPU_MEMCPY = 2, PRF_GPU_MEMSET = 3,
                    PRF_GPU_SYNC = 4 };

/** GPU activity aggregated per launching context, kind, name and device. */
struct prf_gpu_activity {
    uint32_t node;     /* CCT node of the launching call site */
    uint32_t kind;     /* enum prf_gpu_kind */
    uint32_t name;     /* string: kernel name or copy direction */
    uint32_t device;
    uint64_t count;
    uint64_t time_ns;  /* device time (kernel/copy) or host time blocked (SYNC) */
    uint64_t bytes;
    uint64_t max_time_ns;
};

/** User phases (scalana_phase_begin/end) and MPI_Pcontrol levels. */
struct prf_phase {
    uint32_t name;     /* string */
    uint32_t node;     /* CCT node where the phase began, PRF_NONE if unknown */
    uint64_t count;
    uint64_t time_ns;
};

enum prf_thread_kind { PRF_THREAD_MAIN = 0, PRF_THREAD_APP = 1 };

struct prf_thread {
    uint32_t index;    /* thread index used in prf_sample.thread and ROOT nodes */
    uint32_t kind;     /* enum prf_thread_kind */
    uint32_t creator;  /* CCT node of the creating call site, PRF_NONE if unknown */
    uint32_t reserved;
    uint64_t tid;
    uint64_t samples;
};

/** A runtime part that failed and disabled itself. */
struct prf_runtime_error {
    uint32_t part;     /* string: "sampler", "mpi", "gpu", "writer", ... */
    uint32_t message;  /* string */
};

/** How the CPU time of the computation intervals was measured. */
enum prf_interval_cpu {
    PRF_IV_CPU_OFF = 0,     /* not measured: cpu_* fields are 0 */
    PRF_IV_CPU_AUTO = 1,    /* the thread CPU clock on intervals predicted to last at least
                               long_ns (the previous interval after the same context did);
                               CPU-time sampler periods on the others */
    PRF_IV_CPU_CLOCK = 2,   /* the thread CPU clock on every interval */
    PRF_IV_CPU_SAMPLES = 3  /* CPU-time sampler periods only */
};

/** Head of PRF_REC_INTERVALS: the computation intervals of this rank.
 *  Written whenever the runtime recorded intervals (count may be 0). */
struct prf_interval_table {
    uint32_t count;         /* struct prf_interval entries that follow */
    uint32_t cpu_mode;      /* enum prf_interval_cpu */
    uint64_t long_ns;       /* PRF_IV_CPU_AUTO: wall length that makes an interval "long" */
    uint64_t overflow;      /* intervals not recorded: the thread's pair table was full */
    uint64_t dropped;       /* intervals not recorded for another reason (no context) */
};

/** Computation between two consecutive MPI calls of one thread: from the
 *  exit of the previous call's wrapper to the entry of the next one's
 *  (the runtime's own time in the wrappers is in neither), aggregated per
 *  (previous context, next context).  A thread's first interval starts at
 *  its registration (prev_context PRF_NONE; the main thread's first starts
 *  at MPI_Init's exit, after the MPI_Init context); its last ends at its
 *  exit or at the profile write without MPI_Finalize (next_context PRF_NONE),
 *  or at MPI_Finalize's entry. */
struct prf_interval {
    uint32_t prev_context;  /* prf_mpi_context.id, PRF_NONE: thread start */
    uint32_t next_context;  /* prf_mpi_context.id, PRF_NONE: thread end */
    uint32_t thread;        /* prf_thread.index */
    uint32_t reserved;
    uint64_t count;         /* intervals */
    uint64_t wall_ns, wall_min_ns, wall_max_ns; /* sum, shortest, longest */
    double wall_sq_ns2;     /* sum of squared wall times, ns^2 (IEEE double) */
    uint64_t cpu_ns;        /* thread CPU clock over the cpu_count intervals read with it */
    uint64_t cpu_count;     /* intervals measured with the thread CPU clock */
    uint64_t cpu_wall_ns;   /* wall time of those cpu_count intervals */
    uint64_t cpu_samples;   /* CPU-time sampler periods (1 + overrun each) delivered to the
                               thread in the other count - cpu_count intervals; times
                               sample_period_ns, an unbiased estimate of their CPU time
                               (with a CPU-time sampler only) */
};

/** PRF_REC_SAMPLING: the rate asked for and the rate obtained.  A CPU-time
 *  POSIX timer (sampler cputime) expires at kernel ticks: asked 1000 Hz on a
 *  250 Hz kernel, it delivers 250 signals a second, each of weight 4.
 *  Written by runtimes that know it; all rates per thread. */
struct prf_sampling {
    uint32_t sampler;             /* enum prf_sampler actually used (as prf_rank_info.sampler) */
    uint32_t asked_hz;            /* SCALANA_FREQ after clamping */
    uint64_t asked_period_ns;     /* what one unit of weight stands for (= sample_period_ns) */
    uint64_t resolution_ns;       /* timer granularity found at start-up (kernel tick for
                                     cputime; 0 when not limited) */
    uint64_t effective_period_ns; /* expected interval between signals of a busy thread:
                                     max(asked_period_ns, resolution_ns) */
    uint64_t signals;             /* signals charged to samples (sum of prf_sample.count) */
    uint64_t weight;              /* their weight (sum of prf_sample.weight) */
    uint64_t clock_ns;            /* time of the sampled clock the signals came from: the
                                     sampled threads' CPU time (CPU samplers) or wall time
                                     times threads (realtime) */
    double obtained_hz;           /* signals handled / clock_ns: the rate obtained */
    uint64_t reserved[2];
};

/** What a rank's work figures count (prf_work_table.measure). */
enum prf_work_measure {
    PRF_WORK_NONE = 0,            /* no work measure (the record is then absent) */
    PRF_WORK_LOOP_ITERATIONS = 1  /* header executions of the LOOP vertices of units built
                                     with the pass (include/scalana/work_counters.h) */
};

/** Head of PRF_REC_WORK: how much work each thread did, per LOOP vertex,
 *  summed over the vertex's calling contexts.  Present whenever a unit
 *  registered counters (count may be 0: nothing counted ran). */
struct prf_work_table {
    uint32_t count;     /* struct prf_work entries that follow */
    uint32_t measure;   /* enum prf_work_measure */
    uint32_t units;     /* translation units that registered counters */
    uint32_t threads;   /* threads whose counters were read (live or at their exit) */
    uint64_t units_dropped; /* units that could not be registered (table full, other ABI) */
    uint64_t reserved;
};

/** Work of one thread at one vertex; only non-zero counts are written. */
struct prf_work {
    uint64_t stable_id; /* PSG stable id of the LOOP vertex (psg_format.h) */
    uint32_t thread;    /* prf_thread.index of the thread, PRF_NONE when it had none */
    uint32_t reserved;
    uint64_t tid;       /* kernel thread id */
    uint64_t count;     /* header executions in that thread */
};

/** How a rank's OpenMP figures were measured (prf_omp_table.interface). */
enum prf_omp_interface {
    PRF_OMP_NONE = 0, /* not measured (the record is then absent) */
    PRF_OMP_OMPT = 1  /* the OMPT tool interface of the OpenMP runtime (LLVM's libomp) */
};

/** Head of PRF_REC_OMP: OpenMP parallel regions measured through OMPT
 *  (runtime/threads/rt_ompt.c), per (region calling context, thread). */
struct prf_omp_table {
    uint32_t count;     /* struct prf_omp_region entries that follow */
    uint32_t interface; /* enum prf_omp_interface */
    uint32_t threads;   /* threads that took part in a measured region */
    uint32_t reserved0;
    uint64_t dropped;   /* region instances not recorded (a thread's table was full) */
    uint64_t unmatched; /* forks whose call path did not hold the region's code pointer (the
                           path then ends inside the OpenMP runtime) */
};

/** One thread's share of one parallel region in one calling context.  node
 *  is the region's call path in the CCT: its leaf is the return address of
 *  the fork call (OMPT's codeptr_ra), a PRF_CCT_CALLSITE node of the thread
 *  that started the region, which is therefore also where samples in the
 *  region's outlined body hang.  Waits are wall time the thread spent in
 *  OMPT's sync_region_wait; the implicit barrier at a region's end is
 *  counted on each thread up to the region's end on its master. */
struct prf_omp_region {
    uint32_t node;            /* CCT node of the fork's call path */
    uint32_t thread;          /* prf_thread.index of the thread this entry is about */
    uint32_t team_min, team_max; /* team sizes (threads) the region ran with */
    uint64_t regions;         /* instances the thread took part in */
    uint64_t forks;           /* instances the thread started (its master), timed in time_ns */
    uint64_t time_ns;         /* parallel begin .. end on the master, summed */
    uint64_t end_wait_ns;     /* wait at the implicit barrier ending the region */
    uint64_t barrier_wait_ns; /* waits at explicit and work-sharing barriers inside it */
    uint64_t barriers;        /* those barriers (each wait once) */
    uint64_t sync_wait_ns;    /* waits at taskwait, taskgroup, reductions */
    uint64_t loops;           /* work-sharing loops the thread entered */
    uint64_t loop_iterations; /* the iteration counts OMPT gave at their start */
};

/* ---- In-memory API (formats/profile_io.c) -------------------------------- */

/** One rank's decoded profile.  Arrays are owned by the struct after decode
 *  (freed by prf_rank_free); when encoding, the caller owns them.  A comm's
 *  members are in comm_members starting at comm_member_first[i]. */
struct prf_rank_data {
    struct prf_rank_info info;
    const char *strings; size_t strings_bytes;
    struct prf_module *modules; uint32_t module_count;
    struct prf_cct_node *cct; uint32_t cct_count;
    struct prf_sample *samples; uint32_t sample_count;
    struct prf_mpi_context *mpi; uint32_t mpi_count;
    struct prf_peer *peers; uint32_t peer_count;
    struct prf_comm *comms; uint32_t comm_count;
    uint32_t *comm_members;      /* all members, concatenated */
    uint32_t *comm_member_first; /* comm_count entries: offset into comm_members */
    struct prf_gpu_activity *gpu; uint32_t gpu_count;
    struct prf_phase *phases; uint32_t phase_count;
    struct prf_thread *threads; uint32_t thread_count;
    struct prf_runtime_error *errors; uint32_t error_count;
    /* PRF_REC_INTERVALS: has_intervals is 1 when the record is (to be) present */
    int has_intervals;
    struct prf_interval_table interval_info;  /* count: see interval_count */
    struct prf_interval *intervals; uint32_t interval_count;
    /* PRF_REC_SAMPLING: has_sampling is 1 when the record is (to be) present */
    int has_sampling;
    struct prf_sampling sampling;
    /* PRF_REC_WORK: has_work is 1 when the record is (to be) present */
    int has_work;
    struct prf_work_table work_info;          /* count: see work_count */
    struct prf_work *work; uint32_t work_count;
    /* PRF_REC_OMP: has_omp is 1 when the record is (to be) present */
    int has_omp;
    struct prf_omp_table omp_info;            /* count: see omp_count */
    struct prf_omp_region *omp; uint32_t omp_count;
    void *owned_; /* decoder's allocation */
};

/** String at offset off of d's string table, "" when out of range. */
const char *prf_string(const struct prf_rank_data *d, uint32_t off);

/** Encodes one rank section.  *out is malloc'ed.  Returns 0, or -1 on
 *  allocation failure.  Does not call any async-signal-unsafe function other
 *  than malloc/free (not for use inside signal handlers). */
int prf_encode_rank(const struct prf_rank_data *d, unsigned char **out, size_t *out_bytes);

/** Decodes one rank section (copied; the input may be freed afterwards).
 *  Returns 0, or -1 with a one-line reason in err (record type and offset). */
int prf_decode_rank(const void *bytes, size_t n, struct prf_rank_data *out,
                    char *err, size_t errlen);
void prf_rank_free(struct prf_rank_data *d);

/** Fills the file header and index for ranks first..first+count-1 whose
 *  sections have the given sizes and crcs (0 size = missing), laid out one
 *  after another directly after the index.  buf must hold
 *  prf_file_prefix_bytes(count) bytes.  section_offsets (count entries, may
 *  be NULL) receives each section's file offset.  Used by the collective
 *  MPI-IO writer and by prf_file_write. */
size_t prf_file_prefix_bytes(uint32_t rank_count);
void prf_file_prefix_build(void *buf, uint32_t first_rank, uint32_t rank_count,
                           uint32_t world_size, uint64_t exe_hash,
                           const uint64_t *section_bytes, const uint32_t *section_crc,
                           uint64_t *section_offsets);

/** Writes a complete one-file profile (e.g. one rank at exit): header, index,
 *  sections.  Returns 0 or -1 with errno set. Written to a temporary name and
 *  renamed, so readers never see a half-written file. */
int prf_file_write(const char *path, uint32_t first_rank, uint32_t rank_count,
                   uint32_t world_size, uint64_t exe_hash,
                   const unsigned char *const *sections, const size_t *section_bytes);

/** zlib-compatible CRC-32 of a buffer. */
uint32_t prf_crc32(const void *data, size_t n);

/** An open profile file, read rank by rank (streaming: one section in memory
 *  at a time). */
struct prf_file {
    char *path;
    struct prf_file_header header;
    struct prf_index_entry *index;
    int fd;
    uint64_t actual_bytes;
};

/** Opens and validates header and index.  Returns 0, or -1 with a reason
 *  naming the file in err (bad magic, other version, truncated, index out
 *  of range). */
int prf_file_open(const char *path, struct prf_file *f, char *err, size_t errlen);
/** Reads and decodes index entry i. Returns 1 on success, 0 when the rank is
 *  missing (did not write), -1 when its section is corrupt or truncated (err
 *  names the file, the rank and why). */
int prf_file_read_rank(struct prf_file *f, uint32_t i, struct prf_rank_data *out,
                       char *err, size_t errlen);
void prf_file_close(struct prf_file *f);

/** Lists the profile files of a run directory as paths "<dir>/<name>",
 *  sorted by first rank: scalana_run_list_profiles (run_files.h) with
 *  with_dir set.  Returns the number found (paths malloc'ed into *paths, free
 *  each and the array), or -1 with a reason in err when dir cannot be read. */
int prf_run_list_files(const char *dir, char ***paths, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
