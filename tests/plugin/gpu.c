// GPU calls in host code compiled by clang: launches, copies, memsets,
// synchronisations and allocations are GPU vertices (like MPI calls), so the
// GPU work gets a place in the graph.  (Prototypes declared here: the test
// needs no CUDA toolkit; compiled, not linked.)
// RUN: %scalana-cc -O2 -c %s -o %t.o
// RUN: %scalana-dump --psg %t.o | %FileCheck %s
// RUN: %scalana-dump --psg --json %t.o | /usr/bin/python3 -c "import json,sys; [print(v['kind'], v['op']) for u in json.load(sys.stdin)['units'] for v in u['vertices'] if v['kind'] in ('GPU', 'MPI')]" | %FileCheck %s --check-prefix=OPS
#include <mpi.h>
#include <stddef.h>

typedef int cudaError_t;
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind);
cudaError_t cudaMemset(void *p, int v, size_t n);
cudaError_t cudaLaunchKernel(const void *fn, int grid, int block, void **args, size_t shmem, void *stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaFree(void *p);
void __device_stub__axpy(double *x, int n);

void solve(double *h, int n)
{
    double *d;
    cudaMalloc((void **)&d, n * sizeof *d);
    cudaMemset(d, 0, n * sizeof *d);
    for (int it = 0; it < 4; it++) {
        cudaMemcpy(d, h, n * sizeof *d, 1);
        __device_stub__axpy(d, n);
        cudaDeviceSynchronize();
        cudaMemcpy(h, d, n * sizeof *d, 2);
        MPI_Allreduce(MPI_IN_PLACE, h, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    cudaFree(d);
}

// CHECK:unit {{.*}}/gpu.c (C, debug info, loop depth limit 10, 10 vertices)
// CHECK-NEXT:FUNCTION solve gpu.c:20-33
// CHECK-NEXT:  GPU cudaMalloc gpu.c:23:5
// CHECK-NEXT:  GPU cudaMemset gpu.c:24:5
// CHECK-NEXT:  LOOP gpu.c:25-31
// CHECK-NEXT:    GPU cudaMemcpy gpu.c:26:9
// CHECK-NEXT:    GPU __device_stub__axpy gpu.c:27:9
// CHECK-NEXT:    GPU cudaDeviceSynchronize gpu.c:28:9
// CHECK-NEXT:    GPU cudaMemcpy gpu.c:29:9
// CHECK-NEXT:    MPI MPI_Allreduce gpu.c:30:9
// CHECK-NEXT:  GPU cudaFree gpu.c:32:5
// CHECK-NOT:{{.}}

// OPS:GPU malloc
// OPS-NEXT:GPU memset
// OPS-NEXT:GPU memcpy
// OPS-NEXT:GPU launch
// OPS-NEXT:GPU synchronize
// OPS-NEXT:GPU memcpy
// OPS-NEXT:MPI MPI_Allreduce
// OPS-NEXT:GPU malloc
// OPS-NOT:{{.}}
