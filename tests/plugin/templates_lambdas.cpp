// C++: templates and inline functions are COMDAT: their graph sits in a
// section group of its own and appears once in the linked binary although
// both units define them; lambdas ("lambda at FILE:LINE in main") are
// functions of their own, called directly or through std::function.
// RUN: %scalana-cxx -O0 -c %s -o %t.a.o
// RUN: %scalana-cxx -O0 -c %S/Inputs/templates_b.cpp -o %t.b.o
// RUN: %scalana-cxx %t.a.o %t.b.o -o %t
// RUN: %scalana-dump --psg %t | %FileCheck %s
// RUN: %scalana-cxx -O2 -c %s -o %t.a2.o
// RUN: %scalana-cxx -O2 -c %S/Inputs/templates_b.cpp -o %t.b2.o
// RUN: %scalana-cxx %t.a2.o %t.b2.o -o %t2
// RUN: %scalana-dump --psg %t2 | grep -c '^FUNCTION Reducer<double>::sum' | FileCheck %s --check-prefix=ONCE
// RUN: %scalana-dump --psg %t2 | grep -c '^FUNCTION sync_all()' | FileCheck %s --check-prefix=ONCE
#include "Inputs/templates.h"
#include <functional>

void other_unit(double *v);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double v[2] = {1, 2};
    int k = 3;
    auto step = [&](int times) {
        for (int i = 0; i < times; i++)
            Reducer<double>::sum(v, 2);
    };
    step(2);
    std::function<void()> later = [&k] { Reducer<int>::sum(&k, 1); };
    later();
    other_unit(v);
    sync_all();
    MPI_Finalize();
    return 0;
}

// ONCE: 1

// CHECK:unit {{.*}}/templates_lambdas.cpp (C++, debug info, loop depth limit 10, 23 vertices)
// CHECK-NEXT:FUNCTION main templates_lambdas.cpp:19-35
// CHECK-NEXT:  MPI MPI_Init templates_lambdas.cpp:21:5
// CHECK-NEXT:  COMPUTE templates_lambdas.cpp:22
// CHECK-NEXT:  CALL lambda at templates_lambdas.cpp:24 in main templates_lambdas.cpp:28:5
// CHECK-NEXT:  COMPUTE templates_lambdas.cpp:29 folded
// CHECK-NEXT:  CALL std::function<void ()>::operator()() const templates_lambdas.cpp:30:5
// CHECK-NEXT:  CALL other_unit(double*) templates_lambdas.cpp:31:5
// CHECK-NEXT:  CALL sync_all() templates_lambdas.cpp:32:5
// CHECK-NEXT:  MPI MPI_Finalize templates_lambdas.cpp:33:5
// CHECK-NEXT:  CALL std::function<void ()>::~function() templates_lambdas.cpp:35:1
// CHECK-NEXT:  CALL std::function<void ()>::~function() templates_lambdas.cpp:35:1
// CHECK-NEXT:FUNCTION lambda at templates_lambdas.cpp:24 in main templates_lambdas.cpp:24-27
// CHECK-NEXT:  LOOP templates_lambdas.cpp:25-26
// CHECK-NEXT:    CALL Reducer<double>::sum(double*, int) templates_lambdas.cpp:26:13
// CHECK-NEXT:FUNCTION std::_Function_handler<void (), main::$_0>::_M_invoke(std::_Any_data const&) std_function.h:288-290
// CHECK-NEXT:  COMPUTE std_function.h:290 folded
// CHECK-NEXT:  CALL std::enable_if<is_invocable_r_v<void, main::$_0&>, void>::type std::__invoke_r<void, main::$_0&>(main::$_0&) std_function.h:290:9
// CHECK-NEXT:FUNCTION std::enable_if<is_invocable_r_v<void, main::$_0&>, void>::type std::__invoke_r<void, main::$_0&>(main::$_0&) invoke.h:104-117
// CHECK-NEXT:  CALL void std::__invoke_impl<void, main::$_0&>(std::__invoke_other, main::$_0&) invoke.h:111:2
// CHECK-NEXT:FUNCTION void std::__invoke_impl<void, main::$_0&>(std::__invoke_other, main::$_0&) invoke.h:60-61
// CHECK-NEXT:  CALL lambda at templates_lambdas.cpp:29 in main invoke.h:61:14
// CHECK-NEXT:FUNCTION lambda at templates_lambdas.cpp:29 in main templates_lambdas.cpp:29
// CHECK-NEXT:  CALL Reducer<int>::sum(int*, int) templates_lambdas.cpp:29:42
// CHECK:unit {{.*}}/templates_lambdas.cpp (C++, debug info, loop depth limit 10, 3 vertices)
// CHECK-NEXT:FUNCTION std::function<void ()>::operator()() const std_function.h:587-591
// CHECK-NEXT:  COMPUTE std_function.h:589-590 folded
// CHECK-NEXT:  CALL_INDIRECT std_function.h:591:9
// CHECK:unit {{.*}}/templates_lambdas.cpp (C++, debug info, loop depth limit 10, 2 vertices)
// CHECK-NEXT:FUNCTION sync_all() templates.h:13
// CHECK-NEXT:  MPI MPI_Barrier templates.h:13:26
// CHECK:unit {{.*}}/templates_lambdas.cpp (C++, debug info, loop depth limit 10, 2 vertices)
// CHECK-NEXT:FUNCTION std::function<void ()>::~function() std_function.h:111
// CHECK-NEXT:  CALL std::_Function_base::~_Function_base() std_function.h:111:11
// CHECK:unit {{.*}}/templates_lambdas.cpp (C++, debug info, loop depth limit 10, 3 vertices)
// CHECK-NEXT:FUNCTION Reducer<double>::sum(double*, int) templates.h:5-8
// CHECK-NEXT:  COMPUTE templates.h:7 folded
// CHECK-NEXT:  MPI MPI_Allreduce templates.h:7:9
// CHECK:unit {{.*}}/templates_lambdas.cpp (C++, debug info, loop depth limit 10, 4 vertices)
// CHECK-NEXT:FUNCTION std::_Function_base::~_Function_base() std_function.h:241-245
// CHECK-NEXT:  BRANCH std_function.h:243-244
// CHECK-NEXT:    CALL_INDIRECT std_function.h:244:2
// CHECK-NEXT:    COMPUTE std_function.h:244 folded
// CHECK:unit {{.*}}/templates_lambdas.cpp (C++, debug info, loop depth limit 10, 3 vertices)
// CHECK-NEXT:FUNCTION Reducer<int>::sum(int*, int) templates.h:5-8
// CHECK-NEXT:  COMPUTE templates.h:7 folded
// CHECK-NEXT:  MPI MPI_Allreduce templates.h:7:9
// CHECK:unit {{.*}}/templates_b.cpp (C++, debug info, loop depth limit 10, 3 vertices)
// CHECK-NEXT:FUNCTION other_unit(double*) templates_b.cpp:3-7
// CHECK-NEXT:  CALL Reducer<double>::sum(double*, int) templates_b.cpp:5:5
// CHECK-NEXT:  CALL sync_all() templates_b.cpp:6:5
// CHECK-NOT:{{.}}
