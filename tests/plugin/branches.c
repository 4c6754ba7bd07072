// Branches: a BRANCH only when an arm holds MPI (the first if/else folds into a
// COMPUTE), else-if and && nest, a switch is one BRANCH.
// RUN: %scalana-cc -O0 %s -o %t.O0
// RUN: %scalana-dump --psg %t.O0 | %FileCheck %s
// RUN: %scalana-cc -O2 %s -o %t.O2
// RUN: %scalana-dump --psg %t.O2 | %FileCheck %s
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    double v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank % 2 == 0) {
        v = v * 2.0 + rank;
    } else {
        v = v / 3.0 - rank;
    }
    if (rank == 0 && size > 1) {
        MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    switch (rank % 3) {
    case 0:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case 1:
        v += 1;
        break;
    default:
        break;
    }
    printf("%f\n", v);
    MPI_Finalize();
    return 0;
}

// CHECK:unit {{.*}}/branches.c (C, debug info, loop depth limit 10, 15 vertices)
// CHECK-NEXT:FUNCTION main branches.c:10-39
// CHECK-NEXT:  MPI MPI_Init branches.c:14:5
// CHECK-NEXT:  MPI MPI_Comm_rank branches.c:15:5
// CHECK-NEXT:  MPI MPI_Comm_size branches.c:16:5
// CHECK-NEXT:  COMPUTE branches.c:17-20 folded
// CHECK-NEXT:  BRANCH branches.c:22-26
// CHECK-NEXT:    BRANCH branches.c:22-24
// CHECK-NEXT:      MPI MPI_Send branches.c:23:9
// CHECK-NEXT:    BRANCH branches.c:24-26
// CHECK-NEXT:      MPI MPI_Recv branches.c:25:9
// CHECK-NEXT:  BRANCH branches.c:27-35
// CHECK-NEXT:    MPI MPI_Barrier branches.c:29:9
// CHECK-NEXT:    COMPUTE branches.c:32
// CHECK-NEXT:  COMPUTE branches.c:37 folded
// CHECK-NEXT:  MPI MPI_Finalize branches.c:38:5
// CHECK-NOT:{{.}}
