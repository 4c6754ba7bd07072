// MPI in a callee: calls that can reach MPI stay CALL vertices; a function
// with no MPI folds whole: a call to it is a folded COMPUTE keeping the CALL
// as an attribution-only child, and the callee's FUNCTION holds its loop
// (attribution-only) directly; SCALANA_PSG_ALL_FUNCTIONS=1 adds nothing.
// RUN: %scalana-cc -O0 %s -o %t.O0 -lm
// RUN: %scalana-dump --psg %t.O0 | %FileCheck %s
// RUN: %scalana-cc -O3 %s -o %t.O3 -lm
// RUN: %scalana-dump --psg %t.O3 | %FileCheck %s
// RUN: env SCALANA_PSG_ALL_FUNCTIONS=1 %scalana-cc -O1 %s -o %t.all -lm
// RUN: %scalana-dump --psg %t.all | FileCheck %s --check-prefix=ALL
#include <math.h>
#include <mpi.h>

static double stencil(double *a, int n)
{
    double s = 0;
    for (int i = 1; i < n - 1; i++) {
        if (a[i] > 0)
            s += sqrt(a[i - 1] * a[i + 1]);
        else
            s -= a[i];
    }
    return s;
}

static void reduce(double *s) { MPI_Allreduce(MPI_IN_PLACE, s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }

static void step(double *a, int n, double *s)
{
    *s = stencil(a, n);
    reduce(s);
}

int main(int argc, char **argv)
{
    double a[64], s = 0;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 64; i++)
        a[i] = i * 0.25;
    for (int it = 0; it < 5; it++)
        step(a, 64, &s);
    MPI_Finalize();
    return s > 0 ? 0 : 1;
}


// ALL: FUNCTION stencil callee_fold.c:{{.*}}
// ALL-NEXT: LOOP callee_fold.c:{{.*}} attribution-only
// ALL-NEXT: FUNCTION reduce callee_fold.c:{{.*}}

// CHECK:unit {{.*}}/callee_fold.c (C, debug info, loop depth limit 10, 16 vertices)
// CHECK-NEXT:FUNCTION main callee_fold.c:34-43
// CHECK-NEXT:  MPI MPI_Init callee_fold.c:37:5
// CHECK-NEXT:  COMPUTE callee_fold.c:38-39 folded
// CHECK-NEXT:    LOOP callee_fold.c:38-39 attribution-only
// CHECK-NEXT:  LOOP callee_fold.c:40-41
// CHECK-NEXT:    CALL step callee_fold.c:41:9
// CHECK-NEXT:  MPI MPI_Finalize callee_fold.c:42:5
// CHECK-NEXT:  COMPUTE callee_fold.c:43
// CHECK-NEXT:FUNCTION step callee_fold.c:28-32
// CHECK-NEXT:  COMPUTE callee_fold.c:30 folded
// CHECK-NEXT:    CALL stencil callee_fold.c:30:10 attribution-only
// CHECK-NEXT:  CALL reduce callee_fold.c:31:5
// CHECK-NEXT:FUNCTION stencil callee_fold.c:14-23
// CHECK-NEXT:  LOOP callee_fold.c:17-22 attribution-only
// CHECK-NEXT:FUNCTION reduce callee_fold.c:26
// CHECK-NEXT:  MPI MPI_Allreduce callee_fold.c:26:33
// CHECK-NOT:{{.}}
