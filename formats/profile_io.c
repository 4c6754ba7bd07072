/* profile_io.c — encoder and decoder of run profiles (include/scalana/profile_format.h).
 * The only code that knows the byte layout: the runtime writes through it, the
 * analyzer and scalana-dump read through it.  Layout is host little-endian
 * (x86-64, aarch64); the decoder validates every index it hands out. */
#include "scalana/profile_format.h"
#include "profile_io_internal.h"
#include "sc_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

_Static_assert(sizeof(struct prf_file_header) == 64, "prf_file_header is 64 bytes");
_Static_assert(sizeof(struct prf_index_entry) == 24, "prf_index_entry is 24 bytes");
_Static_assert(sizeof(struct prf_rank_info) == 176, "prf_rank_info is 176 bytes");
_Static_assert(sizeof(struct prf_module) == 16, "prf_module");
_Static_assert(sizeof(struct prf_cct_node) == 24, "prf_cct_node");
_Static_assert(sizeof(struct prf_sample) == 32, "prf_sample");
_Static_assert(sizeof(struct prf_mpi_context) == 72, "prf_mpi_context");
_Static_assert(sizeof(struct prf_peer) == 64, "prf_peer");
_Static_assert(sizeof(struct prf_comm) == 32, "prf_comm");
_Static_assert(sizeof(struct prf_gpu_activity) == 48, "prf_gpu_activity");
_Static_assert(sizeof(struct prf_phase) == 24, "prf_phase");
_Static_assert(sizeof(struct prf_thread) == 32, "prf_thread");
_Static_assert(sizeof(struct prf_runtime_error) == 8, "prf_runtime_error");
_Static_assert(sizeof(struct prf_interval_table) == 32, "prf_interval_table");
_Static_assert(sizeof(struct prf_interval) == 88, "prf_interval");
_Static_assert(sizeof(struct prf_sampling) == 80, "prf_sampling");

uint32_t prf_crc32(const void *data, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    const unsigned char *p = data;
    while (n > 0) { /* zlib takes uInt lengths */
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return (uint32_t)c;
}

const char *prf_string(const struct prf_rank_data *d, uint32_t off)
{
    if (!d->strings || off >= d->strings_bytes)
        return "";
    return d->strings + off;
}

/* ---- encoder ------------------------------------------------------------- */

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

struct obuf {
    unsigned char *p;
    size_t n, cap;
    int failed;
};

static void ob_reserve(struct obuf *b, size_t more)
{
    if (b->failed || b->n + more <= b->cap)
        return;
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->n + more)
        c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q) {
        b->failed = 1;
        return;
    }
    b->p = q;
    b->cap = c;
}

/* Appends a record made of up to two parts (header struct + trailing array). */
static void ob_record2(struct obuf *b, uint32_t type, const void *a, size_t an, const void *c,
                       size_t cn)
{
    size_t payload = an + cn;
    if (payload > UINT32_MAX) {
        b->failed = 1;
        return;
    }
    ob_reserve(b, sizeof(struct prf_record_header) + pad8(payload));
    if (b->failed)
        return;
    struct prf_record_header h = {type, (uint32_t)payload};
    memcpy(b->p + b->n, &h, sizeof h);
    b->n += sizeof h;
    if (an)
        memcpy(b->p + b->n, a, an);
    if (cn)
        memcpy(b->p + b->n + an, c, cn);
    memset(b->p + b->n + payload, 0, pad8(payload) - payload);
    b->n += pad8(payload);
}

static void ob_array(struct obuf *b, uint32_t type, const void *a, uint32_t count, size_t elem)
{
    if (count)
        ob_record2(b, type, a, (size_t)count * elem, NULL, 0);
}

