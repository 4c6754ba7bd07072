// Every loop stays addressable: inside a folded COMPUTE the loops (nesting
// kept, cut at the loop-depth limit) and the calls to functions with loops
// are attribution-only children; branches are transparent; calls to a
// function without loops (tiny) and to the library (sqrt) are not kept.
// RUN: %scalana-cc -O2 %s -o %t -lm
// RUN: %scalana-dump --psg %t | %FileCheck %s
// RUN: %scalana-cc -O2 --scalana-loop-depth=1 %s -o %t.d1 -lm
// RUN: %scalana-dump --psg %t.d1 | %FileCheck %s --check-prefix=D1
#include <math.h>
#include <mpi.h>

static double tiny(double x) { return x * 0.5; }

static void sweep(double *a, int n)
{
    for (int i = 0; i < n; i++) {
        if (a[i] > 1)
            for (int j = 0; j < 3; j++)
                a[i] = sqrt(a[i]) + tiny(a[j]);
    }
}

int main(int argc, char **argv)
{
    double a[16] = {0};
    MPI_Init(&argc, &argv);
    for (int it = 0; it < 4; it++) {
        for (int k = 0; k < 16; k++)
            for (int m = 0; m < 2; m++)
                a[k] += tiny(a[(k + m) % 16]);
        sweep(a, 16);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return a[0] > 0;
}

// CHECK:unit {{.*}}/attribution_only.c (C, debug info, loop depth limit 10, 14 vertices)
// CHECK-NEXT:FUNCTION main attribution_only.c:23-36
// CHECK-NEXT:  COMPUTE attribution_only.c:25
// CHECK-NEXT:  MPI MPI_Init attribution_only.c:26:5
// CHECK-NEXT:  LOOP attribution_only.c:27-33
// CHECK-NEXT:    COMPUTE attribution_only.c:28-31 folded
// CHECK-NEXT:      LOOP attribution_only.c:28-30 attribution-only
// CHECK-NEXT:        LOOP attribution_only.c:29-30 attribution-only
// CHECK-NEXT:      CALL sweep attribution_only.c:31:9 attribution-only
// CHECK-NEXT:    MPI MPI_Barrier attribution_only.c:32:9
// CHECK-NEXT:  MPI MPI_Finalize attribution_only.c:34:5
// CHECK-NEXT:  COMPUTE attribution_only.c:35
// CHECK-NEXT:FUNCTION sweep attribution_only.c:14-21
// CHECK-NEXT:  LOOP attribution_only.c:16-20 attribution-only
// CHECK-NEXT:    LOOP attribution_only.c:18-19 attribution-only conditional
// CHECK-NOT:{{.}}

// D1:unit {{.*}}/attribution_only.c (C, debug info, loop depth limit 1, 11 vertices)
// D1-NEXT:FUNCTION main attribution_only.c:23-36
// D1-NEXT:  COMPUTE attribution_only.c:25
// D1-NEXT:  MPI MPI_Init attribution_only.c:26:5
// D1-NEXT:  LOOP attribution_only.c:27-33
// D1-NEXT:    COMPUTE attribution_only.c:28-31 folded
// D1-NEXT:      CALL sweep attribution_only.c:31:9 attribution-only
// D1-NEXT:    MPI MPI_Barrier attribution_only.c:32:9
// D1-NEXT:  MPI MPI_Finalize attribution_only.c:34:5
// D1-NEXT:  COMPUTE attribution_only.c:35
// D1-NEXT:FUNCTION sweep attribution_only.c:14-21
// D1-NEXT:  LOOP attribution_only.c:16-20 attribution-only
// D1-NOT:{{.}}
