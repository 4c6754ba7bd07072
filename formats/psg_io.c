/* psg_io.c — builder (writer) and parser (reader) of the embedded PSG format.
 * The layout is defined in include/scalana/psg_format.h; this file is its only
 * implementation, used by the pass (writer) and by every reader. */
#include "scalana/psg_format.h"
#include "sc_alloc.h"
#include "sc_err.h"
#include "sc_hash.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

_Static_assert(sizeof(struct psg_unit_header) == 64, "psg_unit_header is 64 bytes");
_Static_assert(sizeof(struct psg_vertex_record) == 64, "psg_vertex_record is 64 bytes");

uint64_t psg_fnv1a64(const void *data, size_t n, uint64_t seed)
{
    return sc_fnv1a64(data, n, seed);
}

const char *psg_kind_name(unsigned kind)
{
    static const char *const names[] = {
        "UNKNOWN", "FUNCTION", "LOOP", "BRANCH", "CALL", "CALL_INDIRECT",
        "CALL_RECURSIVE", "MPI", "GPU", "COMPUTE"};
    return kind < PSG_KIND_MAX_ ? names[kind] : "UNKNOWN";
}

const char *psg_gpu_op_name(unsigned op)
{
    static const char *const names[] = {"other", "launch", "memcpy", "memset", "synchronize",
                                        "malloc"};
    return op < PSG_GPU_OP_MAX_ ? names[op] : "other";
}

/* ---- builder ------------------------------------------------------------- */

struct psg_builder {
    struct psg_unit_header hdr;
    struct psg_vertex_record *recs;
    uint32_t nrecs, caprecs;
    char *strings;
    size_t nstr, capstr;
    struct sc_hash interned; /* string offsets in strings, by their text */
    int failed;
};

/* Returns the string's offset, interning it; 0 for NULL/"" and on failure
 * (failure also sets b->failed). */
static uint32_t intern(struct psg_builder *b, const char *s)
{
    if (!s || !*s || b->failed)
        return 0;
    size_t len = strlen(s);
    uint64_t h = psg_fnv1a64(s, len, PSG_FNV_SEED);
    struct sc_hash_it it;
    for (uint32_t off = sc_hash_first(&b->interned, h, &it); off != SC_HASH_NONE;
         off = sc_hash_next(&b->interned, &it))
        if (strcmp(b->strings + off, s) == 0)
            return off;
    if (b->nstr + len + 1 > UINT32_MAX - 1 ||
        sc_grow((void **)&b->strings, &b->capstr, b->nstr + len + 1, 1)) {
        b->failed = 1;
        return 0;
    }
    uint32_t off = (uint32_t)b->nstr;
    if (sc_hash_add(&b->interned, h, off)) {
        b->failed = 1;
        return 0;
    }
    memcpy(b->strings + off, s, len + 1);
    b->nstr += len + 1;
    return off;
}

struct psg_builder *psg_builder_new(const char *unit_name, const char *producer,
                                    uint32_t language, uint32_t flags,
                                    uint32_t loop_depth_limit)
{
    struct psg_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    if (sc_grow((void **)&b->strings, &b->capstr, 1, 1)) {
        free(b);
        return NULL;
    }
    b->strings[0] = '\0';
    b->nstr = 1;
    memcpy(b->hdr.magic, SCALANA_PSG_MAGIC, SCALANA_PSG_MAGIC_LEN);
    b->hdr.version = SCALANA_PSG_VERSION;
    b->hdr.header_bytes = sizeof(struct psg_unit_header);
    b->hdr.vertex_record_bytes = sizeof(struct psg_vertex_record);
    b->hdr.flags = flags;
    b->hdr.language = language;
    b->hdr.loop_depth_limit = loop_depth_limit;
    b->hdr.unit_name = intern(b, unit_name);
    b->hdr.producer = intern(b, producer);
    uint64_t h = psg_fnv1a64(unit_name ? unit_name : "", unit_name ? strlen(unit_name) : 0,
                             PSG_FNV_SEED);
    b->hdr.unit_hash = psg_fnv1a64(producer ? producer : "", producer ? strlen(producer) : 0, h);
    if (b->failed) {
        psg_builder_free(b);
        return NULL;
    }
    return b;
}

