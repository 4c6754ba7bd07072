// The plugin in opt: `print<scalana-psg>` prints the analysis, `scalana-psg`
// embeds it (module inline asm in the non-allocated section) and marks MPI
// calls and calls that reach them `notail`; running it twice embeds once.
// RUN: %clang -O2 -g -Xclang -disable-llvm-passes -S -emit-llvm -I%mpi_include %s -o %t.ll
// RUN: %opt -load-pass-plugin=%plugin -passes='print<scalana-psg>' -disable-output %t.ll | %FileCheck %s
// RUN: %opt -load-pass-plugin=%plugin -passes='scalana-psg,scalana-psg' -S %t.ll | FileCheck %s --check-prefix=IR
#include <mpi.h>

int reduce(double *x)
{
    return MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int twice(double *x)
{
    reduce(x);
    return reduce(x);
}

// CHECK:unit {{.*}}/opt_pipeline.c (loop depth limit 10)
// CHECK-NEXT:FUNCTION reduce opt_pipeline.c:9-11
// CHECK-NEXT:  MPI MPI_Allreduce opt_pipeline.c:11:12
// CHECK-NEXT:FUNCTION twice opt_pipeline.c:14-17
// CHECK-NEXT:  CALL reduce opt_pipeline.c:16:5
// CHECK-NEXT:  CALL reduce opt_pipeline.c:17:12
// CHECK-NOT:{{.}}

// IR:     module asm ".pushsection .scalana_psg,\22\22,%progbits"
// IR-NEXT: module asm ".balign 8"
// IR-NEXT: module asm ".quad 0x004753504e4c4353
// IR:     module asm ".popsection"
// IR-NOT: .pushsection .scalana_psg
// IR-LABEL: define {{.*}}@reduce(
// IR:       notail call i32 @MPI_Allreduce(
// IR-LABEL: define {{.*}}@twice(
// IR:       notail call i32 @reduce(
// IR:       notail call i32 @reduce(
