/* rt_fortran.c — support for the generated Fortran wrappers in all
 * manglings: each forwards to the MPI library's own Fortran PMPI entry found
 * with dlsym(RTLD_NEXT).  The hand-written Fortran entries (MPI_INIT ...)
 * start and end the run: they are the session room's (rt_fortran_init.c). */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_fortran.h"
#include "rt_mpi.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library's entry of variant v for lname, without a message; name
 * receives the last name tried. */
static void *rt_f_lookup(int v, const char *lname, char *name, size_t namesz)
{
    switch (v) {
    case 0: snprintf(name, namesz, "pmpi_%s_", lname); break;
    case 1: snprintf(name, namesz, "pmpi_%s__", lname); break;
    case 2: snprintf(name, namesz, "pmpi_%s", lname); break;
    case 3:
        snprintf(name, namesz, "PMPI_%s", lname);
        for (char *p = name; *p; p++)
            *p = (char)toupper((unsigned char)*p);
        break;
    default:
#ifdef RT_F08B_SUFFIX
        snprintf(name, namesz, "pmpi_%s%s", lname, v == 4 ? RT_F08_SUFFIX : RT_F08B_SUFFIX);
#else
        snprintf(name, namesz, "pmpi_%s%s", lname, RT_F08_SUFFIX);
#endif
        break;
    }
    void *f = dlsym(RTLD_NEXT, name);
    if (!f && v >= 4) /* the library's own mpi_ entry (RTLD_NEXT skips ours) */
        f = dlsym(RTLD_NEXT, name + 1);
    if (!f && v >= 1 && v <= 3) { /* same ABI as the first mangling */
        snprintf(name, namesz, "pmpi_%s_", lname);
        f = dlsym(RTLD_NEXT, name);
    }
    return f;
}

void *rt_f_real(int v, const char *lname, void **real)
{
    if (RT_LIKELY(real[v] != NULL))
        return real[v];
    char name[96];
    void *f = rt_f_lookup(v, lname, name, sizeof name);
    if (!f)
        rt_log("the MPI library has no Fortran entry %s: the call fails with MPI_ERR_INTERN", name);
    real[v] = f;
    return f;
}

/* ---- library behaviour, probed once on MPI_COMM_SELF ---------------------------
 * Bindings differ where the standard leaves room or a release has a bug:
 * MPICH's mpi_f08 entries for choice buffers (mpi_x_f08ts_) take Fortran
 * 2018 C descriptors, not addresses; MPICH 4.0.2's mpi_f08 Waitany returns
 * 0-based indices, its mpif.h Waitany MPI_UNDEFINED + 1 when all requests
 * are null.  Rather than knowing releases, the runtime asks each binding
 * once: Waitany/Testany/Waitsome/Testsome on {null, a completed request}
 * (index 2 = 1-based, 1 = 0-based) and on {null} (the "undefined" value),
 * and a Sendrecv to itself with descriptor arguments (the data arrives only
 * when the entry reads descriptors).  The probe's calls are the runtime's
 * own (depth raised): never recorded. */

/* The first members of a C descriptor as gfortran lays it out (the
 * compiler that built the bindings; ISO_Fortran_binding.h of GCC). */
struct rt_cfi {
    void *base_addr;
    size_t elem_len;
    int version;
    signed char rank, attribute;
    int16_t type;
    long dims[3 * 1]; /* room for rank 1 */
};
#define RT_CFI_VERSION 1        /* gfortran's CFI_VERSION */
#define RT_CFI_ATTR_OTHER 2     /* CFI_attribute_other */
#define RT_CFI_TYPE_INT 1025    /* CFI_type_int: 4-byte integer */

enum { RT_F_WAITANY = 0, RT_F_TESTANY = 1, RT_F_WAITSOME = 2, RT_F_TESTSOME = 3 };
struct rt_f_probe_state {
    volatile int state;                      /* 0 not yet, 1 running, 2 done */
    int base[RT_F_VARIANTS][4];              /* subtracted from a returned index */
    MPI_Fint undefined[RT_F_VARIANTS][4];    /* the binding's "no index" value */
    int descriptor[RT_F_VARIANTS];           /* choice buffers are C descriptors */
};
static struct rt_f_probe_state rt_fp;

