// Early exits: the code after `if (c) { ...; return; }` or after
// `if (bad) { MPI_Finalize(); exit(2); }` is not part of that BRANCH (it no
// longer post-dominates the decision, but it follows the `if`); an if/else
// at the end of a function stays one BRANCH with both arms.
// RUN: %scalana-cc -O0 %s -o %t.O0
// RUN: %scalana-dump --psg %t.O0 | %FileCheck %s
// RUN: %scalana-cc -O2 %s -o %t.O2
// RUN: %scalana-dump --psg %t.O2 | %FileCheck %s
#include <mpi.h>
#include <stdlib.h>

static int early_return(int rank)
{
    int x = rank * 3;
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        return x;
    }
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return x + 1;
}

static void fail_fast(int bad)
{
    if (bad) {
        MPI_Finalize();
        exit(2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void both_arms(int rank)
{
    if (rank % 2) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        int v = rank;
        MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fail_fast(argc > 3);
    both_arms(early_return(rank));
    MPI_Finalize();
    return 0;
}

// CHECK:unit {{.*}}/early_exit.c (C, debug info, loop depth limit 10, 22 vertices)
// CHECK-NEXT:FUNCTION main early_exit.c:42-50
// CHECK-NEXT:  MPI MPI_Init early_exit.c:45:5
// CHECK-NEXT:  MPI MPI_Comm_rank early_exit.c:46:5
// CHECK-NEXT:  CALL fail_fast early_exit.c:47:5
// CHECK-NEXT:  CALL early_return early_exit.c:48:15
// CHECK-NEXT:  CALL both_arms early_exit.c:48:5
// CHECK-NEXT:  MPI MPI_Finalize early_exit.c:49:5
// CHECK-NEXT:FUNCTION fail_fast early_exit.c:23-30
// CHECK-NEXT:  BRANCH early_exit.c:25-27
// CHECK-NEXT:    MPI MPI_Finalize early_exit.c:26:9
// CHECK-NEXT:    COMPUTE early_exit.c:27 folded
// CHECK-NEXT:  MPI MPI_Barrier early_exit.c:29:5
// CHECK-NEXT:FUNCTION both_arms early_exit.c:32-40
// CHECK-NEXT:  BRANCH early_exit.c:34-38
// CHECK-NEXT:    MPI MPI_Barrier early_exit.c:35:9
// CHECK-NEXT:    MPI MPI_Allreduce early_exit.c:38:9
// CHECK-NEXT:FUNCTION early_return early_exit.c:12-21
// CHECK-NEXT:  COMPUTE early_exit.c:14
// CHECK-NEXT:  BRANCH early_exit.c:15-17
// CHECK-NEXT:    MPI MPI_Barrier early_exit.c:16:9
// CHECK-NEXT:  MPI MPI_Bcast early_exit.c:19:5
// CHECK-NEXT:  COMPUTE early_exit.c:20
// CHECK-NOT:{{.}}