int prf_encode_rank(const struct prf_rank_data *d, unsigned char **out, size_t *out_bytes)
{
    struct obuf b = {0};
    ob_record2(&b, PRF_REC_RANK_INFO, &d->info, sizeof d->info, NULL, 0);
    if (d->strings && d->strings_bytes)
        ob_record2(&b, PRF_REC_STRINGS, d->strings, d->strings_bytes, NULL, 0);
    else
        ob_record2(&b, PRF_REC_STRINGS, "", 1, NULL, 0);
    ob_array(&b, PRF_REC_MODULES, d->modules, d->module_count, sizeof *d->modules);
    ob_array(&b, PRF_REC_CCT, d->cct, d->cct_count, sizeof *d->cct);
    ob_array(&b, PRF_REC_SAMPLES, d->samples, d->sample_count, sizeof *d->samples);
    ob_array(&b, PRF_REC_MPI, d->mpi, d->mpi_count, sizeof *d->mpi);
    ob_array(&b, PRF_REC_PEERS, d->peers, d->peer_count, sizeof *d->peers);
    for (uint32_t i = 0; i < d->comm_count; i++) {
        const struct prf_comm *c = &d->comms[i];
        const uint32_t *members = c->member_count && d->comm_members && d->comm_member_first
                                      ? d->comm_members + d->comm_member_first[i] : NULL;
        struct prf_comm copy = *c;
        if (!members)
            copy.member_count = 0;
        ob_record2(&b, PRF_REC_COMM, &copy, sizeof copy, members,
                   (size_t)copy.member_count * sizeof(uint32_t));
    }
    ob_array(&b, PRF_REC_GPU, d->gpu, d->gpu_count, sizeof *d->gpu);
    ob_array(&b, PRF_REC_PHASES, d->phases, d->phase_count, sizeof *d->phases);
    ob_array(&b, PRF_REC_THREADS, d->threads, d->thread_count, sizeof *d->threads);
    ob_array(&b, PRF_REC_ERRORS, d->errors, d->error_count, sizeof *d->errors);
    if (d->has_intervals) {
        struct prf_interval_table t = d->interval_info;
        t.count = d->intervals ? d->interval_count : 0;
        ob_record2(&b, PRF_REC_INTERVALS, &t, sizeof t, d->intervals,
                   (size_t)t.count * sizeof *d->intervals);
    }
    if (d->has_sampling)
        ob_record2(&b, PRF_REC_SAMPLING, &d->sampling, sizeof d->sampling, NULL, 0);
    if (d->has_work) {
        struct prf_work_table t = d->work_info;
        t.count = d->work ? d->work_count : 0;
        ob_record2(&b, PRF_REC_WORK, &t, sizeof t, d->work, (size_t)t.count * sizeof *d->work);
    }
    if (d->has_omp) {
        struct prf_omp_table t = d->omp_info;
        t.count = d->omp ? d->omp_count : 0;
        ob_record2(&b, PRF_REC_OMP, &t, sizeof t, d->omp, (size_t)t.count * sizeof *d->omp);
    }
    ob_record2(&b, PRF_REC_END, NULL, 0, NULL, 0);
    if (b.failed) {
        free(b.p);
        return -1;
    }
    *out = b.p;
    *out_bytes = b.n;
    return 0;
}

/* ---- decoder ------------------------------------------------------------- */

static const char *record_name(uint32_t t)
{
    static const char *const n[] = {"END", "RANK_INFO", "STRINGS", "MODULES", "CCT", "SAMPLES",
                                    "MPI", "PEERS", "COMM", "GPU", "PHASES", "THREADS", "ERRORS",
                                    "INTERVALS", "SAMPLING", "WORK", "OMP"};
    return t < sizeof n / sizeof *n ? n[t] : "unknown";
}

/* Element size of array records, 0 for others. */
static size_t elem_size(uint32_t t)
{
    switch (t) {
    case PRF_REC_MODULES: return sizeof(struct prf_module);
    case PRF_REC_CCT: return sizeof(struct prf_cct_node);
    case PRF_REC_SAMPLES: return sizeof(struct prf_sample);
    case PRF_REC_MPI: return sizeof(struct prf_mpi_context);
    case PRF_REC_PEERS: return sizeof(struct prf_peer);
    case PRF_REC_GPU: return sizeof(struct prf_gpu_activity);
    case PRF_REC_PHASES: return sizeof(struct prf_phase);
    case PRF_REC_THREADS: return sizeof(struct prf_thread);
    case PRF_REC_ERRORS: return sizeof(struct prf_runtime_error);
    default: return 0;
    }
}

