// `return MPI_Allreduce(...)` and `return helper(...)` would become tail jumps
// at -O2 and the caller would vanish from call paths: the pass marks MPI calls
// and calls that can reach MPI `notail`.  A call that cannot reach MPI may
// still be a tail call.
// RUN: %scalana-cc -O2 -fPIC -shared %s -o %t.so
// RUN: llvm-objdump -d --no-show-raw-insn %t.so | FileCheck %s --check-prefix=ASM
// RUN: %scalana-cc --scalana-no-plugin -O2 -fPIC -shared %s -o %t.plain.so
// RUN: llvm-objdump -d --no-show-raw-insn %t.plain.so | FileCheck %s --check-prefix=PLAIN
#include <math.h>
#include <mpi.h>

__attribute__((noinline)) int sum_all(double *x, int n)
{
    return MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int sum_one(double *x)
{
    return sum_all(x, 1);
}

double root(double x)
{
    return sqrt(x);
}

// ASM-LABEL: <sum_all>:
// ASM:       call{{.*}}MPI_Allreduce
// ASM-NOT:   jmp{{.*}}MPI_Allreduce
// ASM-LABEL: <sum_one>:
// ASM:       call{{.*}}sum_all
// ASM-LABEL: <root>:

// PLAIN-LABEL: <sum_all>:
// PLAIN:       jmp{{.*}}MPI_Allreduce
// PLAIN-LABEL: <sum_one>:
// PLAIN:       jmp{{.*}}sum_all
