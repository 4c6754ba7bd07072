/* rt_runjson.c — run.json as world rank 0 writes it: the library's version
 * string and the host table (from every rank's entry at finalize, or this
 * host alone), and the profile files present (every rank that writes its
 * own file rewrites it, under the run directory's lock).  The MPI-independent fields
 * and the writing are rt_rundir.c's (rt_run_info_fill, rt_write_run_json). */
#include <mpi.h>

#include "core/rt_core.h"
#include "rt_write.h"
#include "scalana/run_files.h"
#include "scalana/run_info.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>


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

/* The run directory's exclusive flock while run.json is rewritten from the
 * files present: ranks that exit without MPI_Finalize each rewrite it after
 * their own profile, and the last one to list must see every file renamed
 * before it.  Bounded (a holder stopped by a debugger must not hang the
 * exit): after ~2 s the rewrite goes on unlocked.  Returns the descriptor to
 * give to rt_run_json_unlock (-1: not locked). */
static int rt_run_json_lock(void)
{
    int fd = open(rt_g.run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (int i = 0; i < 400; i++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno != EWOULDBLOCK && errno != EINTR)
            break;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    close(fd);
    return -1;
}

static void rt_run_json_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* drops the lock */
}

/* run.json's text with its "profile_files" member replaced by files: the
 * other ranks keep what rank 0 wrote (its host, executable copy, warnings;
 * the preliminary file or the one of its exit) and bring only the list up
 * to date.  The runtime has no JSON reader: the member is found in the text
 * scalana_run_info_write makes (`"profile_files": [...]`, file names
 * without brackets or quotes).  Returns 0 when rewritten. */
static int rt_run_json_relist(char **files, uint32_t n)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", rt_g.run_dir, SCALANA_RUN_INFO_FILE);
    FILE *in = fopen(path, "r");
    if (!in)
        return -1; /* none yet: rank 0 lists the files when it writes one */
    char *text = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 4096 > cap) {
            char *t = realloc(text, cap = cap * 2 + 8192);
            if (!t)
                break;
            text = t;
        }
        size_t k = fread(text + len, 1, cap - len - 1, in);
        len += k;
        if (k == 0)
            break;
    }
    fclose(in);
    if (!text)
        return -1;
    text[len] = '\0';
    static const char key[] = "\"profile_files\": [";
    char *b = strstr(text, key), *e = b ? strchr(b + sizeof key - 1, ']') : NULL;
    int rc = -1;
    if (e) {
        scalana_run_info_tmp_path(tmp, sizeof tmp, rt_g.run_dir, (int)getpid(), rt_g.world_rank);
        FILE *f = fopen(tmp, "w");
        if (f) {
            fwrite(text, 1, (size_t)(b - text) + sizeof key - 1, f);
            for (uint32_t i = 0; i < n; i++)
                fprintf(f, "%s\"%s\"", i ? ", " : "", files[i]);
            fputs(e, f);
            rc = ferror(f) ? -1 : 0;
            if (fclose(f) != 0)
                rc = -1;
            if (rc == 0 && rename(tmp, path) != 0)
                rc = -1;
            if (rc != 0)
                unlink(tmp);
        }
    }
    free(text);
    return rc;
}

static int rt_run_json_update(const char *written_by, char **files, uint32_t n)
{
    if (rt_g.world_rank == 0)
        return rt_write_run_json_hosts(NULL, 0, written_by, files, n);
    return rt_run_json_relist(files, n);
}

/* Returns 0 when run.json was written. */
int rt_write_run_json_present(const char *written_by)
{
    int lk = rt_run_json_lock();
    /* The profile files now in the run directory, listed under the lock. */
    char **files = NULL, err[128];
    int k = scalana_run_list_profiles(rt_g.run_dir, 0, &files, err, sizeof err);
    uint32_t n = k > 0 ? (uint32_t)k : 0;
    int rc = rt_run_json_update(written_by, files, n);
    rt_run_json_unlock(lk);
    for (uint32_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}
