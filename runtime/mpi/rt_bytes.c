/* rt_bytes.c — the bytes an MPI call moves, as this rank sees them: a count
 * of a datatype, a received status, and each collective rule's sent and
 * received bytes (docs/runtime.md), including neighbourhood collectives over
 * a topology communicator's in- and out-degree.  Every size is an MPI_Count
 * (the _x calls): a datatype or a message over 2 GiB has no int size
 * (MPI_Type_size and MPI_Get_count give MPI_UNDEFINED) but moves its bytes. */
#include "rt_mpi.h"

uint64_t rt_type_bytes(MPI_Datatype t, MPI_Count count)
{
    MPI_Count size = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size <= 0 ||
        size == MPI_UNDEFINED)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t rt_status_bytes(const MPI_Status *st)
{
    /* Elements of MPI_BYTE are the bytes received, whatever the receive's
     * datatype; MPI_Get_count would give MPI_UNDEFINED past INT_MAX. */
    MPI_Count n = 0;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

static int rt_comm_size_for(const struct rt_call *c)
{
    /* Collective fan-out: the remote group's size for intercommunicators. */
    if (!c->comm)
        return 1;
    return (c->comm->flags & PRF_COMM_INTER) ? (int)c->comm->remote_size : (int)c->comm->size;
}

/* Count i of the call's send (recv 0) or receive (recv 1) counts: the int
 * array of an MPI-3 call, or the MPI_Count array of its large-count (_c)
 * twin, which the wrapper puts in scounts_c / rcounts_c. 0 without one. */
static MPI_Count rt_cnt_at(const struct rt_call *c, int recv, int i)
{
    const struct rt_args *a = &c->a;
    if (recv ? (c->roles & RT_ROLE_RCOUNTS_C) : (c->roles & RT_ROLE_SCOUNTS_C)) {
        const MPI_Count *v = recv ? a->rcounts_c : a->scounts_c;
        return v ? v[i] : 0;
    }
    const int *v = recv ? a->rcounts : a->scounts;
    return v && (recv ? (c->roles & RT_ROLE_RCOUNTS) : (c->roles & RT_ROLE_SCOUNTS)) ? v[i] : 0;
}

/* Sum of the first n counts of rt_cnt_at. */
static MPI_Count rt_cnt_sum(const struct rt_call *c, int recv, int n)
{
    MPI_Count s = 0;
    for (int i = 0; i < n; i++)
        s += rt_cnt_at(c, recv, i);
    return s;
}

void rt_neighbors(MPI_Comm comm, int *indeg, int *outdeg)
{
    int kind = MPI_UNDEFINED, w = 0;
    *indeg = *outdeg = 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return;
    if (kind == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *indeg = *outdeg = 2 * nd;
    } else if (kind == MPI_GRAPH) {
        int r = 0, n = 0;
        PMPI_Comm_rank(comm, &r);
        PMPI_Graph_neighbors_count(comm, r, &n);
        *indeg = *outdeg = n;
    } else if (kind == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &w);
    }
}

static int rt_is_root(const struct rt_call *c)
{
    if (!c->comm)
        return 0;
    if (c->comm->flags & PRF_COMM_INTER)
        return c->a.root == MPI_ROOT;
    return c->a.root == (int)c->comm->local_rank;
}

/* What every collective's bytes depend on besides its rule and counts:
 * read once per call (rt_coll_bytes). */
struct rt_coll_shape {
    int p;             /* the group size the counts are per (rt_comm_size_for) */
    int inplace;       /* MPI_IN_PLACE as the send buffer */
    int me;            /* this rank in the communicator */
    int inter;         /* an intercommunicator */
    int root;          /* this rank is the root (rt_is_root) */
    int nonroot_inter; /* inter: not participating */
};

