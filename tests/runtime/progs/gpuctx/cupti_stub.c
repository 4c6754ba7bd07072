/* cupti_stub.c — libcupti_stub.so: stands in for CUPTI (frames in an object
 * named libcupti*), calling the collector's API callback. */
int collector_stub_callback(int x);

__attribute__((visibility("default"))) int cupti_stub_dispatch(int x)
{
    int r = collector_stub_callback(x);
    return r + 1;
}
