// Stable ids: a vertex's id depends on its function, kind, file, line, column
// and rank among equal keys, so -O0 and -O3 builds of one source agree
// vertex for vertex, and two calls on one line differ by column.
// RUN: %scalana-cc -O0 %s -o %t.O0
// RUN: %scalana-cc -O3 %s -o %t.O3
// RUN: %scalana-dump --psg --json %t.O0 | /usr/bin/python3 %S/Inputs/ids.py > %t.O0.ids
// RUN: %scalana-dump --psg --json %t.O3 | /usr/bin/python3 %S/Inputs/ids.py > %t.O3.ids
// RUN: diff %t.O0.ids %t.O3.ids
// RUN: FileCheck %s < %t.O0.ids
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++) {
        MPI_Barrier(MPI_COMM_WORLD); MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}

// CHECK:      FUNCTION 12 0 {{[0-9a-f]+}}
// CHECK-NEXT: MPI 14 5 {{[0-9a-f]+}}
// CHECK-NEXT: LOOP 15 0 {{[0-9a-f]+}}
// CHECK-NEXT: MPI 16 9 [[B1:[0-9a-f]{16}]]
// CHECK-NEXT: MPI 16 38
// CHECK-NOT:  [[B1]]
// CHECK-NEXT: MPI 18 5 {{[0-9a-f]+}}
