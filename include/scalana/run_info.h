/* run_info.h — run.json, the description of one run directory.
 * The runtime writes it (no JSON library: scalana_run_info_write), the tools
 * read it (jansson: scalana_run_info_read).  Field meanings: docs/formats.md. */
#ifndef SCALANA_RUN_INFO_H
#define SCALANA_RUN_INFO_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCALANA_RUN_INFO_FILE "run.json"
#define SCALANA_RUN_INFO_VERSION 1

struct scalana_run_host {
    char *name;
    uint32_t usable_cores; /* CPUs in the union of the affinity masks of the host's ranks,
                              capped at its online CPUs */
    uint32_t rank_count;
    uint32_t *ranks;       /* world ranks on this host */
};

struct scalana_run_info {
    int version;               /* SCALANA_RUN_INFO_VERSION */
    char **argv; int argc;     /* command line of the application (rank 0) */
    char *launcher;            /* launcher command line (SCALANA_LAUNCH_CMD), may be NULL */
    uint32_t processes;        /* MPI_COMM_WORLD size */
    struct scalana_run_host *hosts; uint32_t host_count;
    uint32_t usable_cores;     /* sum over hosts */
    char *sampler;             /* "cputime", "realtime", "papi:PAPI_TOT_CYC", "none" */
    uint64_t sample_period_ns;
    uint32_t sample_rate_asked_hz;      /* SCALANA_FREQ after clamping (0: no sampler) */
    double sample_rate_effective_hz;    /* expected per busy thread: 1e9 / max(period, resolution) */
    uint64_t sampler_resolution_ns;     /* timer granularity (kernel tick for cputime), 0: none */
    double sample_rate_obtained_hz;     /* rank 0: signals per second of the sampled clock
                                           (0 while the run is "running") */
    uint64_t start_realtime_ns, end_realtime_ns; /* CLOCK_REALTIME, ns since the epoch */
    char *mpi_library;         /* "openmpi" or "mpich" (the runtime build) */
    char *mpi_version;         /* MPI_Get_library_version, first line */
    char *executable;          /* absolute path (as at start-up; without the kernel's " (deleted)") */
    int executable_deleted;    /* the executable file was removed or replaced while it ran */
    char *build_id;            /* lowercase hex, "" when the executable has none */
    char *executable_copy;     /* the run's own copy, relative to the run directory
                                  ("exe/<name>"); NULL or "" when none was kept */
    char *executable_copy_method; /* "hard link" or "copy"; NULL or "" when none */
    char *debug_copy;          /* its separate debug file ("exe/<debuglink name>"), NULL or "" */
    char **library_copies; uint32_t library_copy_count; /* the application's shared libraries
                                  kept ("exe/lib/<name>"; SCALANA_KEEP_EXE=all) */
    char *scalana_version;
    char *written_by;          /* "running" (written at MPI_Init, rewritten at the end), "finalize", "exit", "abort" */
    char **profile_files; uint32_t profile_file_count; /* names relative to the directory */
    char **warnings; uint32_t warning_count; /* the runtime's warnings (world rank 0's): the
                                                numbers may be incomplete */
};

/** Writes info as JSON to out (no JSON library; strings escaped per RFC 8259).
 *  Returns 0, or -1 when a write fails. */
int scalana_run_info_write(FILE *out, const struct scalana_run_info *info);

/** Reads dir/run.json.  Returns 0, or -1 with a reason naming the file in
 *  err (missing, not JSON, missing field, wrong type).  Unknown fields are
 *  ignored. */
int scalana_run_info_read(const char *dir, struct scalana_run_info *info,
                          char *err, size_t errlen);

void scalana_run_info_free(struct scalana_run_info *info);

#ifdef __cplusplus
}
#endif
#endif
