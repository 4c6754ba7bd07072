// Without debug information (-g0) the graph keeps its structure but has no
// lines: the unit says so and the pass notes it once on stderr.
// RUN: %scalana-cc -O2 -g0 -c %s -o %t.o 2> %t.err
// RUN: FileCheck %s --check-prefix=NOTE < %t.err
// RUN: %scalana-cc %t.o -o %t
// RUN: %scalana-dump --psg %t | %FileCheck %s
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// NOTE: scalana: note: {{.*}}nodebug.c: no debug information (add -g): the program structure graph has no source lines
// NOTE-NOT: scalana: note

// CHECK:unit {{.*}}/nodebug.c (C, loop depth limit 10, 5 vertices)
// CHECK-NEXT:FUNCTION main nodebug.c:0
// CHECK-NEXT:  MPI MPI_Init nodebug.c:0
// CHECK-NEXT:  LOOP nodebug.c:0
// CHECK-NEXT:    MPI MPI_Barrier nodebug.c:0
// CHECK-NEXT:  MPI MPI_Finalize nodebug.c:0
// CHECK-NOT:{{.}}
