/* hugetype.c — MPI calls with a datatype of more than 2 GiB: T is 2^28 + 1
 * doubles (2147483656 bytes), so MPI_Type_size gives MPI_UNDEFINED and only
 * MPI_Type_size_x has its size.  Two ranks; every byte is really moved:
 *   MPI_Bcast   1 T from rank 0
 *   MPI_Scatter 1 T to each rank from rank 0's 2 T (the root's part in place)
 *   MPI_Gather  1 T from each rank into rank 0's 2 T (the root's in place)
 *   MPI_Send / MPI_Recv  1 T from rank 0 to rank 1, tag 5
 * Rank 1 prints what it received (first and last double, the bytes
 * MPI_Get_elements_x counts).  Memory: about 2 GiB written on each rank (the
 * rest of rank 0's buffer is read as zero pages). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define N ((1L << 28) + 1) /* doubles in T */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "hugetype: needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Datatype t;
    MPI_Type_contiguous((int)N, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    int isize = 0;
    MPI_Count xsize = 0;
    MPI_Type_size(t, &isize);
    MPI_Type_size_x(t, &xsize);
    if (rank == 0)
        printf("type size %s, size_x %lld\n", isize == MPI_UNDEFINED ? "undefined" : "defined", (long long)xsize);
    /* rank 0: 2 T (scatter's send, gather's receive); rank 1: 1 T */
    size_t bytes = (rank == 0 ? 2 * N : N) * sizeof(double);
    double *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf != MAP_FAILED)
        madvise(buf, bytes, MADV_HUGEPAGE); /* 2 MiB pages: fewer faults, a quicker test */
    if (buf == MAP_FAILED) {
        fprintf(stderr, "hugetype: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0)
        buf[0] = 1.5, buf[N - 1] = 2.5, buf[N] = 3.5, buf[2 * N - 1] = 4.5;

    MPI_Bcast(buf, 1, t, 0, MPI_COMM_WORLD);
    if (rank == 1)
        printf("bcast %g %g\n", buf[0], buf[N - 1]);
    MPI_Scatter(buf, 1, t, rank == 0 ? MPI_IN_PLACE : buf, 1, t, 0, MPI_COMM_WORLD);
    if (rank == 1) {
        printf("scatter %g %g\n", buf[0], buf[N - 1]);
        buf[0] = 5.5, buf[N - 1] = 6.5;
    }
    MPI_Gather(rank == 0 ? MPI_IN_PLACE : buf, 1, t, buf, 1, t, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("gather %g %g\n", buf[N], buf[2 * N - 1]);
        MPI_Send(buf, 1, t, 1, 5, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        MPI_Count got = 0;
        MPI_Recv(buf, 1, t, 0, 5, MPI_COMM_WORLD, &st);
        MPI_Get_elements_x(&st, MPI_BYTE, &got);
        printf("recv %g %g bytes %lld\n", buf[0], buf[N - 1], (long long)got);
    }
    fflush(stdout);
    munmap(buf, bytes);
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
