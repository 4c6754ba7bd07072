/* rt_profile.c — assembles this rank's profile (struct prf_rank_data) from
 * the runtime's state and encodes it with prf_encode_rank: per-thread trees
 * concatenated, addresses made module-relative, contexts and peers renumbered. */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "threads/rt_threads.h"
#include "sampling/rt_rate.h"
#include "sampling/rt_sampling.h"
#include "tables/rt_tables.h"
#include "rt_write.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct rt_strtab { char *buf; size_t n, cap; };

static uint32_t rt_str(struct rt_strtab *s, const char *str)
{
    size_t len = strlen(str) + 1;
    if (len == 1)
        return 0;
    if (s->n + len > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        while (cap < s->n + len)
            cap *= 2;
        char *b = realloc(s->buf, cap);
        if (!b)
            return 0;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->n, str, len);
    uint32_t off = (uint32_t)s->n;
    s->n += len;
    return off;
}

static uint64_t rt_tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* The encoder's state: the profile being filled in, its string table, and
 * what several sections share (threads by index, each thread's first node
 * in the concatenated tree, ns per tick). */
struct rt_enc {
    struct prf_rank_data d;
    struct rt_strtab st;
    uint32_t nthreads, total;  /* threads; tree nodes of all of them */
    struct rt_thread **byidx;  /* nthreads, NULL for an index without state */
    uint32_t *base;            /* first node of each thread in d.cct */
    struct rt_module *mods;
    uint32_t nmods, nsamples, nctx;
    double f;                  /* ns per tick */
    struct prf_interval *ivs;
    uint64_t taken, weight, dropped, overrun, overflow; /* summed over threads */
};

/* Threads by index, and where each one's tree starts in the concatenation. */
static int rt_enc_threads(struct rt_enc *e)
{
    e->nthreads = rt_thread_count();
    e->byidx = calloc(e->nthreads ? e->nthreads : 1, sizeof *e->byidx);
    e->base = calloc(e->nthreads ? e->nthreads : 1, sizeof *e->base);
    if (!e->byidx || !e->base)
        return -1;
    for (struct rt_thread *t = rt_thread_list(); t; t = t->next)
        if (t->index < e->nthreads)
            e->byidx[t->index] = t;
    for (uint32_t i = 0; i < e->nthreads; i++) {
        e->base[i] = e->total;
        e->total += e->byidx[i] ? e->byidx[i]->cct.count : 0;
    }
    return 0;
}

/* Modules and tree: addresses made relative to the module they fall in
 * (a call site's return address looked up one byte before it). */
static int rt_enc_tree(struct rt_enc *e)
{
    rt_modules_load(&e->mods, &e->nmods);
    e->d.cct = calloc(e->total ? e->total : 1, sizeof *e->d.cct);
    e->d.modules = calloc(e->nmods ? e->nmods : 1, sizeof *e->d.modules);
    if (!e->d.cct || !e->d.modules)
        return -1;
    for (uint32_t i = 0; i < e->nthreads; i++) {
        struct rt_thread *t = e->byidx[i];
        if (!t)
            continue;
        for (uint32_t k = 0; k < t->cct.count; k++) {
            const struct rt_cct_node *n = &t->cct.nodes[k];
            struct prf_cct_node *o = &e->d.cct[e->base[i] + k];
            o->parent = n->parent == PRF_NONE ? PRF_NONE : e->base[i] + n->parent;
            o->kind = n->kind;
            o->module = PRF_NONE;
            o->address = n->address;
            if (n->kind == PRF_CCT_CALLSITE || n->kind == PRF_CCT_PC) {
                uintptr_t a = (uintptr_t)n->address;
                struct rt_module *m = (struct rt_module *)rt_module_find(
                    e->mods, e->nmods, n->kind == PRF_CCT_CALLSITE && a ? a - 1 : a);
                if (m) {
                    if (m->index == PRF_NONE) {
                        m->index = e->d.module_count++;
                        struct prf_module *pm = &e->d.modules[m->index];
                        pm->path = rt_str(&e->st, m->path);
                        pm->build_id = rt_str(&e->st, m->build_id);
                        pm->load_base = m->base;
                    }
                    o->module = m->index;
                    o->address = a - m->base;
                }
            }
            e->nsamples += (n->samples != 0) + (n->mpi_samples != 0);
        }
    }
    e->d.cct_count = e->total;
    return 0;
}

