/* scalana-dump — prints a run directory's profiles, or a binary's embedded PSG,
 * as text, JSON (--json) or, for a PSG, Graphviz DOT (--dot, through libcgraph).
 * A debugging and testing aid: every record the formats hold is shown. */
#include "scalana/mpi_ops.h"
#include "scalana/profile_format.h"
#include "scalana/run_files.h"
#include "scalana/psg_format.h"
#include "scalana/run_info.h"
#include "scalana/samplers.h"

#include <elf.h>
#include <graphviz/cgraph.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCALANA_VERSION_STRING
#define SCALANA_VERSION_STRING "0.1.0"
#endif

/* An index into a profile array as JSON: -1 for PRF_NONE (none). */
static json_int_t json_index(uint32_t x) { return x == PRF_NONE ? (json_int_t)-1 : (json_int_t)x; }

static const char usage[] =
    "usage: scalana-dump [--json] [--rank N] RUN_DIR | PROFILE.sclp\n"
    "       scalana-dump --psg [--json | --dot] BINARY...\n"
    "Prints the profiles of a ScalAna run directory (run.json and profile-*.sclp),\n"
    "or the Program Structure Graph embedded in binaries built with scalana-cc.\n"
    "  --json     machine-readable output\n"
    "  --dot      (with --psg) Graphviz DOT of the structure graph\n"
    "  --rank N   only world rank N\n"
    "  -h, --help     this text\n"
    "  -V, --version  ScalAna's version\n"
    "Exit status: 0 success, 1 a file was unreadable or corrupt (named on stderr), 2 usage\n"
    "(also a binary given without --psg: the line names the --psg command),\n"
    "3 nothing to show (--rank N names no rank of the run; a --psg binary has no PSG section).\n";

/* Exit status when the input is valid but holds nothing of what was asked:
 * --rank N with no such rank, --psg on a binary without the section. */
#define DUMP_NOTHING 3

static const char *cct_kind_name(uint32_t k)
{
    static const char *const n[] = {"root", "callsite", "pc", "overflow"};
    return k <= PRF_CCT_OVERFLOW ? n[k] : "?";
}

static const char *sampler_name(uint32_t s)
{
    const char *w = scalana_sampler_word(s);
    return w ? w : "?";
}

static const char *interval_cpu_name(uint32_t m)
{
    static const char *const n[] = {"off", "auto", "clock", "samples"};
    return m <= PRF_IV_CPU_SAMPLES ? n[m] : "?";
}

static const char *gpu_kind_name(uint32_t k)
{
    static const char *const n[] = {"?", "kernel", "memcpy", "memset", "sync"};
    return k <= PRF_GPU_SYNC ? n[k] : "?";
}

/* "module+0xoffset" for a CCT node. */
static void frame_name(const struct prf_rank_data *d, uint32_t node, char *buf, size_t n)
{
    const struct prf_cct_node *c = &d->cct[node];
    if (c->kind == PRF_CCT_ROOT) {
        snprintf(buf, n, "thread %" PRIu64, c->address);
        return;
    }
    if (c->kind == PRF_CCT_OVERFLOW) {
        snprintf(buf, n, "[overflow]");
        return;
    }
    const char *mod = c->module == PRF_NONE ? "?" : prf_string(d, d->modules[c->module].path);
    const char *base = strrchr(mod, '/');
    snprintf(buf, n, "%s+0x%" PRIx64, base ? base + 1 : mod, c->address);
}

/* Call path from the outermost frame to node, as a JSON array of strings. */
static json_t *path_json(const struct prf_rank_data *d, uint32_t node)
{
    json_t *a = json_array();
    uint32_t chain[512];
    size_t n = 0;
    for (uint32_t x = node; x != PRF_NONE && n < 512; x = d->cct[x].parent)
        chain[n++] = x;
    char buf[512];
    while (n--) {
        if (d->cct[chain[n]].kind == PRF_CCT_ROOT)
            continue;
        frame_name(d, chain[n], buf, sizeof buf);
        json_array_append_new(a, json_string(buf));
    }
    return a;
}

/* PRF_REC_OMP: OpenMP regions measured through OMPT, one entry per region
 * calling context and thread (its path as the MPI contexts' is given). */
static json_t *omp_json(const struct prf_rank_data *d)
{
    json_t *regions = json_array();
    for (uint32_t k = 0; k < d->omp_count; k++) {
        const struct prf_omp_region *x = &d->omp[k];
        json_t *o = json_pack("{sI sI sI sI sI sI sI sI sI sI sI sI sI}", "node", (json_int_t)x->node,
                              "thread", (json_int_t)x->thread, "team_min", (json_int_t)x->team_min,
                              "team_max", (json_int_t)x->team_max, "regions", (json_int_t)x->regions,
                              "forks", (json_int_t)x->forks, "time_ns", (json_int_t)x->time_ns,
                              "end_wait_ns", (json_int_t)x->end_wait_ns, "barrier_wait_ns",
                              (json_int_t)x->barrier_wait_ns, "barriers", (json_int_t)x->barriers,
                              "sync_wait_ns", (json_int_t)x->sync_wait_ns, "loops", (json_int_t)x->loops,
                              "loop_iterations", (json_int_t)x->loop_iterations);
        json_object_set_new(o, "path", path_json(d, x->node));
        json_array_append_new(regions, o);
    }
    return json_pack("{ss sI sI sI so}", "interface", "ompt", "threads", (json_int_t)d->omp_info.threads,
                     "dropped", (json_int_t)d->omp_info.dropped, "unmatched",
                     (json_int_t)d->omp_info.unmatched, "regions", regions);
}