static int validate(const struct prf_rank_data *d, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < d->cct_count; i++) {
        const struct prf_cct_node *c = &d->cct[i];
        if (c->kind == PRF_CCT_ROOT ? c->parent != PRF_NONE : c->parent >= i)
            return sc_fail(err, errlen, "CCT node %u has parent %u (must be an earlier node)", i,
                        c->parent);
        if (c->module != PRF_NONE && c->module >= d->module_count)
            return sc_fail(err, errlen, "CCT node %u names module %u of %u", i, c->module,
                        d->module_count);
        if (c->kind > PRF_CCT_OVERFLOW)
            return sc_fail(err, errlen, "CCT node %u has unknown kind %u", i, c->kind);
    }
    for (uint32_t i = 0; i < d->sample_count; i++)
        if (d->samples[i].node >= d->cct_count)
            return sc_fail(err, errlen, "sample record %u names CCT node %u of %u", i,
                        d->samples[i].node, d->cct_count);
    for (uint32_t i = 0; i < d->mpi_count; i++)
        if (d->mpi[i].node != PRF_NONE && d->mpi[i].node >= d->cct_count)
            return sc_fail(err, errlen, "MPI context %u names CCT node %u of %u", i, d->mpi[i].node,
                        d->cct_count);
    for (uint32_t i = 0; i < d->peer_count; i++)
        if (d->peers[i].context >= d->mpi_count)
            return sc_fail(err, errlen, "peer record %u names MPI context %u of %u", i,
                        d->peers[i].context, d->mpi_count);
    for (uint32_t i = 0; i < d->gpu_count; i++)
        if (d->gpu[i].node != PRF_NONE && d->gpu[i].node >= d->cct_count)
            return sc_fail(err, errlen, "GPU record %u names CCT node %u of %u", i, d->gpu[i].node,
                        d->cct_count);
    for (uint32_t i = 0; i < d->phase_count; i++)
        if (d->phases[i].node != PRF_NONE && d->phases[i].node >= d->cct_count)
            return sc_fail(err, errlen, "phase record %u names CCT node %u", i, d->phases[i].node);
    for (uint32_t i = 0; i < d->thread_count; i++)
        if (d->threads[i].creator != PRF_NONE && d->threads[i].creator >= d->cct_count)
            return sc_fail(err, errlen, "thread record %u names CCT node %u", i,
                        d->threads[i].creator);
    if (d->has_intervals && d->interval_info.cpu_mode > PRF_IV_CPU_SAMPLES)
        return sc_fail(err, errlen, "INTERVALS record has unknown CPU mode %u",
                    d->interval_info.cpu_mode);
    if (prf_validate_omp(d, err, errlen))
        return -1;
    for (uint32_t i = 0; i < d->interval_count; i++) {
        const struct prf_interval *v = &d->intervals[i];
        if ((v->prev_context != PRF_NONE && v->prev_context >= d->mpi_count) ||
            (v->next_context != PRF_NONE && v->next_context >= d->mpi_count))
            return sc_fail(err, errlen, "interval %u names MPI contexts %u -> %u of %u", i,
                        v->prev_context, v->next_context, d->mpi_count);
        if (v->count == 0 || v->cpu_count > v->count || v->wall_min_ns > v->wall_max_ns ||
            v->wall_max_ns > v->wall_ns || v->cpu_wall_ns > v->wall_ns ||
            !(v->wall_sq_ns2 >= 0))
            return sc_fail(err, errlen, "interval %u is inconsistent (count %llu, CPU-clock count "
                        "%llu, wall %llu ns, min %llu, max %llu)", i,
                        (unsigned long long)v->count, (unsigned long long)v->cpu_count,
                        (unsigned long long)v->wall_ns, (unsigned long long)v->wall_min_ns,
                        (unsigned long long)v->wall_max_ns);
    }
    return 0;
}

/* What the first pass over a section's records keeps (prf_decode_rank). */
struct decode_state {
    struct prf_rank_data *out;
    int have_info, have_end;
    uint32_t ncomm;  /* COMM records, gathered by the second pass */
    size_t nmembers; /* their members */
};

/* The header of the record at byte `at` of section copy[n] into *h, checked
 * against what is left of the section: 0, or -1 with the reason in err. */
static int record_at(const unsigned char *copy, size_t n, size_t at, struct prf_record_header *h, char *err,
                     size_t errlen)
{
    if (n - at < sizeof *h)
        return sc_fail(err, errlen, "truncated record header at byte %zu", at);
    memcpy(h, copy + at, sizeof *h);
    size_t body = at + sizeof *h;
    if (h->payload_bytes > n - body || pad8(h->payload_bytes) > n - body)
        return sc_fail(err, errlen, "record %s at byte %zu claims %u bytes, %zu left (truncated)",
                       record_name(h->type), at, h->payload_bytes, n - body);
    size_t es = elem_size(h->type);
    if (es && h->payload_bytes % es)
        return sc_fail(err, errlen, "record %s at byte %zu: %u bytes is not a whole number of "
                       "%zu-byte entries", record_name(h->type), at, h->payload_bytes, es);
    return 0;
}

