/* binstruct.h — the Program Structure Graph of a binary built without
 * scalana-cc, recovered from its machine code and DWARF (docs/binstruct.md).
 * Functions come from the symbol tables and DWARF subprograms, loops from
 * the control-flow graph of the disassembled code (Capstone), their source
 * lines and inline scopes from the DWARF line table and inline information
 * (libdw).  The result is one PSG unit in the on-disk form the compiler pass
 * writes (include/scalana/psg_format.h), so attribution reads both alike.
 * Internal to the analyzer; the bs_ prefix marks the module. */
#ifndef SCALANA_BINSTRUCT_H
#define SCALANA_BINSTRUCT_H

#include <stddef.h>
#include <stdint.h>

#include "scalana/psg_format.h"

/** Producer string of recovered units: readers tell them from the pass's.
 *  The number is the version of the recovery rules: bump it when a change
 *  alters what is recovered, so that cached PSGs of older rules are
 *  recovered again. */
#define BS_PRODUCER "scalana-binstruct"
#define BS_RULES_VERSION "10"
#define BS_PRODUCER_FULL BS_PRODUCER " " BS_RULES_VERSION " (structure recovered from machine code)"

/* ---- Public entry points (build.c, cache.c) ------------------------------- */

/** Recovers the PSG of the ELF file at path.  On success returns 0 and
 *  *out (malloc'ed, caller frees) holds one serialised PSG unit of *out_bytes
 *  bytes (psg_parse reads it); *nloops receives the number of loops found
 *  (may be NULL).  Returns -1 with a one-line reason naming the file in err
 *  when the file cannot be read, is not ELF, has no code, or the
 *  architecture has no disassembler here (x86-64 only), or Capstone was
 *  not available at build time. */
int bs_recover(const char *path, unsigned char **out, size_t *out_bytes, uint32_t *nloops, char *err,
               size_t errlen);

/** Whether this build can recover structure (Capstone was found). */
int bs_available(void);

/** Where the cache lives and whether it is used. */
struct bs_cache_opts {
    int disabled;        /* 1: always recover, never read or write the cache */
    const char *dir;     /* NULL: $SCALANA_PSG_CACHE, else $XDG_CACHE_HOME/scalana/psg,
                            else $HOME/.cache/scalana/psg */
};

/** What bs_load did (for the report and the terminal summary). */
struct bs_load_info {
    int from_cache;      /* 1: the PSG came from the cache file */
    int cache_written;   /* 1: a new cache file was written */
    uint32_t loops;      /* loops in the unit (counted after parsing) */
    uint32_t functions;  /* FUNCTION vertices */
    char cache_path[1280]; /* "" when no cache file was involved */
    char cache_problem[1400]; /* "" or why the cache could not be written:
                                 names the directory and where it came from */
};

/** The recovered PSG of path (build-id hex string build_id, "" unknown),
 *  parsed into out: from the cache file <dir>/<build-id>.psg when it exists,
 *  parses and was made by these recovery rules (BS_PRODUCER_FULL), else recovered and written there (atomically, through a
 *  temporary file and rename).  A cache file that does not parse is
 *  replaced; a cache that cannot be written only costs the next run the
 *  recovery (info->cache_problem says why, for the caller's warning).  Without a build-id nothing is cached.  Returns 0 on success,
 *  -1 with a reason in err. */
int bs_load(const char *path, const char *build_id, const struct bs_cache_opts *co, struct psg_graph *out,
            struct bs_load_info *info, char *err, size_t errlen);

/** As bs_load, but the unit's bytes (malloc'ed, caller frees) instead of
 *  the parsed graph, for callers that join several units into one graph. */
int bs_load_bytes(const char *path, const char *build_id, const struct bs_cache_opts *co, unsigned char **bytes,
                  size_t *nbytes, struct bs_load_info *info, char *err, size_t errlen);

/** The cache directory bs_load uses for co (never NULL; "" when no home
 *  directory is known). */