static void omp_text(const struct prf_rank_data *d)
{
    printf("  openmp (ompt) %u entries, %u threads, %" PRIu64 " instances dropped, %" PRIu64
           " paths without the fork\n", d->omp_count, d->omp_info.threads, d->omp_info.dropped,
           d->omp_info.unmatched);
    for (uint32_t k = 0; k < d->omp_count; k++) {
        const struct prf_omp_region *x = &d->omp[k];
        char f[512] = "?";
        frame_name(d, x->node, f, sizeof f);
        printf("  omp region at %-32s thread %u team %u..%u regions %" PRIu64 " forks %" PRIu64
               " time %.6f s  end wait %.6f s  barriers %" PRIu64 " wait %.6f s  sync %.6f s  loops %" PRIu64
               " iterations %" PRIu64 "\n", f, x->thread, x->team_min, x->team_max, x->regions, x->forks,
               x->time_ns / 1e9, x->end_wait_ns / 1e9, x->barriers, x->barrier_wait_ns / 1e9,
               x->sync_wait_ns / 1e9, x->loops, x->loop_iterations);
    }
}

/* rank_json's "modules" array. */
static json_t *modules_json(const struct prf_rank_data *d)
{
    json_t *mods = json_array();
    for (uint32_t k = 0; k < d->module_count; k++)
        json_array_append_new(mods, json_pack("{ss ss sI}", "path",
                                              prf_string(d, d->modules[k].path), "build_id",
                                              prf_string(d, d->modules[k].build_id), "load_base",
                                              (json_int_t)d->modules[k].load_base));
    return mods;
}

/* rank_json's "cct" array. */
static json_t *cct_json(const struct prf_rank_data *d)
{
    json_t *cct = json_array();
    for (uint32_t k = 0; k < d->cct_count; k++) {
        const struct prf_cct_node *c = &d->cct[k];
        json_array_append_new(cct, json_pack("{sI ss sI sI}", "parent",
                                             json_index(c->parent),
                                             "kind", cct_kind_name(c->kind), "module",
                                             json_index(c->module),
                                             "address", (json_int_t)c->address));
    }
    return cct;
}

/* rank_json's "samples" array. */
static json_t *samples_json(const struct prf_rank_data *d)
{
    json_t *samples = json_array();
    for (uint32_t k = 0; k < d->sample_count; k++) {
        const struct prf_sample *s = &d->samples[k];
        json_array_append_new(samples, json_pack("{sI sI sb sI sI so}", "node", (json_int_t)s->node,
                                                 "thread", (json_int_t)s->thread, "in_mpi",
                                                 (s->flags & PRF_SAMPLE_IN_MPI) != 0, "count",
                                                 (json_int_t)s->count, "weight",
                                                 (json_int_t)s->weight, "path",
                                                 path_json(d, s->node)));
    }
    return samples;
}

/* rank_json's "mpi" array. */
static json_t *mpi_json(const struct prf_rank_data *d)
{
    json_t *mpi = json_array();
    for (uint32_t k = 0; k < d->mpi_count; k++) {
        const struct prf_mpi_context *m = &d->mpi[k];
        json_t *o = json_pack("{sI ss ss sI sI sb sI sI sI sI sI sI}", "id", (json_int_t)m->id,
                              "op", scalana_mpi_op_name(m->op), "class",
                              scalana_mpi_class_name(scalana_mpi_op_class(m->op)), "node",
                              json_index(m->node),
                              "comm_id", (json_int_t)m->comm_id, "fortran",
                              (m->flags & PRF_MPI_FORTRAN) != 0, "calls", (json_int_t)m->calls,
                              "bytes_sent", (json_int_t)m->bytes_sent, "bytes_received",
                              (json_int_t)m->bytes_received, "time_ns", (json_int_t)m->time_ns,
                              "max_time_ns", (json_int_t)m->max_time_ns, "min_time_ns",
                              (json_int_t)m->min_time_ns);
        json_object_set_new(o, "path", m->node == PRF_NONE ? json_array() : path_json(d, m->node));
        json_array_append_new(mpi, o);
    }
    return mpi;
}

/* rank_json's "peers" array. */
static json_t *peers_json(const struct prf_rank_data *d)
{
    json_t *peers = json_array();
    for (uint32_t k = 0; k < d->peer_count; k++) {
        const struct prf_peer *p = &d->peers[k];
        json_array_append_new(
            peers, json_pack("{sI ss sI sI ss sI sI sI sI sI sI}", "context",
                             (json_int_t)p->context, "op",
                             scalana_mpi_op_name(d->mpi[p->context].op), "peer",
                             (json_int_t)p->peer, "tag", (json_int_t)p->tag, "direction",
                             (p->flags & PRF_PEER_SEND) ? "send" : "recv", "comm_id",
                             (json_int_t)p->comm_id, "count", (json_int_t)p->count, "bytes",
                             (json_int_t)p->bytes, "time_ns", (json_int_t)p->time_ns,
                             "last_count", (json_int_t)p->last_count, "last_wait_ns",
                             (json_int_t)p->last_wait_ns));
    }
    return peers;
}

/* rank_json's "communicators" array. */
static json_t *communicators_json(const struct prf_rank_data *d)
{
    json_t *comms = json_array();
    for (uint32_t k = 0; k < d->comm_count; k++) {
        const struct prf_comm *c = &d->comms[k];
        json_t *mem = json_array();
        for (uint32_t m = 0; m < c->member_count; m++)
            json_array_append_new(mem, json_integer(d->comm_members[d->comm_member_first[k] + m]));
        json_array_append_new(comms, json_pack("{sI sI sI sI sI ss so}", "comm_id",
                                               (json_int_t)c->comm_id, "size", (json_int_t)c->size,
                                               "remote_size", (json_int_t)c->remote_size,
                                               "local_rank", (json_int_t)c->local_rank, "flags",
                                               (json_int_t)c->flags, "name",
                                               prf_string(d, c->name), "members", mem));
    }
    return comms;
}