/* The record decoders: record at byte `at`, payload pl of `bytes` bytes,
 * into st->out (arrays point into the section's copy).  0, or -1 with the
 * reason in err. */
static int decode_rank_info(struct decode_state *st, size_t at, void *pl, uint32_t bytes, char *err, size_t errlen)
{
    if (bytes < sizeof st->out->info)
        return sc_fail(err, errlen, "RANK_INFO at byte %zu is %u bytes, expected %zu", at, bytes,
                       sizeof st->out->info);
    memcpy(&st->out->info, pl, sizeof st->out->info);
    st->have_info = 1;
    return 0;
}

static int decode_strings(struct decode_state *st, size_t at, void *pl, uint32_t bytes, char *err, size_t errlen)
{
    if (bytes == 0 || ((char *)pl)[bytes - 1] != '\0')
        return sc_fail(err, errlen, "STRINGS at byte %zu not NUL-terminated", at);
    st->out->strings = pl;
    st->out->strings_bytes = bytes;
    return 0;
}

static int decode_sampling(struct decode_state *st, size_t at, void *pl, uint32_t bytes, char *err, size_t errlen)
{
    struct prf_rank_data *out = st->out;
    /* a longer record is a later writer's: its first fields are these */
    if (out->has_sampling || bytes < sizeof out->sampling)
        return sc_fail(err, errlen, "SAMPLING record at byte %zu: %s", at,
                       out->has_sampling ? "duplicate" : "shorter than its 80-byte layout");
    memcpy(&out->sampling, pl, sizeof out->sampling);
    out->has_sampling = 1;
    return 0;
}

static int decode_intervals(struct decode_state *st, size_t at, void *pl, uint32_t bytes, char *err, size_t errlen)
{
    struct prf_rank_data *out = st->out;
    struct prf_interval_table t;
    if (prf_table_record("INTERVALS", out->has_intervals, at, bytes, pl, sizeof t, sizeof(struct prf_interval), err,
                     errlen))
        return -1;
    memcpy(&t, pl, sizeof t);
    out->has_intervals = 1;
    out->interval_info = t;
    out->intervals = t.count ? (struct prf_interval *)(void *)((unsigned char *)pl + sizeof t) : NULL;
    out->interval_count = t.count;
    return 0;
}

static int decode_work(struct decode_state *st, size_t at, void *pl, uint32_t bytes, char *err, size_t errlen)
{
    struct prf_rank_data *out = st->out;
    struct prf_work_table t;
    if (prf_table_record("WORK", out->has_work, at, bytes, pl, sizeof t, sizeof(struct prf_work), err, errlen))
        return -1;
    memcpy(&t, pl, sizeof t);
    if (t.measure != PRF_WORK_LOOP_ITERATIONS)
        return sc_fail(err, errlen, "WORK record at byte %zu has unknown measure %u", at, t.measure);
    out->has_work = 1;
    out->work_info = t;
    out->work = t.count ? (struct prf_work *)(void *)((unsigned char *)pl + sizeof t) : NULL;
    out->work_count = t.count;
    return 0;
}

/* A communicator: checked and counted here, gathered by gather_comms. */
static int decode_comm(struct decode_state *st, size_t at, void *pl, uint32_t bytes, char *err, size_t errlen)
{
    struct prf_comm c;
    if (bytes < sizeof c)
        return sc_fail(err, errlen, "COMM record at byte %zu too short", at);
    memcpy(&c, pl, sizeof c);
    if ((uint64_t)c.member_count * 4 != bytes - sizeof c)
        return sc_fail(err, errlen, "COMM record at byte %zu: %u members but %zu bytes", at, c.member_count,
                       (size_t)bytes - sizeof c);
    st->ncomm++;
    st->nmembers += c.member_count;
    return 0;
}

/* One record of the first pass (header h at byte `at`, payload pl of cnt
 * entries where its type has an entry size): by its type, a decoder above or
 * an array; a type this reader does not know (a newer writer's) is skipped.
 * A new record type is one case here (and its decoder).  0, or -1 with the
 * reason in err. */
