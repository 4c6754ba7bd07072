/* rt_comm.c — communicator ids equal on all members and membership in world
 * ranks.  The rule (docs/runtime.md, "MPI measurement rules", communicators):
 *  - every call that returns a communicator (mpi_calls.def: rule comm_new,
 *    role newcomm) agrees on its id with one collective over the new
 *    communicator (issued with PMPI, never recorded) when all its members
 *    are processes of this job: they all run the same wrapper;
 *  - a communicator reaching another job (Comm_spawn, Comm_connect/accept,
 *    Comm_join between jobs) gets a local id: the other side may run
 *    without the runtime, and world ranks of two jobs cannot be matched;
 *  - MPI_Comm_idup: the new communicator is not usable before its request
 *    completes, so its id is derived without communication from the
 *    parent's agreed id and the number of earlier Comm_idup calls on the
 *    parent (the same on every member: collectives are issued in order);
 *  - a communicator first seen elsewhere gets an id hashed from its
 *    membership, symmetric in the two groups of an intercommunicator.
 * Also windows -> comm. */
#include "core/rt_core.h"
#include "tables/rt_tables.h"
#include "rt_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

MPI_Comm rt_tool_comm = MPI_COMM_NULL;

struct rt_map_slot { uintptr_t key; struct rt_comm_rec *rec; int used; };
struct rt_map { struct rt_map_slot *s; uint32_t mask, n; };

static struct rt_map rt_comms_map, rt_wins_map;
static volatile int rt_comm_spin;
static struct rt_comm_rec *rt_world_rec;
static uint32_t rt_comm_counter;
static MPI_Group rt_world_group = MPI_GROUP_NULL;

static inline uint32_t rt_map_hash(uintptr_t k)
{
    return (uint32_t)(((uint64_t)k * 0x9e3779b97f4a7c15ull) >> 32);
}

static struct rt_comm_rec *rt_map_get(struct rt_map *m, uintptr_t k)
{
    if (!m->s)
        return NULL;
    for (uint32_t j = rt_map_hash(k) & m->mask;; j = (j + 1) & m->mask) {
        if (!m->s[j].used)
            return NULL;
        if (m->s[j].key == k && m->s[j].rec)
            return m->s[j].rec;
    }
}

static void rt_map_put(struct rt_map *m, uintptr_t k, struct rt_comm_rec *rec)
{
    if (!m->s || (m->n + 1) * 2 > m->mask + 1) {
        uint32_t cap = m->s ? (m->mask + 1) * 2 : 256;
        struct rt_map_slot *s = calloc(cap, sizeof *s);
        if (!s)
            return;
        for (uint32_t i = 0; m->s && i <= m->mask; i++)
            if (m->s[i].used && m->s[i].rec) {
                uint32_t j = rt_map_hash(m->s[i].key) & (cap - 1);
                while (s[j].used)
                    j = (j + 1) & (cap - 1);
                s[j] = m->s[i];
            }
        free(m->s);
        m->s = s;
        m->mask = cap - 1;
    }
    uint32_t j = rt_map_hash(k) & m->mask;
    while (m->s[j].used && m->s[j].rec && m->s[j].key != k)
        j = (j + 1) & m->mask;
    if (!m->s[j].used)
        m->n++;
    m->s[j].used = 1;
    m->s[j].key = k;
    m->s[j].rec = rec;
}

static void rt_map_del(struct rt_map *m, uintptr_t k)
{
    if (!m->s)
        return;
    for (uint32_t j = rt_map_hash(k) & m->mask;; j = (j + 1) & m->mask) {
        if (!m->s[j].used)
            return;
        if (m->s[j].key == k && m->s[j].rec) {
            m->s[j].rec = NULL; /* tombstone */
            return;
        }
    }
}

static void rt_comm_lock(void) { if (rt_g.mt) rt_spin_lock(&rt_comm_spin); }
static void rt_comm_unlock(void) { if (rt_g.mt) rt_spin_unlock(&rt_comm_spin); }

/* Fills size, rank, flags and world ranks of comm into r (local calls only). */
static int rt_comm_describe(MPI_Comm comm, struct rt_comm_rec *r)
{
    int size = 0, rank = 0, inter = 0, rsize = 0;
    memset(r, 0, sizeof *r);
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return -1;
    if (inter)
        PMPI_Comm_remote_size(comm, &rsize);
    r->size = (uint32_t)size;
    r->remote_size = (uint32_t)rsize;
    r->local_rank = (uint32_t)rank;
    r->flags = inter ? PRF_COMM_INTER : 0;
    r->world = malloc(((size_t)size + (size_t)rsize) * sizeof *r->world);
    int *ranks = malloc(((size_t)(size > rsize ? size : rsize) + 1) * sizeof *ranks);
    int *out = malloc(((size_t)(size > rsize ? size : rsize) + 1) * sizeof *out);
    if (!r->world || !ranks || !out) {
        free(r->world); free(ranks); free(out);
        r->world = NULL;
        return -1;
    }
    for (int g = 0; g < (inter ? 2 : 1); g++) {
        MPI_Group grp;
        int n = g == 0 ? size : rsize;
        if ((g == 0 ? PMPI_Comm_group(comm, &grp) : PMPI_Comm_remote_group(comm, &grp)) != MPI_SUCCESS)
            continue;
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        PMPI_Group_translate_ranks(grp, n, ranks, rt_world_group, out);
        for (int i = 0; i < n; i++)
            r->world[(g == 0 ? 0 : size) + i] = out[i] == MPI_UNDEFINED ? UINT32_MAX : (uint32_t)out[i];
        PMPI_Group_free(&grp);
    }
    free(ranks);
    free(out);
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    if (PMPI_Comm_get_name(comm, name, &len) == MPI_SUCCESS && len > 0)
        snprintf(r->name, sizeof r->name, "%.31s", name);
    return 0;
}

