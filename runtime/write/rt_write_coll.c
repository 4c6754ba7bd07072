/* rt_write_coll.c — the collective profile write at MPI_Finalize: every
 * rank's section in one file (rank 0 writes header and index), renamed into
 * place once complete. */
#include "core/rt_core.h"
#include "mpi/rt_mpi.h"
#include "rt_write.h"
#include "scalana/run_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes n bytes at off (retrying short writes).  Returns 0 or -1 (errno). */
static int rt_pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = pwrite(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* The collective write: every rank's section in one file, at offsets from an
 * exclusive scan of the section sizes; rank 0 writes the header and index
 * from the gathered sizes and CRCs (a constant-size gather per rank).  Plain
 * POSIX writes of disjoint ranges, not MPI-IO: no shared file pointer (Open
 * MPI's formats the path into a fixed buffer and aborts on long paths), no
 * messages of the MPI library's on the application's stderr.  Atomic: into a
 * temporary name in our own run directory, renamed by rank 0 once every rank
 * wrote; on any failure the temporary is removed (complete or absent).
 * Returns 0, or -1 on every rank (nothing printed: the caller falls back). */
int rt_write_collective(void)
{
    MPI_Comm comm = rt_tool_comm;
    int rank = (int)rt_g.world_rank, size = (int)rt_g.world_size;
    unsigned char *sec = NULL;
    size_t n = 0;
    int ok = rt_profile_encode(PRF_RANK_FINALIZED, &sec, &n) == 0;
    uint64_t mine[2] = {ok ? (uint64_t)n : 0, ok ? prf_crc32(sec, n) : 0};
    uint64_t *all = rank == 0 ? malloc((size_t)size * 2 * sizeof *all) : NULL;
    struct rt_host_entry me, *hosts = rank == 0 ? calloc((size_t)size, sizeof *hosts) : NULL;
    memset(&me, 0, sizeof me);
    snprintf(me.name, sizeof me.name, "%s", rt_g.hostname);
    me.cores = rt_g.usable_cores;
    PMPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, comm);
    PMPI_Gather(&me, (int)sizeof me, MPI_BYTE, hosts, (int)sizeof me, MPI_BYTE, 0, comm);
    uint64_t off = 0;
    PMPI_Exscan(&mine[0], &off, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0)
        off = 0;
    uint64_t prefix = prf_file_prefix_bytes((uint32_t)size);
    char name[SCALANA_PROFILE_NAME_MAX], tmpname[SCALANA_PROFILE_NAME_MAX], path[4200], tmp[4200];
    scalana_profile_file_name(name, sizeof name, 0, (uint32_t)(size - 1), 0);
    scalana_profile_file_name(tmpname, sizeof tmpname, 0, (uint32_t)(size - 1), 1);
    snprintf(path, sizeof path, "%s/%s", rt_g.run_dir, name);
    snprintf(tmp, sizeof tmp, "%s/%s", rt_g.run_dir, tmpname);
    /* Rank 0 creates the temporary; the others open it after. */
    int fd = rank == 0 ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    int err = rank == 0 && fd < 0, any_err = err;
    PMPI_Allreduce(&err, &any_err, 1, MPI_INT, MPI_MAX, comm);
    if (!any_err && rank != 0) {
        fd = open(tmp, O_WRONLY | O_CLOEXEC);
        err = fd < 0;
    }
    err |= !ok;
    if (!err && rank == 0) {
        uint64_t *bytes = malloc((size_t)size * sizeof *bytes);
        uint32_t *crc = malloc((size_t)size * sizeof *crc);
        void *buf = malloc(prefix);
        if (bytes && crc && buf && all) {
            for (int i = 0; i < size; i++) {
                bytes[i] = all[2 * i];
                crc[i] = (uint32_t)all[2 * i + 1];
            }
            prf_file_prefix_build(buf, 0, (uint32_t)size, (uint32_t)size, rt_exe_hash(), bytes, crc, NULL);
            err |= rt_pwrite_all(fd, buf, prefix, 0) != 0;
        } else
            err = 1;
        free(bytes); free(crc); free(buf);
    }
    if (!err && !any_err)
        err |= rt_pwrite_all(fd, sec, n, prefix + off) != 0;
    if (fd >= 0 && close(fd) != 0) /* a network file system reports a full disk here */
        err = 1;
    PMPI_Allreduce(&err, &any_err, 1, MPI_INT, MPI_MAX, comm);
    if (rank == 0) {
        if (!any_err && rename(tmp, path) != 0)
            any_err = 1;
        if (any_err)
            unlink(tmp);
    }
    PMPI_Bcast(&any_err, 1, MPI_INT, 0, comm);
    if (!any_err && rank == 0) {
        char *files[1] = {name};
        rt_write_run_json_hosts(hosts, (uint32_t)size, "finalize", files, 1);
    }
    free(all); free(hosts); free(sec);
    return any_err ? -1 : 0;
}