typedef void (*rt_f_any_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
/* Testany, Waitsome, Testsome: six arguments */
typedef void (*rt_f_tany_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*rt_f_sendrecv_fn)(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
                                 MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* Calls the binding's routine `which` on {null, completed} (or {null} when
 * only_null) and returns the index it gave, or MPI_UNDEFINED - 1 when the
 * call failed. */
static MPI_Fint rt_f_probe_index(void *fn, int which, int only_null)
{
    static char dummy;
    MPI_Request r = MPI_REQUEST_NULL;
    if (!only_null && PMPI_Irecv(&dummy, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &r) != MPI_SUCCESS)
        return MPI_UNDEFINED - 1;
    MPI_Fint reqs[2] = {PMPI_Request_c2f(MPI_REQUEST_NULL), PMPI_Request_c2f(r)};
    MPI_Fint n = only_null ? 1 : 2, idx = MPI_UNDEFINED - 1, flag = 0, outc = 0, ids[2] = {0, 0}, ierr = -1;
    MPI_Fint st[2 * RT_F_STATUS_MAX];
    switch (which) {
    case RT_F_WAITANY: ((rt_f_any_fn)fn)(&n, reqs, &idx, st, &ierr); break;
    case RT_F_TESTANY: ((rt_f_tany_fn)fn)(&n, reqs, &idx, &flag, st, &ierr); break;
    default:
        ((rt_f_tany_fn)fn)(&n, reqs, &outc, ids, st, &ierr);
        idx = outc == MPI_UNDEFINED ? MPI_UNDEFINED : outc == 1 ? ids[0] : MPI_UNDEFINED - 1;
        break;
    }
    if (!only_null) {
        MPI_Request left = PMPI_Request_f2c(reqs[1]);
        if (left != MPI_REQUEST_NULL)
            PMPI_Wait(&left, MPI_STATUS_IGNORE);
    }
    return ierr == MPI_SUCCESS ? idx : MPI_UNDEFINED - 1;
}

/* Does the binding's Sendrecv of variant v read C descriptors? */
static int rt_f_probe_descriptor(void *fn)
{
    int src = 0x5ca1a, dst = 0;
    struct rt_cfi ds, dd;
    memset(&ds, 0, sizeof ds);
    memset(&dd, 0, sizeof dd);
    ds.base_addr = &src;
    dd.base_addr = &dst;
    ds.elem_len = dd.elem_len = sizeof(int);
    ds.version = dd.version = RT_CFI_VERSION;
    ds.attribute = dd.attribute = RT_CFI_ATTR_OTHER;
    ds.type = dd.type = RT_CFI_TYPE_INT;
    MPI_Fint cnt = (MPI_Fint)sizeof(int), ty = PMPI_Type_c2f(MPI_BYTE), peer = 0, tag = 0;
    MPI_Fint comm = PMPI_Comm_c2f(MPI_COMM_SELF), ierr = -1;
    MPI_Fint st[RT_F_STATUS_MAX];
    ((rt_f_sendrecv_fn)fn)(&ds, &cnt, &ty, &peer, &tag, &dd, &cnt, &ty, &peer, &tag, &comm, st, &ierr);
    return ierr == MPI_SUCCESS && dst == src;
}

void rt_f_probe(void)
{
    if (RT_LIKELY(rt_fp.state == 2))
        return;
    int expect = 0;
    if (!__atomic_compare_exchange_n(&rt_fp.state, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&rt_fp.state, __ATOMIC_ACQUIRE) != 2)
            ;
        return;
    }
    for (int v = 0; v < RT_F_VARIANTS; v++)
        for (int k = 0; k < 4; k++) {
            rt_fp.base[v][k] = 1;
            rt_fp.undefined[v][k] = MPI_UNDEFINED;
        }
    int flag = 0, fin = 0;
    if (PMPI_Initialized(&flag) == MPI_SUCCESS && flag && PMPI_Finalized(&fin) == MPI_SUCCESS && !fin) {
        struct rt_thread *t = rt_thread_get();
        if (t)
            t->depth++;
        static const char *names[4] = {"waitany", "testany", "waitsome", "testsome"};
        char name[96];
        for (int v = 0; v < RT_F_VARIANTS; v++) {
            for (int k = 0; k < 4; k++) {
                void *fn = rt_f_lookup(v, names[k], name, sizeof name);
                if (!fn)
                    continue;
                MPI_Fint i = rt_f_probe_index(fn, k, 0);
                if (i == 1 || i == 2)
                    rt_fp.base[v][k] = i - 1;
                MPI_Fint u = rt_f_probe_index(fn, k, 1);
                if (u != MPI_UNDEFINED - 1)
                    rt_fp.undefined[v][k] = u;
            }
            if (v >= 4) {
                void *fn = rt_f_lookup(v, "sendrecv", name, sizeof name);
                rt_fp.descriptor[v] = fn && rt_f_probe_descriptor(fn);
            }
        }
        if (t)
            t->depth--;
    }
    __atomic_store_n(&rt_fp.state, 2, __ATOMIC_RELEASE);
}

