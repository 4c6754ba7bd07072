// The graph is built before optimisation: at -O2/-O3 the 10-trip loop around
// MPI_Barrier is fully unrolled into 10 calls and halo() is inlined, yet the
// PSG keeps the source's LOOP and CALL (the analyzer maps the optimised code
// back through DWARF line and inline information).
// RUN: %scalana-cc -O2 %s -o %t.O2
// RUN: %scalana-dump --psg %t.O2 | %FileCheck %s
// RUN: llvm-objdump -d --no-show-raw-insn %t.O2 | FileCheck %s --check-prefix=UNROLLED
// RUN: %scalana-cc -O3 %s -o %t.O3
// RUN: %scalana-dump --psg %t.O3 | %FileCheck %s
#include <mpi.h>

static void halo(double *x)
{
    MPI_Sendrecv_replace(x, 1, MPI_DOUBLE, 0, 0, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    double x = 1;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 10; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    halo(&x);
    MPI_Finalize();
    return 0;
}

// UNROLLED-LABEL: <main>:
// UNROLLED-COUNT-10: call{{.*}}<MPI_Barrier@plt>
// UNROLLED-NOT:      <halo>
// UNROLLED:          call{{.*}}<MPI_Sendrecv_replace@plt>

// CHECK:unit {{.*}}/unroll_inline.c (C, debug info, loop depth limit 10, 8 vertices)
// CHECK-NEXT:FUNCTION main unroll_inline.c:17-25
// CHECK-NEXT:  MPI MPI_Init unroll_inline.c:20:5
// CHECK-NEXT:  LOOP unroll_inline.c:21-22
// CHECK-NEXT:    MPI MPI_Barrier unroll_inline.c:22:9
// CHECK-NEXT:  CALL halo unroll_inline.c:23:5
// CHECK-NEXT:  MPI MPI_Finalize unroll_inline.c:24:5
// CHECK-NEXT:FUNCTION halo unroll_inline.c:12-15
// CHECK-NEXT:  MPI MPI_Sendrecv_replace unroll_inline.c:14:5
// CHECK-NOT:{{.}}
