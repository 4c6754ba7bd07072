// Recursion: calls inside a call-graph SCC (self or mutual) are CALL_RECURSIVE
// and never expanded; a recursive function without MPI (fact) folds.
// RUN: %scalana-cc -O0 %s -o %t.O0
// RUN: %scalana-dump --psg %t.O0 | %FileCheck %s
// RUN: %scalana-cc -O2 %s -o %t.O2
// RUN: %scalana-dump --psg %t.O2 | %FileCheck %s
#include <mpi.h>

static int even(int n);
static int odd(int n)
{
    if (n == 0)
        return 0;
    MPI_Barrier(MPI_COMM_WORLD);
    return even(n - 1);
}
static int even(int n)
{
    return n == 0 ? 1 : odd(n - 1);
}
static long fact(long n)
{
    return n <= 1 ? 1 : n * fact(n - 1);
}
static void tree(int depth, double *x)
{
    if (depth == 0) {
        MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return;
    }
    tree(depth - 1, x);
    tree(depth - 1, x);
}

int main(int argc, char **argv)
{
    double x = 1;
    MPI_Init(&argc, &argv);
    tree(3, &x);
    x += even(4) + fact(5);
    MPI_Finalize();
    return (int)x & 1;
}

// CHECK:unit {{.*}}/recursion.c (C, debug info, loop depth limit 10, 19 vertices)
// CHECK-NEXT:FUNCTION main recursion.c:35-42
// CHECK-NEXT:  MPI MPI_Init recursion.c:38:5
// CHECK-NEXT:  CALL tree recursion.c:39:5
// CHECK-NEXT:  CALL even recursion.c:40:10
// CHECK-NEXT:  COMPUTE recursion.c:40 folded
// CHECK-NEXT:  MPI MPI_Finalize recursion.c:41:5
// CHECK-NEXT:  COMPUTE recursion.c:42
// CHECK-NEXT:FUNCTION tree recursion.c:25-33
// CHECK-NEXT:  BRANCH recursion.c:27-29
// CHECK-NEXT:    MPI MPI_Allreduce recursion.c:28:9
// CHECK-NEXT:  CALL_RECURSIVE tree recursion.c:31:5
// CHECK-NEXT:  CALL_RECURSIVE tree recursion.c:32:5
// CHECK-NEXT:FUNCTION even recursion.c:17-19
// CHECK-NEXT:  BRANCH recursion.c:19
// CHECK-NEXT:    CALL_RECURSIVE odd recursion.c:19:25
// CHECK-NEXT:FUNCTION odd recursion.c:10-16
// CHECK-NEXT:  COMPUTE recursion.c:12-13 folded
// CHECK-NEXT:  MPI MPI_Barrier recursion.c:14:5
// CHECK-NEXT:  CALL_RECURSIVE even recursion.c:15:12
// CHECK-NOT:{{.}}
