// The graph lives in a non-allocated section (address 0, no A flag): it is
// not loaded at run time, survives --gc-sections, strip and strip --strip-all,
// and the program still runs.
// RUN: %scalana-cc -O2 %s -o %t -Wl,--gc-sections
// RUN: llvm-readelf -S -W %t | FileCheck %s --check-prefix=SECTION
// RUN: %scalana-dump --psg %t | FileCheck %s
// RUN: strip %t -o %t.stripped
// RUN: %scalana-dump --psg %t.stripped | FileCheck %s
// RUN: strip --strip-all %t -o %t.all
// RUN: %scalana-dump --psg %t.all | FileCheck %s
// RUN: llvm-objcopy --strip-debug %t %t.nodebug
// RUN: %scalana-dump --psg %t.nodebug | FileCheck %s
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

// SECTION: .scalana_psg PROGBITS 0000000000000000 {{[0-9a-f]+}} {{[0-9a-f]+}} 00 0 0 8

// CHECK: FUNCTION main section.c:15-{{.*}}
// CHECK-NEXT: MPI MPI_Init section.c:17:5
// CHECK-NEXT: MPI MPI_Barrier section.c:18:5
// CHECK-NEXT: MPI MPI_Finalize section.c:19:5