/* rank_json's "gpu" array. */
static json_t *gpu_json(const struct prf_rank_data *d)
{
    json_t *gpu = json_array();
    for (uint32_t k = 0; k < d->gpu_count; k++) {
        const struct prf_gpu_activity *g = &d->gpu[k];
        json_array_append_new(gpu, json_pack("{sI ss ss sI sI sI sI sI}", "node",
                                             json_index(g->node),
                                             "kind", gpu_kind_name(g->kind), "name",
                                             prf_string(d, g->name), "device",
                                             (json_int_t)g->device, "count", (json_int_t)g->count,
                                             "time_ns", (json_int_t)g->time_ns, "bytes",
                                             (json_int_t)g->bytes, "max_time_ns",
                                             (json_int_t)g->max_time_ns));
    }
    return gpu;
}

/* rank_json's "phases" array. */
static json_t *phases_json(const struct prf_rank_data *d)
{
    json_t *phases = json_array();
    for (uint32_t k = 0; k < d->phase_count; k++)
        json_array_append_new(phases, json_pack("{ss sI sI}", "name",
                                                prf_string(d, d->phases[k].name), "count",
                                                (json_int_t)d->phases[k].count, "time_ns",
                                                (json_int_t)d->phases[k].time_ns));
    return phases;
}

/* rank_json's "threads" array. */
static json_t *threads_json(const struct prf_rank_data *d)
{
    json_t *threads = json_array();
    for (uint32_t k = 0; k < d->thread_count; k++)
        json_array_append_new(threads, json_pack("{sI sI sI sI sI}", "index",
                                                 (json_int_t)d->threads[k].index, "kind",
                                                 (json_int_t)d->threads[k].kind, "tid",
                                                 (json_int_t)d->threads[k].tid, "samples",
                                                 (json_int_t)d->threads[k].samples, "creator",
                                                 json_index(d->threads[k].creator)));
    return threads;
}

/* rank_json's "errors" array. */
static json_t *errors_json(const struct prf_rank_data *d)
{
    json_t *errors = json_array();
    for (uint32_t k = 0; k < d->error_count; k++)
        json_array_append_new(errors, json_pack("{ss ss}", "part",
                                                prf_string(d, d->errors[k].part), "message",
                                                prf_string(d, d->errors[k].message)));
    return errors;
}

static json_t *rank_json(const struct prf_rank_data *d)
{
    const struct prf_rank_info *i = &d->info;
    json_t *r = json_object();
    json_t *info = json_pack(
        "{sI sI sI sI ss sI sI ss sI sI sI sI sI sI sI sI sI sI sI sI sI sI sI}",
        "world_rank", (json_int_t)i->world_rank, "world_size", (json_int_t)i->world_size, "pid",
        (json_int_t)i->pid, "flags", (json_int_t)i->flags, "hostname", prf_string(d, i->hostname),
        "usable_cores", (json_int_t)i->usable_cores, "ranks_on_host",
        (json_int_t)i->ranks_on_host, "sampler", sampler_name(i->sampler), "sample_period_ns",
        (json_int_t)i->sample_period_ns, "start_realtime_ns", (json_int_t)i->start_realtime_ns,
        "wall_ns", (json_int_t)i->wall_ns, "cpu_user_ns", (json_int_t)i->cpu_user_ns,
        "cpu_system_ns", (json_int_t)i->cpu_system_ns, "voluntary_switches",
        (json_int_t)i->voluntary_switches, "involuntary_switches",
        (json_int_t)i->involuntary_switches, "samples_taken", (json_int_t)i->samples_taken,
        "samples_weight", (json_int_t)i->samples_weight, "samples_dropped",
        (json_int_t)i->samples_dropped, "samples_overrun", (json_int_t)i->samples_overrun,
        "mpi_time_ns", (json_int_t)i->mpi_time_ns, "cct_overflow", (json_int_t)i->cct_overflow,
        "thread_count", (json_int_t)i->thread_count, "mpi_thread_level",
        (json_int_t)i->mpi_thread_level);
    /* null where the runtime could not read it (older profiles, no schedstat) */
    json_object_set_new(info, "run_delay_ns",
                        i->flags & PRF_RANK_RUN_DELAY ? json_integer((json_int_t)i->run_delay_ns) : json_null());
    json_object_set_new(r, "info", info);
    json_object_set_new(r, "modules", modules_json(d));
    json_object_set_new(r, "cct", cct_json(d));
    json_object_set_new(r, "samples", samples_json(d));
    json_object_set_new(r, "mpi", mpi_json(d));
    json_object_set_new(r, "peers", peers_json(d));
    json_object_set_new(r, "communicators", communicators_json(d));
    json_object_set_new(r, "gpu", gpu_json(d));
    json_object_set_new(r, "phases", phases_json(d));
    json_object_set_new(r, "threads", threads_json(d));
    json_object_set_new(r, "errors", errors_json(d));
    if (d->has_sampling) {
        const struct prf_sampling *sp = &d->sampling;
        json_object_set_new(r, "sampling",
            json_pack("{ss sI sI sI sI sI sI sI sf}", "sampler", sampler_name(sp->sampler),
                      "asked_hz", (json_int_t)sp->asked_hz, "asked_period_ns",
                      (json_int_t)sp->asked_period_ns, "resolution_ns", (json_int_t)sp->resolution_ns,
                      "effective_period_ns", (json_int_t)sp->effective_period_ns, "signals",
                      (json_int_t)sp->signals, "weight", (json_int_t)sp->weight, "clock_ns",
                      (json_int_t)sp->clock_ns, "obtained_hz", sp->obtained_hz));
    }
    if (d->has_intervals) {
        json_t *iv = json_array();
        for (uint32_t k = 0; k < d->interval_count; k++) {
            const struct prf_interval *v = &d->intervals[k];
            json_array_append_new(
                iv, json_pack("{sI sI sI sI sI sI sI sf sI sI sI sI}", "prev_context",
                              json_index(v->prev_context),
                              "next_context",
                              json_index(v->next_context),
                              "thread", (json_int_t)v->thread, "count", (json_int_t)v->count,
                              "wall_ns", (json_int_t)v->wall_ns, "wall_min_ns",
                              (json_int_t)v->wall_min_ns, "wall_max_ns", (json_int_t)v->wall_max_ns,
                              "wall_sq_ns2", v->wall_sq_ns2, "cpu_ns", (json_int_t)v->cpu_ns,
                              "cpu_count", (json_int_t)v->cpu_count, "cpu_wall_ns",
                              (json_int_t)v->cpu_wall_ns, "cpu_samples", (json_int_t)v->cpu_samples));
        }
        json_object_set_new(r, "intervals",
                            json_pack("{ss sI sI sI so}", "cpu_mode",
                                      interval_cpu_name(d->interval_info.cpu_mode), "long_ns",
                                      (json_int_t)d->interval_info.long_ns, "overflow",
                                      (json_int_t)d->interval_info.overflow, "dropped",
                                      (json_int_t)d->interval_info.dropped, "pairs", iv));
    }
    if (d->has_work) {
        json_t *w = json_array();
        for (uint32_t k = 0; k < d->work_count; k++) {
            const struct prf_work *x = &d->work[k];
            char id[24];
            snprintf(id, sizeof id, "%016" PRIx64, x->stable_id);
            json_array_append_new(
                w, json_pack("{ss sI sI sI}", "stable_id", id, "thread",
                             json_index(x->thread), "tid",
                             (json_int_t)x->tid, "count", (json_int_t)x->count));
        }
        json_object_set_new(r, "work",
                            json_pack("{ss sI sI sI so}", "measure", "loop_iterations", "units",
                                      (json_int_t)d->work_info.units, "threads",
                                      (json_int_t)d->work_info.threads, "units_dropped",
                                      (json_int_t)d->work_info.units_dropped, "loops", w));
    }
    if (d->has_omp)
        json_object_set_new(r, "openmp", omp_json(d));
    return r;
}