static int decode_record(struct decode_state *st, const struct prf_record_header *h, size_t at, void *pl,
                         uint32_t cnt, char *err, size_t errlen)
{
    struct prf_rank_data *out = st->out;
    uint32_t bytes = h->payload_bytes;
    switch (h->type) {
    case PRF_REC_END: st->have_end = 1; return 0;
    case PRF_REC_RANK_INFO: return decode_rank_info(st, at, pl, bytes, err, errlen);
    case PRF_REC_STRINGS: return decode_strings(st, at, pl, bytes, err, errlen);
#define ARRAY(code, field, count)                                                                  \
    case code:                                                                                     \
        if (out->field)                                                                            \
            return sc_fail(err, errlen, "duplicate %s record at byte %zu", record_name(code), at); \
        out->field = pl;                                                                           \
        out->count = cnt;                                                                          \
        return 0;
    ARRAY(PRF_REC_MODULES, modules, module_count)
    ARRAY(PRF_REC_CCT, cct, cct_count)
    ARRAY(PRF_REC_SAMPLES, samples, sample_count)
    ARRAY(PRF_REC_MPI, mpi, mpi_count)
    ARRAY(PRF_REC_PEERS, peers, peer_count)
    ARRAY(PRF_REC_GPU, gpu, gpu_count)
    ARRAY(PRF_REC_PHASES, phases, phase_count)
    ARRAY(PRF_REC_THREADS, threads, thread_count)
    ARRAY(PRF_REC_ERRORS, errors, error_count)
#undef ARRAY
    case PRF_REC_SAMPLING: return decode_sampling(st, at, pl, bytes, err, errlen);
    case PRF_REC_INTERVALS: return decode_intervals(st, at, pl, bytes, err, errlen);
    case PRF_REC_WORK: return decode_work(st, at, pl, bytes, err, errlen);
    case PRF_REC_OMP: return prf_decode_omp(out, at, bytes, pl, err, errlen);
    case PRF_REC_COMM: return decode_comm(st, at, pl, bytes, err, errlen);
    default: return 0; /* newer record type: skip */
    }
}

/* The second pass: the ncomm COMM records (nmembers members) of section
 * copy[n], checked by the first, gathered into out->comms and its member
 * arrays.  0, or -1 with the reason in err. */
static int gather_comms(struct prf_rank_data *out, const unsigned char *copy, size_t n, uint32_t ncomm,
                        size_t nmembers, char *err, size_t errlen)
{
    out->comms = calloc(ncomm, sizeof *out->comms);
    out->comm_member_first = calloc(ncomm, sizeof(uint32_t));
    out->comm_members = calloc(nmembers ? nmembers : 1, sizeof(uint32_t));
    if (!out->comms || !out->comm_member_first || !out->comm_members)
        return sc_fail(err, errlen, "out of memory");
    size_t m = 0, at = 0;
    while (at < n) {
        struct prf_record_header h;
        memcpy(&h, copy + at, sizeof h);
        size_t body = at + sizeof h;
        if (h.type == PRF_REC_END)
            break;
        if (h.type == PRF_REC_COMM) {
            struct prf_comm *c = &out->comms[out->comm_count];
            memcpy(c, copy + body, sizeof *c);
            out->comm_member_first[out->comm_count++] = (uint32_t)m;
            memcpy(out->comm_members + m, copy + body + sizeof *c, (size_t)c->member_count * 4);
            m += c->member_count;
        }
        at = body + pad8(h.payload_bytes);
    }
    return 0;
}

int prf_decode_rank(const void *bytes, size_t n, struct prf_rank_data *out, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    /* The decoded data lives in one copy of the section; arrays point into it
     * (records are 8-byte aligned, as are the structs), except comms, which
     * are gathered. */
    unsigned char *copy = malloc(n ? n : 1);
    if (!copy)
        return sc_fail(err, errlen, "out of memory (%zu bytes)", n);
    if (n)
        memcpy(copy, bytes, n);
    out->owned_ = copy;
    struct decode_state st = {out, 0, 0, 0, 0};
    size_t at = 0;
    /* pass 1: walk records */
    while (at < n) {
        struct prf_record_header h;
        if (record_at(copy, n, at, &h, err, errlen)) {
            prf_rank_free(out);
            return -1;
        }
        size_t body = at + sizeof h, es = elem_size(h.type);
        uint32_t cnt = es ? (uint32_t)(h.payload_bytes / es) : 0;
        if (decode_record(&st, &h, at, copy + body, cnt, err, errlen)) {
            prf_rank_free(out);
            return -1;
        }
        at = body + pad8(h.payload_bytes);
        if (st.have_end)
            break;
    }
    if (!st.have_info || !st.have_end) {
        prf_rank_free(out);
        return sc_fail(err, errlen, "section %s (%zu bytes)", !st.have_info ? "has no RANK_INFO record"
                                                           : "ends without an END record (truncated)", n);
    }
    /* pass 2: gather communicators */
    if ((st.ncomm && gather_comms(out, copy, n, st.ncomm, st.nmembers, err, errlen)) || validate(out, err, errlen)) {
        prf_rank_free(out);
        return -1;
    }
    return 0;
}

