/* sessions.c — a program of the MPI-4.0 sessions model only (no MPI_Init):
 * a session, the group of the process set mpi://WORLD, a communicator made
 * from it (an MPI_Allreduce of the ranks and a ring of MPI_Send/MPI_Recv of
 * 8 ints), a communicator of the even ranks made from a subgroup (an
 * MPI_Allreduce), then everything freed and the session finalized.  FAIL on
 * a wrong result.  Asserted by numbers_test.py (check sessions): a complete
 * profile on every rank, world ranks from mpi://WORLD, communicator ids
 * that agree across processes. */
#include <mpi.h>
#include <stdio.h>

static int fails;

static void expect(int cond, const char *what)
{
    if (!cond) {
        printf("FAIL: %s\n", what);
        fails++;
    }
}

int main(void)
{
    MPI_Session s;
    MPI_Group world, evens;
    MPI_Comm comm, ecomm = MPI_COMM_NULL;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &world);
    MPI_Comm_create_from_group(world, "org.scalana.test.world", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &comm);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    expect(sum == size * (size - 1) / 2, "Allreduce over the world communicator");
    int out[8], in[8];
    for (int i = 0; i < 8; i++)
        out[i] = rank;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (size > 1) {
        if (rank % 2 == 0) {
            MPI_Send(out, 8, MPI_INT, next, 61, comm);
            MPI_Recv(in, 8, MPI_INT, prev, 61, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 8, MPI_INT, prev, 61, comm, MPI_STATUS_IGNORE);
            MPI_Send(out, 8, MPI_INT, next, 61, comm);
        }
        expect(in[7] == prev, "ring data");
    }

    int ranks[64], n = 0;
    for (int r = 0; r < size && n < 64; r += 2)
        ranks[n++] = r;
    MPI_Group_incl(world, n, ranks, &evens);
    if (rank % 2 == 0) {
        MPI_Comm_create_from_group(evens, "org.scalana.test.evens", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &ecomm);
        int esum = 0;
        MPI_Allreduce(&rank, &esum, 1, MPI_INT, MPI_SUM, ecomm);
        expect(esum == (n - 1) * n, "Allreduce over the even ranks");
        MPI_Comm_free(&ecomm);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    MPI_Comm_free(&comm);
    printf("rank %d of %d: %s\n", rank, size, fails ? "failed" : "ok");
    MPI_Session_finalize(&s);
    return fails != 0;
}
