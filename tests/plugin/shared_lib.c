// A shared library built with the wrapper carries its own graph (the analyzer
// reads every loaded module's); the executable's graph calls into it as an
// external CALL.  The runtime is not linked into shared libraries.
// RUN: %scalana-cc --scalana-verbose -O2 -fPIC -shared %S/Inputs/shlib.c -o %t.libsync.so 2> %t.err
// RUN: FileCheck %s --check-prefix=NORT < %t.err
// RUN: %scalana-cc -O2 %s %t.libsync.so -o %t
// RUN: %scalana-dump --psg %t.libsync.so | %FileCheck %s --check-prefix=LIB
// RUN: %scalana-dump --psg %t | %FileCheck %s --check-prefix=EXE
#include <mpi.h>

void lib_sync(int times);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    lib_sync(3);
    MPI_Finalize();
    return 0;
}

// NORT-NOT: -lscalana

// LIB:unit {{.*}}/shlib.c (C, debug info, loop depth limit 10, 3 vertices)
// LIB-NEXT:FUNCTION lib_sync shlib.c:3-7
// LIB-NEXT:  LOOP shlib.c:5-6
// LIB-NEXT:    MPI MPI_Barrier shlib.c:6:9
// LIB-NOT:{{.}}

// EXE:unit {{.*}}/shared_lib.c (C, debug info, loop depth limit 10, 4 vertices)
// EXE-NEXT:FUNCTION main shared_lib.c:13-18
// EXE-NEXT:  MPI MPI_Init shared_lib.c:15:5
// EXE-NEXT:  CALL lib_sync shared_lib.c:16:5
// EXE-NEXT:  MPI MPI_Finalize shared_lib.c:17:5
// EXE-NOT:{{.}}
