/* p2p.c — test program: every point-to-point family between pairs
 * (rank ^ 1), each at its own call site.  tests/runtime/mpitest.py knows the
 * exact counts, bytes, peers and tags each rank must show.  Even np only. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int p = rank ^ 1, even = (rank % 2) == 0;
    int ibuf[256];
    double dbuf[256];
    char cbuf[64], cbuf2[64];
    MPI_Status st;
    memset(ibuf, 0, sizeof ibuf);
    memset(dbuf, 0, sizeof dbuf);
    memset(cbuf, 'x', sizeof cbuf);

    /* A: blocking Send / Recv(ANY_SOURCE, ANY_TAG, STATUS_IGNORE), 3 x 100 ints, tag 1 */
    for (int i = 0; i < 3; i++) {
        if (even)
            MPI_Send(ibuf, 100, MPI_INT, p, 1, MPI_COMM_WORLD);
        else
            MPI_Recv(ibuf, 100, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* B: Ssend 1 double, tag 2 */
    if (even)
        MPI_Ssend(dbuf, 1, MPI_DOUBLE, p, 2, MPI_COMM_WORLD);
    else
        MPI_Recv(dbuf, 1, MPI_DOUBLE, p, 2, MPI_COMM_WORLD, &st);
    /* C: Sendrecv 50 chars both ways, tag 3 */
    MPI_Sendrecv(cbuf, 50, MPI_CHAR, p, 3, cbuf2, 50, MPI_CHAR, p, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* D: Sendrecv_replace 10 ints, tag 4 */
    MPI_Sendrecv_replace(ibuf, 10, MPI_INT, p, 4, p, 4, MPI_COMM_WORLD, &st);
    /* E: Isend/Irecv 64 doubles, tag 5, each completed by its own Wait, twice */
    for (int i = 0; i < 2; i++) {
        MPI_Request r, s;
        MPI_Irecv(dbuf + 64, 64, MPI_DOUBLE, p, 5, MPI_COMM_WORLD, &r);
        MPI_Isend(dbuf, 64, MPI_DOUBLE, p, 5, MPI_COMM_WORLD, &s);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Wait(&s, &st);
    }
    /* F: odd sends tags 6 and 7 (8 ints); even receives ANY_SOURCE/ANY_TAG via Waitany */
    if (even) {
        MPI_Request rq[2];
        for (int i = 0; i < 2; i++)
            MPI_Irecv(ibuf + 8 * i, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]);
        for (int i = 0; i < 2; i++) {
            int idx;
            MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
        }
        int idx;
        MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE); /* all null: MPI_UNDEFINED */
        if (idx != MPI_UNDEFINED)
            printf("FAIL: Waitany on null requests gave %d\n", idx);
    } else {
        MPI_Send(ibuf, 8, MPI_INT, p, 6, MPI_COMM_WORLD);
        MPI_Send(ibuf, 8, MPI_INT, p, 7, MPI_COMM_WORLD);
    }
    /* G: 3 messages of 1 int, tag 8, completed with Testsome loops */
    {
        MPI_Request rq[3];
        for (int i = 0; i < 3; i++) {
            if (even)
                MPI_Isend(ibuf + i, 1, MPI_INT, p, 8, MPI_COMM_WORLD, &rq[i]);
            else
                MPI_Irecv(ibuf + i, 1, MPI_INT, p, 8, MPI_COMM_WORLD, &rq[i]);
        }
        int done = 0;
        while (done < 3) {
            int out, idx[3];
            MPI_Testsome(3, rq, &out, idx, MPI_STATUSES_IGNORE);
            if (out != MPI_UNDEFINED)
                done += out;
        }
    }
    /* H: persistent 16 ints, tag 9, 4 rounds of Startall + Waitall, then freed */
    {
        MPI_Request rq[2];
        MPI_Recv_init(ibuf + 128, 16, MPI_INT, p, 9, MPI_COMM_WORLD, &rq[0]);
        MPI_Send_init(ibuf, 16, MPI_INT, p, 9, MPI_COMM_WORLD, &rq[1]);
        for (int i = 0; i < 4; i++) {
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        }
        /* Inactive persistent requests: Waitall returns at once with empty statuses. */
        MPI_Status ss[2];
        MPI_Waitall(2, rq, ss);
        if (ss[0].MPI_SOURCE != MPI_ANY_SOURCE || ss[0].MPI_TAG != MPI_ANY_TAG)
            printf("FAIL: status of an inactive persistent request is not empty\n");
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
    }
    /* I: Probe then Recv, 5 ints, tag 10 (odd -> even) */
    if (even) {
        int n;
        MPI_Probe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Recv(ibuf, n, MPI_INT, st.MPI_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else
        MPI_Send(ibuf, 5, MPI_INT, p, 10, MPI_COMM_WORLD);
    /* J: Mprobe + Mrecv, 3 ints, tag 11 (odd -> even) */
    if (even) {
        MPI_Message msg;
        MPI_Mprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &msg, &st);
        MPI_Mrecv(ibuf, 3, MPI_INT, &msg, MPI_STATUS_IGNORE);
    } else
        MPI_Send(ibuf, 3, MPI_INT, p, 11, MPI_COMM_WORLD);
    /* K: MPI_PROC_NULL both ways */
    MPI_Send(ibuf, 10, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(ibuf, 10, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    /* L: zero-count message, tag 12 (even -> odd) */
    if (even)
        MPI_Send(ibuf, 0, MPI_INT, p, 12, MPI_COMM_WORLD);
    else
        MPI_Recv(ibuf, 0, MPI_INT, p, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* M: derived datatype: 2 x vector(4 blocks of 2 ints, stride 3) = 64 bytes, tag 13 */
    {
        MPI_Datatype vec;
        MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        if (even)
            MPI_Send(ibuf, 2, vec, p, 13, MPI_COMM_WORLD);
        else
            MPI_Recv(ibuf, 16, MPI_INT, p, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Type_free(&vec);
    }
    /* N: Isend freed before completion, 1 int, tag 14 (even -> odd) */
    if (even) {
        MPI_Request r;
        MPI_Isend(ibuf + 200, 1, MPI_INT, p, 14, MPI_COMM_WORLD, &r);
        MPI_Request_free(&r);
    } else
        MPI_Recv(ibuf, 1, MPI_INT, p, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* O: Waitall over {Irecv, MPI_REQUEST_NULL, Isend}, 2 ints, tag 15 */
    {
        MPI_Request rq[3];
        MPI_Irecv(ibuf + 64, 2, MPI_INT, p, 15, MPI_COMM_WORLD, &rq[0]);
        rq[1] = MPI_REQUEST_NULL;
        MPI_Isend(ibuf, 2, MPI_INT, p, 15, MPI_COMM_WORLD, &rq[2]);
        MPI_Status sts[3];
        MPI_Waitall(3, rq, sts);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p done\n");
    MPI_Finalize();
    return 0;
}