/* "MPI_Barrier#3" for an interval's context, "start"/"end" for PRF_NONE. */
static void interval_side(const struct prf_rank_data *d, uint32_t ctx, const char *none, char *buf,
                          size_t n)
{
    if (ctx == PRF_NONE)
        snprintf(buf, n, "%s", none);
    else
        snprintf(buf, n, "%s#%u", scalana_mpi_op_name(d->mpi[ctx].op), ctx);
}

static void rank_text(const struct prf_rank_data *d)
{
    const struct prf_rank_info *i = &d->info;
    printf("rank %u/%u  pid %u  host %s  cores %u  ranks on host %u\n", i->world_rank,
           i->world_size, i->pid, prf_string(d, i->hostname), i->usable_cores, i->ranks_on_host);
    printf("  wall %.3f s  cpu %.3f s user + %.3f s sys  mpi %.3f s  switches %" PRIu64
           " vol / %" PRIu64 " invol\n",
           i->wall_ns / 1e9, i->cpu_user_ns / 1e9, i->cpu_system_ns / 1e9, i->mpi_time_ns / 1e9,
           i->voluntary_switches, i->involuntary_switches);
    if (i->flags & PRF_RANK_RUN_DELAY)
        printf("  run delay %.3f s (runnable, waiting for a core)\n", i->run_delay_ns / 1e9);
    printf("  sampler %s period %.3f ms  samples %" PRIu64 " (weight %" PRIu64 ", dropped %" PRIu64
           ", overrun %" PRIu64 ")  cct nodes %u\n",
           sampler_name(i->sampler), i->sample_period_ns / 1e6, i->samples_taken,
           i->samples_weight, i->samples_dropped, i->samples_overrun, d->cct_count);
    if (d->has_sampling && d->sampling.sampler != PRF_SAMPLER_NONE)
        printf("  sampling asked %u Hz, resolution %.3f ms, expected %.1f Hz, obtained %.1f Hz "
               "(%" PRIu64 " signals of weight %" PRIu64 " over %.3f s of the sampled clock)\n",
               d->sampling.asked_hz, d->sampling.resolution_ns / 1e6,
               d->sampling.effective_period_ns ? 1e9 / (double)d->sampling.effective_period_ns : 0.0,
               d->sampling.obtained_hz, d->sampling.signals, d->sampling.weight,
               d->sampling.clock_ns / 1e9);
    for (uint32_t k = 0; k < d->mpi_count; k++) {
        const struct prf_mpi_context *m = &d->mpi[k];
        char f[512] = "?";
        if (m->node != PRF_NONE)
            frame_name(d, m->node, f, sizeof f);
        printf("  mpi %-20s at %-32s calls %8" PRIu64 "  sent %10" PRIu64 " B  recv %10" PRIu64
               " B  time %.6f s  comm %" PRIx64 "\n",
               scalana_mpi_op_name(m->op), f, m->calls, m->bytes_sent, m->bytes_received,
               m->time_ns / 1e9, m->comm_id);
    }
    for (uint32_t k = 0; k < d->peer_count; k++) {
        const struct prf_peer *p = &d->peers[k];
        printf("  peer ctx %u %s rank %d tag %d count %" PRIu64 " bytes %" PRIu64
               " time %.6f s last %" PRIu64 "\n",
               p->context, (p->flags & PRF_PEER_SEND) ? "send to" : "recv from", p->peer, p->tag,
               p->count, p->bytes, p->time_ns / 1e9, p->last_count);
    }
    for (uint32_t k = 0; k < d->comm_count; k++)
        printf("  comm %" PRIx64 " size %u local rank %u members listed %u\n", d->comms[k].comm_id,
               d->comms[k].size, d->comms[k].local_rank, d->comms[k].member_count);
    for (uint32_t k = 0; k < d->gpu_count; k++)
        printf("  gpu %s %s count %" PRIu64 " time %.6f s bytes %" PRIu64 "\n",
               gpu_kind_name(d->gpu[k].kind), prf_string(d, d->gpu[k].name), d->gpu[k].count,
               d->gpu[k].time_ns / 1e9, d->gpu[k].bytes);
    for (uint32_t k = 0; k < d->phase_count; k++)
        printf("  phase %s count %" PRIu64 " time %.6f s\n", prf_string(d, d->phases[k].name),
               d->phases[k].count, d->phases[k].time_ns / 1e9);
    for (uint32_t k = 0; k < d->error_count; k++)
        printf("  disabled %s: %s\n", prf_string(d, d->errors[k].part),
               prf_string(d, d->errors[k].message));
    if (d->has_intervals)
        printf("  intervals %u pairs  cpu %s  long %.3f ms  overflow %" PRIu64 "  dropped %" PRIu64
               "\n", d->interval_count, interval_cpu_name(d->interval_info.cpu_mode),
               d->interval_info.long_ns / 1e6, d->interval_info.overflow,
               d->interval_info.dropped);
    for (uint32_t k = 0; k < d->interval_count; k++) {
        const struct prf_interval *v = &d->intervals[k];
        char a[64], b[64];
        interval_side(d, v->prev_context, "start", a, sizeof a);
        interval_side(d, v->next_context, "end", b, sizeof b);
        printf("  interval %s -> %s thread %u count %" PRIu64 "  wall %.6f s (min %.6f max %.6f)"
               "  cpu clock %.6f s over %" PRIu64 "  cpu samples %" PRIu64 "\n",
               a, b, v->thread, v->count, v->wall_ns / 1e9, v->wall_min_ns / 1e9,
               v->wall_max_ns / 1e9, v->cpu_ns / 1e9, v->cpu_count, v->cpu_samples);
    }
    if (d->has_work)
        printf("  work loop iterations: %u entries from %u units, %u threads%s\n", d->work_count,
               d->work_info.units, d->work_info.threads,
               d->work_info.units_dropped ? " (some units not counted)" : "");
    for (uint32_t k = 0; k < d->work_count; k++) {
        const struct prf_work *x = &d->work[k];
        char th[16];
        if (x->thread == PRF_NONE)
            snprintf(th, sizeof th, "-");
        else
            snprintf(th, sizeof th, "%u", x->thread);
        printf("  work %016" PRIx64 " thread %s tid %" PRIu64 " count %" PRIu64 "\n", x->stable_id,
               th, x->tid, x->count);
    }
    if (d->has_omp)
        omp_text(d);
}