uint32_t psg_builder_add(struct psg_builder *b, const struct psg_vertex *v)
{
    if (!b || b->failed)
        return UINT32_MAX;
    if (v->parent != PSG_NO_PARENT && v->parent >= b->nrecs)
        return UINT32_MAX;
    size_t cap = b->caprecs;
    if (b->nrecs == UINT32_MAX - 1 || sc_grow((void **)&b->recs, &cap, b->nrecs + 1, sizeof *b->recs)) {
        b->failed = 1;
        return UINT32_MAX;
    }
    b->caprecs = (uint32_t)cap;
    struct psg_vertex_record *r = &b->recs[b->nrecs];
    memset(r, 0, sizeof *r);
    r->stable_id = v->stable_id;
    r->parent = v->parent;
    r->kind = v->kind;
    r->flags = v->flags;
    r->op = v->op;
    r->loop_depth = v->loop_depth;
    r->file = intern(b, v->file);
    r->first_line = v->first_line;
    r->last_line = v->last_line;
    r->column = v->column;
    r->function = intern(b, v->function);
    r->display_name = intern(b, v->display_name);
    r->callee = intern(b, v->callee);
    if (b->failed)
        return UINT32_MAX;
    return b->nrecs++;
}

int psg_builder_finish(struct psg_builder *b, unsigned char **out, size_t *out_bytes)
{
    if (!b || b->failed)
        return -1;
    /* The payload (records + strings) is deflated: the fixed 64-byte records
     * are mostly zeros and repeated file names, and the section must stay a
     * small share of the binary (docs/plugin.md, bench/compile). */
    size_t recs = (size_t)b->nrecs * sizeof(struct psg_vertex_record);
    size_t raw = recs + b->nstr;
    unsigned char *payload = malloc(raw);
    if (!payload)
        return -1;
    /* byte planes: the records' fields change little from one record to the
     * next (parents, lines, kinds), so byte k of every record in a row
     * deflates to about half of the record-major layout */
    const size_t rb = sizeof(struct psg_vertex_record);
    const unsigned char *rp = (const unsigned char *)b->recs;
    for (size_t k = 0; k < rb; k++)
        for (size_t i = 0; i < b->nrecs; i++)
            payload[k * b->nrecs + i] = rp[i * rb + k];
    memcpy(payload + recs, b->strings, b->nstr);
    uLongf zlen = compressBound((uLong)raw);
    size_t cap = sizeof(struct psg_unit_header) + zlen + 8;
    unsigned char *buf = calloc(1, cap);
    if (!buf || compress2(buf + sizeof b->hdr, &zlen, payload, (uLong)raw, 9) != Z_OK) {
        free(buf);
        free(payload);
        return -1;
    }
    free(payload);
    size_t padded = (sizeof(struct psg_unit_header) + zlen + 7) & ~(size_t)7;
    b->hdr.unit_bytes = padded;
    b->hdr.vertex_count = b->nrecs;
    b->hdr.string_bytes = (uint32_t)b->nstr;
    b->hdr.flags |= PSG_UNIT_DEFLATED | PSG_UNIT_BYTE_PLANES;
    memcpy(buf, &b->hdr, sizeof b->hdr);
    *out = buf;
    *out_bytes = padded;
    return 0;
}

void psg_builder_free(struct psg_builder *b)
{
    if (!b)
        return;
    free(b->recs);
    free(b->strings);
    sc_hash_free(&b->interned);
    free(b);
}

/* ---- parser -------------------------------------------------------------- */

/* Largest decoded unit accepted: a guard against corrupt counts, far above
 * any real translation unit (the 10 000-function benchmark file is ~2 MB). */
#define PSG_MAX_RAW_UNIT (256u << 20)

/* Validates the header of the unit at bytes[0..n); returns its stored size
 * and its decoded size in *raw, or 0 on error. */
