// The kept-loop-depth limit: loops nested deeper fold into their parent
// (what they held is lifted, marked depth-cut).  Set through the wrapper
// (SCALANA_PSG_LOOP_DEPTH or --scalana-loop-depth=N) or -mllvm (the wrapper
// then also loads the plugin with -fplugin=, which -mllvm needs).
// RUN: %scalana-cc -O1 %s -o %t.default
// RUN: %scalana-dump --psg %t.default | %FileCheck %s --check-prefix=ALL
// RUN: env SCALANA_PSG_LOOP_DEPTH=1 %scalana-cc -O1 %s -o %t.env1
// RUN: %scalana-dump --psg %t.env1 | %FileCheck %s --check-prefix=ONE
// RUN: %scalana-cc --scalana-loop-depth=1 -O1 %s -o %t.flag1
// RUN: %scalana-dump --psg %t.flag1 | %FileCheck %s --check-prefix=ONE
// RUN: %scalana-cc -mllvm -scalana-psg-loop-depth=0 -O1 %s -o %t.mllvm0
// RUN: %scalana-dump --psg %t.mllvm0 | %FileCheck %s --check-prefix=ZERO
#include <mpi.h>

int main(int argc, char **argv)
{
    double x = 0;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            for (int k = 0; k < 2; k++) {
                x += i * j * k;
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
    }
    MPI_Finalize();
    return x > 100;
}

// ALL:unit {{.*}}/loop_depth.c (C, debug info, loop depth limit 10, 9 vertices)
// ALL-NEXT:FUNCTION main loop_depth.c:15-29
// ALL-NEXT:  MPI MPI_Init loop_depth.c:18:5
// ALL-NEXT:  LOOP loop_depth.c:19-26
// ALL-NEXT:    LOOP loop_depth.c:20-25
// ALL-NEXT:      LOOP loop_depth.c:21-24
// ALL-NEXT:        COMPUTE loop_depth.c:22
// ALL-NEXT:        MPI MPI_Barrier loop_depth.c:23:17
// ALL-NEXT:  MPI MPI_Finalize loop_depth.c:27:5
// ALL-NEXT:  COMPUTE loop_depth.c:28
// ALL-NOT:{{.}}

// ONE:unit {{.*}}/loop_depth.c (C, debug info, loop depth limit 1, 7 vertices)
// ONE-NEXT:FUNCTION main loop_depth.c:15-29
// ONE-NEXT:  MPI MPI_Init loop_depth.c:18:5
// ONE-NEXT:  LOOP loop_depth.c:19-26
// ONE-NEXT:    COMPUTE loop_depth.c:22 depth-cut
// ONE-NEXT:    MPI MPI_Barrier loop_depth.c:23:17 depth-cut
// ONE-NEXT:  MPI MPI_Finalize loop_depth.c:27:5
// ONE-NEXT:  COMPUTE loop_depth.c:28
// ONE-NOT:{{.}}

// ZERO:unit {{.*}}/loop_depth.c (C, debug info, loop depth limit 0, 6 vertices)
// ZERO-NEXT:FUNCTION main loop_depth.c:15-29
// ZERO-NEXT:  MPI MPI_Init loop_depth.c:18:5
// ZERO-NEXT:  COMPUTE loop_depth.c:22 depth-cut
// ZERO-NEXT:  MPI MPI_Barrier loop_depth.c:23:17 depth-cut
// ZERO-NEXT:  MPI MPI_Finalize loop_depth.c:27:5
// ZERO-NEXT:  COMPUTE loop_depth.c:28
// ZERO-NOT:{{.}}