/* What an ELF file is, for a sentence ("an executable", "a shared library",
 * "an object file", "a binary"), or NULL when path is no ELF file (a
 * directory, a profile, anything else).  PIE executables and shared libraries
 * are both ET_DYN: an executable has a PT_INTERP program header. */
static const char *elf_file_kind(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    Elf64_Ehdr eh;
    size_t got = fread(&eh, 1, sizeof eh, f);
    const char *kind = NULL;
    if (got >= EI_NIDENT && !memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
        kind = "a binary";
        /* the header's fields are read in this machine's byte order */
        const unsigned char host_data = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
        if (got == sizeof eh && eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == host_data) {
            if (eh.e_type == ET_REL)
                kind = "an object file";
            else if (eh.e_type == ET_EXEC)
                kind = "an executable";
            else if (eh.e_type == ET_DYN) {
                kind = "a shared library";
                for (unsigned k = 0; k < eh.e_phnum && k < 4096; k++) {
                    Elf64_Phdr ph;
                    if (fseek(f, (long)(eh.e_phoff + (uint64_t)k * eh.e_phentsize), SEEK_SET) != 0 ||
                        fread(&ph, sizeof ph, 1, f) != 1)
                        break;
                    if (ph.p_type == PT_INTERP) {
                        kind = "an executable";
                        break;
                    }
                }
            }
        }
    }
    fclose(f);
    return kind;
}

/* A binary given where a run directory is expected: one line saying what it
 * is and, when it holds a structure graph, the --psg command that prints it.
 * Returns 2 (a usage error) when path is an ELF file, 0 when it is not. */
static int not_a_run_directory(const char *path)
{
    const char *kind = elf_file_kind(path);
    if (!kind) return 0;
    char err[1024];
    struct psg_graph g;
    int rc = psg_read_elf(path, &g, err, sizeof err);
    if (rc > 0) {
        fprintf(stderr, "scalana-dump: %s is %s, not a run directory: to print its structure graph use "
                "scalana-dump --psg %s\n", path, kind, path);
        psg_graph_free(&g);
    } else {
        fprintf(stderr, "scalana-dump: %s is %s, not a run directory (and it has no structure graph: not built "
                "with scalana-cc)\n", path, kind);
    }
    return 2;
}

/* What dump_run gathers over a run's files. */
struct dump_state {
    int as_json;
    long only_rank;
    int status, found_rank;
    uint32_t world;     /* the run's world size, from its profile headers */
    uint32_t processes; /* run.json's */
    uint32_t *have, nhave, caphave; /* world ranks with a profile */
    uint64_t first_hash; /* the run's executable hash: of run.json's build-id, else the first file's */
    int have_hash;
    json_t *out, *ranks; /* --json: the document and its ranks */
};

/* run.json of run directory dir, shown; 0, or DUMP_NOTHING when --rank names
 * a rank the run does not have (said on stderr alone, before anything
 * reaches stdout). */