static uint64_t check_unit(const unsigned char *p, size_t n, size_t at, uint64_t *raw,
                           char *err, size_t errlen)
{
    struct psg_unit_header h;
    if (n < sizeof h) {
        sc_fail(err, errlen, "PSG unit at byte %zu truncated (%zu bytes left, header needs %zu)",
             at, n, sizeof h);
        return 0;
    }
    memcpy(&h, p, sizeof h);
    if (memcmp(h.magic, SCALANA_PSG_MAGIC, SCALANA_PSG_MAGIC_LEN) != 0) {
        sc_fail(err, errlen, "no PSG magic at byte %zu (corrupt section)", at);
        return 0;
    }
    if (h.version < SCALANA_PSG_MIN_VERSION || h.version > SCALANA_PSG_VERSION) {
        sc_fail(err, errlen, "PSG unit at byte %zu has format version %u, this tool reads %u to %u "
             "(rebuild with this ScalAna's scalana-cc)", at, h.version, SCALANA_PSG_MIN_VERSION,
             SCALANA_PSG_VERSION);
        return 0;
    }
    if ((h.flags & PSG_UNIT_BYTE_PLANES) && h.version < 3) {
        sc_fail(err, errlen, "PSG unit at byte %zu: version %u with byte-plane records (corrupt "
             "header)", at, h.version);
        return 0;
    }
    if (h.header_bytes != sizeof h || h.vertex_record_bytes != sizeof(struct psg_vertex_record)) {
        sc_fail(err, errlen, "PSG unit at byte %zu: unexpected header/record size %u/%u", at,
             h.header_bytes, h.vertex_record_bytes);
        return 0;
    }
    *raw = (uint64_t)sizeof h + (uint64_t)h.vertex_count * sizeof(struct psg_vertex_record)
           + h.string_bytes;
    int deflated = (h.flags & PSG_UNIT_DEFLATED) != 0;
    if (h.unit_bytes > n || h.unit_bytes % 8 != 0 || h.string_bytes == 0 ||
        h.unit_bytes <= sizeof h || *raw > PSG_MAX_RAW_UNIT || (!deflated && h.unit_bytes < *raw)) {
        sc_fail(err, errlen, "PSG unit at byte %zu: size %llu inconsistent (decodes to %llu, %zu "
             "available)", at, (unsigned long long)h.unit_bytes, (unsigned long long)*raw, n);
        return 0;
    }
    return h.unit_bytes;
}

/* Decodes the unit at src (stored size `stored`) into dst (raw bytes). */
static int inflate_unit(const unsigned char *src, uint64_t stored, unsigned char *dst,
                        uint64_t raw, size_t at, char *err, size_t errlen)
{
    struct psg_unit_header h;
    memcpy(&h, src, sizeof h);
    memcpy(dst, src, sizeof h);
    if (!(h.flags & PSG_UNIT_DEFLATED)) {
        memcpy(dst + sizeof h, src + sizeof h, raw - sizeof h);
    } else {
        uLongf out = (uLongf)(raw - sizeof h);
        uLong in = (uLong)(stored - sizeof h); /* includes zero padding after the stream */
        int zr = uncompress2(dst + sizeof h, &out, src + sizeof h, &in);
        if (zr != Z_OK || out != raw - sizeof h)
            return sc_fail(err, errlen, "PSG unit at byte %zu: compressed payload corrupt (%s)", at,
                        zr != Z_OK ? zError(zr) : "wrong decoded size");
    }
    if (h.flags & PSG_UNIT_BYTE_PLANES) {
        const size_t rb = sizeof(struct psg_vertex_record), nr = h.vertex_count;
        unsigned char *planes = malloc(nr * rb + 1), *recs = dst + sizeof h;
        if (!planes)
            return sc_fail(err, errlen, "PSG unit at byte %zu: out of memory", at);
        memcpy(planes, recs, nr * rb);
        for (size_t k = 0; k < rb; k++)
            for (size_t i = 0; i < nr; i++)
                recs[i * rb + k] = planes[k * nr + i];
        free(planes);
    }
    return 0;
}

/* Pass 1 of psg_parse: validates the unit headers of bytes[n] and counts
 * units, vertices and the bytes they decode to (each unit 8-aligned).
 * 0, or -1 with the reason in err. */
static int psg_count(const unsigned char *p, size_t n, size_t *units, size_t *verts, uint64_t *raw_total,
                     char *err, size_t errlen)
{
    size_t at = 0;
    while (at < n) {
        if (p[at] == 0) { /* linker padding */
            at++;
            continue;
        }
        uint64_t raw;
        uint64_t sz = check_unit(p + at, n - at, at, &raw, err, errlen);
        if (!sz)
            return -1;
        struct psg_unit_header h;
        memcpy(&h, p + at, sizeof h);
        (*units)++;
        *verts += h.vertex_count;
        *raw_total += (raw + 7) & ~(uint64_t)7;
        if (*raw_total > 4ull * PSG_MAX_RAW_UNIT)
            return sc_fail(err, errlen, "PSG section decodes to more than %u MiB (corrupt?)",
                        4 * (PSG_MAX_RAW_UNIT >> 20));
        at += sz;
    }
    return 0;
}

