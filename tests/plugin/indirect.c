// Indirect calls: calls through a pointer are CALL_INDIRECT (they may reach MPI,
// so they are kept and never tail calls).
// RUN: %scalana-cc -O0 %s -o %t.O0
// RUN: %scalana-dump --psg %t.O0 | %FileCheck %s
// RUN: %scalana-cc -O2 %s -o %t.O2
// RUN: %scalana-dump --psg %t.O2 | %FileCheck %s
#include <mpi.h>

typedef int (*collective_fn)(MPI_Comm);

static int do_barrier(MPI_Comm c) { return MPI_Barrier(c); }

static double scale(double x) { return x * 2.0; }

int main(int argc, char **argv)
{
    collective_fn fn = do_barrier;
    double (*op)(double) = argc > 5 ? 0 : scale;
    double x = 1;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++) {
        fn(MPI_COMM_WORLD);
        x = op(x);
    }
    MPI_Finalize();
    return x > 0 ? 0 : 1;
}

// CHECK:unit {{.*}}/indirect.c (C, debug info, loop depth limit 10, 10 vertices)
// CHECK-NEXT:FUNCTION main indirect.c:15-26
// CHECK-NEXT:  COMPUTE indirect.c:18
// CHECK-NEXT:  MPI MPI_Init indirect.c:20:5
// CHECK-NEXT:  LOOP indirect.c:21-24
// CHECK-NEXT:    CALL_INDIRECT indirect.c:22:9
// CHECK-NEXT:    CALL_INDIRECT indirect.c:23:13
// CHECK-NEXT:  MPI MPI_Finalize indirect.c:25:5
// CHECK-NEXT:  COMPUTE indirect.c:26
// CHECK-NEXT:FUNCTION do_barrier indirect.c:11
// CHECK-NEXT:  MPI MPI_Barrier indirect.c:11:44
// CHECK-NOT:{{.}}