static struct rt_comm_rec *rt_comm_add(MPI_Comm comm, struct rt_comm_rec *r)
{
    struct rt_comm_rec *rec = rt_comm_rec_add(r);
    if (!rec) {
        free(r->world);
        return NULL;
    }
    rt_comm_lock();
    rt_map_put(&rt_comms_map, RT_KEY(comm), rec);
    rt_comm_unlock();
    return rec;
}

void rt_comm_init_world(MPI_Comm world)
{
    PMPI_Comm_group(world, &rt_world_group);
    if (world != MPI_COMM_WORLD)
        return; /* sessions: no MPI_COMM_WORLD, no MPI_COMM_SELF (rt_session.c) */
    struct rt_comm_rec r;
    memset(&r, 0, sizeof r);
    r.comm_id = RT_COMM_ID_WORLD;
    r.size = rt_g.world_size;
    r.local_rank = rt_g.world_rank;
    r.flags = PRF_COMM_WORLD;
    r.world = malloc(r.size * sizeof *r.world);
    if (r.world)
        for (uint32_t i = 0; i < r.size; i++)
            r.world[i] = i;
    snprintf(r.name, sizeof r.name, "MPI_COMM_WORLD");
    rt_world_rec = rt_comm_add(MPI_COMM_WORLD, &r);
    memset(&r, 0, sizeof r);
    /* MPI_COMM_SELF: one member; its id names the world rank. */
    r.comm_id = 0x5e1f000000000000ull | rt_g.world_rank;
    r.size = 1;
    r.flags = PRF_COMM_SELF;
    r.world = malloc(sizeof *r.world);
    if (r.world)
        r.world[0] = rt_g.world_rank;
    snprintf(r.name, sizeof r.name, "MPI_COMM_SELF");
    rt_comm_add(MPI_COMM_SELF, &r);
}

/* FNV-1a over n world ranks. */
static uint64_t rt_ranks_hash(const uint32_t *w, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < n; i++) {
        h ^= w[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Id of a communicator from its membership alone: both groups of an
 * intercommunicator see the same pair of groups (local and remote swapped),
 * so the two group hashes are combined in a fixed order.  Bit 63 set. */
static uint64_t rt_comm_membership_id(const struct rt_comm_rec *r)
{
    uint64_t h;
    if (r->flags & PRF_COMM_INTER) {
        uint64_t a = rt_ranks_hash(r->world, r->size) ^ (uint64_t)r->size << 40;
        uint64_t b = rt_ranks_hash(r->world + r->size, r->remote_size) ^ (uint64_t)r->remote_size << 40;
        uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
        h = (lo * 0x9e3779b97f4a7c15ull) ^ hi ^ PRF_COMM_INTER;
    } else {
        h = rt_ranks_hash(r->world, r->size) ^ (uint64_t)r->size << 40;
    }
    return (1ull << 63) | (h >> 1);
}

/* All members (both groups) are processes of this job: their world ranks
 * are known.  Both sides of an intercommunicator decide alike: they see the
 * same union of members. */
static int rt_comm_within_job(const struct rt_comm_rec *r)
{
    if (!r->world)
        return 0;
    for (uint32_t i = 0; i < r->size + r->remote_size; i++)
        if (r->world[i] == UINT32_MAX)
            return 0;
    return 1;
}

struct rt_comm_rec *rt_comm_lookup(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD && rt_world_rec)
        return rt_world_rec;
    if (comm == MPI_COMM_NULL)
        return NULL;
    rt_comm_lock();
    struct rt_comm_rec *rec = rt_map_get(&rt_comms_map, RT_KEY(comm));
    rt_comm_unlock();
    if (rec)
        return rec;
    /* First seen here (created by a path we do not wrap, e.g.
     * MPI_Comm_get_parent, or an idup completed out of our sight): id from
     * membership, bit 63 set. */
    struct rt_comm_rec r;
    if (rt_comm_describe(comm, &r) != 0)
        return NULL;
    r.comm_id = rt_comm_membership_id(&r);
    return rt_comm_add(comm, &r);
}

void rt_comm_created(MPI_Comm comm)
{
    struct rt_comm_rec r;
    if (rt_comm_describe(comm, &r) != 0)
        return;
    uint64_t mine = ((uint64_t)(rt_g.world_rank + 1) << 32) | ++rt_comm_counter;
    uint64_t id = mine;
    if (!rt_comm_within_job(&r)) {
        /* Reaches another job: no collective (the other side may not run the
         * runtime).  Bit 62 marks a local id. */
        id = (1ull << 62) | mine;
    } else if (!(r.flags & PRF_COMM_INTER)) {
        PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, comm);
    } else {
        /* Both groups must agree: each learns the other leader's proposal,
         * then its own back; the smaller one is the id. */
        uint64_t prop = r.local_rank == 0 ? mine : 0, remote = 0, local = 0;
        PMPI_Allreduce(&prop, &remote, 1, MPI_UINT64_T, MPI_MAX, comm);
        PMPI_Allreduce(&remote, &local, 1, MPI_UINT64_T, MPI_MAX, comm);
        id = local < remote ? local : remote;
    }
    r.comm_id = id;
    rt_comm_add(comm, &r);
}