static int dump_run_info(const char *dir, struct dump_state *s)
{
    char err[1024];
    struct scalana_run_info ri;
    if (scalana_run_info_read(dir, &ri, err, sizeof err) != 0) {
        fprintf(stderr, "scalana-dump: %s\n", err);
        s->status = 1;
        return 0;
    }
    if (s->only_rank >= 0 && ri.processes && s->only_rank >= (long)ri.processes) {
        fprintf(stderr, "scalana-dump: %s: no world rank %ld in the %u-process run (ranks 0-%u)\n", dir,
                s->only_rank, ri.processes, ri.processes - 1);
        scalana_run_info_free(&ri);
        return DUMP_NOTHING;
    }
    s->processes = ri.processes;
    /* the hash the runtime writes into every file header (rt_exe_hash) */
    if (ri.build_id && *ri.build_id)
        s->first_hash = psg_fnv1a64(ri.build_id, strlen(ri.build_id), PSG_FNV_SEED), s->have_hash = 1;
    if (s->as_json) {
        json_t *out = s->out;
        json_object_set_new(out, "processes", json_integer(ri.processes));
        json_object_set_new(out, "executable", json_string(ri.executable));
        json_object_set_new(out, "build_id", json_string(ri.build_id));
        json_object_set_new(out, "mpi_library", json_string(ri.mpi_library));
        json_object_set_new(out, "sampler", json_string(ri.sampler));
        json_object_set_new(out, "executable_copy",
                            ri.executable_copy && *ri.executable_copy ? json_string(ri.executable_copy) : json_null());
    } else {
        printf("run %s: %u processes, %s, mpi %s, sampler %s, %s\n", dir, ri.processes,
               ri.executable, ri.mpi_library, ri.sampler, ri.written_by);
        if (ri.executable_copy && *ri.executable_copy)
            printf("  its own copy of the executable: %s (%s)\n", ri.executable_copy,
                   ri.executable_copy_method && *ri.executable_copy_method ? ri.executable_copy_method : "?");
    }
    scalana_run_info_free(&ri);
    return 0;
}

/* Whether file f (path) is of another run (another world size or binary)
 * mixed into the directory: named and left out, as the analyzer refuses it. */
static int dump_other_run(struct dump_state *s, const struct prf_file *f, const char *path)
{
    int other_size = s->processes && f->header.world_size != s->processes;
    int other_exe = !other_size && s->have_hash && f->header.exe_hash && f->header.exe_hash != s->first_hash;
    if (other_size)
        fprintf(stderr, "scalana-dump: %s: a profile of a %u-process run in a run of %u processes "
                        "(another run's file?): left out\n", path, f->header.world_size, s->processes);
    if (other_exe)
        fprintf(stderr, "scalana-dump: %s: a profile of another binary than the run's (executable "
                        "hash %016" PRIx64 ", not %016" PRIx64 "): left out\n", path,
                f->header.exe_hash, s->first_hash);
    return other_size || other_exe;
}

/* Rank i of file f (path), shown unless it is missing or a world rank seen
 * in another file already. */
static void dump_rank(struct dump_state *s, struct prf_file *f, uint32_t i, const char *path)
{
    char err[1024];
    uint32_t rank = f->header.first_rank + i;
    struct prf_rank_data d;
    int rc = prf_file_read_rank(f, i, &d, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "scalana-dump: %s\n", err);
        s->status = 1;
        return;
    }
    if (rc == 0) {
        if (!s->as_json)
            printf("rank %u: missing (did not write)\n", rank);
        return;
    }
    int again = 0;
    for (uint32_t k = 0; k < s->nhave && !again; k++)
        again = s->have[k] == rank;
    if (again) {
        fprintf(stderr, "scalana-dump: %s: world rank %u again (already in another profile file of "
                        "the run): left out\n", path, rank);
        s->status = 1;
        prf_rank_free(&d);
        return;
    }
    if (s->nhave == s->caphave) {
        s->caphave = s->caphave ? 2 * s->caphave : 64;
        uint32_t *h = realloc(s->have, s->caphave * sizeof *s->have);
        if (!h) {
            fprintf(stderr, "scalana-dump: out of memory\n");
            exit(1);
        }
        s->have = h;
    }
    s->have[s->nhave++] = rank;
    if (s->as_json)
        json_array_append_new(s->ranks, rank_json(&d));
    else
        rank_text(&d);
    prf_rank_free(&d);
}

/* One profile file of the run: its ranks (those --rank asks for). */
static void dump_file(struct dump_state *s, const char *path)
{
    char err[1024];
    struct prf_file f;
    if (prf_file_open(path, &f, err, sizeof err) != 0) {
        fprintf(stderr, "scalana-dump: %s\n", err);
        s->status = 1;
        return;
    }
    if (dump_other_run(s, &f, path)) {
        s->status = 1;
        prf_file_close(&f);
        return;
    }
    if (!s->have_hash && f.header.exe_hash)
        s->first_hash = f.header.exe_hash, s->have_hash = 1; /* no run.json: the first file's */
    if (f.header.world_size > s->world) s->world = f.header.world_size;
    for (uint32_t i = 0; i < f.header.rank_count; i++) {
        if (s->only_rank >= 0 && (long)(f.header.first_rank + i) != s->only_rank)
            continue;
        s->found_rank = 1;
        dump_rank(s, &f, i, path);
    }
    prf_file_close(&f);
}

/* The ranks that wrote no profile (killed, or gone before their write),
 * said in so many words: a reader must not take a partial run for a whole
 * one.  Only for the whole run (not with --rank).  Returns --json's array. */
