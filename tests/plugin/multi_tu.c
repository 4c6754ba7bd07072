// Several translation units: each object carries its own unit, the linker
// concatenates them in link order; a call to another unit's function is an
// external CALL kept as possibly reaching MPI; static functions of the same
// name in two units stay apart (different stable ids).
// RUN: %scalana-cc -O1 -c %s -o %t.a.o
// RUN: %scalana-cc -O1 -c %S/Inputs/multi_tu_b.c -o %t.b.o
// RUN: %scalana-cc %t.a.o %t.b.o -o %t
// RUN: %scalana-dump --psg %t | %FileCheck %s
// RUN: %scalana-dump --psg --json %t > %t.json
// RUN: /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); ids=[v['stable_id'] for u in d['units'] for v in u['vertices']]; sys.exit(len(ids)!=len(set(ids)))" %t.json
#include <mpi.h>

void exchange(double *x, int n);

static int count;

static void local_helper(void) { count += 2; }

int main(int argc, char **argv)
{
    double x[4] = {0};
    MPI_Init(&argc, &argv);
    local_helper();
    exchange(x, 4);
    MPI_Finalize();
    return count;
}

// CHECK:unit {{.*}}/multi_tu.c (C, debug info, loop depth limit 10, 6 vertices)
// CHECK-NEXT:FUNCTION main multi_tu.c:19-26
// CHECK-NEXT:  COMPUTE multi_tu.c:21
// CHECK-NEXT:  MPI MPI_Init multi_tu.c:22:5
// CHECK-NEXT:  COMPUTE multi_tu.c:23 folded
// CHECK-NEXT:  CALL exchange multi_tu.c:24:5
// CHECK-NEXT:  MPI MPI_Finalize multi_tu.c:25:5
// CHECK:unit {{.*}}/multi_tu_b.c (C, debug info, loop depth limit 10, 3 vertices)
// CHECK-NEXT:FUNCTION exchange multi_tu_b.c:7-11
// CHECK-NEXT:  COMPUTE multi_tu_b.c:9 folded
// CHECK-NEXT:  MPI MPI_Allreduce multi_tu_b.c:10:5
// CHECK-NOT:{{.}}
