/* rt_profile.c — assembles this rank's profile (struct prf_rank_data) from
 * the runtime's state and encodes it with prf_encode_rank: per-thread trees
 * concatenated, addresses made module-relative, contexts and peers renumbered. */
#include "rt_core.h"
#include "rt_rate.h"

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

int rt_profile_encode(uint32_t flags, unsigned char **out, size_t *bytes)
{
    struct prf_rank_data d;
    memset(&d, 0, sizeof d);
    struct prf_interval *ivs = NULL;
    struct rt_strtab st = {0};
    rt_str(&st, "x"); /* reserve offset 0 for "" */
    st.buf[0] = '\0';
    st.n = 1;

    /* Threads by index. */
    uint32_t nthreads = rt_thread_count();
    struct rt_thread **byidx = calloc(nthreads ? nthreads : 1, sizeof *byidx);
    uint32_t *base = calloc(nthreads ? nthreads : 1, sizeof *base);
    if (!byidx || !base)
        goto fail;
    for (struct rt_thread *t = rt_thread_list(); t; t = t->next)
        if (t->index < nthreads)
            byidx[t->index] = t;
    uint32_t total = 0;
    for (uint32_t i = 0; i < nthreads; i++) {
        base[i] = total;
        total += byidx[i] ? byidx[i]->cct.count : 0;
    }

    /* Modules and tree. */
    struct rt_module *mods = NULL;
    uint32_t nmods = 0;
    rt_modules_load(&mods, &nmods);
    d.cct = calloc(total ? total : 1, sizeof *d.cct);
    d.modules = calloc(nmods ? nmods : 1, sizeof *d.modules);
    if (!d.cct || !d.modules)
        goto fail;
    uint32_t nsamples = 0;
    for (uint32_t i = 0; i < nthreads; i++) {
        struct rt_thread *t = byidx[i];
        if (!t)
            continue;
        for (uint32_t k = 0; k < t->cct.count; k++) {
            const struct rt_cct_node *n = &t->cct.nodes[k];
            struct prf_cct_node *o = &d.cct[base[i] + k];
            o->parent = n->parent == PRF_NONE ? PRF_NONE : base[i] + n->parent;
            o->kind = n->kind;
            o->module = PRF_NONE;
            o->address = n->address;
            if (n->kind == PRF_CCT_CALLSITE || n->kind == PRF_CCT_PC) {
                uintptr_t a = (uintptr_t)n->address;
                struct rt_module *m = (struct rt_module *)rt_module_find(
                    mods, nmods, n->kind == PRF_CCT_CALLSITE && a ? a - 1 : a);
                if (m) {
                    if (m->index == PRF_NONE) {
                        m->index = d.module_count++;
                        struct prf_module *pm = &d.modules[m->index];
                        pm->path = rt_str(&st, m->path);
                        pm->build_id = rt_str(&st, m->build_id);
                        pm->load_base = m->base;
                    }
                    o->module = m->index;
                    o->address = a - m->base;
                }
            }
            nsamples += (n->samples != 0) + (n->mpi_samples != 0);
        }
    }
    d.cct_count = total;

    /* Samples. */
    d.samples = calloc(nsamples ? nsamples : 1, sizeof *d.samples);
    if (!d.samples)
        goto fail;
    for (uint32_t i = 0; i < nthreads; i++) {
        struct rt_thread *t = byidx[i];
        if (!t)
            continue;
        for (uint32_t k = 0; k < t->cct.count; k++) {
            const struct rt_cct_node *n = &t->cct.nodes[k];
            if (n->samples) {
                struct prf_sample *s = &d.samples[d.sample_count++];
                s->node = base[i] + k;
                s->thread = i;
                s->count = n->samples;
                s->weight = n->weight;
            }
            if (n->mpi_samples) {
                struct prf_sample *s = &d.samples[d.sample_count++];
                s->node = base[i] + k;
                s->thread = i;
                s->flags = PRF_SAMPLE_IN_MPI;
                s->count = n->mpi_samples;
                s->weight = n->mpi_weight;
            }
        }
    }

    /* MPI contexts and peers. */
    uint32_t nctx = 0, npeer = 0;
    struct rt_ctx *ctx = rt_ctx_array(&nctx);
    struct rt_peer *peers = rt_peer_array(&npeer);
    d.mpi = calloc(nctx ? nctx : 1, sizeof *d.mpi);
    d.peers = calloc(npeer ? npeer : 1, sizeof *d.peers);
    if (!d.mpi || !d.peers)
        goto fail;
    double f = rt_ns_per_tick();
    for (uint32_t i = 0; i < nctx; i++) {
        const struct rt_ctx *c = &ctx[i];
        struct prf_mpi_context *o = &d.mpi[d.mpi_count++];
        o->id = i;
        o->node = c->thread < nthreads ? base[c->thread] + c->node : PRF_NONE;
        o->op = c->op;
        o->flags = c->flags;
        o->comm_id = c->comm_id;
        o->calls = c->calls;
        o->bytes_sent = c->bytes_sent;
        o->bytes_received = c->bytes_received;
        o->time_ns = rt_ticks_to_ns(c->time_ns, f);
        o->max_time_ns = rt_ticks_to_ns(c->max_time_ns, f);
        o->min_time_ns = c->calls ? rt_ticks_to_ns(c->min_time_ns, f) : 0;
    }
    for (uint32_t i = 0; i < npeer; i++) {
        const struct rt_peer *p = &peers[i];
        struct prf_peer *o = &d.peers[d.peer_count++];
        o->context = p->ctx;
        o->peer = p->peer;
        o->tag = p->tag;
        o->flags = p->flags;
        o->comm_id = p->comm_id;
        o->count = p->count;
        o->bytes = p->bytes;
        o->time_ns = rt_ticks_to_ns(p->time_ns, f);
        o->last_count = p->last_count;
        o->last_wait_ns = rt_ticks_to_ns(p->last_wait_ns, f);
    }

    /* Computation intervals: the writing thread's open one ends here (at exit
     * without MPI_Finalize; after MPI_Finalize's entry none is open).  Other
     * threads' open intervals are not closed (they may still run). */
    if (rt_iv_enabled) {
        if (rt_self)
            rt_iv_thread_end(rt_self);
        uint32_t npairs = 0;
        for (uint32_t i = 0; i < nthreads; i++)
            if (byidx[i])
                npairs += byidx[i]->iv.n;
        ivs = calloc(npairs ? npairs : 1, sizeof *ivs);
        if (!ivs)
            goto fail;
        d.has_intervals = 1;
        d.interval_info.cpu_mode = rt_iv_cpu_mode;
        d.interval_info.long_ns = rt_iv_cpu_mode == PRF_IV_CPU_AUTO ? rt_iv_long_ns : 0;
        double f2 = f * f;
        for (uint32_t i = 0; i < nthreads; i++) {
            struct rt_thread *t = byidx[i];
            if (!t)
                continue;
            d.interval_info.overflow += t->iv.overflow;
            d.interval_info.dropped += t->iv.dropped;
            const struct rt_iv_pair *pairs = __atomic_load_n(&t->iv.pairs, __ATOMIC_ACQUIRE);
            for (uint32_t k = 0; pairs && k <= t->iv.mask && d.interval_count < npairs; k++) {
                const struct rt_iv_pair *e = &pairs[k];
                if (!e->count)
                    continue;
                struct prf_interval *o = &ivs[d.interval_count++];
                o->prev_context = e->prev < nctx ? e->prev : PRF_NONE;
                o->next_context = e->next < nctx ? e->next : PRF_NONE;
                o->thread = i;
                o->count = e->count;
                o->wall_ns = rt_ticks_to_ns(e->ticks, f);
                o->wall_min_ns = rt_ticks_to_ns(e->min_ticks, f);
                o->wall_max_ns = rt_ticks_to_ns(e->max_ticks, f);
                if (o->wall_max_ns > o->wall_ns) /* rounding */
                    o->wall_max_ns = o->wall_ns;
                if (o->wall_min_ns > o->wall_max_ns)
                    o->wall_min_ns = o->wall_max_ns;
                o->wall_sq_ns2 = e->sq_ticks * f2;
                o->cpu_ns = e->cpu_ns;
                o->cpu_count = e->cpu_count;
                o->cpu_wall_ns = rt_ticks_to_ns(e->cpu_ticks, f);
                if (o->cpu_wall_ns > o->wall_ns)
                    o->cpu_wall_ns = o->wall_ns;
                o->cpu_samples = e->cpu_samples;
            }
        }
        d.intervals = ivs;
    }

    /* Communicators: members listed by the member with local rank 0 only. */
    uint32_t ncomm = 0, nmembers = 0;
    struct rt_comm_rec *comms = rt_comm_rec_array(&ncomm);
    for (uint32_t i = 0; i < ncomm; i++)
        if (comms[i].local_rank == 0 && comms[i].world)
            nmembers += comms[i].size + comms[i].remote_size;
    d.comms = calloc(ncomm ? ncomm : 1, sizeof *d.comms);
    d.comm_members = calloc(nmembers ? nmembers : 1, sizeof *d.comm_members);
    d.comm_member_first = calloc(ncomm ? ncomm : 1, sizeof *d.comm_member_first);
    if (!d.comms || !d.comm_members || !d.comm_member_first)
        goto fail;
    uint32_t mk = 0;
    for (uint32_t i = 0; i < ncomm; i++) {
        const struct rt_comm_rec *c = &comms[i];
        struct prf_comm *o = &d.comms[d.comm_count];
        o->comm_id = c->comm_id;
        o->size = c->size;
        o->remote_size = c->remote_size;
        o->local_rank = c->local_rank;
        o->flags = c->flags;
        o->name = rt_str(&st, c->name);
        d.comm_member_first[d.comm_count] = mk;
        if (c->local_rank == 0 && c->world) {
            o->member_count = c->size + c->remote_size;
            memcpy(d.comm_members + mk, c->world, o->member_count * sizeof *c->world);
            mk += o->member_count;
        }
        d.comm_count++;
    }

    /* GPU activity, phases, threads, errors. */
    uint32_t ngpu = 0, nphase = 0;
    struct rt_gpu_rec *gpu = rt_gpu_array(&ngpu);
    struct rt_phase_rec *ph = rt_phase_array(&nphase);
    d.gpu = calloc(ngpu ? ngpu : 1, sizeof *d.gpu);
    d.phases = calloc(nphase ? nphase : 1, sizeof *d.phases);
    d.threads = calloc(nthreads ? nthreads : 1, sizeof *d.threads);
    d.errors = calloc(rt_error_count ? rt_error_count : 1, sizeof *d.errors);
    if (!d.gpu || !d.phases || !d.threads || !d.errors)
        goto fail;
    for (uint32_t i = 0; i < ngpu; i++) {
        struct prf_gpu_activity *o = &d.gpu[d.gpu_count++];
        o->node = gpu[i].node != PRF_NONE && gpu[i].thread < nthreads ? base[gpu[i].thread] + gpu[i].node : PRF_NONE;
        o->kind = gpu[i].kind;
        o->name = rt_str(&st, gpu[i].name);
        o->device = gpu[i].device;
        o->count = gpu[i].count;
        o->time_ns = gpu[i].time_ns;
        o->bytes = gpu[i].bytes;
        o->max_time_ns = gpu[i].max_time_ns;
    }
    for (uint32_t i = 0; i < nphase; i++) {
        struct prf_phase *o = &d.phases[d.phase_count++];
        o->name = rt_str(&st, ph[i].name);
        o->node = ph[i].node != PRF_NONE && ph[i].thread < nthreads ? base[ph[i].thread] + ph[i].node : PRF_NONE;
        o->count = ph[i].count;
        o->time_ns = ph[i].time_ns;
    }
    uint64_t taken = 0, weight = 0, dropped = 0, overrun = 0, overflow = 0;
    for (uint32_t i = 0; i < nthreads; i++) {
        struct rt_thread *t = byidx[i];
        if (!t)
            continue;
        struct prf_thread *o = &d.threads[d.thread_count++];
        o->index = i;
        o->kind = t->kind;
        o->creator = t->creator_node != PRF_NONE && t->creator_thread < nthreads
                         ? base[t->creator_thread] + t->creator_node : PRF_NONE;
        o->tid = (uint64_t)t->tid;
        o->samples = t->samples_taken;
        taken += t->samples_taken;
        weight += t->samples_weight;
        dropped += t->samples_dropped;
        overrun += t->samples_overrun;
        overflow += t->cct.overflow;
    }
    for (uint32_t i = 0; i < rt_error_count; i++) {
        d.errors[d.error_count].part = rt_str(&st, rt_errors[i].part);
        d.errors[d.error_count].message = rt_str(&st, rt_errors[i].message);
        d.error_count++;
    }

    /* Rank information. */
    struct prf_rank_info *ri = &d.info;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_SELF, &ru);
    ri->world_rank = rt_g.world_rank;
    ri->world_size = rt_g.world_size;
    ri->pid = (uint32_t)getpid();
    ri->flags = flags | rt_g.flags;
    ri->hostname = rt_str(&st, rt_g.hostname);
    ri->usable_cores = rt_g.usable_cores;
    ri->ranks_on_host = rt_g.ranks_on_host;
    ri->sampler = (uint32_t)rt_opt.sampler;
    const char *sn = rt_sampler_name();
    ri->sampler = strcmp(sn, "cputime") == 0 ? PRF_SAMPLER_CPUTIME
                  : strcmp(sn, "realtime") == 0 ? PRF_SAMPLER_REALTIME
                  : strcmp(sn, "taskclock") == 0 ? PRF_SAMPLER_TASKCLOCK
                  : strncmp(sn, "papi:", 5) == 0 ? PRF_SAMPLER_PAPI : PRF_SAMPLER_NONE;
    ri->sample_period_ns = ri->sampler == PRF_SAMPLER_NONE ? 0 : rt_g.period_ns;
    ri->start_realtime_ns = rt_g.start_realtime_ns;
    ri->wall_ns = rt_now_ns() - rt_g.start_ns;
    ri->cpu_user_ns = rt_tv_ns(ru.ru_utime);
    ri->cpu_system_ns = rt_tv_ns(ru.ru_stime);
    ri->voluntary_switches = (uint64_t)ru.ru_nvcsw;
    ri->involuntary_switches = (uint64_t)ru.ru_nivcsw;
    ri->samples_taken = taken;
    ri->samples_weight = weight;
    ri->samples_dropped = dropped;
    ri->samples_overrun = overrun;
    ri->mpi_time_ns = rt_ticks_to_ns(rt_g.mpi_time_ticks, f);
    ri->cct_overflow = overflow;
    ri->thread_count = d.thread_count;
    ri->mpi_thread_level = (uint32_t)rt_g.thread_level;

    rt_rate_record(&d);

    d.strings = st.buf;
    d.strings_bytes = st.n;
    int rc = prf_encode_rank(&d, out, bytes);
    free(byidx); free(base); free(mods);
    free(d.cct); free(d.modules); free(d.samples); free(d.mpi); free(d.peers);
    free(d.comms); free(d.comm_members); free(d.comm_member_first);
    free(d.gpu); free(d.phases); free(d.threads); free(d.errors); free(st.buf); free(ivs);
    return rc;
fail:
    free(byidx); free(base);
    free(d.cct); free(d.modules); free(d.samples); free(d.mpi); free(d.peers);
    free(d.comms); free(d.comm_members); free(d.comm_member_first);
    free(d.gpu); free(d.phases); free(d.threads); free(d.errors); free(st.buf); free(ivs);
    return -1;
}