const char *bs_cache_dir(const struct bs_cache_opts *co, char *buf, size_t buflen);

/** Whether unit u was recovered by binstruct (its producer says so). */
int bs_unit_is_recovered(const struct psg_unit *u);

/* ---- Internal pieces, one file each ---------------------------------------- */

/** Instruction classes that shape the control-flow graph. */
enum bs_insn_kind {
    BS_I_OTHER = 0, /* falls through */
    BS_I_JMP,       /* direct unconditional jump to target */
    BS_I_JCC,       /* direct conditional jump: target or fall through (also loop/jrcxz) */
    BS_I_JMP_IND,   /* jump through a register or memory: a jump table or a tail call */
    BS_I_CALL,      /* direct call to target; falls through */
    BS_I_CALL_IND,  /* indirect call; falls through */
    BS_I_RET,       /* return */
    BS_I_HALT       /* ud2, hlt: no successor */
};

/** Facts about operands that jump-table recovery needs (x86-64). */
enum bs_insn_flags {
    BS_F_LEA_RIP = 1u << 0,  /* `lea disp(%rip), reg`: target is the address it computes */
    BS_F_CMP_IMM = 1u << 1,  /* `cmp $imm, reg`: target is imm (a jump table's bound) */
    BS_F_ABS_TABLE = 1u << 2, /* BS_I_JMP_IND `jmp *disp(,%reg,8)`: target is the table of
                                 absolute 8-byte addresses at disp (non-PIE code) */
    BS_F_GOT_SLOT = 1u << 3,  /* BS_I_CALL_IND/BS_I_JMP_IND through `disp(%rip)` (-fno-plt):
                                 target is the GOT slot holding the callee's address */
    BS_F_NO_LINE = 1u << 4,   /* a move to or from the stack frame (a register spill or the
                                 reload of a local before a later use) or a nop: the line it
                                 carries is where the value is used, not work of the loop */
    BS_F_NOP = 1u << 5,       /* a nop (alignment padding between blocks) */
    BS_F_STEP = 1u << 6       /* a register stepped by a constant (add/sub $imm, inc, dec): the
                                 increment of a loop's induction variable or pointer */
};

struct bs_insn {
    uint64_t addr;   /* ELF virtual address */
    uint64_t target; /* direct jumps and calls: the destination; see also enum bs_insn_flags */
    uint8_t size, kind, flags;
};

/* elf.c */
struct bs_sym { uint64_t addr, size; const char *name; };
struct bs_section { uint64_t addr, size, offset; int exec; const char *name; };
/** An ELF file mapped read-only, with what recovery needs from it. */
struct bs_elf {
    const char *path;
    unsigned char *map; size_t map_bytes;
    void *elf;            /* Elf * (libelf), over map */
    unsigned machine;     /* e_machine */
    struct bs_section *secs; size_t nsecs; /* allocated sections with bytes in the file */
    struct bs_sym *funcs; size_t nfuncs;   /* defined FUNC symbols (symtab, else dynsym), by address */
    struct bs_sym *plt; size_t nplt;       /* PLT stubs: address and the imported name */
    struct bs_sym *got; size_t ngot;       /* GOT slots of imported functions (-fno-plt calls) */
};
/** Maps path and reads its sections, function symbols and PLT/GOT imports.
 *  Returns 0, or -1 with a reason naming the file in err (missing, not ELF,
 *  not 64-bit little-endian, no symbols nor code). */
int bs_elf_open(const char *path, struct bs_elf *e, char *err, size_t errlen);
void bs_elf_close(struct bs_elf *e);
/** The bytes of the section called name (e.g. SCALANA_PSG_SECTION, which is
 *  not allocated): 0 with *data pointing into the mapping, -1 when absent. */
