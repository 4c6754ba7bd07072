/* comms.c — communicators from every kind of constructor, each used by a
 * collective whose size names it (MPI_Allreduce of k ints on constructor k)
 * and, for the two-process intercommunicators, by point-to-point messages
 * whose tags name them.  4 ranks.  Each rank checks the values it computes
 * and prints FAIL on a mismatch; numbers_test.py asserts that every member
 * recorded the same communicator id and the messages' ids agree.
 *   k=1 MPI_Comm_idup(WORLD)          k=2 MPI_Comm_split_type(SHARED)
 *   k=3 MPI_Comm_create_group(evens)  k=4 MPI_Dist_graph_create (ring)
 *   k=5 Intercomm_create + merge      k=6 second MPI_Comm_idup of k=2's
 *   k=7 MPI_Comm_idup of k=2's (first, freed)
 *   tags 40..45: MPI_Comm_join between ranks 0 and 1 (a TCP socket)
 *   tags 50..55: MPI_Comm_accept (rank 2) / MPI_Comm_connect (rank 3)
 * (both skipped with --no-dpm: MPICH over UCX cannot open ports). */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fails;

static void expect(int cond, const char *what, int rank)
{
    if (!cond) {
        printf("FAIL: rank %d: %s\n", rank, what);
        fails++;
    }
}

/* Allreduce of k ints (each the rank's value 1) on comm: the sum is its size. */
static void use(MPI_Comm comm, int k, int rank)
{
    int in[8], out[8], n = 0;
    for (int i = 0; i < k; i++)
        in[i] = 1;
    MPI_Allreduce(in, out, k, MPI_INT, MPI_SUM, comm);
    MPI_Comm_size(comm, &n);
    char what[64];
    snprintf(what, sizeof what, "allreduce %d", k);
    expect(out[k - 1] == n, what, rank);
}

/* Twelve messages over a two-process intercommunicator: six each way. */
static void exchange(MPI_Comm inter, int first, int tag0, int rank)
{
    for (int i = 0; i < 6; i++) {
        int v[2] = {tag0 + i, rank}, w[2] = {0, 0};
        if (first) {
            MPI_Send(v, 2, MPI_INT, 0, tag0 + i, inter);
            MPI_Recv(w, 2, MPI_INT, 0, tag0 + i, inter, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(w, 2, MPI_INT, 0, tag0 + i, inter, MPI_STATUS_IGNORE);
            MPI_Send(v, 2, MPI_INT, 0, tag0 + i, inter);
        }
        expect(w[0] == tag0 + i, "intercomm message", rank);
    }
}

static void join_pair(int rank)
{
    int fd = -1;
    if (rank == 0) {
        int ls = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof sa;
        if (bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 1) != 0 ||
            getsockname(ls, (struct sockaddr *)&sa, &len) != 0)
            expect(0, "listen", rank);
        int port = ntohs(sa.sin_port);
        MPI_Send(&port, 1, MPI_INT, 1, 99, MPI_COMM_WORLD);
        fd = accept(ls, NULL, NULL);
        close(ls);
    } else {
        int port = 0;
        MPI_Recv(&port, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sa.sin_port = htons((unsigned short)port);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
            expect(0, "connect", rank);
    }
    MPI_Comm inter;
    MPI_Comm_join(fd, &inter);
    expect(inter != MPI_COMM_NULL, "join", rank);
    if (inter != MPI_COMM_NULL) {
        exchange(inter, rank == 0, 40, rank);
        MPI_Comm_disconnect(&inter);
    }
    close(fd);
}

static void connect_pair(int rank)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    if (rank == 2) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 3, 98, MPI_COMM_WORLD);
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    } else {
        MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 2, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    }
    exchange(inter, rank == 2, 50, rank);
    MPI_Comm_disconnect(&inter);
    if (rank == 2)
        MPI_Close_port(port);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            printf("FAIL: needs 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Request req;
    MPI_Comm c1, c2, c3 = MPI_COMM_NULL, c4, half, inter, c5, c6, c7;
    MPI_Comm_idup(MPI_COMM_WORLD, &c1, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    use(c1, 1, rank);

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c2);
    use(c2, 2, rank);

    if (rank % 2 == 0) {
        MPI_Group world, evens;
        int ranks[2] = {0, 2};
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 2, ranks, &evens);
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &c3);
        MPI_Group_free(&evens);
        MPI_Group_free(&world);
        use(c3, 3, rank);
    }

    int dest = (rank + 1) % size, deg = 1;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &deg, &dest, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c4);
    use(c4, 4, rank);

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 8, &inter);
    MPI_Intercomm_merge(inter, rank % 2, &c5);
    use(c5, 5, rank);

    MPI_Comm_idup(c2, &c7, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    use(c7, 7, rank);
    MPI_Comm_free(&c7);
    /* completed through Test: another completion path */
    MPI_Comm_idup(c2, &c6, &req);
    int done = 0;
    while (!done)
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    use(c6, 6, rank);

    /* --no-dpm: the library cannot open ports (MPICH over UCX) */
    if (!(argc > 1 && strcmp(argv[1], "--no-dpm") == 0)) {
        if (rank < 2)
            join_pair(rank);
        else
            connect_pair(rank);
    }

    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    if (c3 != MPI_COMM_NULL)
        MPI_Comm_free(&c3);
    MPI_Comm_free(&c4);
    MPI_Comm_free(&c5);
    MPI_Comm_free(&c6);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d done, %d failure(s)\n", rank, fails);
    MPI_Finalize();
    return fails ? 1 : 0;
}
