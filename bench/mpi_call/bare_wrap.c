/* bare_wrap.c — the floor a PMPI tool can reach, for bench/mpi_call: a
 * wrapper that reads the clock (the TSC, as the runtime does) around the
 * PMPI call and adds the time to a per-thread total; built a second time
 * with -DBARE_UNWIND, it also takes the call path with unw_backtrace, hashes
 * it and looks it up in an open-addressing table of contexts (what a tool
 * needs at least to keep per-context statistics).  Preloaded
 * (LD_PRELOAD=libbench_bare_*.so): wraps the calls mpi_call.c makes. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef BARE_UNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

static uint64_t bare_ticks, bare_calls; /* the benchmark is single-threaded */

static inline uint64_t bare_tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

#ifdef BARE_UNWIND
#define BARE_SLOTS 4096u
static struct { uint64_t key, calls, ticks; } bare_ctx[BARE_SLOTS];

static inline uint32_t bare_context(void)
{
    void *f[128];
    int n = unw_backtrace(f, 128);
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++)
        h ^= (uint64_t)(uintptr_t)f[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h |= 1;
    uint32_t j = (uint32_t)(h ^ (h >> 32)) & (BARE_SLOTS - 1);
    while (bare_ctx[j].key && bare_ctx[j].key != h)
        j = (j + 1) & (BARE_SLOTS - 1);
    bare_ctx[j].key = h;
    return j;
}
#define BARE_ENTER() uint32_t ctx_ = bare_context(); uint64_t t0_ = bare_tsc()
#define BARE_EXIT() do { uint64_t d_ = bare_tsc() - t0_; bare_ctx[ctx_].calls++; bare_ctx[ctx_].ticks += d_; \
                         bare_ticks += d_; bare_calls++; } while (0)
#else
#define BARE_ENTER() uint64_t t0_ = bare_tsc()
#define BARE_EXIT() do { bare_ticks += bare_tsc() - t0_; bare_calls++; } while (0)
#endif

int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm)
{
    BARE_ENTER();
    int rc = PMPI_Send(b, c, t, d, tag, comm);
    BARE_EXIT();
    return rc;
}

int MPI_Recv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Status *st)
{
    BARE_ENTER();
    int rc = PMPI_Recv(b, c, t, s, tag, comm, st);
    BARE_EXIT();
    return rc;
}

int MPI_Isend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r)
{
    BARE_ENTER();
    int rc = PMPI_Isend(b, c, t, d, tag, comm, r);
    BARE_EXIT();
    return rc;
}

int MPI_Irecv(void *b, int c, MPI_Datatype t, int s, int tag, MPI_Comm comm, MPI_Request *r)
{
    BARE_ENTER();
    int rc = PMPI_Irecv(b, c, t, s, tag, comm, r);
    BARE_EXIT();
    return rc;
}

int MPI_Waitall(int n, MPI_Request *r, MPI_Status *st)
{
    BARE_ENTER();
    int rc = PMPI_Waitall(n, r, st);
    BARE_EXIT();
    return rc;
}

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    BARE_ENTER();
    int rc = PMPI_Allreduce(s, r, c, t, op, comm);
    BARE_EXIT();
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    BARE_ENTER();
    int rc = PMPI_Barrier(comm);
    BARE_EXIT();
    return rc;
}

int MPI_Finalize(void)
{
    /* keep the totals observable (and the work above not optimised away) */
    if (getenv("BENCH_BARE_VERBOSE"))
        fprintf(stderr, "bare: %llu calls, %llu ticks\n", (unsigned long long)bare_calls,
                (unsigned long long)bare_ticks);
    return PMPI_Finalize();
}