int bs_elf_section(const struct bs_elf *e, const char *name, const unsigned char **data, size_t *n);
/** bs_read_fn over the file's allocated sections (ctx: struct bs_elf *). */
int bs_elf_read(void *ctx, uint64_t addr, void *out, size_t n);
/** The bytes at [addr, addr+n) when they lie in one executable section, else NULL. */
const unsigned char *bs_elf_code(const struct bs_elf *e, uint64_t addr, size_t n);
/** The entry of a sorted table (funcs, plt, got) at exactly addr, or NULL. */
const struct bs_sym *bs_sym_at(const struct bs_sym *t, size_t n, uint64_t addr);
/** The entry of a sorted table of ranges holding addr, or NULL. */
const struct bs_sym *bs_sym_holding(const struct bs_sym *t, size_t n, uint64_t addr);

/* dwarf.c */
struct an_strpool;
/** One scope of a function's code: the subprogram itself (index 0) or an
 *  inlined instance of another function inside it.  Names are interned. */
struct bs_scope {
    uint32_t parent;        /* enclosing scope's index, UINT32_MAX for the subprogram */
    uint32_t depth;         /* 0 for the subprogram */
    const char *name;       /* linkage name, as the analyzer's symbolizer names frames */
    const char *display;    /* the name in the source (DW_AT_name) */
    const char *decl_file;  /* absolute when the compile directory is known; "" unknown */
    uint32_t decl_line;     /* 0 unknown */
    const char *call_file;  /* inlined instances: where the call is ("" for the subprogram) */
    uint32_t call_line, call_col;
    uint64_t entry;         /* entry address (DW_AT_entry_pc, else the lowest address) */
    uint64_t (*ranges)[2];  /* [lo, hi) address ranges */
    uint32_t nranges;
};
/** A function with code: its DWARF subprogram (or only a symbol) and the
 *  inlined instances in it. */
struct bs_func {
    struct bs_scope *scope; uint32_t nscopes;
    void *cu;               /* Dwarf_Die * of its compile unit (NULL: symbol only) */
    uint32_t language;      /* enum psg_language */
};
struct bs_dwarf {
    void *dw;               /* Dwarf * */
    void *dwfl;             /* Dwfl * owning dw when it came from a separate debug file */
    void *cus; size_t ncus; /* Dwarf_Die[] */
    struct bs_func *f; size_t nf;
    struct an_strpool *pool;
};
/** Every function with code in e: DWARF subprograms with address ranges
 *  (namespaces, classes, Fortran modules and contained procedures
 *  included), then the defined function symbols that no subprogram covers.
 *  Returns 0 (also without DWARF: symbols only), -1 out of memory. */
int bs_dwarf_functions(const struct bs_elf *e, struct an_strpool *pool, struct bs_dwarf *out);
void bs_dwarf_free(struct bs_dwarf *d);
/** The line-table row of addr in f's compile unit: base name of its file,
 *  line, column and the address where the row starts (row_addr may be
 *  NULL).  Returns 0 when found, -1 when the address has no row (or f has
 *  no DWARF). */
int bs_dwarf_line(const struct bs_func *f, uint64_t addr, const char **base, uint32_t *line, uint32_t *col,
                  uint64_t *row_addr);
/** The file of addr's line-table row made absolute (interned in d's pool),
 *  or "" when there is no row. */
const char *bs_dwarf_file(const struct bs_dwarf *d, const struct bs_func *f, uint64_t addr);
/** The statements that begin at each of the function's instructions
 *  ins[0..n) (sorted by address), from the line-table rows marked is_stmt
 *  whose address lies in instruction i and whose file has the base name
 *  base[i] (that of the row covering it): stmt[i] the line of such a row
 *  with code (the last row at its address), stmt0[i] the smallest line of a
 *  zero-length one (a statement without code of its own: a `for` whose test
 *  was folded into another jump, the `i++` of a loop whose code carries the
 *  test's row, the `return` of an inlined callee that ended just before)
 *  that is not above the line of the code at that address (a declaration
 *  without code just before a loop precedes it in the text); 0 when none. */
