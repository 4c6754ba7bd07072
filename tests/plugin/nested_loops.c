// Nested loops: LOOP vertices nest, children in program order, MPI at every
// depth; the structure is the same at -O0 to -O3 (built before optimisation).
// RUN: %scalana-cc -O0 %s -o %t.O0
// RUN: %scalana-dump --psg %t.O0 | %FileCheck %s
// RUN: %scalana-cc -O1 %s -o %t.O1
// RUN: %scalana-dump --psg %t.O1 | %FileCheck %s
// RUN: %scalana-cc -O2 %s -o %t.O2
// RUN: %scalana-dump --psg %t.O2 | %FileCheck %s
// RUN: %scalana-cc -O3 %s -o %t.O3
// RUN: %scalana-dump --psg %t.O3 | %FileCheck %s
#include <mpi.h>

int main(int argc, char **argv)
{
    double x = 1.0;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 4; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int j = 0; j < 3; j++) {
            x = x * 1.5 + j;
            for (int k = 0; k < 2; k++)
                MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        x = x / 3.0;
    }
    MPI_Finalize();
    return x > 0 ? 0 : 1;
}

// CHECK:unit {{.*}}/nested_loops.c (C, debug info, loop depth limit 10, 11 vertices)
// CHECK-NEXT:FUNCTION main nested_loops.c:13-{{27|28}}
// CHECK-NEXT:  MPI MPI_Init nested_loops.c:16:5
// CHECK-NEXT:  LOOP nested_loops.c:17-25
// CHECK-NEXT:    MPI MPI_Barrier nested_loops.c:18:9
// CHECK-NEXT:    LOOP nested_loops.c:19-23
// CHECK-NEXT:      COMPUTE nested_loops.c:20
// CHECK-NEXT:      LOOP nested_loops.c:21-22
// CHECK-NEXT:        MPI MPI_Allreduce nested_loops.c:22:17
// CHECK-NEXT:    COMPUTE nested_loops.c:24
// CHECK-NEXT:  MPI MPI_Finalize nested_loops.c:26:5
// CHECK-NEXT:  COMPUTE nested_loops.c:27
// CHECK-NOT:{{.}}
