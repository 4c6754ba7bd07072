/* app.c — test program for scalana_rt_capture_context: the application calls
 * a stand-in CUDA driver (libcuda_stub.so) whose launch goes through a
 * stand-in CUPTI (libcupti_stub.so) to a collector (libcollector_stub.so)
 * that captures the calling context and adds one GPU record.  The context's
 * deepest frame must be launch_site, in this program (mpitest.py --check
 * gpuctx). */
#include <mpi.h>
#include <stdio.h>

int cuda_stub_launch(int x);

__attribute__((noinline)) int launch_site(int x)
{
    int r = cuda_stub_launch(x); /* the call the context must end at */
    return r + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r = launch_site(3);
    double a = r, b = 0;
    MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("gpuctx done: %g\n", b);
    MPI_Finalize();
    return 0;
}