/* Samples: one record per node for samples outside MPI, one for inside. */
static int rt_enc_samples(struct rt_enc *e)
{
    e->d.samples = calloc(e->nsamples ? e->nsamples : 1, sizeof *e->d.samples);
    if (!e->d.samples)
        return -1;
    for (uint32_t i = 0; i < e->nthreads; i++) {
        struct rt_thread *t = e->byidx[i];
        if (!t)
            continue;
        for (uint32_t k = 0; k < t->cct.count; k++) {
            const struct rt_cct_node *n = &t->cct.nodes[k];
            if (n->samples) {
                struct prf_sample *s = &e->d.samples[e->d.sample_count++];
                s->node = e->base[i] + k;
                s->thread = i;
                s->count = n->samples;
                s->weight = n->weight;
            }
            if (n->mpi_samples) {
                struct prf_sample *s = &e->d.samples[e->d.sample_count++];
                s->node = e->base[i] + k;
                s->thread = i;
                s->flags = PRF_SAMPLE_IN_MPI;
                s->count = n->mpi_samples;
                s->weight = n->mpi_weight;
            }
        }
    }
    return 0;
}

/* MPI contexts and peers, times converted from ticks. */
static int rt_enc_mpi(struct rt_enc *e)
{
    uint32_t npeer = 0;
    struct rt_ctx *ctx = rt_ctx_array(&e->nctx);
    struct rt_peer *peers = rt_peer_array(&npeer);
    e->d.mpi = calloc(e->nctx ? e->nctx : 1, sizeof *e->d.mpi);
    e->d.peers = calloc(npeer ? npeer : 1, sizeof *e->d.peers);
    if (!e->d.mpi || !e->d.peers)
        return -1;
    for (uint32_t i = 0; i < e->nctx; i++) {
        const struct rt_ctx *c = &ctx[i];
        struct prf_mpi_context *o = &e->d.mpi[e->d.mpi_count++];
        o->id = i;
        o->node = c->thread < e->nthreads ? e->base[c->thread] + c->node : PRF_NONE;
        o->op = c->op;
        o->flags = c->flags;
        o->comm_id = c->comm_id;
        o->calls = c->calls;
        o->bytes_sent = c->bytes_sent;
        o->bytes_received = c->bytes_received;
        o->time_ns = rt_ticks_to_ns(c->time_ns, e->f);
        o->max_time_ns = rt_ticks_to_ns(c->max_time_ns, e->f);
        o->min_time_ns = c->calls ? rt_ticks_to_ns(c->min_time_ns, e->f) : 0;
    }
    for (uint32_t i = 0; i < npeer; i++) {
        const struct rt_peer *p = &peers[i];
        struct prf_peer *o = &e->d.peers[e->d.peer_count++];
        o->context = p->ctx;
        o->peer = p->peer;
        o->tag = p->tag;
        o->flags = p->flags;
        o->comm_id = p->comm_id;
        o->count = p->count;
        o->bytes = p->bytes;
        o->time_ns = rt_ticks_to_ns(p->time_ns, e->f);
        o->last_count = p->last_count;
        o->last_wait_ns = rt_ticks_to_ns(p->last_wait_ns, e->f);
    }
    return 0;
}

/* Computation intervals: the writing thread's open one ends here (at exit
 * without MPI_Finalize; after MPI_Finalize's entry none is open).  Other
 * threads' open intervals are not closed (they may still run). */
static int rt_enc_intervals(struct rt_enc *e)
{
    if (!rt_iv_enabled)
        return 0;
    if (rt_self)
        rt_iv_thread_end(rt_self);
    uint32_t npairs = 0;
    for (uint32_t i = 0; i < e->nthreads; i++)
        if (e->byidx[i])
            npairs += e->byidx[i]->iv.n;
    e->ivs = calloc(npairs ? npairs : 1, sizeof *e->ivs);
    if (!e->ivs)
        return -1;
    e->d.has_intervals = 1;
    e->d.interval_info.cpu_mode = rt_iv_cpu_mode;
    e->d.interval_info.long_ns = rt_iv_cpu_mode == PRF_IV_CPU_AUTO ? rt_iv_long_ns : 0;
    double f = e->f, f2 = f * f;
    for (uint32_t i = 0; i < e->nthreads; i++) {
        struct rt_thread *t = e->byidx[i];
        if (!t)
            continue;
        e->d.interval_info.overflow += t->iv.overflow;
        e->d.interval_info.dropped += t->iv.dropped;
        const struct rt_iv_pair *pairs = __atomic_load_n(&t->iv.pairs, __ATOMIC_ACQUIRE);
        for (uint32_t k = 0; pairs && k <= t->iv.mask && e->d.interval_count < npairs; k++) {
            const struct rt_iv_pair *pr = &pairs[k];
            if (!pr->count)
                continue;
            struct prf_interval *o = &e->ivs[e->d.interval_count++];
            o->prev_context = pr->prev < e->nctx ? pr->prev : PRF_NONE;
            o->next_context = pr->next < e->nctx ? pr->next : PRF_NONE;
            o->thread = i;
            o->count = pr->count;
            o->wall_ns = rt_ticks_to_ns(pr->ticks, f);
            o->wall_min_ns = rt_ticks_to_ns(pr->min_ticks, f);
            o->wall_max_ns = rt_ticks_to_ns(pr->max_ticks, f);
            if (o->wall_max_ns > o->wall_ns) /* rounding */
                o->wall_max_ns = o->wall_ns;
            if (o->wall_min_ns > o->wall_max_ns)
                o->wall_min_ns = o->wall_max_ns;
            o->wall_sq_ns2 = pr->sq_ticks * f2;
            o->cpu_ns = pr->cpu_ns;
            o->cpu_count = pr->cpu_count;
            o->cpu_wall_ns = rt_ticks_to_ns(pr->cpu_ticks, f);
            if (o->cpu_wall_ns > o->wall_ns)
                o->cpu_wall_ns = o->wall_ns;
            o->cpu_samples = pr->cpu_samples;
        }
    }
    e->d.intervals = e->ivs;
    return 0;
}

