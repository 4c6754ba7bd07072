/* an_mpi.c — the MPI operations of the parallel analyzer (par_mpi.h) for one
 * MPI library: built once per library found (libscalana-analyze-mpi-<mpi>.so,
 * analyzer/CMakeLists.txt), so that the handles (Open MPI's pointers,
 * MPICH's integers) are that library's own.  Loaded by par.c. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "par_mpi.h"

#define CHUNK (1u << 30) /* bytes per message: MPI counts are int */

static int init(int *rank, int *size)
{
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag && MPI_Init(NULL, NULL) != MPI_SUCCESS) return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

static int send(int dest, const void *buf, uint64_t n)
{
    if (MPI_Send(&n, 1, MPI_UINT64_T, dest, 1, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    for (uint64_t off = 0; off < n; off += CHUNK) {
        int c = (int)(n - off < CHUNK ? n - off : CHUNK);
        if (MPI_Send((const char *)buf + off, c, MPI_BYTE, dest, 2, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    }
    return 0;
}

static int recv(int src, void **buf, uint64_t *n)
{
    uint64_t len = 0;
    if (MPI_Recv(&len, 1, MPI_UINT64_T, src, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    char *b = malloc(len ? len : 1);
    if (!b) return -1;
    for (uint64_t off = 0; off < len; off += CHUNK) {
        int c = (int)(len - off < CHUNK ? len - off : CHUNK);
        if (MPI_Recv(b + off, c, MPI_BYTE, src, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            free(b);
            return -1;
        }
    }
    *buf = b, *n = len;
    return 0;
}

static int gather_u64(uint64_t v, uint64_t *out)
{
    return MPI_Gather(&v, 1, MPI_UINT64_T, out, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static void finalize(void) { MPI_Finalize(); }
static void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

__attribute__((visibility("default"))) const struct an_mpi_ops scalana_analyze_mpi_ops = {
    AN_MPI_OPS_VERSION, SCALANA_MPI_NAME, init, send, recv, gather_u64, finalize, abort_all,
};
