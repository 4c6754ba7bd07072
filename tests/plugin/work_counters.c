// Loop work counters (plugin/WorkCounters.cpp): one thread-local counter per
// LOOP vertex, counted at the header into a local and flushed into the
// thread's counter on each exit; the unit registers itself through a weak
// reference, so a program without the runtime runs as before.  At -O2 the
// per-iteration increment is gone (the trip count is added at the exit), and
// -mllvm -scalana-work-counters=0 / SCALANA_WORK_COUNTERS=0 leave the code as
// it was.
// RUN: %clang -O0 -g -S -emit-llvm -Xclang -disable-O0-optnone -fno-discard-value-names -fpass-plugin=%plugin -I%mpi_include %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -O2 -g -S -emit-llvm -fpass-plugin=%plugin -I%mpi_include %s -o - | FileCheck %s --check-prefix=O2
// RUN: %clang -O2 -g -S -emit-llvm -fplugin=%plugin -fpass-plugin=%plugin -mllvm -scalana-work-counters=0 -I%mpi_include %s -o - | FileCheck %s --check-prefix=OFF
// RUN: env SCALANA_WORK_COUNTERS=0 %clang -O2 -g -S -emit-llvm -fpass-plugin=%plugin -I%mpi_include %s -o - | FileCheck %s --check-prefix=OFF
#include <mpi.h>

double a[1000];

double sum(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

double nest(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            s += a[i + j];
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double s = 0;
    for (int k = 0; k < 10; k++) {
        s += sum(1000) + nest(900);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return s > 0;
}

// Four loops: four slots, their stable ids (0 for nest's outer loop, which
// holds a counted loop), one registration.
// IR-DAG: @__scalana_work.tls = internal thread_local global [4 x i64] zeroinitializer, align 64
// IR-DAG: @__scalana_work.ids = private constant [4 x i64] [i64 {{-?[1-9][0-9]*}}, i64 0, i64 {{-?[1-9][0-9]*}}, i64 {{-?[1-9][0-9]*}}]
// IR-DAG: @__scalana_work.unit = private constant { i32, i32, ptr, ptr } { i32 1, i32 4, ptr @__scalana_work.ids, ptr @__scalana_work.counters }
// IR-DAG: @llvm.global_ctors = appending global {{.*}} ptr @__scalana_work.register
// The header counts into the local; the exit adds it to the thread's slot.
// IR-LABEL: define {{.*}}double @sum(
// IR: %scalana.work = alloca i64
// IR: store i64 0, ptr %scalana.work
// IR: for.cond:
// IR-NEXT: [[N:%.*]] = load i64, ptr %scalana.work
// IR-NEXT: [[N1:%.*]] = add i64 [[N]], 1
// IR-NEXT: store i64 [[N1]], ptr %scalana.work
// IR: for.end:
// IR-NEXT: %scalana.work.n = load i64, ptr %scalana.work
// IR-NEXT: [[B:%.*]] = call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@__scalana_work.tls)
// IR-NEXT: %scalana.work.slot = getelementptr inbounds [4 x i64], ptr [[B]], i64 0, i64 {{[0-3]}}
// A nest flushes where it is left: the inner loop's exit (for.end) adds
// nothing to the thread's counters, the outer loop's exit adds the inner
// loop's count.  The outer loop holds a counted loop: it gets no counter of
// its own (its slot keeps id 0, as above).
// IR-LABEL: define {{.*}}double @nest(
// IR: for.cond1:
// IR-NEXT: load i64, ptr %scalana.work
// IR: for.end:
// IR-NOT: threadlocal.address
// IR: for.end7:
// IR-NEXT: %scalana.work.n = load i64, ptr %scalana.work
// IR-NEXT: call {{.*}}@llvm.threadlocal.address.p0
// IR-NOT: threadlocal.address
// IR: ret double
// Before an MPI call inside a nest the counts reach the thread's array (the
// profile may be written there); calls that cannot reach MPI flush nothing.
// IR-LABEL: define {{.*}} @main(
// IR: %call1 = call double @sum(
// IR-NOT: threadlocal.address
// IR: %call2 = call double @nest(
// IR-NOT: threadlocal.address
// IR: call {{.*}}@llvm.threadlocal.address.p0
// IR: notail call i32 @MPI_Barrier(
// IR: declare extern_weak void @scalana_rt_work_register(ptr)
// IR: define internal void @__scalana_work.register()
// IR-NEXT: [[HAVE:%.*]] = icmp ne ptr @scalana_rt_work_register, null
// IR-NEXT: br i1 [[HAVE]], label %call, label %done
// IR: call void @scalana_rt_work_register(ptr @__scalana_work.unit)

// At -O2 no counter is touched inside the loop: the one access of the
// thread's counters in @sum is in its return block, after the loop, and adds
// the trip count computed there.
// O2-LABEL: define {{.*}}double @sum(
// O2-NOT: threadlocal.address
// O2: {{%[0-9]+}} = tail call align 64 ptr @llvm.threadlocal.address.p0(ptr align 64 @__scalana_work.tls)
// O2-NEXT: [[OLD:%[0-9]+]] = load i64, ptr
// O2-NEXT: {{%[0-9]+}} = add i64 [[OLD]], {{%[0-9]+}}
// O2-NEXT: store i64
// O2-NEXT: ret double
// O2-NOT: threadlocal.address
// O2: define {{.*}} @nest(

// OFF-NOT: __scalana_work
// OFF-NOT: scalana_rt_work_register