/* The rooted collectives: broadcast, reduce, gather(v), scatter(v). */
static void rt_rooted_bytes(const struct rt_call *c, const struct rt_coll_shape *s, uint64_t *sent,
                            uint64_t *recv)
{
    const struct rt_args *a = &c->a;
    switch (c->rule) {
    case RT_RULE_BCAST:
        if (s->nonroot_inter)
            break;
        if (s->root)
            *sent = rt_type_bytes(a->stype, a->scount);
        else
            *recv = rt_type_bytes(a->stype, a->scount);
        break;
    case RT_RULE_REDUCE:
        if (s->nonroot_inter)
            break;
        if (!(s->inter && s->root))
            *sent = rt_type_bytes(a->stype, a->scount);
        if (s->root)
            *recv = rt_type_bytes(a->stype, a->scount);
        break;
    case RT_RULE_GATHER:
    case RT_RULE_GATHERV:
        if (s->nonroot_inter)
            break;
        if (!(s->inter && s->root))
            *sent = s->inplace ? rt_type_bytes(a->rtype, c->rule == RT_RULE_GATHER ? a->rcount
                                                             : rt_cnt_at(c, 1, s->me))
                            : rt_type_bytes(a->stype, a->scount);
        if (s->root)
            *recv = c->rule == RT_RULE_GATHER ? rt_type_bytes(a->rtype, (MPI_Count)a->rcount * s->p)
                                              : rt_type_bytes(a->rtype, rt_cnt_sum(c, 1, s->p));
        break;
    case RT_RULE_SCATTER:
    case RT_RULE_SCATTERV:
        if (s->nonroot_inter)
            break;
        if (s->root)
            *sent = c->rule == RT_RULE_SCATTER ? rt_type_bytes(a->stype, (MPI_Count)a->scount * s->p)
                                               : rt_type_bytes(a->stype, rt_cnt_sum(c, 0, s->p));
        if (!(s->inter && s->root))
            *recv = (a->rbuf == MPI_IN_PLACE)
                        ? rt_type_bytes(a->stype, c->rule == RT_RULE_SCATTER ? a->scount
                                                        : rt_cnt_at(c, 0, s->me))
                        : rt_type_bytes(a->rtype, a->rcount);
        break;
    default:
        break;
    }
}

/* The all-to-all collectives: allgather(v), alltoall(v, w), reduce-scatter. */
static void rt_all_bytes(const struct rt_call *c, const struct rt_coll_shape *s, uint64_t *sent, uint64_t *recv)
{
    const struct rt_args *a = &c->a;
    switch (c->rule) {
    case RT_RULE_ALLGATHER:
    case RT_RULE_ALLGATHERV: {
        MPI_Count rc = c->rule == RT_RULE_ALLGATHER ? (MPI_Count)a->rcount * s->p : rt_cnt_sum(c, 1, s->p);
        *sent = s->inplace ? rt_type_bytes(a->rtype, c->rule == RT_RULE_ALLGATHER ? a->rcount
                                                          : rt_cnt_at(c, 1, s->me))
                        : rt_type_bytes(a->stype, a->scount);
        *recv = rt_type_bytes(a->rtype, rc);
        break;
    }
    case RT_RULE_ALLTOALL:
        *sent = s->inplace ? rt_type_bytes(a->rtype, (MPI_Count)a->rcount * s->p) : rt_type_bytes(a->stype, (MPI_Count)a->scount * s->p);
        *recv = rt_type_bytes(a->rtype, (MPI_Count)a->rcount * s->p);
        break;
    case RT_RULE_ALLTOALLV:
        *sent = s->inplace ? rt_type_bytes(a->rtype, rt_cnt_sum(c, 1, s->p)) : rt_type_bytes(a->stype, rt_cnt_sum(c, 0, s->p));
        *recv = rt_type_bytes(a->rtype, rt_cnt_sum(c, 1, s->p));
        break;
    case RT_RULE_ALLTOALLW:
        for (int i = 0; i < s->p; i++) {
            if (!s->inplace && a->stypes)
                *sent += rt_type_bytes(a->stypes[i], rt_cnt_at(c, 0, i));
            if (a->rtypes)
                *recv += rt_type_bytes(a->rtypes[i], rt_cnt_at(c, 1, i));
        }
        if (s->inplace)
            *sent = *recv;
        break;
    case RT_RULE_REDUCE_SCATTER:
        *sent = rt_type_bytes(a->stype, rt_cnt_sum(c, 1, s->inter ? (int)c->comm->size : s->p));
        *recv = rt_type_bytes(a->stype, rt_cnt_at(c, 1, s->me));
        break;
    case RT_RULE_REDUCE_SCATTER_BLOCK:
        *sent = rt_type_bytes(a->stype, (MPI_Count)a->rcount * (s->inter ? (int)c->comm->size : s->p));
        *recv = rt_type_bytes(a->stype, a->rcount);
        break;
    default:
        break;
    }
}