void prf_rank_free(struct prf_rank_data *d)
{
    if (!d)
        return;
    free(d->comms);
    free(d->comm_members);
    free(d->comm_member_first);
    free(d->owned_);
    memset(d, 0, sizeof *d);
}

/* ---- files --------------------------------------------------------------- */

size_t prf_file_prefix_bytes(uint32_t rank_count)
{
    return sizeof(struct prf_file_header) + (size_t)rank_count * sizeof(struct prf_index_entry);
}

void prf_file_prefix_build(void *buf, uint32_t first_rank, uint32_t rank_count,
                           uint32_t world_size, uint64_t exe_hash,
                           const uint64_t *section_bytes, const uint32_t *section_crc,
                           uint64_t *section_offsets)
{
    struct prf_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, SCALANA_PROFILE_MAGIC, SCALANA_PROFILE_MAGIC_LEN);
    h.version = SCALANA_PROFILE_VERSION;
    h.header_bytes = sizeof h;
    h.first_rank = first_rank;
    h.rank_count = rank_count;
    h.world_size = world_size;
    h.index_entry_bytes = sizeof(struct prf_index_entry);
    h.exe_hash = exe_hash;
    uint64_t off = prf_file_prefix_bytes(rank_count);
    unsigned char *p = buf;
    for (uint32_t i = 0; i < rank_count; i++) {
        struct prf_index_entry e = {0};
        e.world_rank = first_rank + i;
        e.bytes = section_bytes[i];
        e.crc32 = section_crc ? section_crc[i] : 0;
        e.offset = e.bytes ? off : 0;
        if (section_offsets)
            section_offsets[i] = off;
        off += e.bytes;
        memcpy(p + sizeof h + (size_t)i * sizeof e, &e, sizeof e);
    }
    h.file_bytes = off;
    memcpy(p, &h, sizeof h);
}

static int write_all(FILE *f, const void *p, size_t n)
{
    return n == 0 || fwrite(p, 1, n, f) == n ? 0 : -1;
}

int prf_file_write(const char *path, uint32_t first_rank, uint32_t rank_count,
                   uint32_t world_size, uint64_t exe_hash,
                   const unsigned char *const *sections, const size_t *section_bytes)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    uint64_t *sizes = calloc(rank_count ? rank_count : 1, sizeof *sizes);
    uint32_t *crcs = calloc(rank_count ? rank_count : 1, sizeof *crcs);
    void *prefix = malloc(prf_file_prefix_bytes(rank_count));
    if (!tmp || !sizes || !crcs || !prefix) {
        free(tmp), free(sizes), free(crcs), free(prefix);
        errno = ENOMEM;
        return -1;
    }
    for (uint32_t i = 0; i < rank_count; i++) {
        sizes[i] = sections[i] ? section_bytes[i] : 0;
        crcs[i] = sizes[i] ? prf_crc32(sections[i], sizes[i]) : 0;
    }
    prf_file_prefix_build(prefix, first_rank, rank_count, world_size, exe_hash, sizes, crcs, NULL);
    /* A hidden temporary beside it (".name.tmp"): a writer killed mid-way
     * leaves nothing that looks like a profile. */
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(tmp, plen + 16, "%.*s.%s.tmp", (int)dirlen, path, path + dirlen);
    int rc = -1, saved = 0;
    FILE *f = fopen(tmp, "wb");
    if (f) {
        rc = write_all(f, prefix, prf_file_prefix_bytes(rank_count));
        for (uint32_t i = 0; rc == 0 && i < rank_count; i++)
            rc = write_all(f, sections[i], sizes[i]);
        if (fclose(f) != 0)
            rc = -1;
        saved = errno;
        if (rc == 0 && rename(tmp, path) != 0) {
            saved = errno;
            rc = -1;
        }
        if (rc != 0)
            remove(tmp);
    } else {
        saved = errno;
    }
    free(tmp), free(sizes), free(crcs), free(prefix);
    errno = saved;
    return rc;
}