/* Communicators: members listed by the member with local rank 0 only. */
static int rt_enc_comms(struct rt_enc *e)
{
    uint32_t ncomm = 0, nmembers = 0;
    struct rt_comm_rec *comms = rt_comm_rec_array(&ncomm);
    for (uint32_t i = 0; i < ncomm; i++)
        if (comms[i].local_rank == 0 && comms[i].world)
            nmembers += comms[i].size + comms[i].remote_size;
    e->d.comms = calloc(ncomm ? ncomm : 1, sizeof *e->d.comms);
    e->d.comm_members = calloc(nmembers ? nmembers : 1, sizeof *e->d.comm_members);
    e->d.comm_member_first = calloc(ncomm ? ncomm : 1, sizeof *e->d.comm_member_first);
    if (!e->d.comms || !e->d.comm_members || !e->d.comm_member_first)
        return -1;
    uint32_t mk = 0;
    for (uint32_t i = 0; i < ncomm; i++) {
        const struct rt_comm_rec *c = &comms[i];
        struct prf_comm *o = &e->d.comms[e->d.comm_count];
        o->comm_id = c->comm_id;
        o->size = c->size;
        o->remote_size = c->remote_size;
        o->local_rank = c->local_rank;
        o->flags = c->flags;
        o->name = rt_str(&e->st, c->name);
        e->d.comm_member_first[e->d.comm_count] = mk;
        if (c->local_rank == 0 && c->world) {
            o->member_count = c->size + c->remote_size;
            memcpy(e->d.comm_members + mk, c->world, o->member_count * sizeof *c->world);
            mk += o->member_count;
        }
        e->d.comm_count++;
    }
    return 0;
}

/* GPU activity and phases. */
static int rt_enc_gpu_phases(struct rt_enc *e)
{
    uint32_t ngpu = 0, nphase = 0;
    struct rt_gpu_rec *gpu = rt_gpu_array(&ngpu);
    struct rt_phase_rec *ph = rt_phase_array(&nphase);
    e->d.gpu = calloc(ngpu ? ngpu : 1, sizeof *e->d.gpu);
    e->d.phases = calloc(nphase ? nphase : 1, sizeof *e->d.phases);
    if (!e->d.gpu || !e->d.phases)
        return -1;
    for (uint32_t i = 0; i < ngpu; i++) {
        struct prf_gpu_activity *o = &e->d.gpu[e->d.gpu_count++];
        o->node = gpu[i].node != PRF_NONE && gpu[i].thread < e->nthreads ? e->base[gpu[i].thread] + gpu[i].node : PRF_NONE;
        o->kind = gpu[i].kind;
        o->name = rt_str(&e->st, gpu[i].name);
        o->device = gpu[i].device;
        o->count = gpu[i].count;
        o->time_ns = gpu[i].time_ns;
        o->bytes = gpu[i].bytes;
        o->max_time_ns = gpu[i].max_time_ns;
    }
    for (uint32_t i = 0; i < nphase; i++) {
        struct prf_phase *o = &e->d.phases[e->d.phase_count++];
        o->name = rt_str(&e->st, ph[i].name);
        o->node = ph[i].node != PRF_NONE && ph[i].thread < e->nthreads ? e->base[ph[i].thread] + ph[i].node : PRF_NONE;
        o->count = ph[i].count;
        o->time_ns = ph[i].time_ns;
    }
    return 0;
}

