/* rt_runjson.c — run.json as world rank 0 writes it: the library's version
 * string and the host table (from every rank's entry at finalize, or this
 * host alone), and the profile files present.  The MPI-independent fields
 * and the writing are rt_rundir.c's (rt_run_info_fill, rt_write_run_json). */
#include "rt_mpi.h"
#include "scalana/run_files.h"
#include "scalana/run_info.h"

#include <stdlib.h>
#include <string.h>


static int rt_cmp_host(const void *a, const void *b)
{
    return strcmp(((const struct rt_host_entry *)a)->name, ((const struct rt_host_entry *)b)->name);
}

/* run.json on rank 0 with the host table from all ranks (hosts may be NULL).
 * Returns 0 when written. */
int rt_write_run_json_hosts(const struct rt_host_entry *hosts, uint32_t n, const char *written_by,
                                    char **files, uint32_t nfiles)
{
    struct scalana_run_info info;
    rt_run_info_fill(&info, written_by);
    static char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (PMPI_Get_library_version(version, &len) == MPI_SUCCESS) {
        char *nl = strchr(version, '\n');
        if (nl)
            *nl = '\0';
    }
    info.mpi_version = version;
    struct scalana_run_host *hv = NULL;
    uint32_t nh = 0;
    struct rt_host_entry *sorted = NULL;
    if (hosts && n) {
        sorted = malloc(n * sizeof *sorted);
        hv = calloc(n, sizeof *hv);
        if (sorted && hv) {
            memcpy(sorted, hosts, n * sizeof *sorted);
            qsort(sorted, n, sizeof *sorted, rt_cmp_host);
            for (uint32_t i = 0; i < n; i++) {
                if (nh == 0 || strcmp(hv[nh - 1].name, sorted[i].name) != 0) {
                    hv[nh].name = sorted[i].name;
                    hv[nh].ranks = calloc(n, sizeof *hv[nh].ranks);
                    nh++;
                }
                /* Every rank of a host carries the host's union; take the
                 * largest should one host name span several shared-memory
                 * domains. */
                if (sorted[i].cores > hv[nh - 1].usable_cores)
                    hv[nh - 1].usable_cores = sorted[i].cores;
            }
            for (uint32_t r = 0; r < n; r++)
                for (uint32_t h = 0; h < nh; h++)
                    if (strcmp(hv[h].name, hosts[r].name) == 0) {
                        if (hv[h].ranks)
                            hv[h].ranks[hv[h].rank_count++] = r;
                        break;
                    }
        }
    } else {
        hv = calloc(1, sizeof *hv);
        if (hv) {
            hv[0].name = rt_g.hostname;
            hv[0].usable_cores = rt_g.usable_cores;
            hv[0].ranks = calloc(1, sizeof *hv[0].ranks);
            if (hv[0].ranks)
                hv[0].rank_count = 1;
            nh = 1;
        }
    }
    info.hosts = hv;
    info.host_count = nh;
    for (uint32_t h = 0; h < nh; h++)
        info.usable_cores += hv[h].usable_cores;
    info.profile_files = files;
    info.profile_file_count = nfiles;
    int rc = rt_write_run_json(&info);
    for (uint32_t h = 0; h < nh; h++)
        free(hv[h].ranks);
    free(hv);
    free(sorted);
    free(info.argv ? info.argv[0] : NULL);
    free(info.argv);
    return rc;
}

/* Returns 0 when run.json was written. */
int rt_write_run_json_present(const char *written_by)
{
    /* The profile files now in the run directory (rank 0 at exit/abort). */
    char **files = NULL, err[128];
    int k = scalana_run_list_profiles(rt_g.run_dir, 0, &files, err, sizeof err);
    uint32_t n = k > 0 ? (uint32_t)k : 0;
    int rc = rt_write_run_json_hosts(NULL, 0, written_by, files, n);
    for (uint32_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}
