// Conditional skeleton: a loop or call that contraction lifts out of a folded
// branch arm is flagged CONDITIONAL (only the processes that take the branch
// reach it: a serial section); the same loop outside any branch is not (every
// process reaches it, a zero trip count is still the same loop: PRK PIC).
// RUN: %scalana-cc -O0 -g %s -o %t.O0
// RUN: %scalana-dump --psg %t.O0 | %FileCheck %s
// RUN: %scalana-cc -O2 -g %s -o %t.O2
// RUN: %scalana-dump --psg %t.O2 | %FileCheck %s
#include <mpi.h>

static double prepare(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += i * 0.5;
    return s;
}

int main(int argc, char **argv)
{
    int rank;
    double v = 0, mine = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int it = 0; it < 10; it++) {
        if (rank == 0) v += prepare(1000);
        int n = rank == 0 ? 100000 : 0;
        for (int p = 0; p < n; p++) mine += p * 1e-9;
        MPI_Allreduce(&mine, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return v < 0;
}
// CHECK:FUNCTION main conditional.c:18-{{[0-9]+}}
// CHECK-NEXT:  MPI MPI_Init conditional.c:22:5
// CHECK-NEXT:  MPI MPI_Comm_rank conditional.c:23:5
// CHECK-NEXT:  LOOP conditional.c:24-29
// CHECK-NEXT:    COMPUTE conditional.c:25-27 folded
// CHECK-NEXT:      CALL prepare conditional.c:25:{{[0-9]+}} attribution-only conditional
// CHECK-NEXT:      LOOP conditional.c:27 attribution-only
// CHECK-NEXT:    MPI MPI_Allreduce conditional.c:28:9