void bs_dwarf_stmt_lines(const struct bs_func *f, const struct bs_insn *ins, size_t n, const char *const *base,
                         uint32_t *stmt, uint32_t *stmt0);

/* disasm.c */
struct bs_disasm;
/** A disassembler for the ELF machine e_machine (EM_X86_64 only).  NULL
 *  when the machine is not supported or Capstone fails to open. */
struct bs_disasm *bs_disasm_new(unsigned e_machine);
void bs_disasm_free(struct bs_disasm *d);
/** Decodes code[0..n) at address addr, appending to *v (count *nv, capacity
 *  *cap; realloc'ed).  Bytes that do not decode are skipped one at a time.
 *  Returns 0, or -1 when out of memory. */
int bs_disasm_range(struct bs_disasm *d, const unsigned char *code, size_t n, uint64_t addr,
                    struct bs_insn **v, size_t *nv, size_t *cap);

/** Index of the first instruction of ins[0..n) (sorted by address) at or
 *  after address a; n when there is none (cfg.c). */
uint32_t bs_insn_lower_bound(const struct bs_insn *ins, size_t n, uint64_t a);

/* cfg.c */
struct bs_cfg {
    uint32_t nblocks;
    uint32_t *first;    /* first instruction index of each block, ascending */
    uint32_t *count;    /* instructions in each block */
    uint32_t *succ_off; /* successors of block b: succ[succ_off[b] .. succ_off[b+1]) */
    uint32_t *succ;
    uint32_t entry;     /* block holding the function's entry address */
    uint32_t unresolved_indirect; /* indirect jumps whose targets were not found */
};
/** Reader of the bytes at a virtual address (for jump tables): copies n
 *  bytes at addr into out, returns 0, or -1 when addr is not in the file. */
typedef int (*bs_read_fn)(void *ctx, uint64_t addr, void *out, size_t n);
/** Builds the basic blocks and edges of one function's instructions ins[0..n)
 *  (sorted by address; the function's own address ranges only).  Edges:
 *  fall-through, direct jumps inside the function, and the entries of
 *  jump tables found from an indirect jump (gcc's relative int32 tables);
 *  an indirect jump that is not resolved gets an edge to every block that
 *  nothing else reaches, so their loops are still found.  Jumps out of the
 *  function (tail calls) have no edge.  out->entry is the block of address
 *  entry.  Returns 0 or -1 when out of memory. */
int bs_cfg_build(const struct bs_insn *ins, size_t n, uint64_t entry, bs_read_fn rd, void *rdctx,
                 struct bs_cfg *out);
void bs_cfg_free(struct bs_cfg *c);
/** Index of the block holding instruction index i (binary search). */
uint32_t bs_cfg_block_of(const struct bs_cfg *c, uint32_t i);

/* loops.c */
struct bs_loop {
    uint32_t header;  /* block */
    uint32_t parent;  /* index of the enclosing loop, or UINT32_MAX */
    uint32_t depth;   /* 0 outermost */
    uint32_t nblocks; /* blocks of the loop, nested loops' included */
    uint32_t *blocks; /* sorted */
    uint32_t nlatches; /* sources of the back edges to the header */
    uint32_t *latches;
};
struct bs_loops {
    uint32_t n;
    struct bs_loop *loop; /* outer loops before the loops nested in them */
    uint32_t irreducible; /* retreating edges whose target does not dominate their source */
};
/** Natural loops of the CFG from its entry block: immediate dominators by the
 *  iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
 *  Dominance Algorithm", 2001) on reverse post-order, a back edge t->h
 *  where h dominates t, the loop of h the blocks that reach a back edge's
 *  source without passing h (all back edges of one header make one loop),
 *  nesting by containment.  Returns 0 or -1 when out of memory. */
int bs_loops_find(const struct bs_cfg *c, struct bs_loops *out);
void bs_loops_free(struct bs_loops *l);
/** Whether block b belongs to loop l (binary search). */
int bs_loop_has(const struct bs_loop *l, uint32_t b);

#endif
