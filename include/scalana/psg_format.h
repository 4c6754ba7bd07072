/* psg_format.h — the Program Structure Graph as embedded in binaries.
 * Written by the compiler pass (plugin/), read by scalana-dump and scalana-analyze.
 * One definition shared by the writer and the reader; see docs/formats.md. */
#ifndef SCALANA_PSG_FORMAT_H
#define SCALANA_PSG_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- On-disk layout -------------------------------------------------------
 * The pass emits one *unit* per translation unit into the ELF section
 * SCALANA_PSG_SECTION, marked non-allocated (flags ""), so it survives
 * --gc-sections and strip and costs nothing at run time.  The linker
 * concatenates the units of all objects; it may insert zero padding between
 * them, so a reader skips zero bytes up to the next 8-byte boundary and then
 * expects a magic.  All integers little-endian.
 *
 *   unit   := psg_unit_header  payload  zero padding to 8
 *   payload:= psg_vertex_record[vertex_count]  strings, stored as one zlib
 *             (RFC 1950) stream when PSG_UNIT_DEFLATED is set (always, from
 *             version 2 on), else as is; with PSG_UNIT_BYTE_PLANES (always,
 *             from version 3 on) the records part holds byte k of every
 *             record before byte k+1 (record i's byte k at k*vertex_count+i)
 *   strings:= string_bytes bytes of NUL-terminated UTF-8; offset 0 is "".
 *   unit_bytes (in the header) covers header, payload and padding.
 *
 * Vertices are listed in pre-order: a parent precedes its children and the
 * children of one parent appear in program order.  FUNCTION vertices are the
 * roots (parent == PSG_NO_PARENT).  A LOOP implies the back edge from its last
 * child to its first.
 *
 * Versioning: bump SCALANA_PSG_VERSION when a field changes meaning or the
 * record size changes; readers refuse other versions with a clear message.
 * Kinds, flags and string slots are only ever appended, never reused.
 * When adding a field: update psg_io.c (writer and reader), the pass
 * (plugin/PsgEmitter.cpp), scalana-dump, and docs/formats.md. */

#define SCALANA_PSG_SECTION ".scalana_psg"
#define SCALANA_PSG_MAGIC "SCLNPSG" /* 8 bytes with the NUL */
#define SCALANA_PSG_MAGIC_LEN 8
#define SCALANA_PSG_VERSION 3u /* 2: payload deflated (PSG_UNIT_DEFLATED);
                                  3: records stored as byte planes (PSG_UNIT_BYTE_PLANES) */
#define SCALANA_PSG_MIN_VERSION 2u /* oldest version readers still accept */
#define PSG_NO_PARENT UINT32_MAX

/** Vertex kinds (docs/plugin.md, "How a function becomes a tree").  Values
 *  are fixed forever. */
enum psg_kind {
    PSG_FUNCTION = 1,       /* a defined function; root of its subtree */
    PSG_LOOP = 2,           /* a natural loop; nested loops nest */
    PSG_BRANCH = 3,         /* conditional region with something kept in an arm */
    PSG_CALL = 4,           /* direct call to a defined function */
    PSG_CALL_INDIRECT = 5,  /* call through a pointer */
    PSG_CALL_RECURSIVE = 6, /* call into the caller's call-graph SCC; not expanded */
    PSG_MPI = 7,            /* call to an MPI routine (C or Fortran spelling) */
    PSG_GPU = 8,            /* CUDA launch / copy / synchronise call */
    PSG_COMPUTE = 9,        /* straight-line or folded work inside its parent */
    PSG_KIND_MAX_ = 10
};

/** Unit flags. */
enum psg_unit_flags {
    PSG_UNIT_HAS_DEBUG_INFO = 1u << 0, /* lines/columns are meaningful */
    PSG_UNIT_OPTIMIZED = 1u << 1,      /* built at -O1 or above */
    PSG_UNIT_DEFLATED = 1u << 2,       /* records + strings are one zlib stream */
    PSG_UNIT_MARKS_CONDITIONAL = 1u << 4, /* the pass flags PSG_V_CONDITIONAL: a vertex of this
                                             unit without it is reached unconditionally from
                                             its parent (older units: unknown) */
    PSG_UNIT_BYTE_PLANES = 1u << 3     /* records stored transposed: byte 0 of every record,
                                          then byte 1, ... (version 3 on; deflates to half) */
};

/** Vertex flags. */
enum psg_vertex_flags {
    PSG_V_FOLDED = 1u << 0,      /* COMPUTE that absorbed loops/branches (contraction) */
    PSG_V_DEPTH_CUT = 1u << 1,   /* LOOP folded by the kept-loop-depth limit */
    PSG_V_LINKONCE = 1u << 2,    /* FUNCTION is COMDAT/linkonce (appears once after merge) */
    PSG_V_EXTERNAL_CALLEE = 1u << 3, /* CALL to a declaration outside the unit */
    PSG_V_REACHES_MPI = 1u << 4, /* subtree contains MPI/GPU or a call that can reach one */
    PSG_V_ATTRIBUTION_ONLY = 1u << 5, /* LOOP/CALL kept inside a FOLDED COMPUTE (or a FUNCTION
                                        that cannot reach MPI) so that samples find their loop;
                                        the backward walk steps over the COMPUTE as one vertex */
    PSG_V_CONDITIONAL = 1u << 6  /* ATTRIBUTION_ONLY vertex lifted out of a branch arm that
                                    contraction folded (`if (rank == 0) f();`): reached only
                                    when the branch is taken (units with
                                    PSG_UNIT_MARKS_CONDITIONAL) */
};

/** Source language of a unit (DW_LANG family). */
enum psg_language { PSG_LANG_UNKNOWN = 0, PSG_LANG_C = 1, PSG_LANG_CXX = 2, PSG_LANG_FORTRAN = 3 };

/** Unit header: 64 bytes. */
struct psg_unit_header {
    char magic[SCALANA_PSG_MAGIC_LEN]; /* SCALANA_PSG_MAGIC */
    uint32_t version;                  /* SCALANA_PSG_VERSION */
    uint32_t header_bytes;             /* sizeof(struct psg_unit_header) */
    uint64_t unit_bytes;               /* header + records + strings, multiple of 8 */
    uint32_t vertex_count;
    uint32_t vertex_record_bytes;      /* sizeof(struct psg_vertex_record) */
    uint32_t string_bytes;
    uint32_t flags;                    /* enum psg_unit_flags */
    uint32_t unit_name;                /* string: DICompileUnit file (absolute when known) */
    uint32_t producer;                 /* string: compiler identification */
    uint32_t language;                 /* enum psg_language */
    uint32_t loop_depth_limit;         /* kept-loop-depth limit used by contraction */
    uint64_t unit_hash;                /* FNV-1a 64 of unit_name + producer; identifies the unit */
};

/** One vertex: 64 bytes.  String fields are offsets into the unit's strings. */
struct psg_vertex_record {
    uint64_t stable_id;    /* hash of (unit, function, kind, file, line, column, ordinal);
                              equal across builds of the same source */
    uint32_t parent;       /* index of the parent in this unit, or PSG_NO_PARENT */
    uint16_t kind;         /* enum psg_kind */
    uint16_t flags;        /* enum psg_vertex_flags */
    uint32_t op;           /* PSG_MPI: enum scalana_mpi_op; PSG_GPU: enum psg_gpu_op; else 0 */
    uint32_t loop_depth;   /* number of enclosing LOOP vertices in the function */
    uint32_t file;         /* string: source file (absolute when the compiler knew it) */
    uint32_t first_line;   /* 0 when unknown (no debug info) */
    uint32_t last_line;    /* last source line covered, including folded subtrees */
    uint32_t column;       /* column of call-like vertices, else 0 */
    uint32_t function;     /* string: linkage name of the enclosing function */
    uint32_t display_name; /* string: demangled function name (FUNCTION) or callee display */
    uint32_t callee;       /* string: callee linkage name (CALL*, MPI, GPU), else 0 */
    uint32_t inlined_at;   /* reserved for an inline chain; 0 today */
    uint32_t reserved0;
    uint32_t reserved1;
};

/** GPU operations recognised by the pass (PSG_GPU.op). Fixed values. */
enum psg_gpu_op {
    PSG_GPU_OTHER = 0,
    PSG_GPU_LAUNCH = 1,      /* cudaLaunchKernel, <<<>>>, cuLaunchKernel */
    PSG_GPU_MEMCPY = 2,      /* cudaMemcpy*, cuMemcpy* */
    PSG_GPU_MEMSET = 3,      /* cudaMemset* */
    PSG_GPU_SYNCHRONIZE = 4, /* cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize */
    PSG_GPU_MALLOC = 5,      /* cudaMalloc*, cudaFree* */
    PSG_GPU_OP_MAX_ = 6
};

/* ---- In-memory API (formats/psg_io.c) ------------------------------------ */

/** A decoded vertex; strings point into the owning psg_graph. */
struct psg_vertex {
    uint64_t stable_id;
    uint32_t parent;        /* index into psg_unit.vertices, or PSG_NO_PARENT */
    uint16_t kind, flags;
    uint32_t op, loop_depth;
    const char *file;
    uint32_t first_line, last_line, column;
    const char *function, *display_name, *callee;
};

struct psg_unit {
    uint32_t flags, language, loop_depth_limit;
    uint64_t unit_hash;
    const char *unit_name, *producer;
    struct psg_vertex *vertices;
    uint32_t vertex_count;
};

/** All units of one binary (or of several binaries merged by the caller). */
struct psg_graph {
    struct psg_unit *units;
    uint32_t unit_count;
    char *storage_; /* owned copy of the section bytes */
};

/** Builder used by the writer (the pass): strings are interned, records
 *  appended in pre-order. Every function returns 0 on success, -1 on
 *  allocation failure (then the builder is unusable and psg_builder_free
 *  must still be called). */
struct psg_builder;
struct psg_builder *psg_builder_new(const char *unit_name, const char *producer,
                                    uint32_t language, uint32_t flags,
                                    uint32_t loop_depth_limit);
/** Appends a vertex; returns its index or UINT32_MAX on failure.  v->parent
 *  must be an index already returned (or PSG_NO_PARENT); strings may be NULL. */
uint32_t psg_builder_add(struct psg_builder *b, const struct psg_vertex *v);
/** Serialises the unit. On success *out is malloc'ed (caller frees) and
 *  *out_bytes is a multiple of 8. Returns 0 or -1. */
int psg_builder_finish(struct psg_builder *b, unsigned char **out, size_t *out_bytes);
void psg_builder_free(struct psg_builder *b);

/** Parses a section's bytes (one or more concatenated units, zero padding
 *  allowed between them).  Returns 0 on success; on failure returns -1 and
 *  writes a one-line reason (naming the byte offset) into err. */
int psg_parse(const void *bytes, size_t n, struct psg_graph *out, char *err, size_t errlen);

/** Reads SCALANA_PSG_SECTION from an ELF file with libelf. Returns 1 when the
 *  file has the section and it parsed, 0 when the file has no such section
 *  (out is then an empty graph), -1 on error (err names the file and why). */
int psg_read_elf(const char *path, struct psg_graph *out, char *err, size_t errlen);

void psg_graph_free(struct psg_graph *g);

/** Name of a kind ("FUNCTION", "LOOP", ...) or "UNKNOWN". */
const char *psg_kind_name(unsigned kind);
/** Name of a GPU op ("launch", "memcpy", ...). */
const char *psg_gpu_op_name(unsigned op);
/** FNV-1a 64-bit hash, used for stable ids and unit hashes. */
uint64_t psg_fnv1a64(const void *data, size_t n, uint64_t seed);
#define PSG_FNV_SEED 0xcbf29ce484222325ull

#ifdef __cplusplus
}
#endif
#endif