int rt_f_index(int v, int rule, MPI_Fint f)
{
    rt_f_probe();
    int k = rule == RT_RULE_WAITANY ? RT_F_WAITANY : rule == RT_RULE_TESTANY ? RT_F_TESTANY
          : rule == RT_RULE_WAITSOME ? RT_F_WAITSOME : RT_F_TESTSOME;
    if (f == MPI_UNDEFINED || f == rt_fp.undefined[v][k])
        return MPI_UNDEFINED;
    return (int)f - rt_fp.base[v][k];
}

/* Fortran sentinels: addresses of implementation variables. */
struct rt_f_sentinels { int ready; const void *in_place[6]; const void *status_ignore[6]; const void *statuses_ignore[6]; };
static struct rt_f_sentinels rt_fs;

static void rt_f_sentinels_init(void)
{
    if (rt_fs.ready)
        return;
    int k = 0, s = 0, ss = 0;
    static const char *ip[] = {"mpi_fortran_in_place_", "mpi_fortran_in_place", "mpi_fortran_in_place__",
                               "MPI_FORTRAN_IN_PLACE"};
    for (size_t i = 0; i < sizeof ip / sizeof ip[0] && k < 5; i++) {
        void *p = dlsym(RTLD_DEFAULT, ip[i]);
        if (p)
            rt_fs.in_place[k++] = p;
    }
    /* MPICH: the address of its mpif.h MPI_IN_PLACE is kept in a variable;
     * mpi_f08's MPI_IN_PLACE is an object of its own. */
    void **pp = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE");
    if (pp && *pp && k < 6)
        rt_fs.in_place[k++] = *pp;
    void *p08 = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_IN_PLACE");
    if (p08 && k < 6)
        rt_fs.in_place[k++] = p08;
    rt_fs.status_ignore[s++] = MPI_F_STATUS_IGNORE;
    rt_fs.statuses_ignore[ss++] = MPI_F_STATUSES_IGNORE;
    static const char *si[] = {"mpi_fortran_status_ignore_", "mpi_fortran_status_ignore",
                               "mpi_fortran_status_ignore__"};
    static const char *ssi[] = {"mpi_fortran_statuses_ignore_", "mpi_fortran_statuses_ignore",
                                "mpi_fortran_statuses_ignore__"};
    for (size_t i = 0; i < 3; i++) {
        void *p = dlsym(RTLD_DEFAULT, si[i]);
        if (p && s < 5)
            rt_fs.status_ignore[s++] = p;
        p = dlsym(RTLD_DEFAULT, ssi[i]);
        if (p && ss < 5)
            rt_fs.statuses_ignore[ss++] = p;
    }
    /* MPICH's mpi_f08 sentinels. */
    void *f08 = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
    if (f08 && s < 6)
        rt_fs.status_ignore[s++] = f08;
    f08 = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
    if (f08 && ss < 6)
        rt_fs.statuses_ignore[ss++] = f08;
    __atomic_store_n(&rt_fs.ready, 1, __ATOMIC_RELEASE);
}

static int rt_f_in(const void *p, const void *const *set, int n)
{
    for (int i = 0; i < n; i++)
        if (set[i] && set[i] == p)
            return 1;
    return 0;
}

