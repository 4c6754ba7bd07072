// Link-time optimisation: the graph is built in the pre-link pipeline and
// travels in the bitcode's module assembly; the LTO code generator (gold +
// LLVMgold from LLVM 19) emits it, one unit per source, full and thin LTO.
// RUN: %scalana-cc -O2 -flto -c %s -o %t.a.o
// RUN: %scalana-cc -O2 -flto -c %S/Inputs/multi_tu_b.c -o %t.b.o
// RUN: %scalana-cc -O2 -flto -fuse-ld=gold %t.a.o %t.b.o -o %t
// RUN: %scalana-dump --psg %t | FileCheck %s
// RUN: %scalana-cc -O2 -flto=thin -c %s -o %t.ta.o
// RUN: %scalana-cc -O2 -flto=thin -c %S/Inputs/multi_tu_b.c -o %t.tb.o
// RUN: %scalana-cc -O2 -flto=thin -fuse-ld=gold %t.ta.o %t.tb.o -o %t.thin
// RUN: %scalana-dump --psg %t.thin | FileCheck %s
#include <mpi.h>

void exchange(double *x, int n);

int main(int argc, char **argv)
{
    double x[4] = {0};
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 3; i++)
        exchange(x, 4);
    MPI_Finalize();
    return 0;
}

// CHECK: binary {{.*}}: 2 unit(s)
// CHECK-DAG: unit {{.*}}/lto.c (C, debug info, loop depth limit 10, 6 vertices)
// CHECK-DAG: CALL exchange lto.c:21:9
// CHECK-DAG: unit {{.*}}/multi_tu_b.c (C, debug info, loop depth limit 10, 3 vertices)
// CHECK-DAG: MPI MPI_Allreduce multi_tu_b.c:10:5
