/* cuda_stub.c — libcuda_stub.so: stands in for the CUDA driver (frames in an
 * object named libcuda*), calling the stand-in CUPTI's callback dispatch. */
int cupti_stub_dispatch(int x);

__attribute__((noinline)) static int cuda_stub_inner(int x)
{
    int r = cupti_stub_dispatch(x);
    return r + 1;
}

__attribute__((visibility("default"))) int cuda_stub_launch(int x)
{
    int r = cuda_stub_inner(x);
    return r + 1;
}
