/* getstatus.c — every way a non-blocking transfer can complete besides
 * Wait/Test: MPI_Request_get_status (then MPI_Request_free or MPI_Wait),
 * MPI_Request_free of a request completed out of the tool's sight, and
 * persistent requests completed through MPI_Request_get_status.  Two ranks;
 * each checks the data it received and prints FAIL on a mismatch.
 * The recorded calls, bytes and peers are asserted by numbers_test.py. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int fails;

static void expect(int cond, const char *what)
{
    if (!cond) {
        printf("FAIL: %s\n", what);
        fails++;
    }
}

/* Polls until req completes, with the application's own status (or none). */
static void poll_status(MPI_Request req, MPI_Status *st)
{
    int flag = 0;
    while (!flag)
        MPI_Request_get_status(req, &flag, st);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("FAIL: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    int a[10], b[4], c[2], d[64], e[3];
    MPI_Request r;
    MPI_Status st;
    if (rank == 0) {
        for (int i = 0; i < 10; i++)
            a[i] = 100 + i;
        for (int i = 0; i < 4; i++)
            b[i] = 200 + i;
        c[0] = 300; c[1] = 301;
        for (int i = 0; i < 64; i++)
            d[i] = i;
        e[0] = 1; e[1] = 2; e[2] = 3;
        /* 1: Isend completed by get_status, then freed (40 bytes, tag 21) */
        MPI_Isend(a, 10, MPI_INT, 1, 21, MPI_COMM_WORLD, &r);
        poll_status(r, &st);
        MPI_Request_free(&r);
        /* 2: Isend completed by get_status (status ignored), then waited (16 bytes, tag 22) */
        MPI_Isend(b, 4, MPI_INT, 1, 22, MPI_COMM_WORLD, &r);
        poll_status(r, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        /* 3: blocking sends (8 bytes tag 23, then 4 bytes tag 24) */
        MPI_Send(c, 2, MPI_INT, 1, 23, MPI_COMM_WORLD);
        MPI_Send(c, 1, MPI_INT, 1, 24, MPI_COMM_WORLD);
        /* 4: persistent send, two rounds: get_status + Wait, then Wait (256 bytes each, tag 25) */
        MPI_Send_init(d, 64, MPI_INT, 1, 25, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        poll_status(r, &st);
        MPI_Wait(&r, &st);
        MPI_Start(&r);
        MPI_Wait(&r, &st);
        MPI_Request_free(&r);
        /* 5: Isend freed at once (12 bytes, tag 26) */
        MPI_Isend(e, 3, MPI_INT, 1, 26, MPI_COMM_WORLD, &r);
        MPI_Request_free(&r);
    } else {
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        memset(c, 0, sizeof c);
        memset(d, 0, sizeof d);
        memset(e, 0, sizeof e);
        /* 1: Irecv completed by get_status, then freed */
        MPI_Irecv(a, 10, MPI_INT, 0, 21, MPI_COMM_WORLD, &r);
        poll_status(r, &st);
        expect(st.MPI_SOURCE == 0 && st.MPI_TAG == 21, "get_status source/tag");
        int n = -1;
        MPI_Get_count(&st, MPI_INT, &n);
        expect(n == 10, "get_status count");
        MPI_Request_free(&r);
        expect(a[0] == 100 && a[9] == 109, "data 1");
        /* 2: Irecv, get_status without a status, then Wait */
        MPI_Irecv(b, 4, MPI_INT, MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &r);
        poll_status(r, MPI_STATUS_IGNORE);
        MPI_Wait(&r, &st);
        expect(b[3] == 203, "data 2");
        /* 3: Irecv completed while the application polls with PMPI (out of
         * the tool's sight), then freed: the free must charge it */
        MPI_Irecv(c, 2, MPI_INT, 0, 23, MPI_COMM_WORLD, &r);
        int one = 0;
        MPI_Recv(&one, 1, MPI_INT, 0, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int flag = 0;
        while (!flag)
            PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
        expect(c[0] == 300 && c[1] == 301 && one == 300, "data 3");
        /* 4: persistent receive, two rounds */
        MPI_Recv_init(d, 64, MPI_INT, 0, 25, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        poll_status(r, &st);
        MPI_Wait(&r, &st);
        expect(d[63] == 63, "data 4a");
        memset(d, 0, sizeof d);
        MPI_Start(&r);
        MPI_Wait(&r, &st);
        expect(d[63] == 63, "data 4b");
        MPI_Request_free(&r);
        /* 5 */
        MPI_Recv(e, 3, MPI_INT, 0, 26, MPI_COMM_WORLD, &st);
        expect(e[2] == 3, "data 5");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d done, %d failure(s)\n", rank, fails);
    MPI_Finalize();
    return fails ? 1 : 0;
}
