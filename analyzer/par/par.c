/* par.c — launch detection and MPI start-up for the parallel analyzer
 * (par.h).  The launcher says how many processes it started through its
 * environment, so the decision costs a getenv: a serial analysis never
 * loads MPI.  The MPI calls themselves live in a module built per MPI
 * library (par_mpi.h), chosen by the launcher that started us. */
#include "par.h"
#include "par_mpi.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef SCALANA_ANALYZE_MPI_RELDIR
#define SCALANA_ANALYZE_MPI_RELDIR "../lib"
#endif

static const struct an_mpi_ops *ops;
static int par_rank, par_size = 1;

int an_par_size(void) { return par_size; }
int an_par_rank(void) { return par_rank; }
const char *an_par_library(void) { return ops ? ops->library : ""; }
const struct an_mpi_ops *an_par_ops(void) { return ops; }

static long env_long(const char *name)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s) return -1;
    long v = strtol(s, &end, 10);
    return *end ? -1 : v;
}

/* The number of processes the launcher started and the MPI library it
 * belongs to ("openmpi", "mpich", or "" when the environment does not say:
 * Slurm's srun starts any library's processes). */
static long launch_size(const char **library)
{
    long n;
    *library = "";
    if ((n = env_long("OMPI_COMM_WORLD_SIZE")) > 0) {
        *library = "openmpi";
        return n;
    }
    if ((n = env_long("PMI_SIZE")) > 0) { /* Hydra (MPICH, Intel MPI), srun --mpi=pmi2 */
        *library = getenv("SLURM_PROCID") ? "" : "mpich";
        return n;
    }
    if (getenv("SLURM_PROCID") && ((n = env_long("SLURM_STEP_NUM_TASKS")) > 0 || (n = env_long("SLURM_NTASKS")) > 0))
        return n;
    if (getenv("PMIX_RANK") && (n = env_long("PMIX_SIZE")) > 0) return n;
    return 1;
}

/* dlopens the module for library (or the one named by
 * SCALANA_ANALYZE_MPI_MODULE) from the directory of our executable's
 * libraries.  Returns the ops or NULL with why in err. */
static const struct an_mpi_ops *load_module(const char *library, char *err, size_t errlen)
{
    static const char *const known[] = {"openmpi", "mpich"};
    const char *forced = getenv("SCALANA_ANALYZE_MPI_MODULE");
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) n = 0;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    err[0] = 0;
    for (int k = forced ? -1 : 0; k < 2; k++) {
        const char *lib = k < 0 ? NULL : *library ? library : known[k];
        if (k < 0) snprintf(path, sizeof path, "%s", forced);
        else snprintf(path, sizeof path, "%s/%s/libscalana-analyze-mpi-%s.so", exe, SCALANA_ANALYZE_MPI_RELDIR, lib);
        /* RTLD_GLOBAL: Open MPI's own components resolve libmpi's symbols through it */
        void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (!h) {
            if (!err[0]) snprintf(err, errlen, "%s", dlerror());
        } else {
            const struct an_mpi_ops *o = dlsym(h, "scalana_analyze_mpi_ops");
            if (o && o->version == AN_MPI_OPS_VERSION) return o;
            snprintf(err, errlen, "%.900s: not a scalana-analyze MPI module of this version", path);
        }
        if (k < 0 || *library) break;
    }
    return NULL;
}

int an_par_start(void)
{
    const char *library;
    long n = launch_size(&library);
    if (env_long("SCALANA_ANALYZE_PROCESSES") == 1 || n <= 1) return 0;
    char err[1024];
    ops = load_module(library, err, sizeof err);
    if (!ops) {
        fprintf(stderr, "scalana-analyze: error: started as one of %ld processes (by %s) but the MPI module "
                        "cannot be loaded: %s; build ScalAna against that MPI library, or run one analyzer "
                        "process (SCALANA_ANALYZE_PROCESSES=1)\n",
                n, *library ? library : "the launcher", err);
        return -1;
    }
    int r = 0, s = 1;
    if (ops->init(&r, &s) != 0) {
        fprintf(stderr, "scalana-analyze: error: MPI_Init failed (%s module)\n", ops->library);
        ops = NULL;
        return -1;
    }
    par_rank = r, par_size = s;
    return 0;
}

void an_par_slice_of(uint32_t P, int k, int N, uint32_t *lo, uint32_t *n)
{
    uint64_t a = (uint64_t)P * (uint64_t)k / (uint64_t)N;
    uint64_t b = (uint64_t)P * (uint64_t)(k + 1) / (uint64_t)N;
    *lo = (uint32_t)a, *n = (uint32_t)(b - a);
}

void an_par_slice(uint32_t P, uint32_t *lo, uint32_t *n) { an_par_slice_of(P, par_rank, par_size, lo, n); }

int an_par_mine(uint32_t rank, uint32_t P)
{
    if (par_size <= 1) return 1;
    uint32_t lo, n;
    an_par_slice(P, &lo, &n);
    return rank >= lo && rank - lo < n;
}

void an_par_end(void)
{
    if (ops) ops->finalize();
    ops = NULL;
}

uint64_t an_peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (uint64_t)ru.ru_maxrss * 1024u; /* Linux: kilobytes */
}