/* Threads (their sample counts summed for the rank) and the runtime's errors. */
static int rt_enc_threads_errors(struct rt_enc *e)
{
    e->d.threads = calloc(e->nthreads ? e->nthreads : 1, sizeof *e->d.threads);
    e->d.errors = calloc(rt_error_count ? rt_error_count : 1, sizeof *e->d.errors);
    if (!e->d.threads || !e->d.errors)
        return -1;
    for (uint32_t i = 0; i < e->nthreads; i++) {
        struct rt_thread *t = e->byidx[i];
        if (!t)
            continue;
        struct prf_thread *o = &e->d.threads[e->d.thread_count++];
        o->index = i;
        o->kind = t->kind;
        o->creator = t->creator_node != PRF_NONE && t->creator_thread < e->nthreads
                         ? e->base[t->creator_thread] + t->creator_node : PRF_NONE;
        o->tid = (uint64_t)t->tid;
        o->samples = t->samples_taken;
        e->taken += t->samples_taken;
        e->weight += t->samples_weight;
        e->dropped += t->samples_dropped;
        e->overrun += t->samples_overrun;
        e->overflow += t->cct.overflow;
    }
    for (uint32_t i = 0; i < rt_error_count; i++) {
        e->d.errors[e->d.error_count].part = rt_str(&e->st, rt_errors[i].part);
        e->d.errors[e->d.error_count].message = rt_str(&e->st, rt_errors[i].message);
        e->d.error_count++;
    }
    return 0;
}

/* Rank information: identity, host, sampler, times, sample totals. */
static void rt_enc_rank_info(struct rt_enc *e, uint32_t flags)
{
    struct prf_rank_info *ri = &e->d.info;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_SELF, &ru);
    ri->world_rank = rt_g.world_rank;
    ri->world_size = rt_g.world_size;
    ri->pid = (uint32_t)getpid();
    ri->flags = flags | rt_g.flags;
    ri->hostname = rt_str(&e->st, rt_g.hostname);
    ri->usable_cores = rt_g.usable_cores;
    ri->ranks_on_host = rt_g.ranks_on_host;
    ri->sampler = (uint32_t)rt_sampler_kind_now();
    ri->sample_period_ns = ri->sampler == PRF_SAMPLER_NONE ? 0 : rt_g.period_ns;
    ri->start_realtime_ns = rt_g.start_realtime_ns;
    ri->wall_ns = rt_now_ns() - rt_g.start_ns;
    ri->cpu_user_ns = rt_tv_ns(ru.ru_utime);
    ri->cpu_system_ns = rt_tv_ns(ru.ru_stime);
    ri->voluntary_switches = (uint64_t)ru.ru_nvcsw;
    ri->involuntary_switches = (uint64_t)ru.ru_nivcsw;
    ri->samples_taken = e->taken;
    ri->samples_weight = e->weight;
    ri->samples_dropped = e->dropped;
    ri->samples_overrun = e->overrun;
    ri->mpi_time_ns = rt_ticks_to_ns(rt_g.mpi_time_ticks, e->f);
    ri->cct_overflow = e->overflow;
    ri->thread_count = e->d.thread_count;
    ri->mpi_thread_level = (uint32_t)rt_g.thread_level;
    uint64_t delay;
    if (rt_g.run_delay_ok && rt_run_delay_ns(rt_g.init_tid, &delay) == 0 && delay >= rt_g.start_run_delay_ns) {
        ri->run_delay_ns = delay - rt_g.start_run_delay_ns;
        ri->flags |= PRF_RANK_RUN_DELAY;
    }
}

static void rt_enc_free(struct rt_enc *e)
{
    struct prf_rank_data *d = &e->d;
    free(e->byidx); free(e->base); free(e->mods);
    free(d->cct); free(d->modules); free(d->samples); free(d->mpi); free(d->peers);
    free(d->comms); free(d->comm_members); free(d->comm_member_first);
    free(d->gpu); free(d->phases); free(d->threads); free(d->errors); free(e->st.buf); free(e->ivs);
    free(d->work); free(d->omp);
}

int rt_profile_encode(uint32_t flags, unsigned char **out, size_t *bytes)
{
    struct rt_enc e;
    memset(&e, 0, sizeof e);
    rt_str(&e.st, "x"); /* reserve offset 0 for "" */
    if (!e.st.buf)
        return -1;
    e.st.buf[0] = '\0';
    e.st.n = 1;
    e.f = rt_ns_per_tick();
    /* The order of the sections is the order of their strings in the table. */
    int rc = -1;
    if (rt_enc_threads(&e) == 0 && rt_enc_tree(&e) == 0 && rt_enc_samples(&e) == 0 && rt_enc_mpi(&e) == 0 &&
        rt_enc_intervals(&e) == 0 && rt_enc_comms(&e) == 0 && rt_enc_gpu_phases(&e) == 0 &&
        rt_enc_threads_errors(&e) == 0 && rt_work_encode(&e.d, e.byidx, e.nthreads) == 0 &&
        rt_omp_encode(&e.d, e.base, e.nthreads) == 0) {
        rt_enc_rank_info(&e, flags);
        rt_rate_record(&e.d);
        e.d.strings = e.st.buf;
        e.d.strings_bytes = e.st.n;
        rc = prf_encode_rank(&e.d, out, bytes);
    }
    rt_enc_free(&e);
    return rc;
}
