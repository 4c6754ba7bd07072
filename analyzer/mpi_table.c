/* mpi_table.c — what the analyzer needs to know about each MPI operation
 * (name, role in waits and edges, non-blocking), read from the one table,
 * include/scalana/mpi_calls.def, through its X-macro. */
#include "analyzer.h"

#include <string.h>

struct op_info { unsigned code; const char *name; int cls; const char *flags; };

enum { C_NONE, C_P2P_SEND, C_P2P_RECV, C_P2P_SENDRECV, C_PROBE, C_COMPLETION, C_COLLECTIVE,
       C_COMM, C_ONESIDED, C_IO, C_INIT };

static const struct op_info ops[] = {
#define SCALANA_MPI_CALL(code, name, cls, flags, params, roles) {code, "MPI_" #name, C_##cls, flags},
#include "scalana/mpi_calls.def"
#undef SCALANA_MPI_CALL
};

static const struct op_info *find(unsigned op)
{
    size_t lo = 0, hi = sizeof ops / sizeof *ops;
    /* the table is in code order; fall back to a scan if it is not */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ops[mid].code == op) return &ops[mid];
        if (ops[mid].code < op) lo = mid + 1; else hi = mid;
    }
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (ops[i].code == op) return &ops[i];
    return NULL;
}

const char *an_mpi_name(unsigned op)
{
    const struct op_info *o = find(op);
    return o ? o->name : "MPI_<unknown>";
}

enum an_mpi_role an_mpi_role(unsigned op)
{
    const struct op_info *o = find(op);
    if (!o) return AN_MPI_OTHER;
    switch (o->cls) {
    case C_P2P_SEND: return AN_MPI_SEND;
    case C_P2P_RECV: return AN_MPI_RECV;
    case C_P2P_SENDRECV: return AN_MPI_SENDRECV;
    case C_COMPLETION: return AN_MPI_COMPLETION;
    case C_COLLECTIVE: return AN_MPI_COLLECTIVE;
    case C_PROBE: return AN_MPI_PROBE;
    case C_COMM: return AN_MPI_COLLECTIVE; /* communicator creation synchronises its members */
    default: return AN_MPI_OTHER;
    }
}

int an_mpi_nonblocking(unsigned op)
{
    const struct op_info *o = find(op);
    return o && strstr(o->flags, "nonblocking") != NULL;
}

int an_mpi_is_init(unsigned op)
{
    const struct op_info *o = find(op);
    return o && o->cls == C_INIT;
}