/* Pass 2 of psg_parse for the unit at byte at (header h): inflated into u
 * (raw bytes), its vertices from *vi on in all, the unit out->units' next.
 * 0, or -1 with the reason in err. */
static int psg_decode_unit(const unsigned char *p, size_t at, const struct psg_unit_header *hp, unsigned char *u,
                           uint64_t raw, struct psg_vertex *all, size_t *vi, struct psg_graph *out, char *err,
                           size_t errlen)
{
    const struct psg_unit_header h = *hp;
    const char *why = NULL;
    if (inflate_unit(p + at, h.unit_bytes, u, raw, at, err, errlen) != 0)
        why = "";
    const char *strings = (const char *)u + sizeof h +
                          (size_t)h.vertex_count * sizeof(struct psg_vertex_record);
    if (!why && (strings[h.string_bytes - 1] != '\0' || strings[0] != '\0')) {
        sc_fail(err, errlen, "PSG unit at byte %zu: string table not NUL-terminated", at);
        why = "";
    }
#define STR(off) ((off) < h.string_bytes ? strings + (off) : "")
    struct psg_unit *un = &out->units[out->unit_count++];
    un->vertices = all + *vi;
    if (!why) {
        un->flags = h.flags;
        un->language = h.language;
        un->loop_depth_limit = h.loop_depth_limit;
        un->unit_hash = h.unit_hash;
        un->unit_name = STR(h.unit_name);
        un->producer = STR(h.producer);
        un->vertex_count = h.vertex_count;
    }
    for (uint32_t k = 0; !why && k < h.vertex_count; k++) {
        struct psg_vertex_record r;
        memcpy(&r, u + sizeof h + (size_t)k * sizeof r, sizeof r);
        if (r.parent != PSG_NO_PARENT && r.parent >= k) {
            sc_fail(err, errlen, "PSG unit at byte %zu: vertex %u has parent %u (must precede "
                 "it)", at, k, r.parent);
            why = "";
            break;
        }
        struct psg_vertex *v = &all[(*vi)++];
        v->stable_id = r.stable_id;
        v->parent = r.parent;
        v->kind = r.kind;
        v->flags = r.flags;
        v->op = r.op;
        v->loop_depth = r.loop_depth;
        v->file = STR(r.file);
        v->first_line = r.first_line;
        v->last_line = r.last_line;
        v->column = r.column;
        v->function = STR(r.function);
        v->display_name = STR(r.display_name);
        v->callee = STR(r.callee);
    }
#undef STR
    return why ? -1 : 0;
}

int psg_parse(const void *bytes, size_t n, struct psg_graph *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const unsigned char *p = bytes;
    /* pass 1: validate headers, count */
    size_t units = 0, verts = 0;
    uint64_t raw_total = 0;
    if (psg_count(p, n, &units, &verts, &raw_total, err, errlen) != 0)
        return -1;
    if (units == 0)
        return 0;
    out->storage_ = malloc(raw_total);
    out->units = calloc(units, sizeof *out->units);
    struct psg_vertex *all = calloc(verts ? verts : 1, sizeof *all);
    if (!out->storage_ || !out->units || !all) {
        free(all);
        psg_graph_free(out);
        return sc_fail(err, errlen, "out of memory reading PSG (%zu bytes)", n);
    }
    /* pass 2: decode */
    size_t at = 0, vi = 0;
    uint64_t roff = 0;
    while (at < n) {
        if (p[at] == 0) {
            at++;
            continue;
        }
        struct psg_unit_header h;
        memcpy(&h, p + at, sizeof h);
        uint64_t raw = (uint64_t)sizeof h + (uint64_t)h.vertex_count *
                       sizeof(struct psg_vertex_record) + h.string_bytes;
        unsigned char *u = (unsigned char *)out->storage_ + roff;
        if (psg_decode_unit(p, at, &h, u, raw, all, &vi, out, err, errlen) != 0) {
            psg_graph_free(out);
            return -1;
        }
        roff += (raw + 7) & ~(uint64_t)7;
        at += h.unit_bytes;
    }
    return 0;
}

void psg_graph_free(struct psg_graph *g)
{
    if (!g)
        return;
    if (g->units && g->unit_count)
        free(g->units[0].vertices);
    free(g->units);
    free(g->storage_);
    memset(g, 0, sizeof *g);
}
