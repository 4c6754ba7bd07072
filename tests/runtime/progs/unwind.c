/* unwind.c — test program: CPU-time samples in a leaf function (work, called
 * main -> phase_compute -> caller_a -> caller_b -> work, often and briefly so
 * that samples hit its entry and exit) and inside clock_gettime (vDSO/libc,
 * main -> phase_clock -> spin_clock) must carry the whole call path up to main.
 * A third phase calls the same leaf (work, through caller_b) from twin_a and twin_b,
 * the same code with the same frame sizes at the same stack depth, and from
 * recursion of depth 1-3: the handler's cache of outer paths, keyed by the
 * leaf's caller (runtime/callpath/rt_unwcache.c), must still tell them apart.
 * Built at -O0 and -O2 with frame pointers, and at -O2 without; mpitest.py
 * --check unwind. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile double sink;

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The leaf: no calls. */
NOINLINE double work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 0.5;
    return s;
}

/* Calls that are not tail calls (the result is used after the call), so
 * every caller keeps its frame at -O2. */
NOINLINE double caller_b(int calls, int n)
{
    double s = 0;
    for (int k = 0; k < calls; k++)
        s += work(n + (k & 7));
    return s * 0.5;
}

NOINLINE double caller_a(int calls, int n)
{
    return caller_b(calls, n) + 1.0;
}

NOINLINE double phase_compute(double seconds)
{
    double s = 0, t0 = cpu_seconds();
    while (cpu_seconds() - t0 < seconds)
        s += caller_a(2000, 40);
    return s + 2.0;
}

/* Busy loop in clock_gettime (the vDSO, through libc). */
NOINLINE double spin_clock(int calls)
{
    struct timespec t;
    double s = 0;
    for (int k = 0; k < calls; k++) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        s += (double)t.tv_nsec;
    }
    return s * 0.5;
}

NOINLINE double phase_clock(double seconds)
{
    double s = 0, t0 = cpu_seconds();
    while (cpu_seconds() - t0 < seconds)
        s += spin_clock(5000);
    return s + 3.0;
}

/* Twin callers of the same leaf chain (caller_b -> work): caller_b's frame,
 * its caller's ip and sp are the same from twin_a and twin_b, only the
 * return address into phase_twins differs. */
NOINLINE double twin_a(int calls, int n) { return caller_b(calls, n) + 1.0; }
NOINLINE double twin_b(int calls, int n) { return caller_b(calls, n) + 1.0; }

NOINLINE double rec(int d, int calls, int n)
{
    return (d > 0 ? rec(d - 1, calls, n) : caller_b(calls, n)) + 1.0;
}

NOINLINE double phase_twins(double seconds)
{
    double s = 0, t0 = cpu_seconds();
    for (int i = 0; cpu_seconds() - t0 < seconds; i++) {
        s += twin_a(200, 40);
        s += twin_b(200, 40);
        s += rec(1 + i % 3, 200, 40);
    }
    return s + 4.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sink = phase_compute(0.25);
    sink = phase_clock(0.15);
    sink = phase_twins(0.3);
    double x = 1, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("unwind done: %g\n", y);
    MPI_Finalize();
    return 0;
}