int rt_f_in_place(int v, const void *buf)
{
    rt_f_sentinels_init();
    rt_f_probe();
    if (buf && rt_fp.descriptor[v])
        buf = ((const struct rt_cfi *)buf)->base_addr;
    return buf && rt_f_in(buf, rt_fs.in_place, 6);
}

int rt_f_status_ignored(const MPI_Fint *st)
{
    rt_f_sentinels_init();
    return !st || rt_f_in(st, rt_fs.status_ignore, 6);
}

int rt_f_statuses_ignored(const MPI_Fint *st)
{
    rt_f_sentinels_init();
    return !st || rt_f_in(st, rt_fs.statuses_ignore, 6);
}

struct rt_f_buf { void *p; size_t n; };
static RT_TLS struct rt_f_buf rt_f_bufs[5];

static void *rt_f_buf(int slot, size_t bytes)
{
    struct rt_f_buf *b = &rt_f_bufs[slot];
    if (b->n < bytes) {
        size_t want = bytes < 1024 ? 1024 : bytes * 2;
        void *p = realloc(b->p, want);
        if (!p)
            return NULL;
        b->p = p;
        b->n = want;
    }
    return b->p;
}

/* A thread lifecycle hook: the exiting thread's conversion buffers. */
static void rt_fortran_thread_exit(struct rt_thread *t)
{
    (void)t;
    for (int i = 0; i < 5; i++) {
        free(rt_f_bufs[i].p);
        rt_f_bufs[i].p = NULL;
        rt_f_bufs[i].n = 0;
    }
}

const struct rt_thread_hooks rt_fortran_thread_hooks = {NULL, rt_fortran_thread_exit};

MPI_Fint *rt_f_status_scratch(int n)
{
    return n > 0 ? rt_f_buf(0, (size_t)n * RT_F_STATUS_SIZE * sizeof(MPI_Fint)) : NULL;
}

MPI_Request *rt_f_requests(int n, const MPI_Fint *f)
{
    if (n <= 0 || !f)
        return NULL;
    MPI_Request *r = rt_f_buf(1, (size_t)n * sizeof *r);
    if (r)
        for (int i = 0; i < n; i++)
            r[i] = PMPI_Request_f2c(f[i]);
    return r;
}

void rt_f_requests_back(int n, MPI_Fint *freq, const MPI_Request *creq, MPI_Fint *fst, MPI_Status *cst)
{
    for (int i = 0; i < n; i++) {
        freq[i] = PMPI_Request_c2f(creq[i]);
        if (fst && cst)
            PMPI_Status_c2f(&cst[i], fst + (size_t)i * RT_F_STATUS_SIZE);
    }
}

void rt_f_types(struct rt_call *c, const MPI_Fint *stypes, const MPI_Fint *rtypes)
{
    int nin = 0, nout = 0;
    if (c->a.comm == MPI_COMM_NULL)
        return;
    if (c->rule == RT_RULE_NEIGHBOR_ALLTOALLW) {
        rt_neighbors(c->a.comm, &nin, &nout);
    } else {
        int inter = 0;
        PMPI_Comm_test_inter(c->a.comm, &inter);
        if (inter)
            PMPI_Comm_remote_size(c->a.comm, &nin);
        else
            PMPI_Comm_size(c->a.comm, &nin);
        nout = nin;
    }
    if (stypes && nout > 0) {
        MPI_Datatype *t = rt_f_buf(3, (size_t)nout * sizeof *t);
        if (t)
            for (int i = 0; i < nout; i++)
                t[i] = PMPI_Type_f2c(stypes[i]);
        c->a.stypes = t;
    }
    if (rtypes && nin > 0) {
        MPI_Datatype *t = rt_f_buf(4, (size_t)nin * sizeof *t);
        if (t)
            for (int i = 0; i < nin; i++)
                t[i] = PMPI_Type_f2c(rtypes[i]);
        c->a.rtypes = t;
    }
}

int *rt_f_indices(int n)
{
    return n > 0 ? rt_f_buf(2, (size_t)n * sizeof(int)) : NULL;
}