/* The neighbourhood collectives, over the topology's in- and out-degree. */
static void rt_neighbor_bytes(const struct rt_call *c, uint64_t *sent, uint64_t *recv)
{
    const struct rt_args *a = &c->a;
    int in = 0, out = 0;
    rt_neighbors(a->comm, &in, &out);
    if (c->rule == RT_RULE_NEIGHBOR_ALLGATHER) {
        *sent = rt_type_bytes(a->stype, (MPI_Count)a->scount * out);
        *recv = rt_type_bytes(a->rtype, (MPI_Count)a->rcount * in);
    } else if (c->rule == RT_RULE_NEIGHBOR_ALLGATHERV) {
        *sent = rt_type_bytes(a->stype, (MPI_Count)a->scount * out);
        *recv = rt_type_bytes(a->rtype, rt_cnt_sum(c, 1, in));
    } else if (c->rule == RT_RULE_NEIGHBOR_ALLTOALL) {
        *sent = rt_type_bytes(a->stype, (MPI_Count)a->scount * out);
        *recv = rt_type_bytes(a->rtype, (MPI_Count)a->rcount * in);
    } else if (c->rule == RT_RULE_NEIGHBOR_ALLTOALLV) {
        *sent = rt_type_bytes(a->stype, rt_cnt_sum(c, 0, out));
        *recv = rt_type_bytes(a->rtype, rt_cnt_sum(c, 1, in));
    } else {
        for (int i = 0; i < out && a->stypes; i++)
            *sent += rt_type_bytes(a->stypes[i], rt_cnt_at(c, 0, i));
        for (int i = 0; i < in && a->rtypes; i++)
            *recv += rt_type_bytes(a->rtypes[i], rt_cnt_at(c, 1, i));
    }
}

/* Bytes this rank sends and receives in a collective (docs/runtime.md). */
void rt_coll_bytes(const struct rt_call *c, uint64_t *sent, uint64_t *recv)
{
    const struct rt_args *a = &c->a;
    struct rt_coll_shape s;
    s.p = rt_comm_size_for(c);
    s.inplace = (c->roles & RT_ROLE_SBUF) && a->sbuf == MPI_IN_PLACE;
    s.me = c->comm ? (int)c->comm->local_rank : 0;
    s.inter = c->comm && (c->comm->flags & PRF_COMM_INTER);
    s.root = rt_is_root(c);
    s.nonroot_inter = s.inter && a->root == MPI_PROC_NULL; /* inter: not participating */
    *sent = *recv = 0;
    switch (c->rule) {
    case RT_RULE_BARRIER:
        break;
    case RT_RULE_ALLREDUCE:
        *sent = *recv = rt_type_bytes(a->stype, a->scount);
        break;
    case RT_RULE_BCAST:
    case RT_RULE_REDUCE:
    case RT_RULE_GATHER:
    case RT_RULE_GATHERV:
    case RT_RULE_SCATTER:
    case RT_RULE_SCATTERV:
        rt_rooted_bytes(c, &s, sent, recv);
        break;
    case RT_RULE_ALLGATHER:
    case RT_RULE_ALLGATHERV:
    case RT_RULE_ALLTOALL:
    case RT_RULE_ALLTOALLV:
    case RT_RULE_ALLTOALLW:
    case RT_RULE_REDUCE_SCATTER:
    case RT_RULE_REDUCE_SCATTER_BLOCK:
        rt_all_bytes(c, &s, sent, recv);
        break;
    case RT_RULE_NEIGHBOR_ALLGATHER:
    case RT_RULE_NEIGHBOR_ALLGATHERV:
    case RT_RULE_NEIGHBOR_ALLTOALL:
    case RT_RULE_NEIGHBOR_ALLTOALLV:
    case RT_RULE_NEIGHBOR_ALLTOALLW:
        rt_neighbor_bytes(c, sent, recv);
        break;
    default:
        break;
    }
}