static json_t *dump_missing(struct dump_state *s, const char *dir, int single_file)
{
    json_t *missing = s->as_json ? json_array() : NULL;
    uint32_t nmiss = 0;
    char list[512] = "";
    if (s->world < s->processes)
        s->world = s->processes;
    for (uint32_t r = 0; s->only_rank < 0 && !single_file && r < s->world; r++) {
        int seen = 0;
        for (uint32_t k = 0; k < s->nhave && !seen; k++)
            seen = s->have[k] == r;
        if (seen)
            continue;
        if (s->as_json)
            json_array_append_new(missing, json_integer(r));
        size_t l = strlen(list);
        if (l + 16 < sizeof list)
            snprintf(list + l, sizeof list - l, "%s%u", nmiss ? ", " : "", r);
        else if (l + 5 < sizeof list && list[l - 1] != '.')
            snprintf(list + l, sizeof list - l, ", ...");
        nmiss++;
    }
    if (nmiss && !s->as_json)
        printf("missing: %u of %u ranks wrote no profile (rank%s %s)\n", nmiss, s->world, nmiss > 1 ? "s" : "",
               list);
    if (nmiss)
        fprintf(stderr, "scalana-dump: %s: %u of %u ranks wrote no profile (rank%s %s)\n", dir, nmiss, s->world,
                nmiss > 1 ? "s" : "", list);
    return missing;
}