void rt_comm_freed(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
        return;
    rt_comm_lock();
    rt_map_del(&rt_comms_map, RT_KEY(comm));
    rt_comm_unlock();
}

void rt_win_created(MPI_Win win, MPI_Comm comm)
{
    struct rt_comm_rec *rec = rt_comm_lookup(comm);
    if (!rec)
        return;
    rt_comm_lock();
    rt_map_put(&rt_wins_map, RT_KEY(win), rec);
    rt_comm_unlock();
}

void rt_win_freed(MPI_Win win)
{
    rt_comm_lock();
    rt_map_del(&rt_wins_map, RT_KEY(win));
    rt_comm_unlock();
}

struct rt_comm_rec *rt_win_comm(MPI_Win win)
{
    rt_comm_lock();
    struct rt_comm_rec *rec = rt_map_get(&rt_wins_map, RT_KEY(win));
    rt_comm_unlock();
    return rec;
}

/* ---- MPI_Comm_idup ------------------------------------------------------------------ */
struct rt_idup { MPI_Request req; MPI_Comm *newcomm; MPI_Fint *fnewcomm; uint64_t id; struct rt_idup *next; };
struct rt_idup_count { uint64_t parent; uint64_t n; };
static struct rt_idup *rt_idups;
static volatile int rt_idups_pending;
static struct rt_idup_count *rt_idup_counts;
static uint32_t rt_nidup_counts, rt_idup_counts_cap;

void rt_comm_idup_started(const struct rt_comm_rec *parent, MPI_Comm *newcomm, MPI_Fint *fnewcomm,
                          MPI_Request req)
{
    if (!parent || req == MPI_REQUEST_NULL || (!newcomm && !fnewcomm))
        return;
    rt_comm_lock();
    uint32_t i = 0;
    while (i < rt_nidup_counts && rt_idup_counts[i].parent != parent->comm_id)
        i++;
    if (i == rt_nidup_counts) {
        if (rt_nidup_counts == rt_idup_counts_cap) {
            uint32_t cap = rt_idup_counts_cap ? rt_idup_counts_cap * 2 : 16;
            struct rt_idup_count *p = realloc(rt_idup_counts, cap * sizeof *p);
            if (!p) {
                rt_comm_unlock();
                return;
            }
            rt_idup_counts = p;
            rt_idup_counts_cap = cap;
        }
        rt_idup_counts[i].parent = parent->comm_id;
        rt_idup_counts[i].n = 0;
        rt_nidup_counts++;
    }
    uint64_t seq = ++rt_idup_counts[i].n;
    struct rt_idup *d = malloc(sizeof *d);
    if (d) {
        /* Bits 63..61 = 011: neither an agreed, a local, a membership nor the
         * MPI_COMM_SELF id (docs/runtime.md). */
        uint64_t h = (parent->comm_id ^ 0x1d09000000000000ull) * 0x9e3779b97f4a7c15ull;
        h ^= seq * 0xc2b2ae3d27d4eb4full;
        h ^= h >> 31;
        d->id = (1ull << 62) | (h & 0x1fffffffffffffffull) | (1ull << 61);
        d->req = req;
        d->newcomm = newcomm;
        d->fnewcomm = fnewcomm;
        d->next = rt_idups;
        rt_idups = d;
        rt_idups_pending++;
    }
    rt_comm_unlock();
}

void rt_comm_request_done(MPI_Request req)
{
    if (RT_LIKELY(!rt_idups_pending) || req == MPI_REQUEST_NULL)
        return;
    rt_comm_lock();
    struct rt_idup **pp = &rt_idups, *d = NULL;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->req == req) {
            d = *pp;
            *pp = d->next;
            rt_idups_pending--;
            break;
        }
    rt_comm_unlock();
    if (!d)
        return;
    MPI_Comm comm = d->fnewcomm ? PMPI_Comm_f2c(*d->fnewcomm) : *d->newcomm;
    struct rt_comm_rec r;
    if (comm != MPI_COMM_NULL && rt_comm_describe(comm, &r) == 0) {
        r.comm_id = d->id;
        rt_comm_add(comm, &r);
    }
    free(d);
}