static int dump_run(const char *dir, int as_json, long only_rank)
{
    char err[1024];
    struct dump_state s = {.as_json = as_json, .only_rank = only_rank};
    s.out = as_json ? json_object() : NULL;
    int single_file = scalana_profile_path_has_suffix(dir);
    /* a lone profile file: no run.json to show */
    if (!single_file && dump_run_info(dir, &s) == DUMP_NOTHING) {
        json_decref(s.out);
        return DUMP_NOTHING;
    }
    char **files = NULL;
    int nf;
    if (single_file) { /* one profile file given directly */
        files = malloc(sizeof *files);
        files[0] = strdup(dir);
        nf = 1;
    } else {
        nf = prf_run_list_files(dir, &files, err, sizeof err);
    }
    if (nf < 0) {
        fprintf(stderr, "scalana-dump: %s\n", err);
        json_decref(s.out);
        return 1;
    }
    if (nf == 0) {
        fprintf(stderr, "scalana-dump: %s: no profile-*.sclp files\n", dir);
        s.status = 1;
    }
    s.ranks = as_json ? json_array() : NULL;
    for (int fi = 0; fi < nf; fi++) {
        dump_file(&s, files[fi]);
        free(files[fi]);
    }
    free(files);
    json_t *missing = dump_missing(&s, dir, single_file);
    free(s.have);
    if (only_rank >= 0 && !s.found_rank && nf > 0) {
        /* nothing to show is not success: exit DUMP_NOTHING (man page) */
        if (s.world > 0 && only_rank >= (long)s.world)
            fprintf(stderr, "scalana-dump: %s: no world rank %ld in the %u-process run (ranks 0-%u)\n", dir,
                    only_rank, s.world, s.world - 1);
        else
            fprintf(stderr, "scalana-dump: %s: no profile holds world rank %ld\n", dir, only_rank);
        if (!s.status) s.status = DUMP_NOTHING;
    }
    if (as_json) {
        json_object_set_new(s.out, "ranks", s.ranks);
        json_object_set_new(s.out, "missing_ranks", missing);
        json_dumpf(s.out, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        putchar('\n');
        json_decref(s.out);
    }
    return s.status;
}

static const char *lang_name(uint32_t l)
{
    static const char *const n[] = {"unknown", "C", "C++", "Fortran"};
    return l <= PSG_LANG_FORTRAN ? n[l] : "unknown";
}

static const char *op_text(const struct psg_vertex *v)
{
    if (v->kind == PSG_MPI)
        return scalana_mpi_op_name(v->op);
    if (v->kind == PSG_GPU)
        return psg_gpu_op_name(v->op);
    return "";
}

static void psg_text(const char *path, const struct psg_graph *g)
{
    printf("binary %s: %u unit(s)\n", path, g->unit_count);
    for (uint32_t u = 0; u < g->unit_count; u++) {
        const struct psg_unit *un = &g->units[u];
        printf("unit %s (%s%s, loop depth limit %u, %u vertices)\n", un->unit_name,
               lang_name(un->language), (un->flags & PSG_UNIT_HAS_DEBUG_INFO) ? ", debug info" : "",
               un->loop_depth_limit, un->vertex_count);
        uint32_t *depth = calloc(un->vertex_count ? un->vertex_count : 1, sizeof *depth);
        for (uint32_t k = 0; k < un->vertex_count; k++) {
            const struct psg_vertex *v = &un->vertices[k];
            if (depth)
                depth[k] = v->parent == PSG_NO_PARENT ? 0 : depth[v->parent] + 1;
            printf("%*s%s", depth ? (int)depth[k] * 2 : 0, "", psg_kind_name(v->kind));
            if (v->kind == PSG_FUNCTION)
                printf(" %s", v->display_name[0] ? v->display_name : v->function);
            else if (v->kind == PSG_MPI || v->kind == PSG_GPU)
                printf(" %s", v->kind == PSG_MPI ? op_text(v) : v->callee);
            else if (v->callee[0])
                printf(" %s", v->display_name[0] ? v->display_name : v->callee);
            const char *base = strrchr(v->file, '/');
            printf(" %s:%u", base ? base + 1 : v->file, v->first_line);
            if (v->last_line != v->first_line)
                printf("-%u", v->last_line);
            if (v->column)
                printf(":%u", v->column);
            if (v->flags & PSG_V_FOLDED)
                printf(" folded");
            if (v->flags & PSG_V_DEPTH_CUT)
                printf(" depth-cut");
            if ((v->flags & PSG_V_ATTRIBUTION_ONLY) && v->kind != PSG_FUNCTION)
                printf(" attribution-only");
            if (v->flags & PSG_V_CONDITIONAL)
                printf(" conditional");
            putchar('\n');
        }
        free(depth);
    }
}

static json_t *psg_json(const char *path, const struct psg_graph *g)
{
    json_t *units = json_array();
    for (uint32_t u = 0; u < g->unit_count; u++) {
        const struct psg_unit *un = &g->units[u];
        json_t *vs = json_array();
        for (uint32_t k = 0; k < un->vertex_count; k++) {
            const struct psg_vertex *v = &un->vertices[k];
            char sid[32];
            snprintf(sid, sizeof sid, "%016" PRIx64, v->stable_id);
            json_array_append_new(
                vs, json_pack("{sI sI ss ss sI ss sI sI sI sI ss ss ss ss}", "index", (json_int_t)k,
                              "parent", v->parent == PSG_NO_PARENT ? (json_int_t)-1
                                                                   : (json_int_t)v->parent,
                              "kind", psg_kind_name(v->kind), "op", op_text(v), "flags",
                              (json_int_t)v->flags, "file", v->file, "first_line",
                              (json_int_t)v->first_line, "last_line", (json_int_t)v->last_line,
                              "column", (json_int_t)v->column, "loop_depth",
                              (json_int_t)v->loop_depth, "function", v->function,
                              "display_name", v->display_name, "callee", v->callee,
                              "stable_id", sid));
        }
        json_array_append_new(units, json_pack("{ss ss ss sb sI so}", "unit", un->unit_name,
                                               "producer", un->producer, "language",
                                               lang_name(un->language), "debug_info",
                                               (un->flags & PSG_UNIT_HAS_DEBUG_INFO) != 0,
                                               "loop_depth_limit",
                                               (json_int_t)un->loop_depth_limit, "vertices", vs));
    }
    return json_pack("{ss so}", "binary", path, "units", units);
}

static void psg_dot(const struct psg_graph *g)
{
    Agraph_t *G = agopen("psg", Agdirected, NULL);
    agattr(G, AGNODE, "shape", "box");
    agattr(G, AGNODE, "label", "");
    agattr(G, AGEDGE, "style", "solid");
    char name[64], label[1024];
    for (uint32_t u = 0; u < g->unit_count; u++) {
        const struct psg_unit *un = &g->units[u];
        for (uint32_t k = 0; k < un->vertex_count; k++) {
            const struct psg_vertex *v = &un->vertices[k];
            snprintf(name, sizeof name, "u%uv%u", u, k);
            Agnode_t *n = agnode(G, name, 1);
            const char *base = strrchr(v->file, '/');
            snprintf(label, sizeof label, "%s %s\n%s:%u", psg_kind_name(v->kind),
                     v->kind == PSG_FUNCTION ? (v->display_name[0] ? v->display_name : v->function)
                     : v->kind == PSG_MPI || v->kind == PSG_GPU ? op_text(v) : v->callee,
                     base ? base + 1 : v->file, v->first_line);
            agset(n, "label", label);
            if (v->parent != PSG_NO_PARENT) {
                snprintf(name, sizeof name, "u%uv%u", u, v->parent);
                agedge(G, agnode(G, name, 0), n, NULL, 1);
            }
        }
    }
    agwrite(G, stdout);
    agclose(G);
}

static int dump_psg(const char *path, int as_json, int as_dot)
{
    char err[1024];
    struct psg_graph g;
    int rc = psg_read_elf(path, &g, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "scalana-dump: %s\n", err);
        return 1;
    }
    if (rc == 0) {
        /* nothing to show: one line on stderr, exit DUMP_NOTHING (man page) */
        fprintf(stderr, "scalana-dump: %s: no %s section (not built with scalana-cc)\n", path, SCALANA_PSG_SECTION);
        return DUMP_NOTHING;
    }
    if (as_json) {
        json_t *j = psg_json(path, &g);
        json_dumpf(j, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        putchar('\n');
        json_decref(j);
    } else if (as_dot)
        psg_dot(&g);
    else
        psg_text(path, &g);
    psg_graph_free(&g);
    return 0;
}

int main(int argc, char **argv)
{
    int as_json = 0, as_dot = 0, psg = 0, first = 0;
    long only_rank = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            as_json = 1;
        else if (!strcmp(argv[i], "--dot"))
            as_dot = 1;
        else if (!strcmp(argv[i], "--psg"))
            psg = 1;
        else if (!strcmp(argv[i], "--rank") || !strncmp(argv[i], "--rank=", 7)) {
            const char *v = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
            if (!v) {
                fputs("scalana-dump: option --rank needs a value (a world rank)\n", stderr);
                return 2;
            }
            char *end;
            only_rank = strtol(v, &end, 10);
            if (*v == '\0' || *end || only_rank < 0 || only_rank >= (1L << 24)) {
                fprintf(stderr, "scalana-dump: --rank wants a world rank (0, 1, ...), not '%s'\n", v);
                return 2;
            }
        }
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
            printf("scalana-dump (ScalAna) %s\n", SCALANA_VERSION_STRING);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "scalana-dump: unknown option '%s' (see scalana-dump --help)\n", argv[i]);
            return 2;
        } else {
            argv[first++] = argv[i];
        }
    }
    const char *why = first == 0 ? "no run directory, profile or binary given"
                      : as_dot && !psg ? "--dot needs --psg"
                      : as_dot && as_json ? "--dot and --json exclude each other"
                      : !psg && first != 1 ? "one run directory or profile at a time (several binaries with --psg)"
                      : NULL;
    if (why) {
        fprintf(stderr, "scalana-dump: %s (see scalana-dump --help)\n", why);
        return 2;
    }
    int status = 0;
    if (psg) {
        for (int i = 0; i < first; i++) {
            int st = dump_psg(argv[i], as_json, as_dot);
            if (st == 1 || !status) status = st; /* a bad file (1) outranks nothing to show (3) */
        }
    } else {
        status = not_a_run_directory(argv[0]);
        if (!status) status = dump_run(argv[0], as_json, only_rank);
    }
    return status;
}
